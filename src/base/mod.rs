//! The workspace's shared vocabulary, below `analysis` and beside `workspace` and `cache`,
//! which all use it: a file as the analysis reads it (`SourceFile`: its path and facts), the
//! workspace's paths and how an include resolves among them (`PathIndex`, `is_header`), and
//! disjoint sets (`UnionFind`). Pure: no IO. `paths` and `union_find` depend on nothing;
//! `source` on `syntax`'s facts.

mod paths;
mod source;
mod union_find;

pub use paths::{is_header, normalize, PathIndex, Search};
pub use source::SourceFile;
pub(crate) use union_find::UnionFind;
