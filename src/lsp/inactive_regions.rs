//! Inactive preprocessor regions of open documents, and clangd's `textDocument/inactiveRegions`
//! notification (sent to clients that announce it), which editors such as vscode-clangd and
//! Neovim 0.7/0.8 (no semantic tokens) grey out.

use async_lsp::lsp_types::{self as lsp, notification::Notification, Url};
use serde::{Deserialize, Serialize};

use super::{convert, State};
use crate::ide::inactive::{self, LineSpan};
use crate::text::LineIndex;
use crate::workspace;

/// clangd's extension, not in lsp-types.
pub enum InactiveRegions {}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InactiveRegionsParams {
    pub text_document: lsp::VersionedTextDocumentIdentifier,
    pub regions: Vec<lsp::Range>,
}

impl Notification for InactiveRegions {
    type Params = InactiveRegionsParams;
    const METHOD: &'static str = "textDocument/inactiveRegions";
}

/// Does the client's `initialize` announce the notification
/// (`textDocument.inactiveRegionsCapabilities.inactiveRegions`)?
pub fn announced(raw_params: &serde_json::Value) -> bool {
    raw_params
        .pointer("/capabilities/textDocument/inactiveRegionsCapabilities/inactiveRegions")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// A document's current text with the inactive lines of its latest analysed facts (which may
/// be of an older text: clamped to this one). `None` for what is not a known C++ source.
pub(super) fn spans_of(
    st: &State,
    uri: &Url,
) -> Option<(std::sync::Arc<str>, LineIndex, Vec<LineSpan>)> {
    let path = State::path_of(uri)?;
    let &i = st.index_of.get(&path)?;
    let regions = st.files[i].facts.inactive_regions();
    let text = st.text_of(&path)?;
    let index = LineIndex::new(&text);
    let spans = inactive::line_spans(&text, &index, &regions);
    Some((text, index, spans))
}

/// After an accepted analysis: tells the client of every open document whose inactive lines
/// changed (a notification per document, and once after it is opened). Whether semantic tokens
/// the client holds are out of date: the caller asks for them again
/// (`semantic_tokens::refresh`).
#[must_use]
pub(super) fn after_analysis(st: &mut State) -> bool {
    let mut refresh = false;
    let uris: Vec<Url> = st.docs.keys().cloned().collect();
    for uri in uris {
        let is_source =
            State::path_of(&uri).is_some_and(|p| workspace::is_cpp(std::path::Path::new(&p)));
        if !is_source {
            continue;
        }
        let Some((text, index, spans)) = spans_of(st, &uri) else {
            continue;
        };
        if st.tokens_served.get(&uri).is_some_and(|s| *s != spans) {
            refresh = true;
            // Asked for again after the refresh; not a reason for another one meanwhile.
            st.tokens_served.insert(uri.clone(), spans.clone());
        }
        if st.inactive_notify && st.inactive_sent.get(&uri) != Some(&spans) {
            let version = st.docs.get(&uri).map_or(0, |d| d.version);
            let regions = spans
                .iter()
                .map(|&s| convert::line_span(&text, &index, s, st.encoding))
                .collect();
            let _ = st.client.notify::<InactiveRegions>(InactiveRegionsParams {
                text_document: lsp::VersionedTextDocumentIdentifier::new(uri.clone(), version),
                regions,
            });
            st.inactive_sent.insert(uri, spans);
        }
    }
    refresh
}

/// Forgets what was sent for a document (closed, or opened again: it gets a notification).
pub(super) fn forget(st: &mut State, uri: &Url) {
    st.inactive_sent.remove(uri);
    st.tokens_served.remove(uri);
}
