//! Per node, what its bodies say: direct aspect uses, outgoing calls, launches, and the
//! template instances numbered after the nodes.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;
use thin_vec::ThinVec;

use super::{Collector, Edge, NodeId, Use};
use crate::semantic::Ty;

/// What a node's bodies say besides uses and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeInfo {
    /// The member (file, index) that carries `device_has`.
    pub(super) declared: Option<(u32, u32)>,
    /// Kernels launched from here.
    pub(super) launches: ThinVec<NodeId>,
    /// Functor kernels launched from here whose class declares aspects: (operator, class).
    pub(super) functor_props: ThinVec<(NodeId, (u32, usize))>,
    /// What a functor `operator()` instance declares through the property list type its
    /// class's `get(properties_tag)` returns (a functor template's argument).
    pub(super) props: Option<Arc<crate::syntax::DeviceHas>>,
    pub(super) external: bool,
    pub(super) arch_checks: bool,
    /// Files whose bodies typing this node read (see `semantic::Typed::reads`).
    pub(super) reads: ThinVec<u32>,
    /// Calls of oneMKL / oneMath routines whose library kernels need an aspect, with the file
    /// of the typed body. Host-side: nothing the graph derives depends on them.
    pub(super) library: ThinVec<(u32, crate::semantic::LibraryKernel)>,
}

impl NodeInfo {
    /// Equal in everything the graph derives from (all but `library`).
    fn same_for_graph(&self, o: &NodeInfo) -> bool {
        let NodeInfo {
            declared,
            launches,
            functor_props,
            props,
            external,
            arch_checks,
            reads,
            library: _,
        } = self;
        (
            declared,
            launches,
            functor_props,
            props,
            external,
            arch_checks,
            reads,
        ) == (
            &o.declared,
            &o.launches,
            &o.functor_props,
            &o.props,
            &o.external,
            &o.arch_checks,
            &o.reads,
        )
    }
}

/// What collecting one node's bodies found.
pub type Collected = (ThinVec<Use>, ThinVec<Edge>, NodeInfo);

/// Per node: direct uses, outgoing calls, launches. Re-read per node whose files changed.
#[derive(Clone, Default)]
pub struct Bodies {
    pub(super) edges: Vec<ThinVec<Edge>>,
    pub(super) uses: Vec<ThinVec<Use>>,
    pub(super) info: Vec<NodeInfo>,
    /// Template instantiations, nodes `base_count..`: the pattern's node and the arguments.
    pub(super) instances: Vec<(NodeId, Arc<[Ty]>)>,
    pub(super) base_count: usize,
    /// The instances' lookup tables, when the last update left them: the next one takes them
    /// instead of hashing every instance's arguments again.
    pub(super) lookup: Option<Lookup>,
}

#[derive(Clone, Default)]
pub(super) struct Lookup {
    pub(super) by_key: HashMap<(NodeId, Arc<[Ty]>), NodeId>,
    pub(super) per_base: HashMap<NodeId, usize>,
    pub(super) per_part: Option<HashMap<u32, usize>>,
}

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

    /// Templates with as many instances as the analysis makes of one
    /// (`collect::MAX_INSTANCES_PER_TEMPLATE`): those past it are the generic pattern. Counted
    /// from the instances, so a fresh build and an updated one agree.
    /// Only templates with an instance `device` accepts (device code) count.
    pub fn saturated(&self, device: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
        let mut per: HashMap<NodeId, (usize, bool)> = HashMap::default();
        for (k, (b, _)) in self.instances.iter().enumerate() {
            let e = per.entry(*b).or_default();
            e.0 += 1;
            e.1 |= device(self.base_count + k);
        }
        let mut out: Vec<NodeId> = per
            .into_iter()
            .filter(|&(_, (n, dev))| dev && n >= super::collect::MAX_INSTANCES_PER_TEMPLATE)
            .map(|(b, _)| b)
            .collect();
        out.sort_unstable();
        out
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
        let aspects = |u: &[Use]| u.iter().map(|u| (u.aspect, u.fate)).collect::<Vec<_>>();
        let calls = |e: &[Edge]| e.iter().map(|e| (e.to, e.mask)).collect::<Vec<_>>();
        let changed = aspects(&uses) != aspects(&self.uses[node])
            || calls(&edges) != calls(&self.edges[node])
            || !info.same_for_graph(&self.info[node]);
        self.uses[node] = uses;
        self.edges[node] = edges;
        self.info[node] = info;
        changed
    }
}
