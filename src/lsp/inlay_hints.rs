//! `textDocument/inlayHint`.

use async_lsp::lsp_types::{self as lsp};

use super::State;

pub(super) fn inlay_hints(st: &State, params: lsp::InlayHintParams) -> Option<Vec<lsp::InlayHint>> {
    let doc = st.docs.get(&params.text_document.uri)?;
    let index = crate::text::LineIndex::new(&doc.text);
    let hints = st
        .host
        .analysis()
        .inlay_hints(&doc.text)
        .into_iter()
        .filter_map(|(offset, label)| {
            let (line, character) = index.position_in(&doc.text, offset, st.encoding);
            let inside = (params.range.start.line..=params.range.end.line).contains(&line);
            inside.then(|| lsp::InlayHint {
                position: lsp::Position::new(line, character),
                label: lsp::InlayHintLabel::String(label),
                kind: None,
                text_edits: None,
                tooltip: None,
                padding_left: None,
                padding_right: None,
                data: None,
            })
        })
        .collect();
    Some(hints)
}
