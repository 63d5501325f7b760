//! `textDocument/codeAction`.

use std::collections::HashMap;

use async_lsp::lsp_types as lsp;

use super::{convert, State};
use crate::ide;
use async_lsp::lsp_types::Url;

pub(super) fn code_actions(
    st: &State,
    params: lsp::CodeActionParams,
) -> Option<lsp::CodeActionResponse> {
    let uri = &params.text_document.uri;
    let path = State::path_of(uri)?;
    let text = st.text_of(&path)?;
    let index = crate::text::LineIndex::new(&text);
    let start = index.offset_of(
        &text,
        params.range.start.line,
        params.range.start.character,
        st.encoding,
    );
    let end = index.offset_of(
        &text,
        params.range.end.line,
        params.range.end.character,
        st.encoding,
    );
    let mut fixes = Vec::new();
    for d in st.last.diagnostics.iter().filter(|d| *d.file == *path) {
        if d.range.end < start || d.range.start > end {
            continue;
        }
        match d.code {
            crate::diagnostics::Code::AspectMismatch => {
                if let Some(aspect) = &d.aspect {
                    fixes.extend(ide::add_aspect(&text, &path, d.range.start, aspect));
                }
                if let Some(step) = d.chain.last().filter(|s| {
                    s.use_
                        .as_deref()
                        .is_some_and(|u| u.starts_with("double literal"))
                }) {
                    if let Some(t) = st.text_of(&step.file) {
                        fixes.extend(ide::float_suffix(&t, &step.file, step.range));
                    }
                }
            }
            crate::diagnostics::Code::UnknownAspect | crate::diagnostics::Code::UnknownKey => {
                for s in &d.suggestions {
                    fixes.push(ide::Fix {
                        title: format!("Replace with '{s}'"),
                        edits: vec![ide::Edit {
                            file: path.clone(),
                            range: d.range,
                            text: s.clone(),
                        }],
                    });
                }
            }
            _ => {}
        }
    }
    let actions = fixes
        .into_iter()
        .filter_map(|fix| {
            let mut changes: HashMap<Url, Vec<lsp::TextEdit>> = HashMap::new();
            for e in fix.edits {
                let t = st.text_of(&e.file)?;
                let idx = crate::text::LineIndex::new(&t);
                changes
                    .entry(Url::from_file_path(&e.file).ok()?)
                    .or_default()
                    .push(lsp::TextEdit {
                        range: convert::range(&t, &idx, e.range, st.encoding),
                        new_text: e.text,
                    });
            }
            Some(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: fix.title,
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                edit: Some(lsp::WorkspaceEdit {
                    changes: Some(changes),
                    ..Default::default()
                }),
                ..Default::default()
            }))
        })
        .collect();
    Some(actions)
}
