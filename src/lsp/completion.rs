//! `textDocument/completion`.

use async_lsp::lsp_types::{self as lsp};

use super::{is_yaml, State};
use crate::ide;

pub(super) fn completion(
    st: &State,
    params: lsp::CompletionParams,
) -> Option<lsp::CompletionResponse> {
    let pos = params.text_document_position;
    let doc = st.docs.get(&pos.text_document.uri)?;
    let index = crate::text::LineIndex::new(&doc.text);
    let offset = index.offset_of(
        &doc.text,
        pos.position.line,
        pos.position.character,
        st.encoding,
    );
    let path = State::path_of(&pos.text_document.uri);
    let items = st.host.analysis().completions(ide::Position {
        text: &doc.text,
        offset,
        file: path.as_deref(),
        yaml: is_yaml(&pos.text_document.uri),
    });
    (!items.is_empty()).then(|| {
        lsp::CompletionResponse::Array(
            items
                .into_iter()
                .map(|c| lsp::CompletionItem {
                    label: c.label,
                    insert_text: Some(c.insert),
                    detail: Some(c.detail),
                    kind: Some(match c.kind {
                        ide::CompletionKind::Aspect => lsp::CompletionItemKind::ENUM_MEMBER,
                        ide::CompletionKind::Target => lsp::CompletionItemKind::MODULE,
                        ide::CompletionKind::Field => lsp::CompletionItemKind::FIELD,
                        ide::CompletionKind::Value => lsp::CompletionItemKind::VALUE,
                    }),
                    ..Default::default()
                })
                .collect(),
        )
    })
}
