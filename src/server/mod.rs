//! The methods every front end serves (the daemon's socket, and the language server's `sycl/*`
//! methods), as one set of handlers over an immutable [`Snapshot`]. Handlers take and return JSON (the shapes
//! of `proto`); only the transports know framing.

pub mod client;
pub mod daemon;
pub mod projects;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::devices::{self, ConfigSet, DeviceTable, TargetList};
use crate::diagnostics::{with_did_you_mean, Diagnostic};
use crate::proto;

/// JSON-RPC error codes.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// An invalid `-fsycl-targets` name or aspect name: `data.diagnostics` says which.
    pub const INVALID_INPUT: i64 = -32001;
    /// The daemon's root no longer exists (deleted; it answers again once it is back).
    pub const ROOT_GONE: i64 = -32002;
}

#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    pub fn to_json(&self) -> Value {
        let mut e = json!({ "code": self.code, "message": self.message });
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

/// What the server knows, immutable: requests read one snapshot while a reload builds the next.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub roots: Vec<PathBuf>,
    pub config_paths: Vec<PathBuf>,
    pub configs: ConfigSet,
    pub table: DeviceTable,
    /// The daemon's live projects, shared by its snapshots; without them (the language
    /// server's), a request loads the workspace for itself.
    pub projects: Option<Arc<projects::Projects>>,
    /// The language server's own analysis (unsaved edits in), for a request about the
    /// editor's targets: answered from it rather than from a workspace loaded again.
    pub editor: Option<EditorAnalysis>,
}

/// An editor's analysis, carried by a snapshot.
#[derive(Clone)]
pub struct EditorAnalysis(pub crate::ide::Analysis);

impl std::fmt::Debug for EditorAnalysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EditorAnalysis")
    }
}

impl Snapshot {
    /// Reads the config files (an unreadable one is reported, not fatal).
    pub fn load(roots: Vec<PathBuf>, config_paths: Vec<PathBuf>) -> (Self, Vec<String>) {
        let mut configs = ConfigSet::new();
        let mut problems = Vec::new();
        for p in &config_paths {
            match std::fs::read(p) {
                Ok(bytes) => {
                    configs.update(Arc::from(p.display().to_string()), &bytes);
                }
                Err(e) => problems.push(format!("cannot read '{}': {e}", p.display())),
            }
        }
        let table = configs.table();
        (
            Self {
                roots,
                config_paths,
                configs,
                table,
                projects: None,
                editor: None,
            },
            problems,
        )
    }

    /// A new snapshot with the config files read again; a file that no longer parses, or can no
    /// longer be read, keeps its last good entries.
    pub fn reloaded(&self) -> (Self, Vec<String>) {
        let mut configs = self.configs.clone();
        let mut problems = Vec::new();
        for p in &self.config_paths {
            let name = p.display().to_string();
            match std::fs::read(p) {
                Ok(bytes) => {
                    configs.update(Arc::from(name), &bytes);
                }
                Err(e) => problems.push(configs.unreadable(&name, &e)),
            }
        }
        let table = configs.table();
        // Live projects were loaded with the old table.
        if let Some(p) = &self.projects {
            p.clear();
        }
        let next = Self {
            roots: self.roots.clone(),
            config_paths: self.config_paths.clone(),
            configs,
            table,
            projects: self.projects.clone(),
            editor: None,
        };
        (next, problems)
    }

    fn config_diagnostics(&self) -> Vec<&Diagnostic> {
        self.configs.diagnostics().collect()
    }
}

/// Methods whose work is CPU-heavy and must run off the async runtime.
pub fn is_heavy(method: &str) -> bool {
    matches!(
        method,
        "sycl/checkFile" | "sycl/check" | "sycl/kernelMatrix" | "sycl/reloadConfig"
    )
}

/// The result of a method, and a new snapshot when the method changed the state.
pub struct Outcome {
    pub result: Result<Value, RpcError>,
    pub next: Option<Snapshot>,
}

impl From<Result<Value, RpcError>> for Outcome {
    fn from(result: Result<Value, RpcError>) -> Self {
        Self { result, next: None }
    }
}

/// Dispatches one method. Pure but for `sycl/checkFile` and `sycl/kernelMatrix` (read sources) and
/// `sycl/reloadConfig` (reads config files).
pub fn handle(snapshot: &Snapshot, method: &str, params: &Value) -> Outcome {
    match method {
        "sycl/targetInfo" => target_info(snapshot, params).into(),
        "sycl/predefinedMacros" => predefined_macros(snapshot, params).into(),
        "sycl/aspectTraits" => aspect_traits(snapshot, params).into(),
        "sycl/listTargets" => Ok(proto::targets_json(&snapshot.table)).into(),
        "sycl/listAspects" => Ok(proto::aspects_json()).into(),
        "sycl/checkFile" => check_file(snapshot, params).into(),
        "sycl/check" => check(snapshot, params).into(),
        "sycl/kernelMatrix" => kernel_matrix(snapshot, params).into(),
        "sycl/reloadConfig" => {
            let (next, problems) = snapshot.reloaded();
            let diagnostics: Vec<&Diagnostic> = next.config_diagnostics();
            Outcome {
                result: Ok(
                    json!({ "diagnostics": diagnostics, "problems": problems, "targets": next.table.len() }),
                ),
                next: Some(next),
            }
        }
        // Lets the tests prove that a panicking handler is answered as an error, not fatal.
        "sycl/__panic" if std::env::var_os("SYCL_ANALYZER_TEST_PANIC").is_some() => {
            panic!("panic requested by a test")
        }
        _ => Err(RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!("unknown method '{method}'"),
        ))
        .into(),
    }
}

fn field<'a>(params: &'a Value, name: &str) -> Option<&'a Value> {
    params.get(name).filter(|v| !v.is_null())
}

/// `targets` as a comma-separated string or an array of names; absent means the implicit spir64.
fn target_param(params: &Value) -> Result<String, RpcError> {
    match field(params, "targets") {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .ok_or_else(|| RpcError::invalid_params("'targets' must hold strings"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.join(",")),
        Some(_) => Err(RpcError::invalid_params(
            "'targets' must be a string or an array of strings",
        )),
    }
}

fn target_list(snapshot: &Snapshot, params: &Value) -> Result<TargetList, RpcError> {
    let list = target_param(params)?;
    let parsed = devices::parse_target_list(&list, &snapshot.table);
    if parsed.invalid.is_empty() {
        return Ok(parsed);
    }
    let diagnostics = parsed.invalid_diagnostics(Arc::from("targets"), &list);
    Err(RpcError {
        code: codes::INVALID_INPUT,
        message: parsed.invalid[0].message.clone(),
        data: Some(proto::diagnostics_json(&diagnostics)),
    })
}

fn target_info(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    let names: Vec<String> = match field(params, "names") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(String::from)
                    .ok_or_else(|| RpcError::invalid_params("'names' must hold strings"))
            })
            .collect::<Result<_, _>>()?,
        Some(Value::String(s)) => s.split(',').map(String::from).collect(),
        _ => {
            return Err(RpcError::invalid_params(
                "'names' (an array of target names) is required",
            ))
        }
    };
    let results: Vec<_> = names
        .iter()
        .map(|n| devices::resolve(n, &snapshot.table))
        .collect();
    Ok(proto::query_target_json(&results, &snapshot.table))
}

fn predefined_macros(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    let list = target_list(snapshot, params)?;
    let macros = devices::predefined_macros(&list.targets, &snapshot.table);
    Ok(proto::macros_json(&list, &macros))
}

fn aspect_traits(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    let list = target_list(snapshot, params)?;
    let reg = devices::registry();
    let aspects = match field(params, "aspects") {
        None => reg.iter().map(|(id, _)| id).collect(),
        Some(Value::Array(items)) => {
            let mut ids = Vec::new();
            for i in items {
                let name = i
                    .as_str()
                    .ok_or_else(|| RpcError::invalid_params("'aspects' must hold aspect names"))?;
                match reg.by_name(name) {
                    Some(id) => ids.push(id),
                    None => {
                        let suggestions = crate::diagnostics::suggest(name, reg.names(), 3);
                        return Err(RpcError {
                            code: codes::INVALID_INPUT,
                            message: with_did_you_mean(
                                format!("unknown aspect '{name}'"),
                                &suggestions,
                            ),
                            data: Some(json!({ "suggestions": suggestions })),
                        });
                    }
                }
            }
            ids
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "'aspects' must be an array of aspect names",
            ))
        }
    };
    let sets = devices::trait_sets(&list.targets, &snapshot.table);
    Ok(proto::traits_json(&list, &sets, &aspects))
}

/// Is `path` inside one of the roots? Both are canonicalized, so `..` and symlinks cannot lead
/// out.
fn inside_roots(snapshot: &Snapshot, path: &Path) -> Option<PathBuf> {
    let real = path.canonicalize().ok()?;
    snapshot
        .roots
        .iter()
        .filter_map(|r| r.canonicalize().ok())
        .any(|r| real.starts_with(&r))
        .then_some(real)
}

/// The roots' project for a request: compile_commands.json found as every front end finds it
/// (its targets when the request names none, its device configs when the daemon was given
/// none), and what to analyse it with.
fn project_of(
    snapshot: &Snapshot,
    roots: Vec<PathBuf>,
    params: &Value,
) -> Result<(crate::project::Project, crate::ide::AnalysisConfig), RpcError> {
    use crate::project::{Project, ProjectConfig, TargetProblem};
    let targets = match field(params, "targets") {
        Some(_) => Some(target_param(params)?),
        None => None,
    };
    let project = Project::discover(&ProjectConfig {
        roots,
        compile_commands: None,
        targets,
        device_configs: snapshot.config_paths.clone(),
        include_dirs: Vec::new(),
    })
    .map_err(|e| RpcError::new(codes::INVALID_INPUT, e))?;
    let unreadable = project.database_problems();
    if let Some(first) = unreadable.first() {
        return Err(RpcError {
            code: codes::INVALID_INPUT,
            message: format!("{}: {}", first.file, first.message),
            data: Some(proto::diagnostics_json(&unreadable)),
        });
    }
    let table = if project.configs_from_database() {
        let (s, problems) = Snapshot::load(snapshot.roots.clone(), project.config_paths.clone());
        for p in problems {
            tracing::warn!("{p}");
        }
        s.table
    } else {
        snapshot.table.clone()
    };
    let targets = match project.targets(&table) {
        Ok(t) => t,
        Err(TargetProblem::Invalid { list, parsed }) => {
            let diagnostics = parsed.invalid_diagnostics(Arc::from("targets"), &list);
            return Err(RpcError {
                code: codes::INVALID_INPUT,
                message: parsed.invalid[0].message.clone(),
                data: Some(proto::diagnostics_json(&diagnostics)),
            });
        }
        Err(TargetProblem::Empty) => {
            return Err(RpcError::new(
                codes::INVALID_INPUT,
                "the target list is empty: name at least one target, or leave `targets` out for \
                 the implicit spir64",
            ));
        }
        Err(TargetProblem::Driver(errors)) => {
            let messages: Vec<String> = errors
                .iter()
                .map(|e| with_did_you_mean(e.message.clone(), &e.suggestions))
                .collect();
            return Err(RpcError::new(
                codes::INVALID_INPUT,
                format!("compile_commands.json: {}", messages.join("; ")),
            ));
        }
    };
    let env = project.compile_env(targets.as_deref(), &table);
    let config = crate::ide::AnalysisConfig::new(table, targets, env)
        .with_image(project.image_rule())
        .with_implementation(project.implementation());
    Ok((project, config))
}

/// What a request is answered from.
enum Answer {
    /// The daemon's live project: its findings, kept until the next change.
    Live(Arc<crate::analysis::Report>, crate::ide::Analysis),
    /// A workspace loaded for this request alone.
    Loaded(crate::ide::Analysis),
}

impl Answer {
    fn analysis(&self) -> &crate::ide::Analysis {
        match self {
            Answer::Live(_, a) | Answer::Loaded(a) => a,
        }
    }

    fn report(&self) -> Arc<crate::analysis::Report> {
        match self {
            Answer::Live(r, _) => r.clone(),
            Answer::Loaded(a) => Arc::new(a.report()),
        }
    }
}

/// An analysis of the roots for a request: from the daemon's live project for the request's
/// targets (loaded by the first request; `fresh`, a file the request is about, read again
/// first with the headers it reads), else from a workspace loaded for this request alone.
fn analysis_for(snapshot: &Snapshot, params: &Value, fresh: &[&Path]) -> Result<Answer, RpcError> {
    if let Some(editor) = &snapshot.editor {
        return Ok(Answer::Loaded(editor.0.clone()));
    }
    let Some(projects) = &snapshot.projects else {
        let (project, config) = project_of(snapshot, snapshot.roots.clone(), params)?;
        let mut ws =
            crate::project::load(&project, config, &crate::project::LoadOptions::default())
                .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, e))?;
        return Ok(Answer::Loaded(ws.host().analysis()));
    };
    if let Some(root) = projects.gone() {
        return Err(RpcError::new(
            codes::ROOT_GONE,
            format!(
                "the root '{}' no longer exists; the daemon answers again once it is back",
                root.display()
            ),
        ));
    }
    let targets = match field(params, "targets") {
        Some(_) => {
            // Refused before a slot is made for a list that cannot be analysed.
            target_list(snapshot, params)?;
            Some(target_param(params)?)
        }
        None => None,
    };
    let slot = projects.slot(targets.as_deref());
    let mut live = projects::lock(&slot);
    if live.is_none() {
        let (project, config) = project_of(snapshot, snapshot.roots.clone(), params)?;
        let started = std::time::Instant::now();
        let loaded = crate::project::live::Live::load(project, config)
            .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, e))?;
        tracing::info!(targets = ?targets, elapsed = ?started.elapsed(), "project loaded");
        *live = Some(loaded);
    }
    let live = live.as_mut().expect("loaded above");
    let mut changed = false;
    for path in fresh {
        changed |= if path.is_dir() {
            // Every source under it compared with the disk (by content hash): an answer
            // right after a save does not wait for the watcher.
            let under = crate::workspace::discover(&[path.to_path_buf()]).unwrap_or_default();
            live.changed_on_disk(&under) > 0
        } else {
            live.refresh(path)
        };
    }
    if changed {
        projects.bump();
    }
    Ok(Answer::Live(live.report(), live.analysis()))
}

/// The findings of the roots for a subscription (`params`: its targets), by file: the report
/// the live project keeps, and per file the indices of its diagnostics. No diagnostic is
/// copied or converted here: at 500 k lines, converting them all to JSON values for each
/// publish was 40 MiB the daemon held for a moment after every change.
pub struct FindingsByFile {
    pub report: Arc<crate::analysis::Report>,
    /// Per file, the indices of its diagnostics and a hash of them as a notification holds
    /// them (computed here, off the async runtime).
    pub files: std::collections::BTreeMap<String, (Vec<usize>, u64)>,
}

impl FindingsByFile {
    /// A file's diagnostics, in the shape of `check --format json` once serialized.
    pub fn of(&self, indices: &[usize]) -> Vec<&Diagnostic> {
        indices
            .iter()
            .map(|&i| &self.report.diagnostics[i])
            .collect()
    }

    pub fn total(&self) -> usize {
        self.files.values().map(|(v, _)| v.len()).sum()
    }
}

/// A hash of diagnostics as they serialize, written into the hasher: nothing is built for the
/// files whose findings did not change.
fn content_hash(diagnostics: &[&Diagnostic]) -> u64 {
    use std::hash::Hasher;
    struct HashWriter(std::hash::DefaultHasher);
    impl std::io::Write for HashWriter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = HashWriter(std::hash::DefaultHasher::new());
    // Serializing a diagnostic cannot fail (no maps with non-string keys); if it did, the
    // partial hash only makes the file sent again.
    let _ = serde_json::to_writer(&mut w, diagnostics);
    w.0.finish()
}

pub fn findings_by_file(snapshot: &Snapshot, params: &Value) -> Result<FindingsByFile, RpcError> {
    let paths = path_filter(snapshot, params)?;
    let report = analysis_for(snapshot, params, &[])?.report();
    let mut grouped: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, d) in report.diagnostics.iter().enumerate() {
        if under_any(&paths, &d.file) {
            match grouped.get_mut(&*d.file) {
                Some(v) => v.push(i),
                None => {
                    grouped.insert(d.file.to_string(), vec![i]);
                }
            }
        }
    }
    let mut found = FindingsByFile {
        report,
        files: Default::default(),
    };
    for (file, indices) in grouped {
        let hash = content_hash(&found.of(&indices));
        found.files.insert(file, (indices, hash));
    }
    Ok(found)
}

fn check_file(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    let path = field(params, "path")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params("'path' (a file inside the workspace roots) is required")
        })?;
    let real = inside_roots(snapshot, Path::new(path)).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "'path' {path} is not an existing file inside the workspace roots"
        ))
    })?;
    // The file is analysed with the workspace it belongs to, so calls into other files resolve.
    let report = analysis_for(snapshot, params, &[&real])?.report();
    // Most files are not the one asked about by their names alone.
    let wanted = |file: &str| {
        let file = Path::new(file);
        file == real
            || (file.file_name() == real.file_name()
                && file.canonicalize().ok().as_deref() == Some(real.as_path()))
    };
    let diagnostics: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| wanted(&d.file))
        .collect();
    Ok(json!({ "root": root_of(snapshot), "diagnostics": diagnostics, "stats": report.stats }))
}

/// The paths a request restricts its answer to (`paths`: files or directories inside the
/// roots, relative to the first root or absolute), resolved; empty when it names none.
fn path_filter(snapshot: &Snapshot, params: &Value) -> Result<Vec<PathBuf>, RpcError> {
    let items = match field(params, "paths") {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "'paths' must be an array of files or directories",
            ))
        }
    };
    items
        .iter()
        .map(|p| {
            let p = p
                .as_str()
                .ok_or_else(|| RpcError::invalid_params("'paths' must hold strings"))?;
            inside_roots(snapshot, Path::new(p)).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "'paths': {p} is not an existing file or directory inside the workspace roots"
                ))
            })
        })
        .collect()
}

/// Whether `file`, as the analysis names it, is one of `paths` or under one.
fn under_any(paths: &[PathBuf], file: &str) -> bool {
    if paths.is_empty() {
        return true;
    }
    let abs = crate::workspace::absolute(Path::new(file));
    let real = abs.canonicalize().unwrap_or(abs);
    paths.iter().any(|p| real.starts_with(p))
}

/// The project root every answer's relative paths are relative to: the first root.
pub(crate) fn root_of(snapshot: &Snapshot) -> String {
    let first = snapshot
        .roots
        .first()
        .map_or(Path::new("."), PathBuf::as_path);
    crate::workspace::absolute(first).display().to_string()
}

/// `check` answered by the daemon: the findings and kernels located in `paths` (all of the
/// roots' when absent), in the shape of `check --format json`, with the root their paths are
/// relative to. Named files are read again first, so a file saved a moment ago is answered
/// for as saved.
fn check(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    let paths = path_filter(snapshot, params)?;
    let mut fresh: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let roots: Vec<PathBuf> = projects::absolute_roots(&snapshot.roots);
    if fresh.is_empty() {
        fresh = roots.iter().map(PathBuf::as_path).collect();
    }
    let answer = analysis_for(snapshot, params, &fresh)?;
    let analysis = answer.analysis();
    let (mut report, _) = analysis.findings_for(&|f| under_any(&paths, f));
    analysis.add_notices(&mut report);
    let diagnostics: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| under_any(&paths, &d.file))
        .collect();
    let reg = devices::registry();
    let kernels: Vec<Value> = report
        .summaries
        .iter()
        .filter(|s| s.kernel && under_any(&paths, &s.file))
        .map(|s| {
            json!({ "name": s.name, "file": &*s.file, "line": s.name_span.pos.line,
                    "column": s.name_span.pos.column, "used": reg.sorted_names(s.used) })
        })
        .collect();
    let targets: Vec<String> = analysis
        .targets()
        .unwrap_or_default()
        .iter()
        .map(|t| t.canonical.clone())
        .collect();
    Ok(json!({
        "root": root_of(snapshot),
        "targets": targets,
        "diagnostics": diagnostics,
        "kernels": kernels,
        "stats": report.stats,
    }))
}

/// The kernel × target matrix of the workspace roots for `targets` (required: the question is
/// which targets a kernel runs on).
fn kernel_matrix(snapshot: &Snapshot, params: &Value) -> Result<Value, RpcError> {
    if field(params, "targets").is_none() {
        return Err(RpcError::invalid_params(
            "'targets' (a -fsycl-targets list) is required",
        ));
    }
    let answer = analysis_for(snapshot, params, &[])?;
    let analysis = answer.analysis();
    let targets = analysis.targets().unwrap_or_default().to_vec();
    let matrix = analysis.matrix(&targets);
    Ok(proto::matrix_answer(&matrix, params))
}
