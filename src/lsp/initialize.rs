//! `initialize`: the client's capabilities and options read into the state.

use async_lsp::lsp_types::{
    self as lsp, request, HoverProviderCapability, InitializeParams, InitializeResult,
    PositionEncodingKind, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind,
};
use async_lsp::{ErrorCode, ResponseError};
use serde_json::Value;

use super::{inactive_regions, log, semantic_tokens, Options, State};
use crate::text::Encoding;

/// `initialize` with its params as sent: clangd's capabilities are not in lsp-types.
pub(super) enum InitializeRaw {}

impl request::Request for InitializeRaw {
    type Params = Value;
    type Result = InitializeResult;
    const METHOD: &'static str = <request::Initialize as request::Request>::METHOD;
}

pub(super) fn initialize(st: &mut State, raw: Value) -> Result<InitializeResult, ResponseError> {
    st.inactive_notify = inactive_regions::announced(&raw);
    let params: InitializeParams = serde_json::from_value(raw)
        .map_err(|e| ResponseError::new(ErrorCode::INVALID_PARAMS, e.to_string()))?;
    st.semantic_refresh = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.semantic_tokens.as_ref())
        .and_then(|s| s.refresh_support)
        .unwrap_or(false);
    let trace = params.trace.and_then(|t| serde_json::to_value(t).ok());
    st.trace.store(
        log::threshold(trace.as_ref().and_then(Value::as_str)),
        std::sync::atomic::Ordering::Relaxed,
    );
    st.lens_refresh = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.code_lens.as_ref())
        .and_then(|c| c.refresh_support)
        .unwrap_or(false);
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.clone())
        .unwrap_or_default();
    st.encoding = if offered.contains(&PositionEncodingKind::UTF8) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    #[allow(deprecated)]
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .and_then(|f| f.uri.to_file_path().ok())
        .or_else(|| params.root_uri.as_ref().and_then(|u| u.to_file_path().ok()));
    st.root = root;
    st.progress = params
        .capabilities
        .window
        .as_ref()
        .and_then(|w| w.work_done_progress)
        .unwrap_or(false);
    st.options = params
        .initialization_options
        .as_ref()
        .map(|o| Options::default().updated(o, st.root.as_deref()))
        .unwrap_or_default();
    st.reload_snapshot();
    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(match st.encoding {
                Encoding::Utf8 => PositionEncodingKind::UTF8,
                Encoding::Utf16 => PositionEncodingKind::UTF16,
            }),
            text_document_sync: Some(TextDocumentSyncCapability::Kind(
                TextDocumentSyncKind::INCREMENTAL,
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            completion_provider: Some(lsp::CompletionOptions {
                trigger_characters: Some([":", "(", "<", ",", "[", " "].map(String::from).to_vec()),
                ..Default::default()
            }),
            code_action_provider: Some(lsp::CodeActionProviderCapability::Simple(true)),
            inlay_hint_provider: Some(lsp::OneOf::Left(true)),
            code_lens_provider: Some(lsp::CodeLensOptions {
                resolve_provider: Some(false),
            }),
            semantic_tokens_provider: Some(semantic_tokens::capability()),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "sycl-analyzer".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    })
}
