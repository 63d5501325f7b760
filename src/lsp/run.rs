//! An analysis run: the sources an edit needs parsed, parsed and analysed off the main loop,
//! and the answer published back on it.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::Arc;

use async_lsp::lsp_types::{self as lsp, PublishDiagnosticsParams};
use async_lsp::LanguageClient;

use super::{code_lens, convert, inactive_regions, semantic_tokens, State};
use crate::analysis::{Report, Update};
use crate::base::SourceFile;
use crate::ide::Change;
use crate::project::inputs;
use crate::{syntax, workspace};
use async_lsp::lsp_types::Url;

pub(super) struct Analyzed {
    generation: u64,
    report: Report,
    /// Facts of the sources parsed for this run.
    parsed: Vec<(String, Arc<syntax::FileFacts>)>,
    /// Why some of them were skipped (over the parse budget); the others parsed.
    skipped: HashMap<String, String>,
}

impl State {
    /// Re-runs the analysis off the main loop, parsing the sources edited since the last one
    /// first; the result comes back as `Analyzed`. Each run takes every pending text, so a run
    /// whose result is dropped as stale loses nothing.
    pub(super) fn schedule(&mut self) {
        self.generation += 1;
        let generation = self.generation;
        self.latest
            .store(generation, std::sync::atomic::Ordering::Relaxed);
        let latest = self.latest.clone();
        // A newer run covers this one's files: the state's dirty set is cleared only by the
        // answer of the newest generation.
        let stale = move || latest.load(std::sync::atomic::Ordering::Relaxed) != generation;
        let dirty: Vec<(String, Arc<str>)> = self
            .dirty
            .iter()
            .map(|(p, t)| (p.clone(), t.clone()))
            .collect();
        let inputs = inputs::RunInputs {
            base: self.files.clone(),
            index_of: self.index_of.clone(),
            texts: self.texts.clone(),
            open: self
                .docs
                .iter()
                .filter_map(|(uri, d)| Some((State::path_of(uri)?, Arc::from(d.text.as_str()))))
                .collect(),
            readers: inputs::RunInputs::readers_of(&self.readers, &dirty),
            dirty,
            fragments: self.fragments.clone(),
        };
        let env = self.compile();
        let mut host = self.host.clone();
        let client = self.client.clone();
        let mut notices = self.notices.clone();
        let open: HashSet<String> = self.docs.keys().filter_map(State::path_of).collect();
        self.trees
            .set_open(open.iter().map(|p| Arc::<str>::from(p.as_str())));
        let trees = self.trees.clone();
        tokio::task::spawn_blocking(move || {
            if stale() {
                return;
            }
            let started = std::time::Instant::now();
            let results = inputs.extract(&env, Some(trees));
            let extracted = started.elapsed();
            let mut skipped = HashMap::new();
            let parsed: Vec<(String, Arc<syntax::FileFacts>)> = results
                .into_iter()
                .map(|(p, r)| {
                    let facts = r.unwrap_or_else(|why| {
                        skipped.insert(p.clone(), why);
                        syntax::FileFacts::default()
                    });
                    (p, Arc::new(facts))
                })
                .collect();
            for (p, _) in &parsed {
                notices.remove(p);
            }
            for (p, why) in &skipped {
                tracing::info!(file = %p, "{why}");
                let name: Arc<str> = Arc::from(p.as_str());
                notices.insert(p.clone(), *workspace::notice(&name, why.clone()));
            }
            let mut files: Vec<SourceFile> = (*inputs.base).clone();
            for (path, facts) in &parsed {
                match inputs.index_of.get(path) {
                    Some(&i) => files[i].facts = facts.clone(),
                    None => files.push(SourceFile {
                        path: Arc::from(path.as_str()),
                        facts: facts.clone(),
                    }),
                }
            }
            let functions: usize = files.iter().map(|f| f.facts.functions.len()).sum();
            let mut change = Change::new();
            change.set_files(files);
            change.set_notices(notices.into_values().collect());
            host.apply_change(change);
            let analysis = host.analysis();
            // Summaries serve hovers, which only open documents get.
            let t = std::time::Instant::now();
            let Ok((mut report, how)) = analysis.findings_unless(&|f| open.contains(f), &stale)
            else {
                return;
            };
            tracing::debug!(generation, ?how, elapsed = ?t.elapsed(), "update");
            // Whether this run freed much: the first analysis, a rebuilt graph, many files.
            let burst =
                parsed.len() > 1 || !matches!(how, Update::Bodies { .. } | Update::Unchanged);
            analysis.add_notices(&mut report);
            tracing::debug!(
                generation,
                parsed = parsed.len(),
                findings = report.diagnostics.len(),
                ?extracted,
                elapsed = ?started.elapsed(),
                "analysis"
            );
            let _ = client.emit(Analyzed {
                generation,
                report,
                parsed,
                skipped,
            });
            // A burst leaves tens of megabytes freed (500 k lines: the old skeleton, bodies,
            // findings) that glibc keeps, and edits that follow at once grow the heap from
            // there. In a large workspace it is trimmed now, off the answer's path but on the
            // next edit's (its run waits for the heap's locks): at 500 k lines the peak while
            // editing 186-189 -> 177 MiB, latencies within their noise; at 100 k lines, where
            // memory is no concern, interface edits' p99 rose by a few milliseconds.
            if burst {
                if functions >= LARGE_WORKSPACE {
                    crate::memory::trim_and_log("burst");
                }
                // And once idle, what the edits since freed.
                tokio::runtime::Handle::current().spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    if !stale() {
                        tokio::task::spawn_blocking(|| crate::memory::trim_and_log("idle"));
                    }
                });
            }
        });
    }

    /// Publishes what changed since the last run: a file whose findings are the same is not
    /// sent again, unless it is an open document edited since (each version gets an answer).
    /// Returns how many files it sent diagnostics for.
    pub(super) fn publish(&mut self, report: &Report) -> usize {
        use crate::diagnostics::Diagnostic;
        // By reference: cloning every finding of the workspace per edit showed in profiles;
        // only files whose findings changed are copied into `published`.
        let mut by_file: HashMap<&str, Vec<&Diagnostic>> = HashMap::new();
        for d in &report.diagnostics {
            by_file.entry(&d.file).or_default().push(d);
        }
        let mut next: Vec<(Url, Option<i32>, Vec<&Diagnostic>)> = Vec::new();
        for (uri, doc) in &self.docs {
            if let Some(path) = Self::path_of(uri) {
                let diags = by_file.remove(path.as_str()).unwrap_or_default();
                next.push((uri.clone(), Some(doc.version), diags));
            }
        }
        for (file, diags) in by_file {
            if let Ok(uri) = Url::from_file_path(file) {
                next.push((uri, None, diags));
            }
        }
        // How each file's offsets become positions, found once per file per run: an open
        // document's text, else the lines its facts keep (a closed file's text is not kept).
        enum Placer {
            Text(Arc<str>, crate::text::LineIndex),
            Lines(Arc<syntax::FileFacts>),
        }
        let mut indexes: HashMap<String, Option<Placer>> = HashMap::new();
        let encoding = self.encoding;
        let mut published = HashMap::with_capacity(next.len());
        let mut sent = 0;
        for (uri, version, diags) in next {
            let hash = {
                use std::hash::{Hash, Hasher};
                let mut h = rustc_hash::FxHasher::default();
                diags.hash(&mut h);
                h.finish()
            };
            let entry = (version, diags.len(), hash);
            let same = self.published.get(&uri) == Some(&entry);
            if !same {
                let diagnostics = diags
                    .iter()
                    .filter_map(|d| {
                        convert::diagnostic(d, |file, range| {
                            // A note on a whole file (skipped: huge, binary) needs no text read.
                            if range.end == 0 {
                                return Some(lsp::Range::default());
                            }
                            let placer = indexes
                                .entry(file.to_string())
                                .or_insert_with(|| {
                                    let open = Url::from_file_path(file)
                                        .is_ok_and(|u| self.docs.contains_key(&u));
                                    let facts = self
                                        .index_of
                                        .get(file)
                                        .and_then(|&i| self.files.get(i))
                                        .map(|f| f.facts.clone())
                                        .filter(|f| !open && f.lines.is_known());
                                    if let Some(facts) = facts {
                                        return Some(Placer::Lines(facts));
                                    }
                                    let text = self.text_of(file)?;
                                    let index = crate::text::LineIndex::new(&text);
                                    Some(Placer::Text(text, index))
                                })
                                .as_ref()?;
                            Some(match placer {
                                Placer::Text(text, index) => {
                                    convert::range(text, index, range, encoding)
                                }
                                Placer::Lines(facts) => {
                                    convert::range_in_lines(&facts.lines, range, encoding)
                                }
                            })
                        })
                    })
                    .collect();
                let _ = self.client.publish_diagnostics(PublishDiagnosticsParams {
                    uri: uri.clone(),
                    diagnostics,
                    version,
                });
                sent += 1;
            }
            self.published.remove(&uri);
            if entry.0.is_some() || entry.1 > 0 {
                published.insert(uri, entry);
            }
        }
        // Files with findings before and none now.
        for uri in std::mem::take(&mut self.published).into_keys() {
            let _ = self.client.publish_diagnostics(PublishDiagnosticsParams {
                uri,
                diagnostics: Vec::new(),
                version: None,
            });
            sent += 1;
        }
        self.published = published;
        sent
    }
}

/// Functions in a workspace past which a burst's freed memory is given back at once (about
/// 250 k lines).
const LARGE_WORKSPACE: usize = 40_000;

/// A publish of this many files or more is followed by a trim of the heap.
const MANY_FILES: usize = 256;

/// Emitted after a large publish, to trim the heap once its messages are written.
pub(super) struct Published;

pub(super) fn on_published(_: &mut State, _: Published) -> ControlFlow<async_lsp::Result<()>> {
    tokio::task::spawn_blocking(|| crate::memory::trim_and_log("publish"));
    ControlFlow::Continue(())
}

/// A run's answer, taken unless a newer run was scheduled meanwhile.
pub(super) fn on_analyzed(st: &mut State, a: Analyzed) -> ControlFlow<async_lsp::Result<()>> {
    if a.generation == st.generation {
        let started = std::time::Instant::now();
        for (p, _) in &a.parsed {
            st.notices.remove(p);
        }
        for (p, why) in a.skipped {
            let name: Arc<str> = Arc::from(p.as_str());
            st.notices.insert(p, *workspace::notice(&name, why));
        }
        st.store_facts(a.parsed);
        // The host's files are those just analysed: lenses and the matrix answer from them.
        let mut change = crate::ide::Change::new();
        change.set_files((*st.files).clone());
        st.host.apply_change(change);
        let sent = if st.indexed { st.publish(&a.report) } else { 0 };
        // The first answer sends every file's diagnostics: tens of megabytes of messages at
        // 500 k lines, freed once written, and kept by glibc for good unless trimmed. The event
        // comes after those messages, so they are written by then; edits that follow at once
        // start from the trimmed heap.
        if sent >= MANY_FILES {
            let _ = st.client.emit(Published);
        }
        st.last = Arc::new(a.report);
        // Inactive lines may have changed with the analysis, and the tokens showing them.
        if inactive_regions::after_analysis(st) && st.semantic_refresh {
            semantic_tokens::refresh(st);
        }
        // Where each kernel runs may have changed with the analysis.
        if st.lens_refresh {
            code_lens::refresh(st);
        }
        tracing::debug!(elapsed = ?started.elapsed(), "published");
    }
    ControlFlow::Continue(())
}
