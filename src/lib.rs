//! sycl-analyzer: the DPC++ compiler's device knowledge and optional-feature checks, without
//! the compiler. See ARCHITECTURE.md for the layers.

pub mod analysis;
pub mod base;
pub mod bench;
pub mod cache;
pub mod cli;
pub mod devices;
pub mod diagnostics;
pub mod ide;
pub mod logging;
pub mod lsp;
pub mod memory;
pub mod project;
pub mod proto;
pub mod semantic;
pub mod server;
pub mod syntax;
pub mod text;
pub mod watch;
pub mod workspace;
