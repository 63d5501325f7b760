//! Collecting a node's bodies: typing them through `semantic`, making template instances
//! within bounds, and resolving untyped calls by name against the skeleton.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;
use thin_vec::ThinVec;

use super::bodies::{Lookup, NodeInfo};
use super::{Bodies, Edge, NodeId, Skeleton, Use};
use crate::analysis::types::{known_aspects, TypeIndex};
use crate::base::SourceFile;
use crate::semantic::features::features;
use crate::semantic::names::{self, scope_ends_with};
use crate::semantic::{self, Fate, Instance, Ty};
use crate::syntax::{AspectRef, Call, CallTarget, DeclForm, DeviceHas, Function, KernelRef, Name};

/// Bounds on instantiation: the work per part of the workspace stays linear whatever the
/// templates do.
const MAX_INSTANCES: usize = 20_000;
/// Per template: a test suite instantiates one kernel template for every type it tests (the
/// SYCL conformance suite makes 84 of one); recursion over values would make unboundedly many.
pub const MAX_INSTANCES_PER_TEMPLATE: usize = 256;

/// Reads function bodies: direct aspect uses, and calls resolved against the skeleton.
pub struct Collector<'a> {
    files: &'a [SourceFile],
    sk: &'a Skeleton,
    types: &'a TypeIndex<'a>,
    sem: &'a semantic::Index<'a>,
    pub(super) instances: std::cell::RefCell<Instances>,
}

#[derive(Default)]
pub(super) struct Instances {
    pub(super) by_key: HashMap<(NodeId, Arc<[Ty]>), NodeId>,
    pub(super) list: Vec<(NodeId, Arc<[Ty]>)>,
    pub(super) per_base: HashMap<NodeId, usize>,
    /// Instances per part, counted from `MAX_INSTANCES` instances on.
    pub(super) per_part: Option<HashMap<u32, usize>>,
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
        let mut members: Vec<(u32, usize)> = self.sk.members[base].clone();
        // Typing reads the definition when there is one (it comes first), else the declaration;
        // an instance, the explicit specialisation for its arguments when one is among them.
        let chosen = args.as_ref().and_then(|a| {
            members.iter().position(|&(fi, idx)| {
                semantic::specialises(self.sem, fi, idx as u32, a) == Some(true)
            })
        });
        // Not among them (another signature's node holds it, as a declaration and its first
        // specialisation are told apart): found by name across the workspace.
        let chosen = chosen.or_else(|| {
            let a = args.as_ref()?;
            let (fi, idx) = members[0];
            let (sf, si) = semantic::specialisation_for(self.sem, fi, idx as u32, a)?;
            members.insert(0, (sf, si as usize));
            Some(0)
        });
        let typed_member = chosen.unwrap_or(0);
        // An entry point is a definition (`SYCL_EXTERNAL` on any of its declarations): a
        // declaration only is compiled where it is defined.
        let (mut external, mut defined) = (false, false);
        for (i, &(fi, idx)) in members.iter().enumerate() {
            let func = &self.files[fi as usize].facts.functions[idx];
            if info.declared.is_none() && func.device_has.is_some() {
                info.declared = Some((members[i].0, members[i].1 as u32));
            }
            external |= func.sycl_external;
            defined |= func.body.is_some();
            // Another body than the chosen specialisation's is not this instance's code.
            if chosen.is_some() && i != typed_member && func.body.is_some() {
                continue;
            }
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
            if i == typed_member && func.name == "operator()" && info.declared.is_none() {
                info.props = self.typed_properties(fi, idx, args.as_ref(), &mut info.reads);
            }
            if let Some(t) = &typed {
                info.reads.extend(t.reads.iter().copied());
                info.reads.sort_unstable();
                info.reads.dedup();
                for u in &t.uses {
                    let why = u.why.clone();
                    uses.push(Use {
                        why,
                        ..Use::new(u.aspect, u.what.clone(), fi, u.span, u.fate)
                    });
                }
                info.library
                    .extend(t.library.iter().map(|k| (fi, k.clone())));
            }
            for m in &func.types {
                for a in self.types.alias_tags(&m.text).iter() {
                    uses.push(Use::new(a, m.text.to_string(), fi, m.span, Fate::KEPT));
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
                // Untyped, an algorithm's policy is unknown: its callables stay host code.
                if launch.via.starts_with(crate::syntax::LIBRARY_LAUNCH) {
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
                        uses.push(Use::new(a, format!("{name}()"), fi, call.span, Fate::KEPT));
                    }
                }
                let mask = if call.args == crate::syntax::DEFINITION_ONLY {
                    crate::devices::AspectSet::ALL
                } else {
                    known_aspects(&call.guarded)
                };
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
            // A function template named without a call (`fs[] = {run<32>, run<64>}`,
            // `&run<32>`) is instantiated all the same: its pattern counts as referenced.
            // No aspect flows back through a pointer (the mask): only what is compiled changes.
            if i == typed_member {
                // The typing selects the instance where it can ([temp.deduct.funcaddr]); the
                // pattern stands for the others.
                // A template's own pattern instantiates nothing ([temp.inst]): what it names
                // stands for the patterns it names, compiled only if it is.
                let named = typed.as_ref().map_or(&[][..], |t| &t.named[..]);
                let pattern = args.is_none() && !func.tparams.is_empty();
                for (span, insts) in named {
                    let nodes = insts.iter().filter_map(|i| match pattern {
                        true => self.sk.node_at(i.file, i.func as usize),
                        false => self.node_for(i),
                    });
                    for to in nodes {
                        edges.push(Edge {
                            to,
                            span: *span,
                            mask: crate::devices::AspectSet::ALL,
                        });
                    }
                }
                for (span, to) in self.named_templates(fi, func) {
                    if named.iter().any(|(s, _)| *s == span) {
                        continue;
                    }
                    edges.push(Edge {
                        to,
                        span,
                        mask: crate::devices::AspectSet::ALL,
                    });
                }
            }
            // Operator functions called by operator expressions (`Typed::implicit`).
            for (span, insts) in typed.iter().flat_map(|t| &t.implicit) {
                for to in insts.iter().filter_map(|i| self.node_for(i)) {
                    edges.push(Edge {
                        to,
                        span: *span,
                        mask: known_aspects(&[]),
                    });
                }
            }
        }
        // An explicit specialisation is an entry point as its own node: its instance is not
        // another one.
        info.external = external && defined && chosen.is_none();
        uses.sort_by_key(|u| (u.file, u.span.range().start));
        (uses, edges, info)
    }

    /// What a functor's `operator()` instance declares through the type its class's
    /// `get(properties_tag)` returns (`semantic::kernel_properties`); the files typing read
    /// are added to `reads`.
    fn typed_properties(
        &self,
        file: u32,
        func: usize,
        args: Option<&Arc<[Ty]>>,
        reads: &mut ThinVec<u32>,
    ) -> Option<Arc<DeviceHas>> {
        let inst = Instance {
            file,
            func: func as u32,
            subst: args.cloned().unwrap_or_else(|| Arc::from(Vec::new())),
        };
        let (found, read) = semantic::kernel_properties(self.sem, &inst);
        reads.extend(read);
        let (aspects, span) = found?;
        Some(Arc::new(DeviceHas {
            aspects: aspects
                .into_iter()
                .map(|name| AspectRef::Named { name, span })
                .collect(),
            form: DeclForm::Property,
            span,
        }))
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

    /// The function templates `func`'s body names with template arguments and does not call
    /// (their address taken, or their name decayed to one), with where each is named.
    fn named_templates(&self, file: u32, func: &Function) -> Vec<(crate::syntax::Span, NodeId)> {
        use crate::syntax::Expr;
        let Some(body) = func.body.as_deref() else {
            return Vec::new();
        };
        // Most bodies name no template: no set of callees made for them.
        if !body
            .exprs
            .iter()
            .any(|e| matches!(e, Expr::TemplateName { .. }))
        {
            return Vec::new();
        }
        let callees: rustc_hash::FxHashSet<u32> = body
            .exprs
            .iter()
            .filter_map(|e| match e {
                Expr::Call { callee, .. } => Some(*callee),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        for (id, e) in body.exprs.iter().enumerate() {
            let Expr::TemplateName { name, .. } = e else {
                continue;
            };
            if callees.contains(&(id as u32)) {
                continue;
            }
            let q = names::qualifier(name);
            let mut nodes: Vec<NodeId> = self
                .sem
                .visible_functions(file, names::last(name))
                .filter_map(|(f, i)| self.sk.node_at(f, i as usize))
                .filter(|&n| {
                    let callee = self.function(n);
                    callee.is_template
                        && match q.is_empty() {
                            true => callee.class.is_none() || callee.class == func.class,
                            false => scope_ends_with(&callee.scope, &q),
                        }
                })
                .collect();
            nodes.sort_unstable();
            nodes.dedup();
            let span = body.spans.get(id).copied().unwrap_or(func.name_span);
            out.extend(nodes.into_iter().map(|n| (span, n)));
        }
        out
    }

    fn constructors(&self, from: u32, type_name: &str, args: usize) -> Vec<NodeId> {
        let class = names::base_name(type_name);
        self.candidates(from, class, args)
            .filter(|&n| self.function(n).class.as_deref() == Some(class))
            .collect()
    }

    fn resolve(&self, file: u32, caller: &Function, call: &Call) -> Vec<NodeId> {
        match &call.target {
            CallTarget::Instantiate { .. } | CallTarget::InstantiateEach { .. } => Vec::new(),
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
