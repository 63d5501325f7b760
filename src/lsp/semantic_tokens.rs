//! `textDocument/semanticTokens/full` and `/range`: inactive preprocessor regions as tokens of
//! the standard type `comment` (every theme greys those out; clangd does the same) with the
//! modifier `inactive`, so a theme can style them apart from real comments.

use async_lsp::lsp_types::{self as lsp, request, Url};

use super::{convert, inactive_regions, State};
use crate::ide::inactive;

const TYPE_COMMENT: u32 = 0;
const MOD_INACTIVE: u32 = 1 << 0;

pub fn legend() -> lsp::SemanticTokensLegend {
    lsp::SemanticTokensLegend {
        token_types: vec![lsp::SemanticTokenType::COMMENT],
        token_modifiers: vec![lsp::SemanticTokenModifier::new("inactive")],
    }
}

pub fn capability() -> lsp::SemanticTokensServerCapabilities {
    lsp::SemanticTokensOptions {
        legend: legend(),
        range: Some(true),
        full: Some(lsp::SemanticTokensFullOptions::Bool(true)),
        ..Default::default()
    }
    .into()
}

/// Tokens of the lines `first..=last` (every line when `None`), from the latest analysis; what
/// they were computed from is kept, to refresh the client when an analysis changes it.
fn tokens(st: &mut State, uri: &Url, lines: Option<(u32, u32)>) -> lsp::SemanticTokens {
    let Some((text, index, spans)) = inactive_regions::spans_of(st, uri) else {
        // Not analysed yet (a new file): the first analysis refreshes these empty tokens.
        st.tokens_served.insert(uri.clone(), Vec::new());
        return lsp::SemanticTokens::default();
    };
    let mut inactive = inactive::lines(&text, &index, &spans);
    if let Some((first, last)) = lines {
        inactive.retain(|&(l, _)| first <= l && l <= last);
    }
    let data = convert::semantic_tokens(
        &text,
        &index,
        &inactive,
        TYPE_COMMENT,
        MOD_INACTIVE,
        st.encoding,
    );
    st.tokens_served.insert(uri.clone(), spans);
    lsp::SemanticTokens {
        result_id: None,
        data,
    }
}

pub(super) fn full(st: &mut State, params: lsp::SemanticTokensParams) -> lsp::SemanticTokensResult {
    tokens(st, &params.text_document.uri, None).into()
}

pub(super) fn range(
    st: &mut State,
    params: lsp::SemanticTokensRangeParams,
) -> lsp::SemanticTokensRangeResult {
    let r = params.range;
    tokens(
        st,
        &params.text_document.uri,
        Some((r.start.line, r.end.line)),
    )
    .into()
}

/// `workspace/semanticTokens/refresh`: the client asks again for the tokens of what it shows.
pub(super) fn refresh(st: &State) {
    let client = st.client.clone();
    tokio::spawn(async move {
        let _ = client.request::<request::SemanticTokensRefresh>(()).await;
    });
}
