//! Which aspects a type name uses: builtin and SYCL types (the features table), `typedef` /
//! `using` aliases declared in any file, classes decorated with `uses_aspects` and classes that
//! hold such types by value.
//!
//! Names are matched by their last component, narrowed by any qualifier written. When several
//! declarations share a name and disagree, only what all of them use counts: a finding must
//! never rest on a guess between unrelated types.

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use super::features::{features, names};
use super::SourceFile;
use crate::devices::{registry, AspectSet};
use crate::syntax::{AspectRef, Class};

/// How deep alias chains are followed to a builtin type.
const MAX_DEPTH: usize = 16;

struct AliasDecl<'a> {
    scope: &'a [String],
    target: &'a str,
    uses: AspectSet,
}

pub struct TypeIndex<'a> {
    aliases: HashMap<&'a str, Vec<AliasDecl<'a>>>,
    classes: HashMap<&'a str, Vec<&'a Class>>,
    memo: RefCell<HashMap<String, AspectSet>>,
}

pub fn known_aspects(refs: &[AspectRef]) -> AspectSet {
    refs.iter()
        .filter_map(|r| match r {
            AspectRef::Named { name, .. } => registry().by_name(name),
            AspectRef::Unknown { .. } => None,
        })
        .collect()
}

/// `(qualifier components, name)` of a type text, template arguments dropped.
pub(super) fn split(text: &str) -> (Vec<&str>, &str) {
    let base = text.split('<').next().unwrap_or(text).trim();
    let mut parts: Vec<&str> = base.split("::").filter(|p| !p.is_empty()).collect();
    let name = parts.pop().unwrap_or("");
    (parts, name)
}

/// Does a declaration in `scope` match a mention qualified by `qualifier`?
fn scope_matches(scope: &[String], qualifier: &[&str]) -> bool {
    qualifier.len() <= scope.len()
        && scope[scope.len() - qualifier.len()..]
            .iter()
            .zip(qualifier)
            .all(|(s, q)| s == q)
}

impl<'a> TypeIndex<'a> {
    pub fn new(files: &'a [SourceFile]) -> Self {
        let mut aliases: HashMap<&str, Vec<AliasDecl>> = HashMap::default();
        let mut classes: HashMap<&str, Vec<&Class>> = HashMap::default();
        for f in files {
            for a in &f.facts.aliases {
                aliases.entry(a.name.as_str()).or_default().push(AliasDecl {
                    scope: &a.scope,
                    target: &a.target,
                    uses: known_aspects(&a.uses_aspects),
                });
            }
            for c in &f.facts.classes {
                classes.entry(c.name.as_str()).or_default().push(c);
            }
        }
        Self {
            aliases,
            classes,
            memo: RefCell::new(HashMap::default()),
        }
    }

    pub fn classes_named(&self, name: &str) -> &[&'a Class] {
        let (_, last) = split(name);
        self.classes.get(last).map_or(&[], Vec::as_slice)
    }

    /// Aspects used by a mention of `text` (with `first_arg` for `atomic_ref<T>`-like types).
    /// Memoized; a type met again while it is being resolved (only broken code has such
    /// cycles) counts as using nothing.
    pub fn aspects(&self, text: &str, first_arg: Option<&str>) -> AspectSet {
        let key = match first_arg {
            Some(a) => format!("{text}<{a}>"),
            None => text.to_string(),
        };
        if let Some(s) = self.memo.borrow().get(&key) {
            return *s;
        }
        self.memo.borrow_mut().insert(key.clone(), AspectSet::EMPTY);
        let set = self.resolve(text, first_arg);
        self.memo.borrow_mut().insert(key, set);
        set
    }

    fn resolve(&self, text: &str, first_arg: Option<&str>) -> AspectSet {
        let f = features();
        let mut set = AspectSet::EMPTY;
        if let Some(a) = f.type_aspect(text) {
            set.insert(a);
        }
        let (qualifier, name) = split(text);
        let base = text.split('<').next().unwrap_or(text).trim();
        if f.is_atomic_template(base) {
            if let Some(arg) = first_arg {
                let arg = self.builtin_of(arg, 0);
                if let Some(a) = f.atomic_aspect(&arg) {
                    set.insert(a);
                }
            }
            return set;
        }
        if let Some(decls) = self.aliases.get(name) {
            let sets = decls
                .iter()
                .filter(|d| scope_matches(d.scope, &qualifier))
                .filter(|d| d.target != text)
                .map(|d| d.uses.union(self.aspects(d.target, None)));
            set = set.union(agreed(sets));
        }
        if let Some(classes) = self.classes.get(name) {
            let sets = classes
                .iter()
                .filter(|c| scope_matches(&c.scope, &qualifier))
                .map(|c| self.class_aspects(c));
            set = set.union(agreed(sets));
        }
        set
    }

    fn class_aspects(&self, c: &Class) -> AspectSet {
        let mut set = known_aspects(&c.uses_aspects);
        for m in &c.members_by_value {
            if m != &c.name {
                set = set.union(self.aspects(m, None));
            }
        }
        set
    }

    /// Follows aliases to the builtin type they name (`my_i64` → `long long`), when all
    /// declarations of the alias agree.
    fn builtin_of(&self, text: &str, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return text.to_string();
        }
        let (qualifier, name) = split(text);
        let targets: Vec<&str> = self
            .aliases
            .get(name)
            .map(|d| {
                d.iter()
                    .filter(|d| scope_matches(d.scope, &qualifier) && d.target != text)
                    .map(|d| d.target)
                    .collect()
            })
            .unwrap_or_default();
        match targets.as_slice() {
            [first, rest @ ..] if rest.iter().all(|t| t == first) => {
                self.builtin_of(first, depth + 1)
            }
            _ if names(text, "size_t") => "size_t".into(),
            _ => text.to_string(),
        }
    }
}

/// The aspects every candidate agrees on; none when there is no candidate.
fn agreed(sets: impl Iterator<Item = AspectSet>) -> AspectSet {
    sets.reduce(AspectSet::intersection).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::extract;
    use std::sync::Arc;

    fn index(src: &str) -> Vec<SourceFile> {
        vec![SourceFile {
            path: Arc::from("t.cpp"),
            facts: Arc::new(extract(src)),
        }]
    }

    fn names_of(set: AspectSet) -> Vec<&'static str> {
        registry().sorted_names(set)
    }

    #[test]
    fn aliases_classes_and_members() {
        let files = index(
            "using real = double;\ntypedef real real2;\nstruct [[__sycl_detail__::__uses_aspects__(sycl::aspect::cpu)]] Tagged {};\n\
             struct Holder { Tagged t; int* p; };\nstruct ByPtr { Tagged* t; };\nnamespace a { using h = sycl::half; }\nnamespace b { using h = float; }\n",
        );
        let ix = TypeIndex::new(&files);
        assert_eq!(names_of(ix.aspects("real2", None)), ["fp64"]);
        assert_eq!(names_of(ix.aspects("Holder", None)), ["cpu"]);
        assert!(ix.aspects("ByPtr", None).is_empty());
        assert_eq!(names_of(ix.aspects("a::h", None)), ["fp16"]);
        assert!(ix.aspects("b::h", None).is_empty());
        // Unqualified and ambiguous: the two declarations disagree, nothing is claimed.
        assert!(ix.aspects("h", None).is_empty());
    }

    #[test]
    fn atomic_ref_by_size_through_aliases() {
        let files = index("using i64 = long long;\nusing i32 = int;\n");
        let ix = TypeIndex::new(&files);
        assert_eq!(
            names_of(ix.aspects("sycl::atomic_ref", Some("i64"))),
            ["atomic64"]
        );
        assert!(ix.aspects("sycl::atomic_ref", Some("i32")).is_empty());
        assert_eq!(
            names_of(ix.aspects("atomic_ref", Some("sycl::half"))),
            ["ext_oneapi_atomic16"]
        );
        assert_eq!(
            names_of(ix.aspects("atomic_ref", Some("double"))),
            ["atomic64"]
        );
    }
}
