//! `sycl-analyzer lsp`: the language server on stdio, on async-lsp.
//!
//! async-lsp runs notification handlers one at a time, in order, on the server state (so
//! `didChange` edits apply in the order they were sent); request handlers take what they need
//! from the state and answer from a future. Analysis runs on the blocking pool over immutable
//! copies and comes back as an event; a result older than the latest edit is dropped.
//! Only this module knows LSP types: `convert` turns domain data into them.

mod code_actions;
mod code_lens;
mod completion;
pub mod convert;
mod documents;
mod hover;
mod inactive_regions;
mod indexing;
mod initialize;
mod inlay_hints;
use crate::project::inputs;
pub mod log;
mod run;
mod semantic_tokens;
mod sycl_methods;
pub mod thin;
mod watching;

use code_actions::code_actions;
use completion::completion;
use indexing::{on_indexed, start_indexing, Indexed};
use initialize::{initialize, InitializeRaw};
use inlay_hints::inlay_hints;
use run::Analyzed;
use watching::{on_fs_changed, start_watching, FsChanged};

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_lsp::client_monitor::ClientProcessMonitorLayer;
use async_lsp::concurrency::ConcurrencyLayer;
use async_lsp::lsp_types::{self as lsp, notification, request, Url};
use async_lsp::panic::CatchUnwindLayer;
use async_lsp::router::Router;
use async_lsp::server::LifecycleLayer;
use async_lsp::{ClientSocket, LanguageClient};
use serde_json::Value;
use tower::ServiceBuilder;

use crate::analysis::Report;
use crate::base::SourceFile;
use crate::devices::{self, DeviceTable, ResolvedTarget};
use crate::ide::{AnalysisConfig, AnalysisHost, Change};
use crate::project::{Project, ProjectConfig, SyclFlags};
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
    include_dirs: Vec<PathBuf>,
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
            include_dirs: match strings("includeDirs") {
                Some(c) => c.into_iter().map(abs).collect(),
                None => self.include_dirs.clone(),
            },
        }
    }
}

struct State {
    client: ClientSocket,
    encoding: Encoding,
    root: Option<PathBuf>,
    options: Options,
    snapshot: Arc<Snapshot>,
    /// The analysis inputs (device table, targets, compile environment, files as last
    /// analysed) and the incremental engine every run and feature shares.
    host: AnalysisHost,
    /// The project as last found (compile_commands.json, its targets and device configs).
    project: Project,
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
    /// The workspace was indexed once (or there is none). Before, a run analyses the open
    /// documents alone: its findings lack every chain through a closed file, so they are
    /// kept for the features and published only by the first run that sees the index.
    indexed: bool,
    /// What each file was last sent, to skip sending it again unchanged.
    /// Per file, with the document version it answered.
    /// Per file with findings or open, the version and a hash of the findings last sent (a
    /// copy of every finding was a second report's worth of memory).
    published: HashMap<Url, (Option<i32>, usize, u64)>,
    progress: bool,
    /// The device-config files in force: configured, else named by compile_commands.json.
    config_paths: Vec<PathBuf>,
    /// The findings last published, for code actions.
    last: Arc<Report>,
    watcher: Option<crate::watch::Watcher>,
    /// Files sources include that are not sources themselves (`kernel.sycl`), as read at
    /// indexing.
    fragments: Vec<(Arc<str>, Arc<str>)>,
    /// Headers outside the workspace its sources include, as found at indexing: analysed as
    /// sources, and watched.
    external: Arc<Vec<PathBuf>>,
    /// Texts of sources edited since the last accepted analysis, not yet parsed.
    dirty: HashMap<String, Arc<str>>,
    /// Sources skipped (too large, binary, over the parse budget): a note each, published.
    notices: HashMap<String, crate::diagnostics::Diagnostic>,
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

    /// The project as configured: compile_commands.json (the configured one, else the nearest
    /// found upward from the root), its targets and device configs unless configured.
    fn project(&self) -> Project {
        let config = ProjectConfig {
            roots: self.root.iter().cloned().collect(),
            compile_commands: self.options.compile_commands.clone(),
            targets: self.options.targets.clone(),
            device_configs: self.options.device_config.clone(),
            include_dirs: self.options.include_dirs.clone(),
        };
        match Project::discover(&config) {
            Ok(project) => {
                // The build fails there; the targets the driver accepts are still analysed.
                for e in project
                    .flags
                    .errors
                    .iter()
                    .filter(|_| !project.targets_configured)
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
                // Read in a weaker way than the build, never refused: logged, not shown.
                for d in project.driver_notes() {
                    tracing::info!(file = %d.file, line = d.pos.line, "{}", d.message);
                }
                project
            }
            Err(e) => {
                self.show(lsp::MessageType::WARNING, e);
                Project::with_flags(&config, SyclFlags::default())
            }
        }
    }

    /// The configured targets (`None`: the implicit `spir64`).
    fn targets(&self) -> Option<&[ResolvedTarget]> {
        self.host.config().targets.as_deref()
    }

    /// How sources are preprocessed: the targets' device compile and compile_commands.json.
    fn compile(&self) -> Arc<workspace::CompileEnv> {
        self.host.config().env.clone()
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
        let project = self.project();
        self.config_paths = project.config_paths.clone();
        self.project = project.clone();
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
            projects: None,
            editor: None,
        });
        if let Some(shared) = &self.shared {
            *shared.write().expect("snapshot lock is never poisoned") = self.snapshot.clone();
        }
        for p in problems {
            self.show(lsp::MessageType::ERROR, p);
        }
        // Names the table does not know are left out here: the editor still analyses for the
        // targets it can (the bad names are shown on the settings, not here).
        let targets = project
            .target_list
            .as_ref()
            .map(|l| devices::parse_target_list(l, &self.snapshot.table).targets);
        let env = project.compile_env(targets.as_deref(), &self.snapshot.table);
        let reparse = env.key() != self.compile().key();
        let mut config = AnalysisConfig::new(self.snapshot.table.clone(), targets, env)
            .with_image(project.image_rule())
            .with_implementation(project.implementation())
            // Files are absolute here: a kernel is named as `check` names it (a message is
            // cut off in an editor's problem list long before an absolute path ends).
            .with_names_from(self.root.as_deref());
        config.diagnostics = self.snapshot.configs.diagnostics().cloned().collect();
        if !reparse {
            // The same preprocessing: the environment (and the memo of headers it keeps) stays.
            config.env = self.compile();
        }
        let mut change = Change::new();
        change.set_config(config);
        self.host.apply_change(change);
        if reparse {
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
        for (path, _) in &parsed {
            self.dirty.remove(path);
        }
        crate::project::inputs::store(
            &mut self.files,
            &mut self.index_of,
            &mut self.readers,
            parsed,
        );
    }

    fn is_config(&self, path: &str) -> bool {
        self.config_paths
            .iter()
            .any(|c| c.display().to_string() == path)
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
            .or_else(|| inputs::read_closed(path))
    }
}

fn is_yaml(uri: &Url) -> bool {
    uri.path().ends_with(".yaml") || uri.path().ends_with(".yml")
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
                project: Project::default(),
                host: AnalysisHost::new(AnalysisConfig::new(
                    DeviceTable::builtin().clone(),
                    None,
                    workspace::CompileEnv::none(),
                )),
                files: Arc::new(Vec::new()),
                index_of: Arc::default(),
                readers: inputs::Readers::default(),
                texts: Arc::default(),
                docs: HashMap::new(),
                generation: 0,
                latest: Arc::default(),
                indexed: false,
                published: HashMap::new(),
                progress: false,
                config_paths: Vec::new(),
                last: Arc::new(Report::default()),
                watcher: None,
                fragments: Vec::new(),
                external: Arc::default(),
                dirty: HashMap::new(),
                notices: HashMap::new(),
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
                .notification::<notification::DidOpenTextDocument>(documents::did_open)
                .notification::<notification::DidChangeTextDocument>(documents::did_change)
                .notification::<notification::DidCloseTextDocument>(documents::did_close)
                .notification::<notification::DidSaveTextDocument>(|_, _| ControlFlow::Continue(()))
                .notification::<notification::DidChangeConfiguration>(|st, p| {
                    let before = st.options.include_dirs.clone();
                    st.options = st.options.updated(&p.settings, st.root.as_deref());
                    st.reload_snapshot();
                    if st.options.include_dirs != before {
                        // Other headers outside the workspace: found by indexing again
                        // (files known already are kept as they are).
                        start_indexing(st);
                        return ControlFlow::Continue(());
                    }
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
                .event::<Analyzed>(run::on_analyzed)
                .event::<run::Published>(run::on_published)
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
                .unhandled_request(sycl_methods::serve)
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
