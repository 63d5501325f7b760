//! The daemon's `sycl/*` methods served from the editor's live state.

use async_lsp::{ErrorCode, ResponseError};
use serde_json::Value;

use super::State;
use crate::devices;
use crate::server;

/// `sycl/kernelMatrix` from the editor's analysis; `None` before the first analysis.
pub(super) fn matrix_of(
    analysis: &crate::ide::Analysis,
    params: &Value,
) -> Option<Result<Value, server::RpcError>> {
    let list = params.get("targets").filter(|t| !t.is_null())?;
    let text = match list {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => return None,
    };
    let parsed = devices::parse_target_list(&text, analysis.table());
    if !parsed.invalid.is_empty() {
        // The daemon's handler words the error.
        return None;
    }
    let matrix = analysis.matrix_if_analysed(&parsed.targets, &|_| true)?;
    Some(Ok(crate::proto::matrix_answer(&matrix, params)))
}

/// Any other request: a `sycl/*` method of the daemon, answered on the pool from the
/// editor's snapshot (its device table, its targets, its kept analysis for the matrix).
pub(super) fn serve(
    st: &mut State,
    req: async_lsp::AnyRequest,
) -> impl std::future::Future<Output = Result<Value, ResponseError>> + Send + 'static {
    // The daemon's methods, served from the editor's live state.
    let mut snapshot = (*st.snapshot).clone();
    // The matrix comes from the analysis the editor keeps (unsaved edits in).
    let kept = (req.method == "sycl/kernelMatrix").then(|| st.host.analysis());
    // Without `targets`, a request means the editor's configured targets.
    let targets: Option<Vec<String>> = st
        .targets()
        .map(|t| t.iter().map(|t| t.canonical.clone()).collect());
    // Findings for the editor's own targets (none named) come from the editor's analysis,
    // once it has run: unsaved edits in, nothing loaded again.
    let own = req.params.get("targets").is_none_or(Value::is_null);
    if own && st.host.analysis().is_analysed() {
        snapshot.editor = Some(server::EditorAnalysis(st.host.analysis()));
    }
    async move {
        if !req.method.starts_with("sycl/") {
            return Err(ResponseError::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("unknown method '{}'", req.method),
            ));
        }
        let method = req.method.clone();
        let mut params = req.params.clone();
        if let (Some(t), true) = (targets, params.get("targets").is_none_or(Value::is_null)) {
            // Lua clients encode an empty table as `[]`.
            if params.is_null() || params.as_array().is_some_and(Vec::is_empty) {
                params = serde_json::json!({});
            }
            if let Some(obj) = params.as_object_mut() {
                obj.insert("targets".into(), serde_json::json!(t));
            }
        }
        let outcome = tokio::task::spawn_blocking(move || {
            if let Some(kept) = kept {
                if let Some(m) = matrix_of(&kept, &params) {
                    return m.into();
                }
            }
            server::handle(&snapshot, &method, &params)
        })
        .await
        .map_err(|_| ResponseError::new(ErrorCode::INTERNAL_ERROR, "internal error"))?;
        outcome.result.map_err(|e| match e.data {
            Some(d) => ResponseError::new_with_data(ErrorCode(e.code as i32), e.message, d),
            None => ResponseError::new(ErrorCode(e.code as i32), e.message),
        })
    }
}
