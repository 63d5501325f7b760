//! The workspace call graph: one node per function (a declaration and its definition are one
//! node), edges for direct calls resolved by name, direct aspect uses per node, and the used
//! aspects propagated bottom-up over strongly connected components.
//!
//! Call resolution: a qualified call matches functions whose scope ends with the qualifier; an
//! unqualified call prefers members of the caller's class, then functions visible from the
//! caller's namespace, then any free function of that name; a member call matches methods of
//! the receiver's declared class when it is known, else every method of that name. Overloads
//! are narrowed by argument count; whatever remains ambiguous gets an edge to every candidate.
//!
//! The parts: `skeleton` (nodes and what depends on interfaces only), `bodies` and `collect`
//! (each node's uses, calls and launches, and template instances), `derived` (kernels, device
//! code, propagated aspects), `view` (the checks' read-only [`Graph`]: chains and names), and
//! `relink` (interface edits without a rebuild).

mod bodies;
mod collect;
mod derived;
mod relink;
mod skeleton;
mod view;

pub use bodies::{Bodies, Collected};
pub use collect::{Collector, MAX_INSTANCES_PER_TEMPLATE};
pub use derived::Derived;
pub use relink::relink;
pub use skeleton::Skeleton;
pub(super) use skeleton::{group_functions, signature_hashes};
pub use view::Graph;

use crate::devices::{AspectId, AspectSet};
use crate::syntax::Span;

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
