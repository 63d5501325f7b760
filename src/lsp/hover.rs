//! `textDocument/hover`: aspects, kernels' declared and used aspects, target names, and macros
//! as each device compile sees them where the cursor is.

use std::future::Future;
use std::sync::Arc;

use async_lsp::lsp_types::{self as lsp, Hover, HoverContents, MarkupContent, MarkupKind};
use async_lsp::ResponseError;

use super::{convert, effective_targets, is_yaml, State};
use crate::{ide, workspace};

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
    let yaml = is_yaml(uri);
    let targets = effective_targets(st);
    let table = &st.snapshot.table;
    let path = State::path_of(uri);
    let summary = st.last.summaries.iter().find(|f| {
        Some(&*f.file) == path.as_deref()
            && f.name_span.range.start <= offset
            && offset <= f.name_span.range.end
    });
    let encoding = st.encoding;
    let reply = move |text: &str, range, markdown: String| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(convert::range(
            text,
            &crate::text::LineIndex::new(text),
            range,
            encoding,
        )),
    };
    let found = ide::aspect_hover(&doc.text, offset, yaml, table, &targets)
        .or_else(|| summary.map(|f| (f.name_span.range, ide::function_hover(f))));
    if let Some((range, markdown)) = found {
        return Answer::Now(Some(reply(&doc.text, range, markdown)));
    }
    let Some((range, word)) = ide::word_at(&doc.text, offset) else {
        return Answer::Now(None);
    };
    let fallback = ide::macro_hover(word, table, &targets).or_else(|| {
        yaml.then(|| ide::yaml_key_hover(&doc.text, range, table))
            .flatten()
    });
    let Some(path) = path.filter(|_| !yaml) else {
        return Answer::Now(fallback.map(|m| reply(&doc.text, range, m)));
    };
    // A C++ word: what macro it is here, in each device compile.
    let conditional = in_conditional(&doc.text, offset);
    let word = word.to_string();
    let text: Arc<str> = Arc::from(doc.text.as_str());
    let env = st.compile();
    let table = st.snapshot.table.clone();
    let mut paths: Vec<Arc<str>> = st.files.iter().map(|f| f.path.clone()).collect();
    if !paths.iter().any(|p| **p == *path) {
        paths.push(Arc::from(path.as_str()));
    }
    let texts: Vec<Option<Arc<str>>> = paths
        .iter()
        .map(|p| {
            if **p == *path {
                Some(text.clone())
            } else {
                st.current_text(p)
            }
        })
        .collect();
    let mut texts = texts;
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
    let may_include = super::inputs::may_include(st.files.clone(), newer);
    Answer::Later(Box::new(move || {
        let sources = workspace::Sources::new(&env, paths, texts, None)
            .fetching(super::inputs::read_closed)
            .knowing_includers(may_include);
        let markdown = sources
            .position(&path)
            .map(|i| sources.macro_at(i, offset, &word))
            .and_then(|per| ide::macro_value_hover(&word, &per, conditional, &table))
            .or(fallback)?;
        Some(reply(&text, range, markdown))
    }))
}

/// Whether `offset` is on an `#if`-family line, where a macro's being undefined matters.
fn in_conditional(text: &str, offset: usize) -> bool {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |n| n + 1);
    let line = text[start..].trim_start();
    let Some(rest) = line.strip_prefix('#') else {
        return false;
    };
    let directive: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    matches!(
        directive.as_str(),
        "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef"
    )
}
