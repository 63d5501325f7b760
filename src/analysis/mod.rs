//! Workspace analysis: the static call graph of device code across files, used aspects
//! propagated up that graph, and the checks (`aspect-mismatch`, the AOT-target checks).
//!
//! Input is per-file facts plus the device table; output is domain diagnostics. No IO.
//!
//! * `visibility`: which files' declarations a file sees through its includes.
//! * `types`: what the semantic layer does not own (aspect tags on aliases, classes by name).
//! * `graph`: the call graph of one device compile (skeleton, per-node bodies, derived
//!   kernels and propagated aspects, chains); `graph::relink` after an interface change.
//! * `checks`: the checks of one device compile and their messages.
//! * `library_kernels`: oneMKL / oneMath calls whose precompiled kernels need an aspect a
//!   target lacks.
//! * `engine`: `OneCompile`, one device compile's analysis kept between edits (`Update`).
//! * `compiles`: `Engine`, one `OneCompile` per distinct device compile, findings merged.
//! * `parts`: a large workspace analysed in independent parts, batches in parallel.
//! * `matrix`: the kernel × target compatibility matrix.
//! * `report`: what the analysis answers (`Report`) and is run against (`Settings`).

mod checks;
mod compiles;
mod engine;
mod graph;
mod library_kernels;
pub mod matrix;
mod parts;
mod report;
mod types;
pub mod visibility;

pub use crate::base::SourceFile;
pub use crate::semantic::features::features;
pub use compiles::Engine;
pub use engine::Update;
pub use graph::ImageRule;
pub use parts::{analyze_parts, matrix_parts, parts};
pub use report::{FunctionSummary, Report, Settings, Stats, TargetCounts};

pub fn analyze(files: &[SourceFile], settings: &Settings) -> Report {
    Engine::new(files.to_vec()).report(settings)
}
