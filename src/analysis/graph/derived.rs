//! What the whole graph decides: kernels, device code (reach from entry points), and the used
//! aspects propagated bottom-up over strongly connected components.

use std::collections::VecDeque;
use std::sync::OnceLock;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::{Bodies, ImageRule, NodeId, Skeleton};
use crate::devices::AspectSet;

/// Where a node's declared aspects are written: a member function's `device_has`, the
/// `get(properties_tag)` of the functor class it is the `operator()` of, or the property list
/// type that `get` returns in this instance (`NodeInfo::props`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclSource {
    Function(u32, usize),
    Class(u32, usize),
    Typed(NodeId),
}

/// What the whole graph decides: kernels, device code, propagated aspects.
#[derive(Clone)]
pub struct Derived {
    /// Per node, the aspects used under each `ImageRule` of the current release (by
    /// `ImageRule::index`); the first is the unoptimised rule `device_has` checks follow.
    used: Vec<[AspectSet; 4]>,
    /// The same under DPC++ 2023's typed pointers, computed when a report first asks: most
    /// projects never do, and a second table would double this part of the memory.
    typed: OnceLock<Vec<[AspectSet; 4]>>,
    pub(super) kernel: Vec<bool>,
    pub(super) device: Vec<bool>,
    pub(super) decl: Vec<Option<DeclSource>>,
    /// Nodes that declare aspects, and kernels or `SYCL_EXTERNAL` functions, in node order.
    pub(super) decorated: Vec<NodeId>,
    pub(super) entry_points: Vec<NodeId>,
    /// `Graph::referenced_patterns` and `Graph::reached_from_sources`, each a walk of the
    /// whole graph: made once per graph (a `Derived` is made again whenever calls or launches
    /// change), not once per report, which every save of a body asks for.
    pub(super) referenced: OnceLock<Vec<bool>>,
    pub(super) reached: OnceLock<Vec<bool>>,
}

impl Derived {
    pub fn compute(sk: &Skeleton, bodies: &Bodies) -> Self {
        let n = bodies.len();
        let mut d = Derived {
            used: Vec::new(),
            typed: OnceLock::new(),
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
            referenced: OnceLock::new(),
            reached: OnceLock::new(),
        };
        let launched = bodies.info.iter().flat_map(|i| &i.functor_props);
        for &(o, class) in launched.chain(&sk.class_kernels) {
            d.kernel[o] = true;
            if d.decl[o].is_none() {
                d.decl[o] = Some(DeclSource::Class(class.0, class.1));
            }
        }
        for (node, info) in bodies.info.iter().enumerate() {
            if info.props.is_some() && d.decl[node].is_none() {
                d.decl[node] = Some(DeclSource::Typed(node));
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
        d.used = propagate(bodies, false);
        d
    }

    /// Per node, the aspects used under the rules of the release `typed_pointers` says.
    pub(super) fn used(&self, bodies: &Bodies, typed_pointers: bool) -> &[[AspectSet; 4]] {
        if typed_pointers {
            self.typed.get_or_init(|| propagate(bodies, true))
        } else {
            &self.used
        }
    }

    /// Device code: everything reachable from a kernel, a `SYCL_EXTERNAL` function or a function
    /// that declares `device_has`, but for a template's instance: [temp.inst]/11 instantiates
    /// only the instances code needs, and DPC++ emits for the device (and checks) only those
    /// device code reaches, so `smoothstep<double>` called only from host code is no root.
    fn mark_device(&mut self, bodies: &Bodies) {
        let own_root = |n: &&NodeId| **n < bodies.base_count;
        let mut queue: VecDeque<NodeId> = self
            .entry_points
            .iter()
            .chain(self.decorated.iter().filter(own_root))
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
}

/// used(F) = direct(F) ∪ ⋃ (used(G) − mask(F→G)), solved per strongly connected component
/// in reverse topological order, iterating each component to its fixpoint.
fn propagate(bodies: &Bodies, typed_pointers: bool) -> Vec<[AspectSet; 4]> {
    let n = bodies.len();
    let mut used = vec![[AspectSet::EMPTY; 4]; n];
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, 0);
    let ids: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    for (from, edges) in bodies.edges.iter().enumerate() {
        for e in edges {
            g.add_edge(ids[from], ids[e.to], ());
        }
    }
    for (slots, uses) in used.iter_mut().zip(&bodies.uses) {
        for rule in ImageRule::all(typed_pointers) {
            slots[rule.index()] = uses
                .iter()
                .filter(|u| rule.keeps(u))
                .map(|u| u.aspect)
                .collect();
        }
    }
    for scc in tarjan_scc(&g) {
        loop {
            let mut changed = false;
            for &ix in &scc {
                let node = ix.index();
                let mut set = used[node];
                for e in &bodies.edges[node] {
                    for (s, callee) in set.iter_mut().zip(used[e.to]) {
                        *s = s.union(callee.difference(e.mask));
                    }
                }
                if set != used[node] {
                    used[node] = set;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
    used
}
