//! The skeleton: one node per function (declarations joined to their definition), grouped by
//! signature, with the files' visibility; what depends only on the files' interfaces.

// Fx: the maps are keyed by names and small ids, hashed in hot loops; no untrusted keys.
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::NodeId;
use crate::analysis::visibility::{Units, Visibility};
use crate::base::{SourceFile, UnionFind};
use crate::semantic::names;
use crate::semantic::Decls;
use crate::syntax::{Function, Name};

/// What depends only on the files' interfaces (functions' signatures, classes, aliases,
/// includes): kept across edits that change function bodies only.
#[derive(Clone)]
pub struct Skeleton {
    pub(super) visibility: Visibility,
    /// Per node, its functions (file, index); the definition, if any, first.
    pub(super) members: Vec<Vec<(u32, usize)>>,
    /// Per file, per function: its node (dense: looked up for every call and launch).
    node_of: Vec<Box<[NodeId]>>,
    /// Per file, each function's signature hash ([`signature_hash`]), kept for files whose facts
    /// did not change, so a rebuild after an edit hashes only the edited files' signatures.
    sigs: Vec<Arc<[u64]>>,
    /// Classes with `get(properties_tag)`, by name, in file order.
    pub(super) prop_classes: HashMap<Box<str>, Vec<(u32, usize)>>,
    /// Their `operator()`s, wherever launched: (operator, class).
    pub(super) class_kernels: Vec<(NodeId, (u32, usize))>,
    pub(super) function_count: usize,
    /// Per file, its part: the first file of the files it is linked with by includes or
    /// shared functions (`analysis::parts`). Instantiation is bounded per part, so that what
    /// one program instantiates never takes another's budget. Computed only once a workspace
    /// has made `MAX_INSTANCES` (no part can have more before): a relink does not pay for it.
    part_of: std::sync::OnceLock<Vec<u32>>,
}

/// One node per function: a declaration and its definition are one node. Several definitions of
/// one signature (separate programs in one workspace) are separate nodes; a declaration then
/// joins the definition its file can see, else the one nearest to it in the directory tree
/// (what the linker of its program would pick).
pub(in crate::analysis) fn group_functions(
    files: &[SourceFile],
    sigs: &[Arc<[u64]>],
    visibility: &Visibility,
) -> Vec<Vec<(u32, usize)>> {
    let total: usize = files.iter().map(|f| f.facts.functions.len()).sum();
    let mut by_key: HashMap<GroupKey, u32> = HashMap::default();
    by_key.reserve(total);
    // Groups in order of first appearance, so node ids do not depend on hashing.
    let mut groups: Vec<Vec<(u32, usize)>> = Vec::with_capacity(total);
    for (fi, file) in files.iter().enumerate() {
        for (idx, f) in file.facts.functions.iter().enumerate() {
            let key = GroupKey {
                hash: sigs[fi][idx],
                sig: group_sig(fi as u32, idx, f),
            };
            let next = groups.len() as u32;
            let g = *by_key.entry(key).or_insert(next);
            if g == next {
                groups.push(Vec::with_capacity(1));
            }
            groups[g as usize].push((fi as u32, idx));
        }
    }
    drop(by_key);
    let is_def = |&(fi, idx): &(u32, usize)| files[fi as usize].facts.functions[idx].is_definition;
    let mut nodes = Vec::with_capacity(groups.len());
    for mut all in groups {
        let defs = all.iter().filter(|m| is_def(m)).count();
        if defs == 0 {
            nodes.extend(unlinked_declarations(all, visibility));
            continue;
        }
        if defs <= 1 {
            // The definition, if any, first; declarations keep their order.
            if let Some(d) = all.iter().position(is_def) {
                all[..=d].rotate_right(1);
            }
            nodes.push(all);
            continue;
        }
        let (defs, decls): (Vec<_>, Vec<_>) = all.into_iter().partition(|m| is_def(m));
        let first = nodes.len();
        nodes.extend(defs.iter().map(|&d| vec![d]));
        for decl in decls {
            let path = |fi: u32| std::path::Path::new(&*files[fi as usize].path).to_path_buf();
            let nearest = defs
                .iter()
                .enumerate()
                .max_by_key(|(_, &(df, _))| {
                    let shared = path(decl.0)
                        .components()
                        .zip(path(df).components())
                        .take_while(|(a, b)| a == b)
                        .count();
                    (visibility.sees(decl.0, df), shared)
                })
                .map_or(0, |(i, _)| i);
            nodes[first + nearest].push(decl);
        }
    }
    nodes
}

/// Declarations of a function defined nowhere: one node per set of files that see one another
/// (a program), not one for the workspace. The copies of a header in separate programs (a
/// repository of samples, each with its own copy of a helper library) declare the same
/// functions; nothing links them, and one node would make a program's kernels read another
/// program's declaration. Past `MAX_LINK_FILES` files, one node: the pairs are not compared.
fn unlinked_declarations(
    all: Vec<(u32, usize)>,
    visibility: &Visibility,
) -> Vec<Vec<(u32, usize)>> {
    const MAX_LINK_FILES: usize = 512;
    let mut files: Vec<u32> = all.iter().map(|m| m.0).collect();
    files.sort_unstable();
    files.dedup();
    if files.len() < 2 || files.len() > MAX_LINK_FILES {
        return vec![all];
    }
    let mut sets = UnionFind::new(files.len());
    for (x, &a) in files.iter().enumerate() {
        for (y, &b) in files.iter().enumerate().skip(x + 1) {
            if visibility.sees(a, b) || visibility.sees(b, a) {
                sets.union(x, y);
            }
        }
    }
    let set_of = sets.sets();
    // Each node in order of its first member; members keep their order.
    let mut out: Vec<Vec<(u32, usize)>> = Vec::new();
    let mut node_of_set: Vec<Option<usize>> = vec![None; files.len()];
    for m in all {
        let s = set_of[files.binary_search(&m.0).expect("a member's file")];
        let at = *node_of_set[s].get_or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[at].push(m);
    }
    out
}

/// What makes declarations one function: the qualified name, parameter types and constness
/// (borrowed from the facts). Lambdas and host bodies are each their own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupSig<'a> {
    Own(u32, usize),
    Signature(&'a [String], &'a str, &'a [Name], bool),
}

/// A [`GroupSig`] with its hash computed once per function and kept while the file's facts are
/// unchanged: hashing every signature's strings was most of an interface edit's skeleton.
#[derive(Clone, Copy, PartialEq, Eq)]
struct GroupKey<'a> {
    hash: u64,
    sig: GroupSig<'a>,
}

impl std::hash::Hash for GroupKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

fn group_sig(file: u32, idx: usize, f: &Function) -> GroupSig<'_> {
    if f.is_lambda || f.name == "<host>" {
        GroupSig::Own(file, idx)
    } else {
        GroupSig::Signature(&f.scope, &f.name, &f.params, f.is_const)
    }
}

/// The hash of a function's [`GroupSig`] (its file and index for the ones that are their own).
fn signature_hash(file: u32, idx: usize, f: &Function) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    match group_sig(file, idx, f) {
        GroupSig::Own(file, idx) => (0u8, file, idx).hash(&mut h),
        GroupSig::Signature(scope, name, params, c) => (1u8, scope, name, params, c).hash(&mut h),
    }
    h.finish()
}

/// Each file's signature hashes, reusing `prev`'s for files whose facts are the same.
pub(in crate::analysis) fn signature_hashes(
    files: &[SourceFile],
    prev: Option<(&[SourceFile], &Skeleton)>,
) -> Vec<Arc<[u64]>> {
    files
        .iter()
        .enumerate()
        .map(|(fi, file)| {
            if let Some((old_files, old_sk)) = prev {
                if let (Some(o), Some(h)) = (old_files.get(fi), old_sk.sigs.get(fi)) {
                    if Arc::ptr_eq(&o.facts, &file.facts) {
                        return h.clone();
                    }
                }
            }
            file.facts
                .functions
                .iter()
                .enumerate()
                .map(|(idx, f)| signature_hash(fi as u32, idx, f))
                .collect()
        })
        .collect()
}

impl Skeleton {
    /// The skeleton of a compile standing for `units`.
    pub fn build(files: &[SourceFile], units: &Units, decls: &Decls) -> Self {
        Self::build_with(files, Visibility::for_units(files, units), None, decls)
    }

    /// The same, with the files' visibility already known (their includes did not change);
    /// `prev`, the files and skeleton before an edit, lends what unchanged files had.
    pub fn build_with(
        files: &[SourceFile],
        visibility: Visibility,
        prev: Option<(&[SourceFile], &Skeleton)>,
        decls: &Decls,
    ) -> Self {
        let sigs = signature_hashes(files, prev);
        let members = group_functions(files, &sigs, &visibility);
        let mut node_of: Vec<Box<[NodeId]>> = files
            .iter()
            .map(|f| vec![NodeId::MAX; f.facts.functions.len()].into_boxed_slice())
            .collect();
        for (node, m) in members.iter().enumerate() {
            for &(fi, idx) in m {
                node_of[fi as usize][idx] = node;
            }
        }
        let mut sk = Skeleton {
            part_of: std::sync::OnceLock::new(),
            visibility,
            members,
            node_of,
            sigs,
            prop_classes: HashMap::default(),
            class_kernels: Vec::new(),
            function_count: 0,
        };
        // Functions by name are the semantic layer's `Decls`, kept across edits: the skeleton
        // builds no name index of its own.
        sk.function_count = sk
            .members
            .iter()
            .filter(|m| {
                let (fi, idx) = m[0];
                files[fi as usize].facts.functions[idx].name != "<host>"
            })
            .count();
        // A functor with `get(properties_tag)` declares its kernel's aspects even when it is
        // launched from a file the analysis does not see.
        for (fi, file) in files.iter().enumerate() {
            for (ci, c) in file.facts.classes.iter().enumerate() {
                if c.kernel_properties.is_some() {
                    let at = (fi as u32, ci);
                    sk.prop_classes
                        .entry(c.name.as_str().into())
                        .or_default()
                        .push(at);
                    for o in sk.functor_operators(files, decls, None, &c.name) {
                        sk.class_kernels.push((o, at));
                    }
                }
            }
        }
        sk
    }

    pub fn node_count(&self) -> usize {
        self.members.len()
    }

    pub fn visibility(&self) -> &Visibility {
        &self.visibility
    }

    /// The part (`part_of`) of a node's first member's file.
    pub(super) fn part_of_node(&self, node: NodeId) -> u32 {
        let part_of = self.part_of.get_or_init(|| {
            let mut sets = UnionFind::new(self.node_of.len());
            for (i, seen) in self.visibility.lists().iter().enumerate() {
                seen.iter().for_each(|&j| sets.union(i, j as usize));
            }
            for m in &self.members {
                m[1..]
                    .iter()
                    .for_each(|&(f, _)| sets.union(m[0].0 as usize, f as usize));
            }
            sets.sets().into_iter().map(|p| p as u32).collect()
        });
        part_of[self.members[node][0].0 as usize]
    }

    /// The nodes with a member among the first `functions` functions of `file`.
    pub fn nodes_in_file(&self, file: u32, functions: usize) -> impl Iterator<Item = NodeId> + '_ {
        (0..functions).filter_map(move |idx| self.node_at(file, idx))
    }

    /// The node of a function (file, index), if the skeleton has that function.
    pub fn node_at(&self, file: u32, idx: usize) -> Option<NodeId> {
        self.node_of
            .get(file as usize)
            .and_then(|f| f.get(idx))
            .copied()
            .filter(|&n| n != NodeId::MAX)
    }

    /// A node's functions with their files; the definition, if any, first.
    pub(super) fn members_of<'f>(
        &'f self,
        files: &'f [SourceFile],
        node: NodeId,
    ) -> impl Iterator<Item = (u32, &'f Function)> + 'f {
        self.members[node]
            .iter()
            .map(move |&(fi, idx)| (fi, &files[fi as usize].facts.functions[idx]))
    }

    pub(super) fn function<'f>(&self, files: &'f [SourceFile], node: NodeId) -> &'f Function {
        let (fi, idx) = self.members[node][0];
        &files[fi as usize].facts.functions[idx]
    }

    /// The `operator()`s of a functor class, as seen from a launching file (any when `None`).
    pub(super) fn functor_operators(
        &self,
        files: &[SourceFile],
        decls: &Decls,
        from: Option<u32>,
        type_name: &str,
    ) -> Vec<NodeId> {
        let class = names::base_name(type_name);
        let mut nodes: Vec<NodeId> = decls
            .functions_named("operator()")
            .iter()
            .filter_map(|&(f, i)| self.node_at(f, i as usize))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes.retain(|&n| {
            self.function(files, n).class.as_deref() == Some(class)
                && from.is_none_or(|f| {
                    self.members[n]
                        .iter()
                        .any(|&(g, _)| self.visibility.sees(f, g))
                })
        });
        nodes
    }
}
