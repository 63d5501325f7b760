//! What the walks of a parsed tree share (the extraction, the lowering, the splicing of an
//! edit): node kinds by table, where positions of the parsed text are in the file, and where
//! the extractor found each function and class.

use super::pp;
use crate::text::{Span, TextRange};

/// The grammar, for the kind names below to borrow from.
static LANGUAGE: std::sync::LazyLock<tree_sitter::Language> =
    std::sync::LazyLock::new(|| tree_sitter_cpp::LANGUAGE.into());

/// Node kinds by id, looked up once: `Node::kind` measures and validates the C string of the
/// name on every call, which showed in profiles of the two walks.
static KINDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let lang: &'static tree_sitter::Language = &LANGUAGE;
    (0..lang.node_kind_count() as u16)
        .map(|id| lang.node_kind_for_id(id).unwrap_or(""))
        .collect()
});

pub(crate) trait NodeExt {
    /// The node's kind (`Node::kind`), from the table.
    fn k(&self) -> &'static str;
}

impl NodeExt for tree_sitter::Node<'_> {
    fn k(&self) -> &'static str {
        KINDS.get(self.kind_id() as usize).copied().unwrap_or("")
    }
}

/// Where positions of the parsed (preprocessed) text are in the file.
pub struct Positions<'a> {
    pub(super) map: &'a pp::SourceMap,
}

impl Positions<'_> {
    /// The file span a range of the parsed text comes from.
    pub fn span(&self, range: TextRange) -> Span {
        Span::new(self.map.to_source(range))
    }
}

/// Where the extractor found each function and class in the parsed text: the lowering walks
/// the same tree and finds them again by these, not by their (file) spans, which several
/// declarations out of one macro expansion share.
#[derive(Default)]
pub struct Starts {
    pub functions: Vec<usize>,
    pub classes: Vec<usize>,
}
