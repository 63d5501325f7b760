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
use crate::semantic::Fate;
use crate::syntax::Span;

pub type NodeId = usize;

/// A direct use of an aspect inside a function.
#[derive(Clone, Debug)]
pub struct Use {
    pub aspect: AspectId,
    pub what: String,
    /// Why a value of `what` uses the aspect when its name does not say (`SemUse::why`).
    pub why: Option<String>,
    pub file: u32,
    pub span: Span,
    pub fate: Fate,
}

impl Use {
    fn new(aspect: AspectId, what: String, file: u32, span: Span, fate: Fate) -> Self {
        Self {
            aspect,
            what,
            why: None,
            file,
            span,
            fate,
        }
    }
}

/// How a device image's aspects are computed: DPC++ recomputes them after optimisation
/// (unless `-O0` or `-fno-sycl-early-optimizations`), and with `-fsycl-fp64-conv-emu` an AOT
/// Intel GPU image leaves out fp64 that is only conversions. `device_has` checks use the
/// unoptimised rule of the release (`ImageRule::declared`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImageRule {
    pub optimised: bool,
    pub fp64_conv_emu: bool,
    /// DPC++ 2023 and older (`devices::DpcppRelease`): device IR with typed pointers, whose
    /// element type counted, so a `double *` value used fp64; and aspects recorded before
    /// optimisation only (no intel/llvm PR #8681), so a narrowed double still counted.
    pub typed_pointers: bool,
}

impl ImageRule {
    /// The rules of one release (`typed_pointers` as given), by `index`.
    pub(crate) fn all(typed_pointers: bool) -> [ImageRule; 4] {
        [(false, false), (true, false), (false, true), (true, true)].map(
            |(optimised, fp64_conv_emu)| ImageRule {
                optimised,
                fp64_conv_emu,
                typed_pointers,
            },
        )
    }

    /// The slot of the rule among its release's (`Derived` keeps the two releases apart).
    pub(crate) fn index(self) -> usize {
        usize::from(self.optimised) + 2 * usize::from(self.fp64_conv_emu)
    }

    /// The rule `device_has` checks follow: the unoptimised one of the same release.
    pub fn declared(self) -> ImageRule {
        ImageRule {
            typed_pointers: self.typed_pointers,
            ..ImageRule::default()
        }
    }

    /// Whether a use counts in an image built under this rule; a pointee's only with typed
    /// pointers, and otherwise only fp64 can vanish.
    pub fn keeps(self, u: &Use) -> bool {
        if u.fate.pointee && !self.typed_pointers {
            return false;
        }
        if Some(u.aspect) != crate::devices::registry().by_name("fp64") {
            return true;
        }
        !(self.narrows() && u.fate.narrowed || self.fp64_conv_emu && u.fate.conversion)
    }

    /// A double LLVM narrowed to float leaves no fp64 in the image: only where the release
    /// records aspects again after optimising (PR #8681, 2024.0 on; `devices::release`).
    fn narrows(self) -> bool {
        self.optimised && !self.typed_pointers
    }
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub to: NodeId,
    pub span: Span,
    /// Aspects whose uses beyond this call do not count (`if_device_has<A>(f)`).
    pub mask: AspectSet,
}
