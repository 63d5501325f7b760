//! Which aspects a type name uses: builtin and SYCL types (the features table), `typedef` /
//! `using` aliases declared in any file, classes decorated with `uses_aspects` and classes that
//! hold such types by value.
//!
//! Names are matched by their last component, narrowed by any qualifier written. When several
//! declarations share a name and disagree, only what all of them use counts: a finding must
//! never rest on a guess between unrelated types.

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use crate::base::SourceFile;
use crate::devices::AspectSet;
pub use crate::semantic::known_aspects;
use crate::semantic::names::{scope_ends_with, split_type};
use crate::semantic::Decls;

/// How deep alias chains are followed to a builtin type.
const MAX_DEPTH: usize = 16;

pub struct TypeIndex<'a> {
    files: &'a [SourceFile],
    /// Aliases and classes by name (the semantic layer's, kept across edits).
    decls: &'a Decls,
    /// Whether any alias carries `uses_aspects` (most workspaces: none, so nothing to follow).
    any_tags: bool,
    /// Memo per type text: chains fan out over every same-named alias in the workspace.
    tags: RefCell<HashMap<Box<str>, AspectSet>>,
}

impl<'a> TypeIndex<'a> {
    pub fn new(files: &'a [SourceFile], decls: &'a Decls) -> Self {
        let any_tags = files.iter().any(|f| {
            f.facts
                .aliases
                .iter()
                .any(|a| !known_aspects(&a.uses_aspects).is_empty())
        });
        Self {
            files,
            decls,
            any_tags,
            tags: RefCell::default(),
        }
    }

    /// What `uses_aspects` on `typedef`/`using` declarations along an alias chain add to a
    /// type: the semantic layer sees through aliases to the type they name.
    pub fn alias_tags(&self, text: &str) -> AspectSet {
        if !self.any_tags {
            return AspectSet::EMPTY;
        }
        self.alias_tags_at(text, 0)
    }

    fn alias_tags_at(&self, text: &str, depth: usize) -> AspectSet {
        if depth > MAX_DEPTH {
            return AspectSet::EMPTY;
        }
        if let Some(&set) = self.tags.borrow().get(text) {
            return set;
        }
        let (qualifier, name) = split_type(text);
        let decls = self.decls.aliases_named(name);
        if decls.is_empty() {
            return AspectSet::EMPTY;
        }
        let set = agreed(
            decls
                .iter()
                .map(|&(f, i)| &self.files[f as usize].facts.aliases[i as usize])
                .filter(|a| scope_ends_with(&a.scope, &qualifier) && a.target != text)
                .map(|a| {
                    known_aspects(&a.uses_aspects).union(self.alias_tags_at(&a.target, depth + 1))
                }),
        );
        self.tags.borrow_mut().insert(text.into(), set);
        set
    }

    /// Whether any alias declares aspects (else every alias's tags are empty).
    pub fn any_tags(&self) -> bool {
        self.any_tags
    }

    /// Whether some class of the workspace has the last component of `name` as its name.
    pub fn has_class(&self, name: &str) -> bool {
        let (_, last) = split_type(name);
        !self.decls.classes_named(last).is_empty()
    }
}

/// The aspects every candidate agrees on; none when there is no candidate.
fn agreed(sets: impl Iterator<Item = AspectSet>) -> AspectSet {
    sets.reduce(AspectSet::intersection).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::registry;
    use crate::syntax::extract;
    use std::sync::Arc;

    #[test]
    fn alias_tags_follow_chains_and_need_agreement() {
        let files = vec![SourceFile {
            path: Arc::from("t.cpp"),
            facts: Arc::new(extract(
                "using T1 [[__sycl_detail__::__uses_aspects__(sycl::aspect::cpu)]] = float;\n\
                 using T2 = T1;\nnamespace a { using h [[__sycl_detail__::__uses_aspects__(sycl::aspect::gpu)]] = int; }\n\
                 namespace b { using h = int; }\n",
            )),
        }];
        let decls = Decls::new(files.iter().map(|f| &*f.facts));
        let ix = TypeIndex::new(&files, &decls);
        assert_eq!(registry().sorted_names(ix.alias_tags("T2")), ["cpu"]);
        assert_eq!(registry().sorted_names(ix.alias_tags("a::h")), ["gpu"]);
        // Unqualified and ambiguous: the declarations disagree, nothing is claimed.
        assert!(ix.alias_tags("h").is_empty());
    }
}
