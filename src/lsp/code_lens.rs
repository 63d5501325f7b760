//! `textDocument/codeLens`: above each kernel and `SYCL_EXTERNAL` function of a document, on how
//! many configured targets it runs and why not on the others (`Analysis::kernel_lenses`). The command
//! `sycl-analyzer.showKernelMatrix` (handled by the editor integrations) shows the whole matrix.

use std::future::Future;

use async_lsp::lsp_types::{self as lsp, CodeLens, Command};
use async_lsp::ResponseError;
use serde_json::json;

use super::{convert, State};

pub(super) const SHOW_MATRIX: &str = "sycl-analyzer.showKernelMatrix";

pub(super) fn code_lens(
    st: &mut State,
    params: lsp::CodeLensParams,
) -> impl Future<Output = Result<Option<Vec<CodeLens>>, ResponseError>> + use<> {
    let uri = params.text_document.uri;
    let doc_text = st.docs.get(&uri).map(|d| d.text.clone());
    let path = State::path_of(&uri);
    let analysis = st.host.analysis();
    let encoding = st.encoding;
    async move {
        let (Some(text), Some(path)) = (doc_text, path) else {
            return Ok(None);
        };
        // The matrix reads the shared engine, which a running analysis holds: off the loop.
        let lenses = tokio::task::spawn_blocking(move || {
            let index = crate::text::LineIndex::new(&text);
            let lenses = analysis
                .kernel_lenses(&path, text.len())?
                .into_iter()
                .map(|l| CodeLens {
                    range: convert::range(&text, &index, l.range, encoding),
                    command: Some(Command {
                        title: l.title,
                        command: SHOW_MATRIX.into(),
                        arguments: Some(vec![json!(l.kernel), json!(&*l.file)]),
                    }),
                    data: None,
                })
                .collect();
            Some(lenses)
        })
        .await
        .ok()
        .flatten();
        Ok(lenses)
    }
}

/// Asks the client to ask for code lenses again (after an analysis).
pub(super) fn refresh(st: &State) {
    let client = st.client.clone();
    tokio::spawn(async move {
        let _ = client
            .request::<async_lsp::lsp_types::request::CodeLensRefresh>(())
            .await;
    });
}
