//! `textDocument/hover`: positions and LSP types around `Analysis::hover`, which decides what to show;
//! a macro's value per device compile (preprocessing) is asked on the blocking pool.

use std::future::Future;
use std::sync::Arc;

use async_lsp::lsp_types::{self as lsp, Hover, HoverContents, MarkupContent, MarkupKind};
use async_lsp::ResponseError;

use super::{convert, is_yaml, State};
use crate::ide;

pub(super) fn hover(
    st: &mut State,
    params: lsp::HoverParams,
) -> impl Future<Output = Result<Option<Hover>, ResponseError>> + use<> {
    let answer = answer(st, params);
    async move {
        Ok(match answer {
            Answer::Now(h) => h,
            Answer::Later(job) => tokio::task::spawn_blocking(job).await.ok().flatten(),
        })
    }
}

enum Answer {
    Now(Option<Hover>),
    /// Preprocessing the workspace's includes runs on the blocking pool.
    Later(Box<dyn FnOnce() -> Option<Hover> + Send>),
}

fn answer(st: &State, params: lsp::HoverParams) -> Answer {
    let uri = &params.text_document_position_params.text_document.uri;
    let Some(doc) = st.docs.get(uri) else {
        return Answer::Now(None);
    };
    let pos = params.text_document_position_params.position;
    let index = crate::text::LineIndex::new(&doc.text);
    let offset = index.offset_of(&doc.text, pos.line, pos.character, st.encoding);
    let path = State::path_of(uri);
    let encoding = st.encoding;
    let reply = move |text: &str, h: ide::HoverText| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown,
        }),
        range: Some(convert::range(
            text,
            &crate::text::LineIndex::new(text),
            h.range,
            encoding,
        )),
    };
    let analysis = st.host.analysis();
    let at = ide::Position {
        text: &doc.text,
        offset,
        file: path.as_deref(),
        yaml: is_yaml(uri),
    };
    let pending = match analysis.hover(at, &st.last.summaries) {
        ide::HoverAnswer::Ready(h) => return Answer::Now(h.map(|h| reply(&doc.text, h))),
        ide::HoverAnswer::MacroValue(pending) => pending,
    };
    let Some(path) = path else {
        // Not asked for without a file.
        return Answer::Now(
            pending
                .answer(None, &st.snapshot.table)
                .map(|h| reply(&doc.text, h)),
        );
    };
    // A C++ word: what macro it is here, in each device compile.
    let text: Arc<str> = Arc::from(doc.text.as_str());
    let mut paths: Vec<Arc<str>> = st.files.iter().map(|f| f.path.clone()).collect();
    if !paths.iter().any(|p| **p == *path) {
        paths.push(Arc::from(path.as_str()));
    }
    let mut texts: Vec<Option<Arc<str>>> = paths
        .iter()
        .map(|p| {
            if **p == *path {
                Some(text.clone())
            } else {
                st.current_text(p)
            }
        })
        .collect();
    for (p, t) in &st.fragments {
        paths.push(p.clone());
        texts.push(Some(t.clone()));
    }
    // Open documents' facts may be older than their texts; appended files have none.
    let newer: Vec<u32> = st
        .docs
        .keys()
        .filter_map(State::path_of)
        .filter_map(|p| st.index_of.get(&p))
        .map(|&i| i as u32)
        .chain((st.files.len()..paths.len()).map(|i| i as u32))
        .collect();
    let may_include = crate::project::inputs::may_include(st.files.clone(), newer);
    Answer::Later(Box::new(move || {
        let sources = analysis
            .sources(paths, texts)
            .fetching(crate::project::inputs::read_closed)
            .knowing_includers(may_include);
        let h = analysis.macro_value(pending, &sources, &path, offset)?;
        Some(reply(&text, h))
    }))
}
