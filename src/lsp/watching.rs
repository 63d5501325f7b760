//! Changes on disk: the watcher reads and classifies them off the main loop; the state takes
//! them in order.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use async_lsp::lsp_types::{self as lsp};
use async_lsp::LanguageClient;

use super::State;
use crate::{syntax, workspace};

/// Changes on disk, already read and extracted on the watcher's thread.
pub(super) struct FsChanged {
    config: bool,
    /// Per changed C++ file: its new text and facts, else why it is skipped, or `None` when
    /// it is gone.
    sources: Vec<(String, ChangedSource)>,
    /// Events were lost and `sources` holds every file on disk: a known file missing from it
    /// is gone.
    rescan: bool,
}

/// A changed source read and parsed, else why it is skipped (`None`: it is gone).
pub(super) type ChangedSource = Result<String, Option<String>>;

/// (Re)starts watching the config files and the workspace.
pub(super) fn start_watching(st: &mut State) {
    st.watcher = None;
    let configs = st.config_paths.clone();
    let trees: Vec<PathBuf> = st.root.iter().cloned().collect();
    let client = st.client.clone();
    let watched = configs.clone();
    let rescan_roots = trees.clone();
    let external = st.external.clone();
    // Files watched through their directories: the config files and the external headers.
    let files: Vec<PathBuf> = configs.iter().chain(external.iter()).cloned().collect();
    let result = crate::watch::watch(&files, &trees, move |change| {
        use rayon::prelude::*;
        let config = watched.iter().any(|c| change.touches(c));
        let (paths, rescan) = match change {
            crate::watch::Change::Paths(paths) => (paths, false),
            // Events were lost: every source on disk is read again (the persisted index is not
            // consulted, as the files are the ones suspected of changing).
            crate::watch::Change::Unknown => {
                let mut all = workspace::discover(&rescan_roots).unwrap_or_default();
                all.extend(external.iter().filter(|p| p.exists()).cloned());
                (all, true)
            }
        };
        // A directory watched for a file outside the workspace reports its other files too.
        let source =
            |p: &PathBuf| rescan_roots.iter().any(|r| p.starts_with(r)) || external.contains(p);
        let sources = paths
            .par_iter()
            .filter(|p| workspace::is_cpp(p) && source(p))
            .map(|p| {
                let source = if p.exists() {
                    workspace::read_source(p).map_err(Some)
                } else {
                    Err(None)
                };
                (p.display().to_string(), source)
            })
            .collect();
        let _ = client.emit(FsChanged {
            config,
            sources,
            rescan,
        });
    });
    match result {
        Ok(w) => st.watcher = Some(w),
        Err(e) => {
            let _ = st.client.show_message(lsp::ShowMessageParams {
                typ: lsp::MessageType::WARNING,
                message: format!("sycl-analyzer: {e}; changes on disk will not be seen"),
            });
        }
    }
}

pub(super) fn on_fs_changed(st: &mut State, mut change: FsChanged) {
    tracing::debug!(
        sources = change.sources.len(),
        config = change.config,
        rescan = change.rescan,
        "files changed on disk"
    );
    let open: HashSet<String> = st.docs.keys().filter_map(State::path_of).collect();
    if change.rescan {
        let present: HashSet<&str> = change.sources.iter().map(|(p, _)| p.as_str()).collect();
        let gone: std::collections::BTreeSet<String> = st
            .index_of
            .keys()
            .chain(st.notices.keys())
            .filter(|p| !present.contains(p.as_str()))
            .cloned()
            .collect();
        change
            .sources
            .extend(gone.into_iter().map(|p| (p, Err(None))));
    }
    let mut parsed = Vec::new();
    let mut any_notice = false;
    for (path, source) in change.sources {
        // The client owns open documents.
        if open.contains(&path) {
            continue;
        }
        match source {
            Ok(text) => {
                // Parsed by the next analysis, with the headers' macros in force then.
                let text: Arc<str> = Arc::from(text);
                if st.readers.is_read(&path) {
                    Arc::make_mut(&mut st.texts).insert(path.clone(), text.clone());
                } else if st.texts.contains_key(&path) {
                    Arc::make_mut(&mut st.texts).remove(&path);
                }
                st.dirty.insert(path, text);
                any_notice = true;
            }
            Err(why) => {
                Arc::make_mut(&mut st.texts).remove(&path);
                match why {
                    Some(why) => {
                        let name: Arc<str> = Arc::from(path.as_str());
                        st.notices
                            .insert(path.clone(), *workspace::notice(&name, why));
                    }
                    None => {
                        st.notices.remove(&path);
                    }
                }
                if st.index_of.contains_key(&path) {
                    parsed.push((path, Arc::new(syntax::FileFacts::default())));
                } else {
                    any_notice = true;
                }
            }
        }
    }
    let any = change.config || any_notice || !parsed.is_empty();
    st.store_facts(parsed);
    if change.config {
        st.reload_snapshot();
    }
    if any {
        st.schedule();
    }
}
