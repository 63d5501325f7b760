//! `textDocument/codeLens`: above each kernel and `SYCL_EXTERNAL` function of a document, on how
//! many configured targets it runs and why not on the others (`ide::kernel_lens`). The command
//! `sycl-analyzer.showKernelMatrix` (handled by the editor integrations) shows the whole matrix.

use std::future::Future;

use async_lsp::lsp_types::{self as lsp, CodeLens, Command};
use async_lsp::ResponseError;
use serde_json::json;

use super::{convert, effective_targets, State};
use crate::ide;

pub(super) const SHOW_MATRIX: &str = "sycl-analyzer.showKernelMatrix";

pub(super) fn code_lens(
    st: &mut State,
    params: lsp::CodeLensParams,
) -> impl Future<Output = Result<Option<Vec<CodeLens>>, ResponseError>> + use<> {
    let uri = params.text_document.uri;
    let doc_text = st.docs.get(&uri).map(|d| d.text.clone());
    let path = State::path_of(&uri);
    let analysis = st.host.analysis();
    let targets = effective_targets(st);
    let encoding = st.encoding;
    async move {
        let (Some(text), Some(path)) = (doc_text, path) else {
            return Ok(None);
        };
        // The matrix reads the shared engine, which a running analysis holds: off the loop.
        let lenses = tokio::task::spawn_blocking(move || {
            let matrix = analysis.matrix_if_analysed(&targets, &|f| f == path)?;
            let index = crate::text::LineIndex::new(&text);
            let lenses = matrix
                .rows
                .iter()
                .filter(|r| r.name_span.range.end <= text.len())
                .map(|r| CodeLens {
                    range: convert::range(&text, &index, r.name_span.range, encoding),
                    command: Some(Command {
                        title: ide::kernel_lens(r),
                        command: SHOW_MATRIX.into(),
                        arguments: Some(vec![json!(r.name), json!(&*r.file)]),
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
