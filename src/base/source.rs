//! A file of the workspace as the analysis reads it: its path and its facts.

use std::sync::Arc;

use crate::syntax::FileFacts;

/// One analysed file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: Arc<str>,
    /// Shared: a snapshot of the workspace is a vector of cheap clones.
    pub facts: Arc<FileFacts>,
}
