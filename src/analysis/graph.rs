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

// Fx: the maps are keyed by names and small ids, hashed in hot loops; no untrusted keys.
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::features::features;
use super::types::{known_aspects, TypeIndex};
use super::visibility::Visibility;
use super::SourceFile;
use crate::devices::{registry, AspectId, AspectSet};
use crate::syntax::{AspectRef, Call, CallTarget, DeviceHas, Function, KernelRef, Span};

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

pub struct Graph<'a> {
    files: &'a [SourceFile],
    /// Per node, its functions (file, index); the definition, if any, first.
    members: Vec<Vec<(u32, usize)>>,
    node_of: HashMap<(u32, usize), NodeId>,
    by_name: HashMap<&'a str, Vec<NodeId>>,
    /// The same, per file declaring the function: a call looks only in the files it sees, so a
    /// name defined in every file of a large workspace costs a call nothing extra.
    by_name_in_file: HashMap<(&'a str, u32), Vec<NodeId>>,
    edges: Vec<Vec<Edge>>,
    uses: Vec<Vec<Use>>,
    used: Vec<AspectSet>,
    kernel: Vec<bool>,
    device: Vec<bool>,
    device_has: Vec<Option<DeviceHas>>,
    visibility: Visibility,
}

/// One node per function: a declaration and its definition are one node. Several definitions of
/// one signature (separate programs in one workspace) are separate nodes; a declaration then
/// joins the definition its file can see, else the one nearest to it in the directory tree
/// (what the linker of its program would pick).
fn group_functions(files: &[SourceFile], visibility: &Visibility) -> Vec<Vec<(u32, usize)>> {
    let mut by_key: HashMap<String, Vec<(u32, usize)>> = HashMap::default();
    let mut order: Vec<String> = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        for (idx, f) in file.facts.functions.iter().enumerate() {
            let key = group_key(fi as u32, idx, f);
            let slot = by_key.entry(key.clone()).or_default();
            if slot.is_empty() {
                order.push(key);
            }
            slot.push((fi as u32, idx));
        }
    }
    let is_def = |&(fi, idx): &(u32, usize)| files[fi as usize].facts.functions[idx].is_definition;
    let mut nodes = Vec::new();
    for key in order {
        let all = by_key.remove(&key).expect("every key has members");
        let (defs, decls): (Vec<_>, Vec<_>) = all.into_iter().partition(|m| is_def(m));
        if defs.len() <= 1 {
            nodes.push(defs.into_iter().chain(decls).collect());
            continue;
        }
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

fn group_key(file: u32, idx: usize, f: &Function) -> String {
    if f.is_lambda || f.name == "<host>" {
        format!("#{file}:{idx}")
    } else {
        format!(
            "{}({}){}",
            f.qualified_name(),
            f.params.join(","),
            if f.is_const { "c" } else { "" }
        )
    }
}

impl<'a> Graph<'a> {
    pub fn build(files: &'a [SourceFile]) -> Self {
        let visibility = Visibility::new(files);
        let members = group_functions(files, &visibility);
        let mut node_of = HashMap::default();
        for (node, m) in members.iter().enumerate() {
            for &member in m {
                node_of.insert(member, node);
            }
        }
        let n = members.len();
        let mut g = Graph {
            files,
            members,
            node_of,
            by_name: HashMap::default(),
            by_name_in_file: HashMap::default(),
            edges: vec![Vec::new(); n],
            uses: vec![Vec::new(); n],
            used: vec![AspectSet::EMPTY; n],
            kernel: vec![false; n],
            device: vec![false; n],
            device_has: vec![None; n],
            visibility,
        };
        for node in 0..n {
            let f = g.function(node);
            if !f.is_lambda && f.name != "<host>" {
                g.by_name.entry(f.name.as_str()).or_default().push(node);
                let mut files: Vec<u32> = g.members[node].iter().map(|&(fi, _)| fi).collect();
                files.dedup();
                for fi in files {
                    g.by_name_in_file
                        .entry((f.name.as_str(), fi))
                        .or_default()
                        .push(node);
                }
            }
            let declared = g.members_of(node).find_map(|(_, f)| f.device_has.clone());
            g.device_has[node] = declared;
        }
        let types = TypeIndex::new(files);
        for node in 0..n {
            g.collect(node, &types);
        }
        g.mark_kernels(&types);
        g.mark_device();
        g.propagate();
        g
    }

    fn function(&self, node: NodeId) -> &'a Function {
        let (fi, idx) = self.members[node][0];
        &self.files[fi as usize].facts.functions[idx]
    }

    fn members_of(&self, node: NodeId) -> impl Iterator<Item = (u32, &'a Function)> + '_ {
        self.members[node]
            .iter()
            .map(|&(fi, idx)| (fi, &self.files[fi as usize].facts.functions[idx]))
    }

    /// Direct uses and outgoing edges of one node.
    fn collect(&mut self, node: NodeId, types: &TypeIndex) {
        let f = features();
        let reg = registry();
        let fp64 = reg.by_name("fp64").expect("fp64 is an aspect");
        let mut uses = Vec::new();
        let mut edges = Vec::new();
        let members: Vec<(u32, &Function)> = self.members_of(node).collect();
        for (fi, func) in members {
            for m in &func.types {
                if m.template_of
                    .as_deref()
                    .is_some_and(|t| f.is_compile_time(t))
                {
                    continue;
                }
                let set = types.aspects(&m.text, m.first_arg.as_deref());
                let what = match &m.first_arg {
                    Some(a) => format!("{}<{a}>", m.text),
                    None => m.text.clone(),
                };
                for a in set.iter() {
                    uses.push(Use::new(a, what.clone(), fi, m.span));
                }
            }
            for l in &func.literals {
                uses.push(Use::new(
                    fp64,
                    format!("double literal {}", l.text),
                    fi,
                    l.span,
                ));
            }
            for r in &func.uses_aspects {
                if let AspectRef::Named { name, span } = r {
                    if let Some(a) = reg.by_name(name) {
                        uses.push(Use::new(a, format!("__uses_aspects__({name})"), fi, *span));
                    }
                }
            }
            for call in &func.calls {
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
                    if f.is_math(name) {
                        for l in &call.literal_args {
                            uses.push(Use::new(
                                fp64,
                                format!("double literal {} passed to {name}", l.text),
                                fi,
                                l.span,
                            ));
                        }
                    }
                }
                let mask = known_aspects(&call.guarded);
                for to in self.resolve(fi, func, call, types) {
                    edges.push(Edge {
                        to,
                        span: call.span,
                        mask,
                    });
                }
            }
        }
        uses.sort_by_key(|u| (u.file, u.span.range.start));
        self.uses[node] = uses;
        self.edges[node] = edges;
    }

    /// Functions of that name declared where `from` can see them, taking `args` arguments.
    fn candidates(&self, from: u32, name: &str, args: usize) -> impl Iterator<Item = NodeId> + '_ {
        let mut nodes: Vec<NodeId> = self
            .visibility
            .visible_from(from)
            .iter()
            .filter_map(|&f| self.by_name_in_file.get(&(name, f)))
            .flatten()
            .copied()
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
            .into_iter()
            .filter(move |&n| self.function(n).accepts_args(args))
    }

    fn constructors(&self, from: u32, type_name: &str, args: usize) -> Vec<NodeId> {
        let base = type_name.split('<').next().unwrap_or(type_name);
        let class = base.rsplit("::").next().unwrap_or(base);
        self.candidates(from, class, args)
            .filter(|&n| self.function(n).class.as_deref() == Some(class))
            .collect()
    }

    fn resolve(&self, file: u32, caller: &Function, call: &Call, types: &TypeIndex) -> Vec<NodeId> {
        match &call.target {
            CallTarget::Lambda(idx) => self
                .node_of
                .get(&(file, *idx))
                .copied()
                .into_iter()
                .collect(),
            CallTarget::Construct { type_name } => self.constructors(file, type_name, call.args),
            CallTarget::Member {
                name,
                receiver_type,
            } => {
                let methods = self
                    .candidates(file, name, call.args)
                    .filter(|&n| self.function(n).class.is_some());
                match receiver_type {
                    Some(t) => {
                        let base = t.split('<').next().unwrap_or(t);
                        let class = base
                            .rsplit("::")
                            .next()
                            .unwrap_or(base)
                            .trim_end_matches(['&', '*']);
                        methods
                            .filter(|&n| self.function(n).class.as_deref() == Some(class))
                            .collect()
                    }
                    None => methods.collect(),
                }
            }
            CallTarget::Named { name, qualifier } => {
                let all: Vec<NodeId> = self.candidates(file, name, call.args).collect();
                if !qualifier.is_empty() {
                    let q: Vec<&str> = qualifier.iter().map(String::as_str).collect();
                    return all
                        .into_iter()
                        .filter(|&n| scope_ends_with(&self.function(n).scope, &q))
                        .collect();
                }
                if all.is_empty() {
                    // `S(...)` constructs when S is a class.
                    return if types.classes_named(name).is_empty() {
                        Vec::new()
                    } else {
                        self.constructors(file, name, call.args)
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

    fn mark_kernels(&mut self, types: &TypeIndex) {
        let mut kernels = Vec::new();
        let mut functor_props = Vec::new();
        for node in 0..self.members.len() {
            for (fi, func) in self.members_of(node) {
                for launch in &func.launches {
                    match &launch.kernel {
                        KernelRef::Lambda(idx) => {
                            kernels.extend(self.node_of.get(&(fi, *idx)).copied())
                        }
                        KernelRef::Functor(t) => {
                            let ops = self.functor_operators(Some(fi), t);
                            kernels.extend(ops.iter().copied());
                            for c in types.classes_named(t) {
                                if let Some(p) = &c.kernel_properties {
                                    functor_props.extend(ops.iter().map(|&o| (o, p.clone())));
                                }
                            }
                        }
                    }
                }
            }
        }
        // A functor with `get(properties_tag)` declares its kernel's aspects even when it is
        // launched from a file the analysis does not see.
        for file in self.files {
            for c in &file.facts.classes {
                if let Some(p) = &c.kernel_properties {
                    for o in self.functor_operators(None, &c.name) {
                        functor_props.push((o, p.clone()));
                        kernels.push(o);
                    }
                }
            }
        }
        for k in kernels {
            self.kernel[k] = true;
        }
        for (o, p) in functor_props {
            if self.device_has[o].is_none() {
                self.device_has[o] = Some(p);
            }
        }
    }

    /// The `operator()`s of a functor class, as seen from a launching file (any when `None`).
    fn functor_operators(&self, from: Option<u32>, type_name: &str) -> Vec<NodeId> {
        let base = type_name.split('<').next().unwrap_or(type_name);
        let class = base.rsplit("::").next().unwrap_or(base);
        self.by_name
            .get("operator()")
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&n| self.function(n).class.as_deref() == Some(class))
                    .filter(|&n| {
                        from.is_none_or(|f| {
                            self.members[n]
                                .iter()
                                .any(|&(g, _)| self.visibility.sees(f, g))
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Device code: everything reachable from a kernel, a `SYCL_EXTERNAL` function or a function
    /// that declares `device_has`.
    fn mark_device(&mut self) {
        let mut queue: VecDeque<NodeId> = (0..self.members.len())
            .filter(|&n| self.kernel[n] || self.device_has[n].is_some() || self.is_sycl_external(n))
            .collect();
        for &n in &queue {
            self.device[n] = true;
        }
        while let Some(n) = queue.pop_front() {
            for e in &self.edges[n] {
                if !self.device[e.to] {
                    self.device[e.to] = true;
                    queue.push_back(e.to);
                }
            }
        }
    }

    /// used(F) = direct(F) ∪ ⋃ (used(G) − mask(F→G)), solved per strongly connected component
    /// in reverse topological order, iterating each component to its fixpoint.
    fn propagate(&mut self) {
        let n = self.members.len();
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, 0);
        let ids: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
        for (from, edges) in self.edges.iter().enumerate() {
            for e in edges {
                g.add_edge(ids[from], ids[e.to], ());
            }
        }
        for node in 0..n {
            self.used[node] = self.uses[node].iter().map(|u| u.aspect).collect();
        }
        for scc in tarjan_scc(&g) {
            loop {
                let mut changed = false;
                for &ix in &scc {
                    let node = ix.index();
                    let mut set = self.used[node];
                    for e in &self.edges[node] {
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

    /// The shortest call chain from `from` to a use of `aspect`, ties broken by source order:
    /// the calls taken (caller, edge) and the use.
    pub fn chain(&self, from: NodeId, aspect: AspectId) -> Option<(Vec<(NodeId, &Edge)>, &Use)> {
        let mut parent: HashMap<NodeId, (NodeId, usize)> = HashMap::default();
        let mut queue = VecDeque::from([from]);
        let mut seen = vec![false; self.members.len()];
        seen[from] = true;
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
                if !seen[e.to] && !e.mask.contains(aspect) && self.used[e.to].contains(aspect) {
                    seen[e.to] = true;
                    parent.insert(e.to, (n, i));
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    // ---- queries --------------------------------------------------------------------------

    pub fn nodes(&self) -> impl Iterator<Item = NodeId> {
        0..self.members.len()
    }

    pub fn function_count(&self) -> usize {
        (0..self.members.len())
            .filter(|&n| self.function(n).name != "<host>")
            .count()
    }

    pub fn kernels(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes().filter(|&n| self.kernel[n])
    }

    pub fn is_kernel(&self, node: NodeId) -> bool {
        self.kernel[node]
    }

    pub fn is_device(&self, node: NodeId) -> bool {
        self.device[node]
    }

    pub fn is_sycl_external(&self, node: NodeId) -> bool {
        self.members_of(node).any(|(_, f)| f.sycl_external)
    }

    pub fn device_has(&self, node: NodeId) -> Option<&DeviceHas> {
        self.device_has[node].as_ref()
    }

    pub fn used(&self, node: NodeId) -> AspectSet {
        self.used[node]
    }

    pub fn reqd_sub_group_size(&self, node: NodeId) -> Option<(i64, Span)> {
        self.members_of(node)
            .find_map(|(_, f)| f.reqd_sub_group_size)
    }

    pub fn arch_checks(&self, node: NodeId) -> impl Iterator<Item = &Span> + '_ {
        self.members_of(node)
            .flat_map(|(_, f)| f.arch_checks.iter())
    }

    pub fn path(&self, file: u32) -> &Arc<str> {
        &self.files[file as usize].path
    }

    pub fn node_file(&self, node: NodeId) -> u32 {
        self.members[node][0].0
    }

    /// Where a finding about this function goes: its name, or a lambda's introducer. For a
    /// declaration carrying `device_has` whose definition is elsewhere, the definition.
    pub fn name_span(&self, node: NodeId) -> (u32, Span) {
        (self.node_file(node), self.function(node).name_span)
    }

    pub fn display_name(&self, node: NodeId) -> String {
        let f = self.function(node);
        if f.is_lambda {
            let pos = f.name_span.pos;
            format!(
                "lambda at {}:{}:{}",
                self.path(self.node_file(node)),
                pos.line,
                pos.column
            )
        } else {
            f.display_name()
        }
    }

    /// Every aspect reference written in the workspace, with its file.
    pub fn all_aspect_refs(&self) -> impl Iterator<Item = (u32, &'a Vec<AspectRef>)> + 'a {
        self.files.iter().enumerate().flat_map(|(fi, f)| {
            let fi = fi as u32;
            f.facts
                .functions
                .iter()
                .flat_map(move |func| {
                    func.device_has
                        .iter()
                        .map(move |d| (fi, &d.aspects))
                        .chain(std::iter::once((fi, &func.uses_aspects)))
                })
                .chain(f.facts.classes.iter().flat_map(move |c| {
                    c.kernel_properties
                        .iter()
                        .map(move |d| (fi, &d.aspects))
                        .chain(std::iter::once((fi, &c.uses_aspects)))
                }))
                .chain(f.facts.aliases.iter().map(move |a| (fi, &a.uses_aspects)))
        })
    }
}

fn scope_ends_with(scope: &[String], qualifier: &[&str]) -> bool {
    qualifier.len() <= scope.len()
        && scope[scope.len() - qualifier.len()..]
            .iter()
            .zip(qualifier)
            .all(|(s, q)| s == q)
}
