//! The open documents' notifications: opened, changed, closed, and what each schedules.

use std::ops::ControlFlow;
use std::sync::Arc;

use async_lsp::lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
};

use super::{convert, inactive_regions, Doc, State};
use async_lsp::lsp_types::Url;

pub(super) fn on_change(st: &mut State, uri: &Url) {
    let Some(path) = State::path_of(uri) else {
        return;
    };
    let text = st.docs.get(uri).map(|d| d.text.clone());
    if let Some(text) = text {
        if st.is_config(&path) {
            st.reload_snapshot();
        } else {
            st.set_file(path, &text);
        }
    }
    st.schedule();
}

pub(super) fn did_open(
    st: &mut State,
    p: DidOpenTextDocumentParams,
) -> ControlFlow<async_lsp::Result<()>> {
    let uri = p.text_document.uri;
    inactive_regions::forget(st, &uri);
    st.docs.insert(
        uri.clone(),
        Doc {
            text: p.text_document.text,
            version: p.text_document.version,
        },
    );
    on_change(st, &uri);
    ControlFlow::Continue(())
}

pub(super) fn did_change(
    st: &mut State,
    p: DidChangeTextDocumentParams,
) -> ControlFlow<async_lsp::Result<()>> {
    let started = std::time::Instant::now();
    let uri = p.text_document.uri;
    if let Some(doc) = st.docs.get_mut(&uri) {
        for change in &p.content_changes {
            convert::apply_change(&mut doc.text, change, st.encoding);
        }
        doc.version = p.text_document.version;
    }
    on_change(st, &uri);
    tracing::debug!(elapsed = ?started.elapsed(), "didChange");
    ControlFlow::Continue(())
}

pub(super) fn did_close(
    st: &mut State,
    p: DidCloseTextDocumentParams,
) -> ControlFlow<async_lsp::Result<()>> {
    let uri = p.text_document.uri;
    st.docs.remove(&uri);
    inactive_regions::forget(st, &uri);
    if let Some(path) = State::path_of(&uri) {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                st.set_file(path.clone(), &text);
                if st.readers.is_read(&path) {
                    Arc::make_mut(&mut st.texts).insert(path.clone(), Arc::from(text));
                } else if st.texts.contains_key(&path) {
                    Arc::make_mut(&mut st.texts).remove(&path);
                }
            }
            Err(_) => {
                // Deleted while open: it no longer takes part.
                st.dirty.remove(&path);
                if st.index_of.contains_key(&path) {
                    st.store_facts(vec![(path.clone(), Arc::default())]);
                }
            }
        }
        if st.is_config(&path) {
            st.reload_snapshot();
        }
    }
    st.schedule();
    ControlFlow::Continue(())
}
