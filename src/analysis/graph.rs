//! The workspace call graph: one node per function (a declaration and its definition are one
//! node), edges for direct calls resolved by name, direct aspect uses per node, and the used
//! aspects propagated bottom-up over strongly connected components.
//!
//! Call resolution: a qualified call matches functions whose scope ends with the qualifier; an
//! unqualified call prefers members of the caller's class, then functions visible from the
//! caller's namespace, then any free function of that name; a member call matches methods of
//! the receiver's declared class when it is known, else every method of that name. Overloads
//! are narrowed by argument count; whatever remains ambiguous gets an edge to every candidate.

use std::collections::VecDeque;

mod relink;
pub use relink::relink;

// Fx: the maps are keyed by names and small ids, hashed in hot loops; no untrusted keys.
use crate::syntax::Name;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;
use thin_vec::ThinVec;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::types::{known_aspects, TypeIndex};
use super::visibility::Visibility;
use crate::base::{SourceFile, UnionFind};
use crate::devices::{AspectId, AspectSet};
use crate::semantic::features::features;
use crate::semantic::names::{self, scope_ends_with};
use crate::semantic::{self, Decls, Instance, Ty};
use crate::syntax::{Call, CallTarget, DeviceHas, Function, KernelRef, Located, Span};

pub type NodeId = usize;

/// A direct use of an aspect inside a function.
#[derive(Clone, Debug)]
pub struct Use {
    pub aspect: AspectId,
    pub what: String,
    pub file: u32,
    pub span: Span,
}

impl Use {
    fn new(aspect: AspectId, what: String, file: u32, span: Span) -> Self {
        Self {
            aspect,
            what,
            file,
            span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub to: NodeId,
    pub span: Span,
    /// Aspects whose uses beyond this call do not count (`if_device_has<A>(f)`).
    pub mask: AspectSet,
}

/// What depends only on the files' interfaces (functions' signatures, classes, aliases,
/// includes): kept across edits that change function bodies only.
#[derive(Clone)]
pub struct Skeleton {
    visibility: Visibility,
    /// Per node, its functions (file, index); the definition, if any, first.
    members: Vec<Vec<(u32, usize)>>,
    /// Per file, per function: its node (dense: looked up for every call and launch).
    node_of: Vec<Box<[NodeId]>>,
    /// Per file, each function's signature hash ([`signature_hash`]), kept for files whose facts
    /// did not change, so a rebuild after an edit hashes only the edited files' signatures.
    sigs: Vec<Arc<[u64]>>,
    /// Classes with `get(properties_tag)`, by name, in file order.
    prop_classes: HashMap<Box<str>, Vec<(u32, usize)>>,
    /// Their `operator()`s, wherever launched: (operator, class).
    class_kernels: Vec<(NodeId, (u32, usize))>,
    function_count: usize,
    /// Per file, its part: the first file of the files it is linked with by includes or
    /// shared functions (`analysis::parts`). Instantiation is bounded per part, so that what
    /// one program instantiates never takes another's budget. Computed only once a workspace
    /// has made `MAX_INSTANCES` (no part can have more before): a relink does not pay for it.
    part_of: std::sync::OnceLock<Vec<u32>>,
}

/// Where a node's declared aspects are written: a member function's `device_has`, or the
/// `get(properties_tag)` of the functor class it is the `operator()` of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclSource {
    Function(u32, usize),
    Class(u32, usize),
}

/// What a node's bodies say besides uses and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeInfo {
    /// The member (file, index) that carries `device_has`.
    declared: Option<(u32, u32)>,
    /// Kernels launched from here.
    launches: ThinVec<NodeId>,
    /// Functor kernels launched from here whose class declares aspects: (operator, class).
    functor_props: ThinVec<(NodeId, (u32, usize))>,
    external: bool,
    arch_checks: bool,
    /// Files whose bodies typing this node read (see `semantic::Typed::reads`).
    reads: ThinVec<u32>,
}

/// What collecting one node's bodies found.
pub type Collected = (ThinVec<Use>, ThinVec<Edge>, NodeInfo);

/// Per node: direct uses, outgoing calls, launches. Re-read per node whose files changed.
#[derive(Clone, Default)]
pub struct Bodies {
    edges: Vec<ThinVec<Edge>>,
    uses: Vec<ThinVec<Use>>,
    info: Vec<NodeInfo>,
    /// Template instantiations, nodes `base_count..`: the pattern's node and the arguments.
    instances: Vec<(NodeId, Arc<[Ty]>)>,
    base_count: usize,
    /// The instances' lookup tables, when the last update left them: the next one takes them
    /// instead of hashing every instance's arguments again.
    lookup: Option<Lookup>,
}

#[derive(Clone, Default)]
struct Lookup {
    by_key: HashMap<(NodeId, Arc<[Ty]>), NodeId>,
    per_base: HashMap<NodeId, usize>,
    per_part: Option<HashMap<u32, usize>>,
}

/// Bounds on instantiation: the work per part of the workspace stays linear whatever the
/// templates do.
const MAX_INSTANCES: usize = 20_000;
const MAX_INSTANCES_PER_TEMPLATE: usize = 64;

impl Bodies {
    pub fn push(&mut self, (uses, edges, info): (ThinVec<Use>, ThinVec<Edge>, NodeInfo)) {
        self.uses.push(uses);
        self.edges.push(edges);
        self.info.push(info);
    }

    /// The nodes whose typing read a body in one of these files.
    pub fn reading<'s>(
        &'s self,
        files: &'s rustc_hash::FxHashSet<u32>,
    ) -> impl Iterator<Item = NodeId> + 's {
        (0..self.info.len()).filter(move |&n| self.info[n].reads.iter().any(|f| files.contains(f)))
    }

    /// The instances a collector ended with, and its lookup tables.
    pub fn set_instances(&mut self, collector: Collector) {
        let ins = collector.instances.into_inner();
        self.instances = ins.list;
        self.lookup = Some(Lookup {
            by_key: ins.by_key,
            per_base: ins.per_base,
            per_part: ins.per_part,
        });
    }

    /// Every instance is the target of some call or launch.
    pub fn instances_all_referenced(&self) -> bool {
        let mut seen = vec![false; self.instances.len()];
        let mut mark = |n: NodeId| {
            if let Some(k) = n.checked_sub(self.base_count) {
                if let Some(s) = seen.get_mut(k) {
                    *s = true;
                }
            }
        };
        for (n, edges) in self.edges.iter().enumerate() {
            for e in edges {
                if e.to != n {
                    mark(e.to);
                }
            }
        }
        for info in &self.info {
            for &k in &info.launches {
                mark(k);
            }
            for &(o, _) in &info.functor_props {
                mark(o);
            }
        }
        seen.into_iter().all(|s| s)
    }

    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// The pattern node of an instance; a node itself otherwise.
    pub fn base(&self, node: NodeId) -> NodeId {
        if node < self.base_count {
            node
        } else {
            self.instances[node - self.base_count].0
        }
    }

    /// Replaces one node's bodies; true when what the graph derives from them may change
    /// (aspects used, calls, launches, declarations), false when only positions moved.
    pub fn replace(
        &mut self,
        node: NodeId,
        (uses, edges, info): (ThinVec<Use>, ThinVec<Edge>, NodeInfo),
    ) -> bool {
        let aspects = |u: &[Use]| u.iter().map(|u| u.aspect).collect::<AspectSet>();
        let calls = |e: &[Edge]| e.iter().map(|e| (e.to, e.mask)).collect::<Vec<_>>();
        let changed = aspects(&uses) != aspects(&self.uses[node])
            || calls(&edges) != calls(&self.edges[node])
            || info != self.info[node];
        self.uses[node] = uses;
        self.edges[node] = edges;
        self.info[node] = info;
        changed
    }
}

/// What the whole graph decides: kernels, device code, propagated aspects.
#[derive(Clone)]
pub struct Derived {
    used: Vec<AspectSet>,
    kernel: Vec<bool>,
    device: Vec<bool>,
    decl: Vec<Option<DeclSource>>,
    /// Nodes that declare aspects, and kernels or `SYCL_EXTERNAL` functions, in node order.
    decorated: Vec<NodeId>,
    entry_points: Vec<NodeId>,
}

/// A view of the graph for the checks.
pub struct Graph<'a> {
    files: &'a [SourceFile],
    sk: &'a Skeleton,
    bodies: &'a Bodies,
    edges: &'a [ThinVec<Edge>],
    uses: &'a [ThinVec<Use>],
    info: &'a [NodeInfo],
    d: &'a Derived,
}

/// One node per function: a declaration and its definition are one node. Several definitions of
/// one signature (separate programs in one workspace) are separate nodes; a declaration then
/// joins the definition its file can see, else the one nearest to it in the directory tree
/// (what the linker of its program would pick).
pub(super) fn group_functions(
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
pub(super) fn signature_hashes(
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
    pub fn build(files: &[SourceFile], decls: &Decls) -> Self {
        Self::build_with(files, Visibility::new(files), None, decls)
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
    fn part_of_node(&self, node: NodeId) -> u32 {
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
    fn members_of<'f>(
        &'f self,
        files: &'f [SourceFile],
        node: NodeId,
    ) -> impl Iterator<Item = (u32, &'f Function)> + 'f {
        self.members[node]
            .iter()
            .map(move |&(fi, idx)| (fi, &files[fi as usize].facts.functions[idx]))
    }

    fn function<'f>(&self, files: &'f [SourceFile], node: NodeId) -> &'f Function {
        let (fi, idx) = self.members[node][0];
        &files[fi as usize].facts.functions[idx]
    }

    /// The `operator()`s of a functor class, as seen from a launching file (any when `None`).
    fn functor_operators(
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

/// Reads function bodies: direct aspect uses, and calls resolved against the skeleton.
pub struct Collector<'a> {
    files: &'a [SourceFile],
    sk: &'a Skeleton,
    types: &'a TypeIndex<'a>,
    sem: &'a semantic::Index<'a>,
    instances: std::cell::RefCell<Instances>,
}

#[derive(Default)]
struct Instances {
    by_key: HashMap<(NodeId, Arc<[Ty]>), NodeId>,
    list: Vec<(NodeId, Arc<[Ty]>)>,
    per_base: HashMap<NodeId, usize>,
    /// Instances per part, counted from `MAX_INSTANCES` instances on.
    per_part: Option<HashMap<u32, usize>>,
    base_count: usize,
}

impl<'a> Collector<'a> {
    pub fn new(
        files: &'a [SourceFile],
        sk: &'a Skeleton,
        types: &'a TypeIndex<'a>,
        sem: &'a semantic::Index<'a>,
    ) -> Self {
        // Calls by name are resolved with `sem`'s visibility: it must be the skeleton's.
        debug_assert!(std::ptr::eq(sem.sees(), sk.visibility.lists()));
        Self {
            files,
            sk,
            types,
            sem,
            instances: std::cell::RefCell::new(Instances {
                base_count: sk.node_count(),
                ..Instances::default()
            }),
        }
    }

    /// The instances already made (for an update that must not make new ones), with the lookup
    /// tables `bodies` keeps, if they are for the same nodes.
    pub fn with_instances(self, bodies: &mut Bodies) -> Self {
        {
            let mut ins = self.instances.borrow_mut();
            ins.list = bodies.instances.clone();
            match bodies.lookup.take() {
                Some(l) if bodies.base_count == ins.base_count => {
                    ins.by_key = l.by_key;
                    ins.per_base = l.per_base;
                    ins.per_part = l.per_part;
                }
                _ => {
                    for (k, (base, args)) in bodies.instances.iter().enumerate() {
                        ins.by_key
                            .insert((*base, args.clone()), bodies.base_count + k);
                        *ins.per_base.entry(*base).or_default() += 1;
                    }
                }
            }
        }
        self
    }

    pub fn instance_count(&self) -> usize {
        self.instances.borrow().list.len()
    }

    /// Every node, then every instance the kernels' reach needs, as they are found; the
    /// collector is spent.
    pub fn collect_all(&self) -> Bodies {
        let mut b = Bodies {
            base_count: self.sk.node_count(),
            ..Bodies::default()
        };
        let mut n = 0;
        loop {
            let total = self.sk.node_count() + self.instances.borrow().list.len();
            if n >= total {
                break;
            }
            let (uses, edges, info) = self.collect(n);
            b.uses.push(uses);
            b.edges.push(edges);
            b.info.push(info);
            n += 1;
        }
        // The lookup tables go with the bodies, for the first update.
        let ins = std::mem::take(&mut *self.instances.borrow_mut());
        b.instances = ins.list;
        b.lookup = Some(Lookup {
            by_key: ins.by_key,
            per_base: ins.per_base,
            per_part: ins.per_part,
        });
        b
    }

    /// The node for a function under a substitution: an instance when the function is a
    /// template bound to concrete arguments, else its own node.
    fn node_for(&self, inst: &Instance) -> Option<NodeId> {
        let base = self.sk.node_at(inst.file, inst.func as usize)?;
        if !inst.is_concrete() {
            return Some(base);
        }
        let mut guard = self.instances.borrow_mut();
        let ins = &mut *guard;
        let key = (base, inst.subst.clone());
        if let Some(&n) = ins.by_key.get(&key) {
            return Some(n);
        }
        let per = ins.per_base.get(&base).copied().unwrap_or(0);
        if per >= MAX_INSTANCES_PER_TEMPLATE {
            return Some(base);
        }
        let part = (ins.list.len() >= MAX_INSTANCES).then(|| self.sk.part_of_node(base));
        if let Some(part) = part {
            let sk = self.sk;
            let list = &ins.list;
            let counts = ins.per_part.get_or_insert_with(|| {
                let mut counts = HashMap::default();
                for (b, _) in list {
                    *counts.entry(sk.part_of_node(*b)).or_default() += 1;
                }
                counts
            });
            if counts.get(&part).copied().unwrap_or(0) >= MAX_INSTANCES {
                return Some(base);
            }
        }
        let id = ins.base_count + ins.list.len();
        ins.list.push(key.clone());
        ins.by_key.insert(key, id);
        *ins.per_base.entry(base).or_default() += 1;
        if let (Some(counts), Some(part)) = (&mut ins.per_part, part) {
            *counts.entry(part).or_default() += 1;
        }
        Some(id)
    }

    fn instance_args(&self, node: NodeId) -> Option<Arc<[Ty]>> {
        let ins = self.instances.borrow();
        node.checked_sub(ins.base_count)
            .and_then(|k| ins.list.get(k))
            .map(|(_, a)| a.clone())
    }

    fn base_of(&self, node: NodeId) -> NodeId {
        let ins = self.instances.borrow();
        node.checked_sub(ins.base_count)
            .and_then(|k| ins.list.get(k))
            .map_or(node, |(b, _)| *b)
    }

    fn function(&self, node: NodeId) -> &'a Function {
        self.sk.function(self.files, node)
    }

    /// Direct uses and outgoing edges of one node (or instance).
    pub fn collect(&self, node: NodeId) -> (ThinVec<Use>, ThinVec<Edge>, NodeInfo) {
        let f = features();
        let args = self.instance_args(node);
        let base = self.base_of(node);
        let mut uses = ThinVec::new();
        let mut edges = ThinVec::new();
        let mut info = NodeInfo::default();
        let members: Vec<(u32, usize)> = self.sk.members[base].clone();
        // Typing reads the definition when there is one (it comes first), else the declaration.
        let typed_member = 0;
        for (i, &(fi, idx)) in members.iter().enumerate() {
            let func = &self.files[fi as usize].facts.functions[idx];
            if info.declared.is_none() && func.device_has.is_some() {
                info.declared = Some((members[i].0, members[i].1 as u32));
            }
            info.external |= func.sycl_external;
            info.arch_checks |= !func.arch_checks.is_empty();
            let typed = (i == typed_member).then(|| {
                let subst = args.clone().unwrap_or_else(|| Arc::from(Vec::new()));
                semantic::type_function(
                    self.sem,
                    &Instance {
                        file: fi,
                        func: idx as u32,
                        subst,
                    },
                )
            });
            if let Some(t) = &typed {
                info.reads = t.reads.iter().copied().collect();
                for u in &t.uses {
                    uses.push(Use::new(u.aspect, u.what.clone(), fi, u.span));
                }
            }
            for m in &func.types {
                for a in self.types.alias_tags(&m.text).iter() {
                    uses.push(Use::new(a, m.text.to_string(), fi, m.span));
                }
            }
            for (li, launch) in func.launches.iter().enumerate() {
                if let Some(Some(insts)) = typed.as_ref().map(|t| &t.launches[li]) {
                    info.launches
                        .extend(insts.iter().filter_map(|i| self.node_for(i)));
                    if let KernelRef::Functor(t) = &launch.kernel {
                        let (_, last) = names::split_type(t);
                        for &c in self.sk.prop_classes.get(last).into_iter().flatten() {
                            for i in insts {
                                if let Some(o) = self.node_for(i) {
                                    info.functor_props.push((o, c));
                                }
                            }
                        }
                    }
                    continue;
                }
                match &launch.kernel {
                    KernelRef::Lambda(idx) => info.launches.extend(self.sk.node_at(fi, *idx)),
                    KernelRef::Functor(t) => {
                        let ops =
                            self.sk
                                .functor_operators(self.files, self.sem.decls(), Some(fi), t);
                        info.launches.extend(ops.iter().copied());
                        let (_, last) = names::split_type(t);
                        for &c in self.sk.prop_classes.get(last).into_iter().flatten() {
                            info.functor_props.extend(ops.iter().map(|&o| (o, c)));
                        }
                    }
                }
            }
            for (ci, call) in func.calls.iter().enumerate() {
                let callee_name = match &call.target {
                    CallTarget::Named { name, .. } | CallTarget::Member { name, .. } => {
                        Some(name.as_str())
                    }
                    _ => None,
                };
                if let Some(name) = callee_name {
                    if let Some(a) = f.function_aspect(name) {
                        uses.push(Use::new(a, format!("{name}()"), fi, call.span));
                    }
                }
                let mask = known_aspects(&call.guarded);
                let typed_targets = typed.as_ref().and_then(|t| t.calls[ci].as_ref());
                let targets: Vec<NodeId> = match (&call.target, typed_targets) {
                    // The call is in a discarded `if constexpr` branch.
                    (_, Some(insts)) if insts.is_empty() => Vec::new(),
                    (CallTarget::Lambda(l), _) => {
                        let lf = &self.files[fi as usize].facts.functions[*l];
                        let n = lf.tparams.len();
                        let subst: Arc<[Ty]> = match &args {
                            Some(a) if n > 0 => Arc::from(&a[..n.min(a.len())]),
                            _ => Arc::from(Vec::new()),
                        };
                        self.node_for(&Instance {
                            file: fi,
                            func: *l as u32,
                            subst,
                        })
                        .into_iter()
                        .collect()
                    }
                    (_, Some(insts)) => insts.iter().filter_map(|i| self.node_for(i)).collect(),
                    _ => self.resolve(fi, func, call),
                };
                for to in targets {
                    edges.push(Edge {
                        to,
                        span: call.span,
                        mask,
                    });
                }
            }
        }
        uses.sort_by_key(|u| (u.file, u.span.range().start));
        (uses, edges, info)
    }

    /// Functions of that name declared where `from` can see them, taking `args` arguments: the
    /// semantic index's visibility, which is the skeleton's (`Collector::new`).
    fn candidates(&self, from: u32, name: &str, args: usize) -> impl Iterator<Item = NodeId> + '_ {
        let mut nodes: Vec<NodeId> = self
            .sem
            .visible_functions(from, name)
            .filter_map(|(f, i)| self.sk.node_at(f, i as usize))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
            .into_iter()
            .filter(move |&n| self.function(n).accepts_args(args))
    }

    fn constructors(&self, from: u32, type_name: &str, args: usize) -> Vec<NodeId> {
        let class = names::base_name(type_name);
        self.candidates(from, class, args)
            .filter(|&n| self.function(n).class.as_deref() == Some(class))
            .collect()
    }

    fn resolve(&self, file: u32, caller: &Function, call: &Call) -> Vec<NodeId> {
        match &call.target {
            CallTarget::Lambda(idx) => self.sk.node_at(file, *idx).into_iter().collect(),
            CallTarget::Construct { type_name } => {
                self.constructors(file, type_name, call.args as usize)
            }
            CallTarget::Member {
                name,
                receiver_type,
            } => {
                let methods = self
                    .candidates(file, name, call.args as usize)
                    .filter(|&n| self.function(n).class.is_some());
                match receiver_type {
                    Some(t) => {
                        let class = names::base_name(t).trim_end_matches(['&', '*']);
                        methods
                            .filter(|&n| self.function(n).class.as_deref() == Some(class))
                            .collect()
                    }
                    None => methods.collect(),
                }
            }
            CallTarget::Named { name, qualifier } => {
                let all: Vec<NodeId> = self.candidates(file, name, call.args as usize).collect();
                if !qualifier.is_empty() {
                    let q: Vec<&str> = qualifier.iter().map(Name::as_str).collect();
                    return all
                        .into_iter()
                        .filter(|&n| scope_ends_with(&self.function(n).scope, &q))
                        .collect();
                }
                if all.is_empty() {
                    // `S(...)` constructs when S is a class.
                    return if !self.types.has_class(name) {
                        Vec::new()
                    } else {
                        self.constructors(file, name, call.args as usize)
                    };
                }
                // `S(...)` names the constructors of S.
                let constructors: Vec<NodeId> = all
                    .iter()
                    .copied()
                    .filter(|&n| self.function(n).class.as_deref() == Some(name.as_str()))
                    .collect();
                if !constructors.is_empty() {
                    return constructors;
                }
                if let Some(class) = &caller.class {
                    let members: Vec<NodeId> = all
                        .iter()
                        .copied()
                        .filter(|&n| self.function(n).class.as_ref() == Some(class))
                        .collect();
                    if !members.is_empty() {
                        return members;
                    }
                }
                let visible: Vec<NodeId> = all
                    .iter()
                    .copied()
                    .filter(|&n| {
                        let s = &self.function(n).scope;
                        self.function(n).class.is_none() && caller.scope.starts_with(s)
                    })
                    .collect();
                if !visible.is_empty() {
                    return visible;
                }
                all.into_iter()
                    .filter(|&n| self.function(n).class.is_none())
                    .collect()
            }
        }
    }
}

impl Derived {
    pub fn compute(sk: &Skeleton, bodies: &Bodies) -> Self {
        let n = bodies.len();
        let mut d = Derived {
            used: vec![AspectSet::EMPTY; n],
            kernel: vec![false; n],
            device: vec![false; n],
            decl: bodies
                .info
                .iter()
                .map(|i| {
                    i.declared
                        .map(|(fi, idx)| DeclSource::Function(fi, idx as usize))
                })
                .collect(),
            decorated: Vec::new(),
            entry_points: Vec::new(),
        };
        let launched = bodies.info.iter().flat_map(|i| &i.functor_props);
        for &(o, class) in launched.chain(&sk.class_kernels) {
            d.kernel[o] = true;
            if d.decl[o].is_none() {
                d.decl[o] = Some(DeclSource::Class(class.0, class.1));
            }
        }
        for info in &bodies.info {
            for &k in &info.launches {
                d.kernel[k] = true;
            }
        }
        // A template instantiated somewhere is checked in its instances, not as a pattern.
        let mut instantiated = vec![false; n];
        for (base, _) in &bodies.instances {
            instantiated[*base] = true;
        }
        for (node, inst) in instantiated.iter().enumerate() {
            if *inst {
                d.kernel[node] = false;
                d.decl[node] = None;
            }
        }
        d.decorated = (0..n).filter(|&n| d.decl[n].is_some()).collect();
        d.entry_points = (0..n)
            .filter(|&n| d.kernel[n] || bodies.info[n].external)
            .collect();
        d.mark_device(bodies);
        d.propagate(bodies);
        d
    }

    /// Device code: everything reachable from a kernel, a `SYCL_EXTERNAL` function or a function
    /// that declares `device_has`.
    fn mark_device(&mut self, bodies: &Bodies) {
        let mut queue: VecDeque<NodeId> = self
            .entry_points
            .iter()
            .chain(&self.decorated)
            .copied()
            .collect();
        for &n in &queue {
            self.device[n] = true;
        }
        while let Some(n) = queue.pop_front() {
            for e in &bodies.edges[n] {
                if !self.device[e.to] {
                    self.device[e.to] = true;
                    queue.push_back(e.to);
                }
            }
        }
    }

    /// used(F) = direct(F) ∪ ⋃ (used(G) − mask(F→G)), solved per strongly connected component
    /// in reverse topological order, iterating each component to its fixpoint.
    fn propagate(&mut self, bodies: &Bodies) {
        let n = self.used.len();
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, 0);
        let ids: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
        for (from, edges) in bodies.edges.iter().enumerate() {
            for e in edges {
                g.add_edge(ids[from], ids[e.to], ());
            }
        }
        for node in 0..n {
            self.used[node] = bodies.uses[node].iter().map(|u| u.aspect).collect();
        }
        for scc in tarjan_scc(&g) {
            loop {
                let mut changed = false;
                for &ix in &scc {
                    let node = ix.index();
                    let mut set = self.used[node];
                    for e in &bodies.edges[node] {
                        set = set.union(self.used[e.to].difference(e.mask));
                    }
                    if set != self.used[node] {
                        self.used[node] = set;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
    }
}

impl<'a> Graph<'a> {
    pub fn new(
        files: &'a [SourceFile],
        sk: &'a Skeleton,
        bodies: &'a Bodies,
        d: &'a Derived,
    ) -> Self {
        Graph {
            files,
            sk,
            bodies,
            edges: &bodies.edges,
            uses: &bodies.uses,
            info: &bodies.info,
            d,
        }
    }

    fn function(&self, node: NodeId) -> &'a Function {
        self.sk.function(self.files, self.bodies.base(node))
    }

    fn members_of(&self, node: NodeId) -> impl Iterator<Item = (u32, &'a Function)> + '_ {
        self.sk.members_of(self.files, self.bodies.base(node))
    }

    /// The shortest call chain from `from` to a use of `aspect`, ties broken by source order:
    /// the calls taken (caller, edge) and the use.
    pub fn chain(&self, from: NodeId, aspect: AspectId) -> Option<(Vec<(NodeId, &Edge)>, &Use)> {
        // Maps, not vectors over every node: a chain touches a handful of nodes.
        let mut parent: HashMap<NodeId, (NodeId, usize)> = HashMap::default();
        let mut queue = VecDeque::from([from]);
        while let Some(n) = queue.pop_front() {
            if let Some(u) = self.uses[n].iter().find(|u| u.aspect == aspect) {
                let mut path = Vec::new();
                let mut cur = n;
                while let Some(&(p, e)) = parent.get(&cur) {
                    path.push((p, &self.edges[p][e]));
                    cur = p;
                }
                path.reverse();
                return Some((path, u));
            }
            for (i, e) in self.edges[n].iter().enumerate() {
                if e.to != from
                    && !parent.contains_key(&e.to)
                    && !e.mask.contains(aspect)
                    && self.d.used[e.to].contains(aspect)
                {
                    parent.insert(e.to, (n, i));
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    /// Aspects used in `node`'s reach only where a guard (`if_device_has<A>(f)`) lets them: the
    /// device checks them at run time, so they never fail a launch.
    pub fn guarded(&self, node: NodeId) -> AspectSet {
        let mut all = AspectSet::default();
        let mut seen: rustc_hash::FxHashSet<NodeId> = Default::default();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            for u in &self.uses[n] {
                all.insert(u.aspect);
            }
            stack.extend(self.edges[n].iter().map(|e| e.to));
        }
        let used = self.used(node);
        all.iter().filter(|a| !used.contains(*a)).collect()
    }

    // ---- queries --------------------------------------------------------------------------

    pub fn function_count(&self) -> usize {
        self.sk.function_count
    }

    pub fn kernel_count(&self) -> usize {
        self.d.kernel.iter().filter(|&&k| k).count()
    }

    /// Nodes that declare aspects, in node order.
    pub fn decorated(&self) -> &'a [NodeId] {
        &self.d.decorated
    }

    /// Kernels and `SYCL_EXTERNAL` functions, in node order.
    pub fn entry_points(&self) -> &'a [NodeId] {
        &self.d.entry_points
    }

    /// Device code that calls `if_architecture_is`.
    pub fn arch_checking(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.info
            .iter()
            .enumerate()
            .filter(|(n, i)| i.arch_checks && self.d.device[*n])
            .map(|(n, _)| n)
    }

    /// A template instance (numbered after every function's own node).
    pub fn is_instance(&self, node: NodeId) -> bool {
        node >= self.bodies.base_count
    }

    pub fn is_kernel(&self, node: NodeId) -> bool {
        self.d.kernel[node]
    }

    pub fn device_has(&self, node: NodeId) -> Option<&'a DeviceHas> {
        let facts = |fi: u32| &self.files[fi as usize].facts;
        match self.d.decl[node]? {
            DeclSource::Function(fi, idx) => facts(fi).functions[idx].device_has.as_deref(),
            DeclSource::Class(fi, ci) => facts(fi).classes[ci].kernel_properties.as_ref(),
        }
    }

    pub fn used(&self, node: NodeId) -> AspectSet {
        self.d.used[node]
    }

    pub fn reqd_sub_group_size(&self, node: NodeId) -> Option<(i64, Span)> {
        self.members_of(node)
            .find_map(|(_, f)| f.reqd_sub_group_size.as_deref().copied())
    }

    pub fn arch_checks(&self, node: NodeId) -> impl Iterator<Item = &Span> + '_ {
        self.members_of(node)
            .flat_map(|(_, f)| f.arch_checks.iter())
    }

    pub fn path(&self, file: u32) -> &Arc<str> {
        &self.files[file as usize].path
    }

    /// The macro whose use in `file` holds the start of `range`: the code there came out of it.
    pub fn macro_at(&self, file: u32, range: crate::text::TextRange) -> Option<&str> {
        self.files[file as usize]
            .facts
            .preprocessor
            .expansions
            .iter()
            .find(|(r, _)| r.start <= range.start && range.start < r.end)
            .map(|(_, name)| name.as_str())
    }

    pub fn node_file(&self, node: NodeId) -> u32 {
        self.sk.members[self.bodies.base(node)][0].0
    }

    /// Where a finding about this function goes: its name, or a lambda's introducer. For a
    /// declaration carrying `device_has` whose definition is elsewhere, the definition.
    pub fn name_span(&self, node: NodeId) -> (u32, Located) {
        let file = self.node_file(node);
        (file, self.locate(file, self.function(node).name_span))
    }

    /// The file and byte offset of [`Graph::name_span`], without its line and column.
    pub fn name_start(&self, node: NodeId) -> (u32, u32) {
        (self.node_file(node), self.function(node).name_span.start)
    }

    /// A span of a file with its line and column.
    pub fn locate(&self, file: u32, span: Span) -> Located {
        self.files[file as usize].facts.locate(span)
    }

    pub fn display_name(&self, node: NodeId) -> String {
        let f = self.function(node);
        if f.is_lambda {
            let pos = self.locate(self.node_file(node), f.name_span).pos;
            format!(
                "lambda at {}:{}:{}",
                self.path(self.node_file(node)),
                pos.line,
                pos.column
            )
        } else if node >= self.bodies.base_count {
            let args = &self.bodies.instances[node - self.bodies.base_count].1;
            instance_name(f, args)
        } else {
            f.display_name()
        }
    }
}

/// `scale<double>(sycl::queue&, double*, size_t)`, `Saxpy<double>::operator()(...) const`.
fn instance_name(f: &Function, args: &[Ty]) -> String {
    let list = args
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let subst = |text: &str| -> String {
        let mut out = text.to_string();
        for (p, a) in f.tparams.iter().zip(args) {
            if p.name.is_empty() {
                continue;
            }
            let mut res = String::new();
            let mut rest = out.as_str();
            while let Some(i) = rest.find(p.name.as_str()) {
                let before = rest[..i].chars().last();
                let after = rest[i + p.name.len()..].chars().next();
                let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                res.push_str(&rest[..i]);
                if ident(before) || ident(after) {
                    res.push_str(&p.name);
                } else {
                    res.push_str(&a.to_string());
                }
                rest = &rest[i + p.name.len()..];
            }
            res.push_str(rest);
            out = res;
        }
        out
    };
    let mut scope = f.scope.clone();
    let name = match (&f.class, scope.last_mut()) {
        (Some(c), Some(last)) if last == c => {
            last.push_str(&format!("<{list}>"));
            f.name.to_string()
        }
        _ => format!("{}<{list}>", f.name),
    };
    scope.push(name);
    let params: Vec<String> = f.params.iter().map(|p| subst(p)).collect();
    format!(
        "{}({}){}",
        scope.join("::"),
        params.join(", "),
        if f.is_const { " const" } else { "" }
    )
}
