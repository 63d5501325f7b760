//! `sycl-analyzer lsp`: the language server on stdio, on async-lsp.
//!
//! async-lsp runs notification handlers one at a time, in order, on the server state (so
//! `didChange` edits apply in the order they were sent); request handlers take what they need
//! from the state and answer from a future. Analysis runs on the blocking pool over immutable
//! copies and comes back as an event; a result older than the latest edit is dropped.
//! Only this module knows LSP types: `convert` turns domain data into them.

mod code_lens;
pub mod convert;
mod hover;
mod inactive_regions;
mod inputs;
pub mod log;
mod semantic_tokens;

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_lsp::client_monitor::ClientProcessMonitorLayer;
use async_lsp::concurrency::ConcurrencyLayer;
use async_lsp::lsp_types::{
    self as lsp, notification, request, HoverProviderCapability, InitializeParams,
    InitializeResult, NumberOrString, PositionEncodingKind, ProgressParams, ProgressParamsValue,
    PublishDiagnosticsParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, Url, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd,
};
use async_lsp::panic::CatchUnwindLayer;
use async_lsp::router::Router;
use async_lsp::server::LifecycleLayer;
use async_lsp::{ClientSocket, ErrorCode, LanguageClient, ResponseError};
use serde_json::Value;
use tower::ServiceBuilder;

use crate::analysis::{self, Report, Settings, SourceFile};
use crate::devices::{self, ResolvedTarget};
use crate::server::{self, Snapshot};
use crate::text::Encoding;
use crate::{ide, syntax, workspace};

struct Doc {
    text: String,
    version: i32,
}

/// `initializationOptions` / `workspace/didChangeConfiguration` settings.
#[derive(Clone, Debug, Default)]
struct Options {
    targets: Option<String>,
    device_config: Vec<PathBuf>,
    compile_commands: Option<PathBuf>,
}

impl Options {
    /// The settings `v` names, over the current ones: a key `v` lacks keeps its value. Clients
    /// that configure through initializationOptions still send `didChangeConfiguration`,
    /// often with `{}` or `null` (eglot does): that must not undo them. A key sent as "" or []
    /// means "not configured", never the workspace root (VS Code sends its whole section).
    fn updated(&self, v: &Value, root: Option<&Path>) -> Options {
        let v = v.get("sycl-analyzer").unwrap_or(v);
        let abs = |p: &str| match root {
            Some(r) if Path::new(p).is_relative() => r.join(p),
            _ => PathBuf::from(p),
        };
        let strings = |key: &str| -> Option<Vec<&str>> {
            let list: Vec<&str> = match v.get(key)? {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            Some(
                list.into_iter()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        };
        Options {
            targets: match strings("targets") {
                Some(t) => (!t.is_empty()).then(|| t.join(",")),
                None => self.targets.clone(),
            },
            device_config: match strings("deviceConfig") {
                Some(c) => c.into_iter().map(abs).collect(),
                None => self.device_config.clone(),
            },
            compile_commands: match strings("compileCommands") {
                Some(c) => c.first().map(|p| abs(p)),
                None => self.compile_commands.clone(),
            },
        }
    }
}

struct Indexed {
    files: Vec<SourceFile>,
    texts: Vec<String>,
    notices: Vec<crate::diagnostics::Diagnostic>,
    fragments: Vec<(Arc<str>, Arc<str>)>,
}

struct Analyzed {
    generation: u64,
    report: Report,
    /// Facts of the sources parsed for this run.
    parsed: Vec<(String, Arc<syntax::FileFacts>)>,
    /// Why some of them were skipped (over the parse budget); the others parsed.
    skipped: HashMap<String, String>,
}

/// Changes on disk, already read and extracted on the watcher's thread.
struct FsChanged {
    config: bool,
    /// Per changed C++ file: its new text and facts, else why it is skipped, or `None` when
    /// it is gone.
    sources: Vec<(String, ChangedSource)>,
    /// Events were lost and `sources` holds every file on disk: a known file missing from it
    /// is gone.
    rescan: bool,
}

/// A changed source read and parsed, else why it is skipped (`None`: it is gone).
type ChangedSource = Result<String, Option<String>>;

struct State {
    client: ClientSocket,
    encoding: Encoding,
    root: Option<PathBuf>,
    options: Options,
    snapshot: Arc<Snapshot>,
    targets: Option<Vec<ResolvedTarget>>,
    /// How sources are preprocessed: the targets' device compile and compile_commands.json.
    compile: Arc<workspace::CompileEnv>,
    files: Arc<Vec<SourceFile>>,
    index_of: Arc<HashMap<String, usize>>,
    /// Which sources read each header, as `files` say.
    readers: inputs::Readers,
    /// Texts of closed files, kept to convert positions (open files use `docs`).
    texts: Arc<HashMap<String, Arc<str>>>,
    docs: HashMap<Url, Doc>,
    generation: u64,
    /// The newest generation scheduled, for runs on the pool to see that they are stale: one
    /// overtaken before it starts or while it waits for the analysis gives way (runs queued
    /// behind a long one, every didOpen at start-up, delayed the first edit by their work).
    latest: Arc<std::sync::atomic::AtomicU64>,
    /// What each file was last sent, to skip sending it again unchanged.
    /// Per file, with the document version it answered.
    published: HashMap<Url, (Option<i32>, Vec<crate::diagnostics::Diagnostic>)>,
    progress: bool,
    /// The device-config files in force: configured, else named by compile_commands.json.
    config_paths: Vec<PathBuf>,
    /// The findings last published, for code actions.
    last: Arc<Report>,
    watcher: Option<crate::watch::Watcher>,
    /// Files sources include that are not sources themselves (`kernel.sycl`), as read at
    /// indexing.
    fragments: Vec<(Arc<str>, Arc<str>)>,
    /// Texts of sources edited since the last accepted analysis, not yet parsed.
    dirty: HashMap<String, Arc<str>>,
    /// Sources skipped (too large, binary, over the parse budget): a note each, published.
    notices: HashMap<String, crate::diagnostics::Diagnostic>,
    /// The call graph kept between runs (runs take it in turn), so that an edit inside
    /// function bodies re-reads only those bodies.
    analysis: Arc<std::sync::Mutex<Option<analysis::Analysis>>>,
    /// With `--listen`: the snapshot the socket's clients read, kept equal to `snapshot`.
    shared: Option<server::daemon::Shared>,
    /// The client handles `workspace/semanticTokens/refresh`.
    semantic_refresh: bool,
    /// The client handles `workspace/codeLens/refresh`.
    lens_refresh: bool,
    /// Which log events go to the editor (`$/setTrace`): see `log::threshold`.
    trace: Arc<std::sync::atomic::AtomicU8>,
    /// The client takes clangd's `textDocument/inactiveRegions`.
    inactive_notify: bool,
    /// The open documents' last syntax trees: an edit re-parses incrementally.
    trees: Arc<syntax::Trees>,
    /// Per open document, the inactive lines last sent in `textDocument/inactiveRegions`.
    inactive_sent: HashMap<Url, Vec<ide::inactive::LineSpan>>,
    /// Per open document, the inactive lines its last semantic tokens were made of.
    tokens_served: HashMap<Url, Vec<ide::inactive::LineSpan>>,
}

const INDEX_TOKEN: &str = "sycl-analyzer/index";

impl State {
    fn path_of(uri: &Url) -> Option<String> {
        uri.to_file_path().ok().map(|p| p.display().to_string())
    }

    /// The SYCL options of compile_commands.json: the configured one, else one at the root or
    /// in `build*/`.
    fn compile_flags(&self) -> workspace::SyclFlags {
        let mut candidates: Vec<PathBuf> = self.options.compile_commands.iter().cloned().collect();
        if let Some(root) = &self.root {
            candidates.extend(workspace::compile_commands_candidates(root));
        }
        match workspace::find_sycl_flags(&candidates) {
            Ok(flags) => {
                let flags = flags.unwrap_or_default();
                // The build fails there; the targets the driver accepts are still analysed.
                for e in flags
                    .errors
                    .iter()
                    .filter(|_| self.options.targets.is_none())
                {
                    self.show(
                        lsp::MessageType::ERROR,
                        format!(
                            "compile_commands.json: {}",
                            crate::diagnostics::with_did_you_mean(
                                e.message.clone(),
                                &e.suggestions
                            )
                        ),
                    );
                }
                flags
            }
            Err(e) => {
                self.show(lsp::MessageType::WARNING, e);
                workspace::SyclFlags::default()
            }
        }
    }

    fn show(&self, typ: lsp::MessageType, message: String) {
        let _ = self.client.clone().show_message(lsp::ShowMessageParams {
            typ,
            message: format!("sycl-analyzer: {message}"),
        });
    }

    /// Rebuilds the device table from the config files (the configured ones, else those of
    /// compile_commands.json; open ones with their unsaved text) and resolves the targets.
    fn reload_snapshot(&mut self) {
        let flags = self.compile_flags();
        self.config_paths = if self.options.device_config.is_empty() {
            flags.device_configs.clone()
        } else {
            self.options.device_config.clone()
        };
        // Start from the configs in force, so a file that no longer parses keeps its last
        // good entries.
        let mut configs = self.snapshot.configs.clone();
        let gone: Vec<String> = configs
            .files()
            .filter(|f| !self.is_config(f))
            .map(|f| f.to_string())
            .collect();
        for f in gone {
            configs.remove(&f);
        }
        let mut problems = Vec::new();
        for p in &self.config_paths {
            let name = p.display().to_string();
            let open = Url::from_file_path(p).ok().and_then(|u| self.docs.get(&u));
            match open
                .map(|d| d.text.clone().into_bytes())
                .map_or_else(|| std::fs::read(p), Ok)
            {
                Ok(bytes) => {
                    configs.update(Arc::from(name), &bytes);
                }
                Err(e) => problems.push(configs.unreadable(&name, &e)),
            }
        }
        let table = configs.table();
        self.snapshot = Arc::new(Snapshot {
            roots: self.root.iter().cloned().collect(),
            config_paths: self.config_paths.clone(),
            configs,
            table,
        });
        if let Some(shared) = &self.shared {
            *shared.write().expect("snapshot lock is never poisoned") = self.snapshot.clone();
        }
        for p in problems {
            self.show(lsp::MessageType::ERROR, p);
        }
        let list = self
            .options
            .targets
            .clone()
            .or_else(|| (!flags.targets.is_empty()).then(|| flags.targets.join(",")));
        self.targets = list.map(|l| devices::parse_target_list(&l, &self.snapshot.table).targets);
        let env = workspace::compile_env(self.targets.as_deref(), &self.snapshot.table, &flags);
        if env.key() != self.compile.key() {
            self.compile = Arc::new(env);
            // Other macros, other code: every source is preprocessed again.
            let paths: Vec<String> = self.index_of.keys().cloned().collect();
            for p in paths {
                if let Some(t) = self.text_of(&p) {
                    self.dirty.insert(p, t);
                }
            }
        }
    }

    /// Records a new text for a source; it is parsed by the next analysis, off the main loop.
    fn set_file(&mut self, path: String, text: &str) {
        if !workspace::is_cpp(Path::new(&path)) {
            return;
        }
        if text.len() as u64 > workspace::MAX_FILE_BYTES {
            let why = format!(
                "skipped: {} MB is over the {} MB limit for a source file",
                text.len() >> 20,
                workspace::MAX_FILE_BYTES >> 20
            );
            self.skip(&path, why);
            return;
        }
        self.dirty.insert(path, Arc::from(text));
    }

    /// A source that takes no part, with a note saying why.
    fn skip(&mut self, path: &str, why: String) {
        self.dirty.remove(path);
        let name: Arc<str> = Arc::from(path);
        self.notices
            .insert(path.to_string(), *workspace::notice(&name, why));
        if self.index_of.contains_key(path) {
            self.store_facts(vec![(path.to_string(), Arc::default())]);
        }
    }

    /// Stores facts parsed off the main loop.
    fn store_facts(&mut self, parsed: Vec<(String, Arc<syntax::FileFacts>)>) {
        let files = Arc::make_mut(&mut self.files);
        for (path, facts) in parsed {
            self.dirty.remove(&path);
            match self.index_of.get(&path) {
                Some(&i) => {
                    self.readers.replace(i, &files[i].facts, &facts);
                    files[i].facts = facts;
                }
                None => {
                    self.readers
                        .replace(files.len(), &syntax::FileFacts::default(), &facts);
                    Arc::make_mut(&mut self.index_of).insert(path.clone(), files.len());
                    files.push(SourceFile {
                        path: Arc::from(path.as_str()),
                        facts,
                    });
                }
            }
        }
    }

    fn is_config(&self, path: &str) -> bool {
        self.config_paths
            .iter()
            .any(|c| c.display().to_string() == path)
    }

    /// Re-runs the analysis off the main loop, parsing the sources edited since the last one
    /// first; the result comes back as `Analyzed`. Each run takes every pending text, so a run
    /// whose result is dropped as stale loses nothing.
    fn schedule(&mut self) {
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
        let env = self.compile.clone();
        let snapshot = self.snapshot.clone();
        let targets = self.targets.clone();
        let client = self.client.clone();
        let kept = self.analysis.clone();
        let mut notices = self.notices.clone();
        let open: HashSet<String> = self.docs.keys().filter_map(State::path_of).collect();
        self.trees
            .set_open(open.iter().map(|p| Arc::<str>::from(p.as_str())));
        let trees = self.trees.clone();
        tokio::task::spawn_blocking(move || {
            use rayon::prelude::*;
            if stale() {
                return;
            }
            let started = std::time::Instant::now();
            let budget = syntax::parse_budget();
            let dirty = inputs.to_parse();
            let (paths, texts) = inputs.sources();
            let sources = workspace::Sources::new(&env, paths, texts, None).with_trees(trees);
            let results: Vec<(String, Result<syntax::FileFacts, String>)> = dirty
                .par_iter()
                .map(|(p, t)| {
                    let facts = match sources.position(p) {
                        Some(i) => sources.extract(i, Some(budget)),
                        None => syntax::extract_within(t, Some(budget)),
                    };
                    (p.clone(), facts)
                })
                .collect();
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
            let settings = Settings {
                table: &snapshot.table,
                targets: targets.as_deref(),
            };
            // A run that panicked leaves the state to be rebuilt, not trusted.
            let mut kept = kept.lock().unwrap_or_else(|e| {
                kept.clear_poison();
                let mut g = e.into_inner();
                *g = None;
                g
            });
            if stale() {
                return;
            }
            // Whether this run freed much: the first analysis, a rebuilt graph, many files.
            let mut burst = parsed.len() > 1;
            let analysis = match kept.as_mut() {
                Some(a) => {
                    let t = std::time::Instant::now();
                    let how = a.update(files);
                    tracing::debug!(generation, ?how, elapsed = ?t.elapsed(), "update");
                    burst |= !matches!(
                        how,
                        analysis::Update::Bodies { .. } | analysis::Update::Unchanged
                    );
                    a
                }
                None => {
                    burst = true;
                    kept.insert(analysis::Analysis::new(files))
                }
            };
            // Summaries serve hovers, which only open documents get.
            let mut report = analysis.report_for(&settings, |f| open.contains(f));
            drop(kept);
            report
                .diagnostics
                .extend(snapshot.configs.diagnostics().cloned());
            report.diagnostics.extend(notices.into_values());
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
            // Once the server is idle: a trim while the next edit's run allocates made that
            // run fault its memory in again (interface edits at 500 k lines 84 -> 107 ms).
            if burst {
                tokio::runtime::Handle::current().spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    if !stale() {
                        tokio::task::spawn_blocking(crate::memory::trim);
                    }
                });
            }
        });
    }

    /// The text a source has now, as known without reading the disk.
    fn current_text(&self, path: &str) -> Option<Arc<str>> {
        if let Some(t) = self.dirty.get(path) {
            return Some(t.clone());
        }
        if let Ok(uri) = Url::from_file_path(path) {
            if let Some(d) = self.docs.get(&uri) {
                return Some(Arc::from(d.text.as_str()));
            }
        }
        self.texts.get(path).cloned()
    }

    fn text_of(&self, path: &str) -> Option<Arc<str>> {
        if let Ok(uri) = Url::from_file_path(path) {
            if let Some(d) = self.docs.get(&uri) {
                return Some(Arc::from(d.text.as_str()));
            }
        }
        self.texts
            .get(path)
            .cloned()
            .or_else(|| std::fs::read_to_string(path).ok().map(Arc::from))
    }

    /// Publishes what changed since the last run: a file whose findings are the same is not
    /// sent again, unless it is an open document edited since (each version gets an answer).
    fn publish(&mut self, report: &Report) {
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
        // Texts and line indexes, built once per file per run.
        let mut indexes: HashMap<String, Option<(Arc<str>, crate::text::LineIndex)>> =
            HashMap::new();
        let encoding = self.encoding;
        let mut published = HashMap::with_capacity(next.len());
        for (uri, version, diags) in next {
            let same = self.published.get(&uri).is_some_and(|(v, old)| {
                *v == version
                    && old.len() == diags.len()
                    && old.iter().zip(&diags).all(|(a, b)| a == *b)
            });
            if !same {
                let diagnostics = diags
                    .iter()
                    .filter_map(|d| {
                        convert::diagnostic(d, |file, range| {
                            // A note on a whole file (skipped: huge, binary) needs no text read.
                            if range.end == 0 {
                                return Some(lsp::Range::default());
                            }
                            let (text, index) = indexes
                                .entry(file.to_string())
                                .or_insert_with(|| {
                                    let text = self.text_of(file)?;
                                    let index = crate::text::LineIndex::new(&text);
                                    Some((text, index))
                                })
                                .as_ref()?;
                            Some(convert::range(text, index, range, encoding))
                        })
                    })
                    .collect();
                let _ = self.client.publish_diagnostics(PublishDiagnosticsParams {
                    uri: uri.clone(),
                    diagnostics,
                    version,
                });
            }
            let entry = match self.published.remove(&uri) {
                Some(kept) if same => kept,
                _ => (version, diags.into_iter().cloned().collect()),
            };
            if entry.0.is_some() || !entry.1.is_empty() {
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
        }
        self.published = published;
    }
}

/// `initialize` with its params as sent: clangd's capabilities are not in lsp-types.
enum InitializeRaw {}

impl request::Request for InitializeRaw {
    type Params = Value;
    type Result = InitializeResult;
    const METHOD: &'static str = <request::Initialize as request::Request>::METHOD;
}

fn initialize(st: &mut State, raw: Value) -> Result<InitializeResult, ResponseError> {
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

/// (Re)starts watching the config files and the workspace.
fn start_watching(st: &mut State) {
    st.watcher = None;
    let configs = st.config_paths.clone();
    let trees: Vec<PathBuf> = st.root.iter().cloned().collect();
    let client = st.client.clone();
    let watched = configs.clone();
    let rescan_roots = trees.clone();
    let result = crate::watch::watch(&configs, &trees, move |change| {
        use rayon::prelude::*;
        let config = watched.iter().any(|c| change.touches(c));
        let (paths, rescan) = match change {
            crate::watch::Change::Paths(paths) => (paths, false),
            // Events were lost: every source on disk is read again (the persisted index is not
            // consulted, as the files are the ones suspected of changing).
            crate::watch::Change::Unknown => {
                (workspace::discover(&rescan_roots).unwrap_or_default(), true)
            }
        };
        let sources = paths
            .par_iter()
            .filter(|p| workspace::is_cpp(p))
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

fn on_fs_changed(st: &mut State, mut change: FsChanged) {
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
                Arc::make_mut(&mut st.texts).insert(path.clone(), text.clone());
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

fn start_indexing(st: &mut State) {
    start_watching(st);
    let Some(root) = st.root.clone() else {
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
    let env = st.compile.clone();
    tokio::task::spawn_blocking(move || {
        let paths = workspace::discover(std::slice::from_ref(&root)).unwrap_or_default();
        let index_path = crate::cache::index_path(&root);
        let index = index_path
            .as_deref()
            .map(crate::cache::Index::load)
            .unwrap_or_default();
        let loaded = workspace::load_indexed(&paths, &index, true, &env, || {});
        if let Some(p) = index_path.as_ref().filter(|_| !loaded.same_as(&index)) {
            let _ = loaded.save_index(p);
        }
        drop(index);
        // Parsing every file left its trees and texts freed but resident.
        crate::memory::trim();
        let _ = client.emit(Indexed {
            files: loaded.files,
            texts: loaded.texts,
            notices: loaded.notices,
            fragments: loaded.fragments,
        });
    });
}

fn on_indexed(st: &mut State, indexed: Indexed) {
    st.fragments = indexed.fragments;
    let open: HashSet<String> = st.docs.keys().filter_map(State::path_of).collect();
    for n in indexed.notices {
        if !open.contains(&*n.file) {
            st.notices.insert(n.file.to_string(), n);
        }
    }
    let files = Arc::make_mut(&mut st.files);
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
        Arc::make_mut(&mut st.texts).insert(path.clone(), Arc::from(text.as_str()));
        if reads_open {
            st.dirty.insert(path, Arc::from(text));
        }
        files.push(f);
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

fn on_change(st: &mut State, uri: &Url) {
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

/// `sycl/kernelMatrix` from the kept analysis; `None` before the first analysis.
fn matrix_of(
    kept: &std::sync::Mutex<Option<analysis::Analysis>>,
    snapshot: &Snapshot,
    params: &Value,
) -> Option<Result<Value, server::RpcError>> {
    let guard = kept.lock().ok()?;
    let analysis = guard.as_ref()?;
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
    let parsed = devices::parse_target_list(&text, &snapshot.table);
    if !parsed.invalid.is_empty() {
        // The daemon's handler words the error.
        return None;
    }
    let settings = Settings {
        table: &snapshot.table,
        targets: Some(&parsed.targets),
    };
    Some(Ok(crate::proto::matrix_answer(
        &analysis.matrix(&settings),
        params,
    )))
}

fn is_yaml(uri: &Url) -> bool {
    uri.path().ends_with(".yaml") || uri.path().ends_with(".yml")
}

fn effective_targets(st: &State) -> Vec<ResolvedTarget> {
    st.targets
        .clone()
        .unwrap_or_else(|| devices::parse_target_list("", &st.snapshot.table).targets)
}

fn completion(st: &State, params: lsp::CompletionParams) -> Option<lsp::CompletionResponse> {
    let pos = params.text_document_position;
    let doc = st.docs.get(&pos.text_document.uri)?;
    let index = crate::text::LineIndex::new(&doc.text);
    let offset = index.offset_of(
        &doc.text,
        pos.position.line,
        pos.position.character,
        st.encoding,
    );
    let items = if is_yaml(&pos.text_document.uri) {
        ide::yaml_completions(&doc.text, offset, &st.snapshot.table)
    } else {
        ide::cpp_completions(&doc.text, offset)
    };
    (!items.is_empty()).then(|| {
        lsp::CompletionResponse::Array(
            items
                .into_iter()
                .map(|c| lsp::CompletionItem {
                    label: c.label,
                    insert_text: Some(c.insert),
                    detail: Some(c.detail),
                    kind: Some(match c.kind {
                        ide::CompletionKind::Aspect => lsp::CompletionItemKind::ENUM_MEMBER,
                        ide::CompletionKind::Target => lsp::CompletionItemKind::MODULE,
                        ide::CompletionKind::Field => lsp::CompletionItemKind::FIELD,
                        ide::CompletionKind::Value => lsp::CompletionItemKind::VALUE,
                    }),
                    ..Default::default()
                })
                .collect(),
        )
    })
}

fn inlay_hints(st: &State, params: lsp::InlayHintParams) -> Option<Vec<lsp::InlayHint>> {
    let doc = st.docs.get(&params.text_document.uri)?;
    let index = crate::text::LineIndex::new(&doc.text);
    let targets = effective_targets(st);
    let hints = ide::trait_hints(&doc.text, &st.snapshot.table, &targets)
        .into_iter()
        .filter_map(|(offset, label)| {
            let (line, character) = index.position_in(&doc.text, offset, st.encoding);
            let inside = (params.range.start.line..=params.range.end.line).contains(&line);
            inside.then(|| lsp::InlayHint {
                position: lsp::Position::new(line, character),
                label: lsp::InlayHintLabel::String(label),
                kind: None,
                text_edits: None,
                tooltip: None,
                padding_left: None,
                padding_right: None,
                data: None,
            })
        })
        .collect();
    Some(hints)
}

fn code_actions(st: &State, params: lsp::CodeActionParams) -> Option<lsp::CodeActionResponse> {
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

/// Serves the language server on stdio until the client exits; with `listen`, also serves the
/// daemon's methods on that socket from the same live state.
pub fn run_stdio(listen: Option<&Path>) -> Result<(), String> {
    let socket = listen.map(server::daemon::bind).transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = runtime.block_on(async {
        let shared: Option<server::daemon::Shared> = match socket {
            Some(std_listener) => {
                let listener =
                    tokio::net::UnixListener::from_std(std_listener).map_err(|e| e.to_string())?;
                let shared: server::daemon::Shared = Arc::new(std::sync::RwLock::new(Arc::new(
                    Snapshot::load(Vec::new(), Vec::new()).0,
                )));
                tokio::spawn(server::daemon::serve(
                    listener,
                    shared.clone(),
                    server::daemon::Limits::default(),
                ));
                Some(shared)
            }
            None => None,
        };
        let (mainloop, _) = async_lsp::MainLoop::new_server(|client| {
            let trace = Arc::new(std::sync::atomic::AtomicU8::new(log::threshold(None)));
            log::connect(client.clone(), trace.clone());
            let mut router = Router::new(State {
                trace,
                client: client.clone(),
                encoding: Encoding::Utf16,
                root: None,
                options: Options::default(),
                snapshot: Arc::new(Snapshot::load(Vec::new(), Vec::new()).0),
                targets: None,
                compile: Arc::new(workspace::CompileEnv::none()),
                files: Arc::new(Vec::new()),
                index_of: Arc::default(),
                readers: inputs::Readers::default(),
                texts: Arc::default(),
                docs: HashMap::new(),
                generation: 0,
                latest: Arc::default(),
                published: HashMap::new(),
                progress: false,
                config_paths: Vec::new(),
                last: Arc::new(Report::default()),
                watcher: None,
                fragments: Vec::new(),
                dirty: HashMap::new(),
                notices: HashMap::new(),
                analysis: Arc::default(),
                shared: shared.clone(),
                semantic_refresh: false,
                lens_refresh: false,
                inactive_notify: false,
                trees: Arc::default(),
                inactive_sent: HashMap::new(),
                tokens_served: HashMap::new(),
            });
            router
                .request::<InitializeRaw, _>(|st, params| {
                    let result = initialize(st, params);
                    async move { result }
                })
                .request::<request::HoverRequest, _>(hover::hover)
                .request::<request::Shutdown, _>(|_, _| async { Ok(()) })
                .notification::<notification::Initialized>(|st, _| {
                    start_indexing(st);
                    ControlFlow::Continue(())
                })
                .notification::<notification::DidOpenTextDocument>(|st, p| {
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
                })
                .notification::<notification::DidChangeTextDocument>(|st, p| {
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
                })
                .notification::<notification::DidCloseTextDocument>(|st, p| {
                    let uri = p.text_document.uri;
                    st.docs.remove(&uri);
                    inactive_regions::forget(st, &uri);
                    if let Some(path) = State::path_of(&uri) {
                        match std::fs::read_to_string(&path) {
                            Ok(text) => {
                                st.set_file(path.clone(), &text);
                                Arc::make_mut(&mut st.texts).insert(path.clone(), Arc::from(text));
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
                })
                .notification::<notification::DidSaveTextDocument>(|_, _| ControlFlow::Continue(()))
                .notification::<notification::DidChangeConfiguration>(|st, p| {
                    st.options = st.options.updated(&p.settings, st.root.as_deref());
                    st.reload_snapshot();
                    start_watching(st);
                    st.schedule();
                    ControlFlow::Continue(())
                })
                .notification::<notification::Exit>(|_, _| ControlFlow::Break(Ok(())))
                .notification::<notification::SetTrace>(|st, p| {
                    let value = serde_json::to_value(p.value).ok();
                    st.trace.store(
                        log::threshold(value.as_ref().and_then(Value::as_str)),
                        std::sync::atomic::Ordering::Relaxed,
                    );
                    ControlFlow::Continue(())
                })
                .event::<FsChanged>(|st, change| {
                    on_fs_changed(st, change);
                    ControlFlow::Continue(())
                })
                .event::<Indexed>(|st, indexed| {
                    on_indexed(st, indexed);
                    ControlFlow::Continue(())
                })
                .event::<Analyzed>(|st, a| {
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
                        st.publish(&a.report);
                        st.last = Arc::new(a.report);
                        inactive_regions::after_analysis(st);
                        // Where each kernel runs may have changed with the analysis.
                        if st.lens_refresh {
                            code_lens::refresh(st);
                        }
                        tracing::debug!(elapsed = ?started.elapsed(), "published");
                    }
                    ControlFlow::Continue(())
                })
                .request::<request::Completion, _>(|st, params| {
                    let result = completion(st, params);
                    async move { Ok(result) }
                })
                .request::<request::CodeActionRequest, _>(|st, params| {
                    let result = code_actions(st, params);
                    async move { Ok(result) }
                })
                .request::<request::CodeLensRequest, _>(code_lens::code_lens)
                .request::<request::InlayHintRequest, _>(|st, params| {
                    let result = inlay_hints(st, params);
                    async move { Ok(result) }
                })
                .request::<request::SemanticTokensFullRequest, _>(|st, params| {
                    let result = semantic_tokens::full(st, params);
                    async move { Ok(Some(result)) }
                })
                .request::<request::SemanticTokensRangeRequest, _>(|st, params| {
                    let result = semantic_tokens::range(st, params);
                    async move { Ok(Some(result)) }
                })
                .unhandled_request(|st, req| {
                    // The daemon's methods, served from the editor's live state.
                    let snapshot = st.snapshot.clone();
                    // The matrix comes from the analysis the editor keeps (unsaved edits in).
                    let kept = (req.method == "sycl/kernelMatrix").then(|| st.analysis.clone());
                    // Without `targets`, a request means the editor's configured targets.
                    let targets: Option<Vec<String>> = st
                        .targets
                        .as_ref()
                        .map(|t| t.iter().map(|t| t.canonical.clone()).collect());
                    async move {
                        if !req.method.starts_with("sycl/") {
                            return Err(ResponseError::new(
                                ErrorCode::METHOD_NOT_FOUND,
                                format!("unknown method '{}'", req.method),
                            ));
                        }
                        let method = req.method.clone();
                        let mut params = req.params.clone();
                        if let (Some(t), true) =
                            (targets, params.get("targets").is_none_or(Value::is_null))
                        {
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
                                if let Some(m) = matrix_of(&kept, &snapshot, &params) {
                                    return m.into();
                                }
                            }
                            server::handle(&snapshot, &method, &params)
                        })
                        .await
                        .map_err(|_| {
                            ResponseError::new(ErrorCode::INTERNAL_ERROR, "internal error")
                        })?;
                        outcome.result.map_err(|e| match e.data {
                            Some(d) => {
                                ResponseError::new_with_data(ErrorCode(e.code as i32), e.message, d)
                            }
                            None => ResponseError::new(ErrorCode(e.code as i32), e.message),
                        })
                    }
                })
                .unhandled_notification(|_, _| ControlFlow::Continue(()));
            ServiceBuilder::new()
                .layer(LifecycleLayer::default())
                .layer(CatchUnwindLayer::default())
                .layer(ConcurrencyLayer::default())
                .layer(ClientProcessMonitorLayer::new(client))
                .service(router)
        });
        let (stdin, stdout) = (
            async_lsp::stdio::PipeStdin::lock_tokio().map_err(|e| e.to_string())?,
            async_lsp::stdio::PipeStdout::lock_tokio().map_err(|e| e.to_string())?,
        );
        mainloop
            .run_buffered(stdin, stdout)
            .await
            .map_err(|e| e.to_string())
    });
    log::disconnect();
    if let Some(path) = listen {
        let _ = std::fs::remove_file(path);
    }
    result
}
