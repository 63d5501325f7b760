//! Indexing the workspace at start-up: every source read and extracted on the pool (from the
//! persisted index when unchanged), then taken into the state.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_lsp::lsp_types::{
    notification, NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress,
    WorkDoneProgressBegin, WorkDoneProgressCreateParams, WorkDoneProgressEnd,
};
use async_lsp::LanguageClient;

use super::{start_watching, State, INDEX_TOKEN};
use crate::base::SourceFile;
use crate::project::Project;
use crate::{syntax, workspace};

pub(super) struct Indexed {
    files: Vec<SourceFile>,
    texts: Vec<String>,
    notices: Vec<crate::diagnostics::Diagnostic>,
    fragments: Vec<(Arc<str>, Arc<str>)>,
    external: Vec<Arc<str>>,
}

pub(super) fn start_indexing(st: &mut State) {
    start_watching(st);
    let Some(root) = st.root.clone() else {
        st.indexed = true;
        st.schedule();
        return;
    };
    let token = NumberOrString::String(INDEX_TOKEN.into());
    if st.progress {
        let client = st.client.clone();
        let token2 = token.clone();
        tokio::spawn(async move {
            let mut c = client.clone();
            let _ = c
                .work_done_progress_create(WorkDoneProgressCreateParams {
                    token: token2.clone(),
                })
                .await;
            let _ = client.notify::<notification::Progress>(ProgressParams {
                token: token2,
                value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(
                    WorkDoneProgressBegin {
                        title: "sycl-analyzer: indexing".into(),
                        ..Default::default()
                    },
                )),
            });
        });
    }
    let client = st.client.clone();
    let project = Project {
        roots: vec![root],
        ..st.project.clone()
    };
    let config = st.host.config().clone();
    tokio::task::spawn_blocking(move || {
        let options = crate::project::LoadOptions {
            cache: true,
            keep_texts: true,
            ..Default::default()
        };
        let loaded = match crate::project::load(&project, config, &options) {
            Ok(ws) => ws.loaded,
            Err(e) => {
                tracing::warn!("indexing: {e}");
                workspace::Loaded::default()
            }
        };
        let _ = client.emit(Indexed {
            files: loaded.files,
            texts: loaded.texts,
            notices: loaded.notices,
            fragments: loaded.fragments,
            external: loaded.external,
        });
    });
}

pub(super) fn on_indexed(st: &mut State, indexed: Indexed) {
    st.indexed = true;
    st.fragments = indexed.fragments;
    let external: Vec<PathBuf> = indexed
        .external
        .iter()
        .map(|p| PathBuf::from(&**p))
        .collect();
    if external != *st.external {
        // Their directories are watched too, for those files only.
        st.external = Arc::new(external);
        start_watching(st);
    }
    let open: HashSet<String> = st.docs.keys().filter_map(State::path_of).collect();
    for n in indexed.notices {
        if !open.contains(&*n.file) {
            st.notices.insert(n.file.to_string(), n);
        }
    }
    let files = Arc::make_mut(&mut st.files);
    let mut kept = Vec::new();
    for (f, text) in indexed.files.into_iter().zip(indexed.texts) {
        let path = f.path.to_string();
        // Open documents are newer than the disk.
        if open.contains(&path) || st.index_of.contains_key(&path) {
            continue;
        }
        // Indexed from the disk: a file that read an open document (its includer, a header)
        // is preprocessed again with the document's text.
        let reads_open = f.facts.preprocessor.deps.iter().any(|d| open.contains(d));
        st.readers
            .replace(files.len(), &syntax::FileFacts::default(), &f.facts);
        Arc::make_mut(&mut st.index_of).insert(path.clone(), files.len());
        if reads_open {
            st.dirty.insert(path, Arc::from(text));
        } else {
            kept.push((path, text));
        }
        files.push(f);
    }
    // Of the closed files' texts, only those other files read (headers, for the
    // preprocessing of the sources that include them) stay in memory; the others are read
    // from the disk when a run needs them (issue 19: 10 MiB at 500 k lines).
    let texts = Arc::make_mut(&mut st.texts);
    for (path, text) in kept {
        if st.readers.is_read(&path) {
            texts.insert(path, Arc::from(text));
        }
    }
    // Open documents analysed before the index existed read no workspace header: again.
    for (uri, doc) in &st.docs {
        let small = doc.text.len() as u64 <= workspace::MAX_FILE_BYTES;
        if let Some(path) = State::path_of(uri).filter(|p| small && workspace::is_cpp(Path::new(p)))
        {
            st.dirty
                .entry(path)
                .or_insert_with(|| Arc::from(doc.text.as_str()));
        }
    }
    if st.progress {
        let _ = st.client.notify::<notification::Progress>(ProgressParams {
            token: NumberOrString::String(INDEX_TOKEN.into()),
            value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(WorkDoneProgressEnd {
                message: Some(format!("{} files", st.files.len())),
            })),
        });
    }
    st.schedule();
}
