//! `sycl-analyzer check`: analyse a workspace from the command line, for people and for CI.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde_json::{json, Value};

use super::output::{self, Reporter};
use super::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use crate::analysis::Report;
use crate::devices::{DeviceTable, ResolvedTarget};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ide::AnalysisConfig;
use crate::project::{self, LoadOptions, Project, ProjectConfig, TargetProblem};
use crate::workspace;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Sarif,
}

pub struct CheckArgs {
    pub paths: Vec<PathBuf>,
    pub targets: Option<String>,
    pub compile_commands: Option<PathBuf>,
    /// `--include-dir`: searched by every file for its includes.
    pub include_dirs: Vec<PathBuf>,
    pub format: CheckFormat,
    /// Neither read nor write the persisted index.
    pub no_cache: bool,
    /// `--shard K/N`: extract only this shard's files into `facts_out`, analyse nothing.
    pub shard: Option<Shard>,
    pub facts_out: Option<PathBuf>,
    /// Facts files of the shards, merged: their files are not parsed again.
    pub facts: Vec<PathBuf>,
    /// `--dpcpp`: the release whose rules apply, over the one the compiler path names.
    pub dpcpp: Option<crate::devices::DpcppRelease>,
}

/// `K/N`: the K-th (1-based) of N shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or("expected K/N, as 2/4")?;
        let k: usize = k
            .trim()
            .parse()
            .map_err(|_| format!("'{k}' is not a shard number"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("'{n}' is not a shard count"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: K must be between 1 and N"));
        }
        Ok(Shard { k, n })
    }
}

/// Why a run gives no answer (exit 2): the problems that stop it, located in the inputs that
/// hold them where they have a place (a `--targets` value, a database entry, a device-config
/// line). Empty when the problems already collected say why.
pub(crate) struct Refusal(pub Vec<Diagnostic>);

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal(vec![unlocated(Code::RunFailed, message)])
    }
}

/// A problem with no place in an input (an unreadable path, a run with nothing to analyse).
pub(crate) fn unlocated(code: Code, message: String) -> Diagnostic {
    Diagnostic::new(
        std::sync::Arc::from(""),
        crate::text::TextRange::new(0, 0),
        crate::text::LineCol::default(),
        Severity::Error,
        code,
        message,
    )
}

/// Reads the workspace `args` name through the project model (targets, device configs and
/// flags from `compile_commands.json`). `configs_given`: `--config` was used (and is in
/// `table`), so the device-config files of `compile_commands.json` do not apply; their
/// diagnostics go into `problems`. `pack`: the facts are loaded packed.
pub(crate) fn load(
    args: &CheckArgs,
    configs_given: bool,
    pack: bool,
    table: &DeviceTable,
    problems: &mut Vec<Diagnostic>,
    reporter: &mut Reporter,
) -> Result<project::Workspace, Refusal> {
    let roots = match named_files(args) {
        Some((root, _)) => vec![root],
        None => args.paths.clone(),
    };
    let project = Project::discover(&ProjectConfig {
        roots,
        compile_commands: args.compile_commands.clone(),
        targets: args.targets.clone(),
        device_configs: Vec::new(),
        include_dirs: args.include_dirs.clone(),
    })?;
    let unreadable = project.database_problems();
    if !unreadable.is_empty() {
        if let Some(db) = &project.flags.database {
            if let Ok(text) = std::fs::read_to_string(db) {
                reporter.add_source(&db.display().to_string(), &text);
            }
        }
        return Err(Refusal(unreadable));
    }
    let mut table = table.clone();
    if !configs_given && !project.config_paths.is_empty() {
        let mut configs = Vec::new();
        for p in &project.config_paths {
            configs.push(super::load_config(p, reporter)?);
        }
        problems.extend(configs.iter().flat_map(|c| c.diagnostics.clone()));
        if configs.iter().any(|c| c.has_errors()) {
            // DPC++ stops at a device-config file it cannot read whole; an answer from the
            // embedded table instead would be for devices nobody configured.
            return Err(Refusal(Vec::new()));
        }
        table = DeviceTable::with_overlays(&configs);
    }
    let targets = match project.targets(&table) {
        Ok(t) => t,
        // What the driver would refuse in the build's own commands (an unknown
        // `--offload-arch`): the build fails there, so the analysis would answer for targets
        // nobody compiles for.
        Err(TargetProblem::Driver(errors)) => {
            let source = project
                .flags
                .database
                .as_ref()
                .map_or("compile_commands.json".into(), |d| d.display().to_string());
            return Err(Refusal(super::driver_error_diagnostics(
                &source, &errors, reporter,
            )));
        }
        Err(TargetProblem::Invalid { list, parsed }) => {
            return Err(Refusal(invalid_targets(&project, &list, &parsed, reporter)));
        }
        Err(TargetProblem::Empty) => {
            let list = project.target_list.clone().unwrap_or_default();
            return Err(Refusal(vec![super::empty_targets(&list, reporter)]));
        }
    };
    let env = project.compile_env(targets.as_deref(), &table);
    problems.extend(project.driver_notes());
    let mut image = project.image_rule();
    if let Some(release) = args.dpcpp {
        image.typed_pointers = release.typed_pointers();
    }
    let config = AnalysisConfig::new(table, targets, env)
        .with_image(image)
        .with_implementation(project.implementation());
    let bar: std::sync::OnceLock<Option<indicatif::ProgressBar>> = std::sync::OnceLock::new();
    let ws = project::load(
        &project,
        config,
        &LoadOptions {
            cache: !args.no_cache,
            pack,
            shard: args.shard.map(|s| (s.k, s.n)),
            facts: &args.facts,
            found: &|n| {
                let _ = bar.set(progress_bar(n));
            },
            progress: &|| {
                if let Some(Some(b)) = bar.get() {
                    b.inc(1);
                }
            },
            ..LoadOptions::default()
        },
    )?;
    if let Some(Some(b)) = bar.get() {
        b.finish_and_clear();
    }
    // A CI job given a wrong path would otherwise pass on nothing checked; a file skipped
    // (binary, unreadable) is named by its note.
    if ws.loaded.files.is_empty() && args.facts.is_empty() && args.shard.is_none() {
        problems.extend(ws.loaded.notices.iter().cloned());
        let paths: Vec<String> = args
            .paths
            .iter()
            .map(|p| format!("'{}'", p.display()))
            .collect();
        let why = match ws.loaded.notices.len() {
            0 => String::new(),
            1 => "; 1 file skipped (see its note)".to_string(),
            n => format!("; {n} files skipped (see their notes)"),
        };
        return Err(Refusal(vec![unlocated(
            Code::NoSource,
            format!(
                "no C++ source file to analyse in {}{why}; looked for .cpp, .cc, .cxx, .hpp, .h \
                 and the like",
                paths.join(", ")
            ),
        )]));
    }
    Ok(ws)
}

/// `check FILE` names files relative to its project's root, as `check .` does there, from
/// wherever it is run (below the root, as cargo does, or above it): the process moves to the
/// root, and the paths of the arguments are made absolute first (the named files relative to
/// the root, as `report`'s page then names them).
pub(crate) fn enter_project_root(args: &mut CheckArgs) -> Result<(), String> {
    let Some((root, _)) = named_files(args) else {
        return Ok(());
    };
    if root == Path::new(".") {
        return Ok(());
    }
    let abs = |p: &PathBuf| crate::workspace::absolute(p);
    let root_abs = abs(&root);
    args.paths = args
        .paths
        .iter()
        .map(|p| {
            let p = abs(p);
            match p.strip_prefix(&root_abs) {
                Ok(rest) => rest.to_path_buf(),
                Err(_) => p,
            }
        })
        .collect();
    args.compile_commands = args.compile_commands.as_ref().map(abs);
    args.include_dirs = args.include_dirs.iter().map(abs).collect();
    args.facts = args.facts.iter().map(abs).collect();
    args.facts_out = args.facts_out.as_ref().map(abs);
    std::env::set_current_dir(&root)
        .map_err(|e| format!("cannot enter the project root '{}': {e}", root.display()))
}

/// When every path is a file and a compilation database is found upward from them (or given),
/// `check FILE...` analyses the project that holds them, as clangd does (so their includes and
/// callees resolve) and reports what is located in them: that project's root and the files.
/// Without a database, the named files are the workspace, as before.
pub(crate) fn named_files(args: &CheckArgs) -> Option<(PathBuf, Vec<PathBuf>)> {
    let paths = &args.paths;
    if paths.is_empty() || !paths.iter().all(|p| p.is_file()) || args.shard.is_some() {
        return None;
    }
    let files: Vec<PathBuf> = paths.iter().map(|p| crate::workspace::tidy(p)).collect();
    let database = args.compile_commands.clone().or_else(|| {
        crate::project::database_candidates(&files)
            .into_iter()
            .next()
    })?;
    Some((project_root(&files, &database), files))
}

/// The root of the project of `database` holding `files`: the database's directory (one in a
/// `build*` directory belongs to its parent), else the files' common directory when they are
/// not under it. Named relative to the current directory when under it, as the files are.
pub(crate) fn project_root(files: &[PathBuf], database: &Path) -> PathBuf {
    use crate::workspace::absolute;
    let here = absolute(Path::new("."));
    let abs: Vec<PathBuf> = files.iter().map(|f| absolute(f)).collect();
    let dir = absolute(database.parent().unwrap_or(Path::new(".")));
    let built = dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("build"));
    let mut root = match (built, dir.parent()) {
        (true, Some(parent)) => parent.to_path_buf(),
        _ => dir,
    };
    if !abs.iter().all(|f| f.starts_with(&root)) {
        root = abs[0].parent().map(PathBuf::from).unwrap_or(root);
        while !abs.iter().all(|f| f.starts_with(&root)) && root.pop() {}
    }
    match root.strip_prefix(&here) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => root,
    }
}

/// Why the targets are refused, located where they were given: the `--targets` value, or
/// the `-fsycl-targets=` of the compilation database that named them.
fn invalid_targets(
    project: &Project,
    list: &str,
    parsed: &crate::devices::TargetList,
    reporter: &mut Reporter,
) -> Vec<Diagnostic> {
    let database = (!project.targets_configured)
        .then_some(project.flags.database.as_ref())
        .flatten()
        .and_then(|db| Some((db, std::fs::read_to_string(db).ok()?)));
    if let Some((db, text)) = database {
        let file: std::sync::Arc<str> = std::sync::Arc::from(db.display().to_string());
        reporter.add_source(&file, &text);
        let mut sink = crate::diagnostics::DiagnosticSink::new(file.clone(), &text);
        // Each name where the database's first `-fsycl-targets` naming it spells it.
        let search_from = text.find("-fsycl-targets").unwrap_or(0);
        for d in parsed.invalid_diagnostics(file, list) {
            let name = list.get(d.range.start..d.range.end).unwrap_or("");
            let at = (!name.is_empty())
                .then(|| text[search_from..].find(name))
                .flatten()
                .map(|i| search_from + i);
            let range = match at {
                Some(i) => crate::text::TextRange::new(i, i + name.len()),
                None => crate::text::TextRange::new(search_from, search_from),
            };
            sink.push(range, d.severity, d.code, d.message, d.suggestions);
        }
        return sink.finish();
    }
    let file: std::sync::Arc<str> = std::sync::Arc::from("--targets");
    reporter.add_source(&file, list);
    parsed.invalid_diagnostics(file, list)
}

/// Reports why nothing was analysed, in the format asked for (SARIF stays SARIF, so a code
/// scanning upload gets a valid file that says what went wrong), and gives exit status 2.
pub(crate) fn refuse(format: CheckFormat, problems: &[Diagnostic], reporter: &mut Reporter) -> i32 {
    match format {
        CheckFormat::Text => {}
        CheckFormat::Json => output::print_json(&json!({
            "diagnostics": [],
            "kernels": [],
            "problems": problems_json(problems),
        })),
        CheckFormat::Sarif => output::print_json(&sarif(&[], problems, EXIT_USAGE)),
    }
    report_problems(problems, reporter);
    if format == CheckFormat::Text {
        eprintln!("error: nothing was checked: the problem(s) above stop the run (exit status 2)");
    }
    EXIT_USAGE
}

/// Problems on standard error, compiler-style; one without a place as `error: message`.
fn report_problems(problems: &[Diagnostic], reporter: &mut Reporter) {
    let (unlocated, located): (Vec<Diagnostic>, Vec<Diagnostic>) =
        problems.iter().cloned().partition(|d| d.file.is_empty());
    reporter.report(&located);
    for d in unlocated {
        eprintln!("{}: {}", d.severity.as_str(), d.message);
    }
}

/// Problems in JSON: a diagnostic's shape, without a place when it has none (an option's
/// value keeps the option as its file, as every command reports it).
fn problems_json(problems: &[Diagnostic]) -> Value {
    Value::Array(
        problems
            .iter()
            .map(|d| {
                let mut v = json!(d);
                if d.file.is_empty() {
                    if let Some(o) = v.as_object_mut() {
                        for key in ["file", "line", "column", "end_line", "end_column"] {
                            o.remove(key);
                        }
                    }
                }
                v
            })
            .collect(),
    )
}

pub fn run(
    mut args: CheckArgs,
    configs_given: bool,
    table: &DeviceTable,
    mut problems: Vec<Diagnostic>,
    reporter: &mut Reporter,
) -> Result<i32, String> {
    let format = args.format;
    let answered = if problems.iter().any(Diagnostic::is_error) {
        // A `--config` file the driver would refuse: no answer from another table.
        Err(Refusal(Vec::new()))
    } else {
        answer(&mut args, configs_given, table, &mut problems, reporter)
    };
    match answered {
        Ok(code) => Ok(code),
        Err(Refusal(refused)) => {
            problems.extend(refused);
            Ok(refuse(format, &problems, reporter))
        }
    }
}

fn answer(
    args: &mut CheckArgs,
    configs_given: bool,
    table: &DeviceTable,
    problems: &mut Vec<Diagnostic>,
    reporter: &mut Reporter,
) -> Result<i32, Refusal> {
    enter_project_root(args)?;
    let mut ws = load(args, configs_given, true, table, problems, reporter)?;
    if let Some(shard) = args.shard {
        let out = args
            .facts_out
            .as_deref()
            .ok_or_else(|| "--shard needs --facts-out FILE".to_string())?;
        ws.loaded
            .save_index(out)
            .map_err(|e| format!("cannot write '{}': {e}", out.display()))?;
        reporter.report(problems);
        reporter.report(&ws.loaded.notices);
        eprintln!(
            "shard {}/{}: facts of {} file(s) in {} (merge: check --facts FILE...)",
            shard.k,
            shard.n,
            ws.loaded.files.len(),
            out.display()
        );
        return Ok(EXIT_OK);
    }
    let (mut report, host) = ws.report();
    if let Some((_, files)) = named_files(args) {
        use crate::workspace::absolute;
        let wanted: std::collections::HashSet<PathBuf> =
            files.iter().map(|f| absolute(f)).collect();
        report
            .diagnostics
            .retain(|d| wanted.contains(&absolute(Path::new(&*d.file))));
        report
            .summaries
            .retain(|s| wanted.contains(&absolute(Path::new(&*s.file))));
    }
    let reg = crate::devices::registry();
    let kernels: Vec<Value> = report
        .summaries
        .iter()
        .filter(|s| s.kernel)
        .map(|s| {
            json!({
                "name": s.name,
                "file": &*s.file,
                "line": s.name_span.pos.line,
                "column": s.name_span.pos.column,
                "used": reg.sorted_names(s.used),
            })
        })
        .collect();
    let targets = targets_label(ws.config.targets.as_deref());
    let code = emit(args.format, &report, kernels, &targets, problems, reporter);
    // The process ends here: freeing every file's facts one block at a time was a quarter of
    // a warm `check`, for memory the exit gives back at once.
    std::mem::forget(host);
    Ok(code)
}

/// Prints the findings in `format` (the kernels go into JSON only), with the problems of the
/// inputs (`problems`, and the report's own: files skipped) apart from them, and gives the exit
/// status: shared by `check` and `check --connect`, whose outputs are the same.
pub(crate) fn emit(
    format: CheckFormat,
    report: &Report,
    kernels: Vec<Value>,
    targets: &str,
    problems: &[Diagnostic],
    reporter: &mut Reporter,
) -> i32 {
    let (inputs, findings): (Vec<&Diagnostic>, Vec<&Diagnostic>) = report
        .diagnostics
        .iter()
        .partition(|d| d.code.is_input_problem());
    let findings: Vec<Diagnostic> = findings.into_iter().cloned().collect();
    let problems: Vec<Diagnostic> = problems
        .iter()
        .cloned()
        .chain(inputs.into_iter().cloned())
        .collect();
    let flagged = findings
        .iter()
        .any(|d| matches!(d.severity, Severity::Error | Severity::Warning));
    let code = if problems.iter().any(Diagnostic::is_error) {
        EXIT_USAGE
    } else if flagged {
        EXIT_INVALID
    } else {
        EXIT_OK
    };
    match format {
        CheckFormat::Json => output::print_json(&json!({
            "diagnostics": findings,
            "kernels": kernels,
            "stats": report.stats,
            "problems": problems_json(&problems),
        })),
        CheckFormat::Sarif => output::print_json(&sarif(&findings, &problems, code)),
        CheckFormat::Text => {
            report_problems(&problems, reporter);
            // Only flagged files are shown: they are read again rather than all kept.
            let mut shown: Vec<&str> = findings
                .iter()
                .flat_map(|d| std::iter::once(&*d.file).chain(d.chain.iter().map(|s| &*s.file)))
                .collect();
            shown.sort_unstable();
            shown.dedup();
            for path in shown {
                if let Ok(text) = workspace::read_source(std::path::Path::new(path)) {
                    reporter.add_source(path, &text);
                }
            }
            reporter.report_to_stdout(&findings);
            output::out(&summary(&findings, report, targets));
        }
    }
    code
}

/// The targets line of the summary.
pub(crate) fn targets_label(targets: Option<&[ResolvedTarget]>) -> String {
    targets.map_or("spir64 (implicit)".to_string(), |t| {
        t.iter()
            .map(|t| t.canonical.as_str())
            .collect::<Vec<_>>()
            .join(",")
    })
}

fn progress_bar(len: usize) -> Option<indicatif::ProgressBar> {
    (len > 200 && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(len as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} parsing {pos}/{len} files {wide_bar}",
            )
            .expect("valid template"),
        );
        bar
    })
}

fn summary(findings: &[Diagnostic], report: &Report, targets: &str) -> String {
    let count = |s: Severity| findings.iter().filter(|d| d.severity == s).count();
    format!(
        "{} error(s), {} warning(s), {} note(s) in {} file(s): {} functions, {} kernels; targets {}\n",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note),
        report.stats.files,
        report.stats.functions,
        report.stats.kernels,
        targets
    )
}

/// Characters a URI path segment cannot carry raw; `/` separates segments and stays.
pub(crate) const URI_SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

fn sarif_location(file: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file) },
            "region": { "startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column }
        }
    })
}

/// A SARIF artifact URI: relative paths stay relative (code scanning resolves them against the
/// checkout, so `check` is run from the repository's top), absolute ones become `file:` URIs.
fn uri(file: &str) -> String {
    let path = Path::new(file);
    if path.is_absolute() {
        if let Ok(u) = url::Url::from_file_path(path) {
            return u.to_string();
        }
    }
    let relative = file.replace('\\', "/");
    let relative = relative.trim_start_matches("./");
    utf8_percent_encode(relative, URI_SEGMENT).to_string()
}

fn sarif_rule(code: Code) -> Value {
    json!({
        "id": code.as_str(),
        "name": format!("{code:?}"),
        "shortDescription": { "text": code.meaning().replace('`', "") },
        "fullDescription": { "text": code.meaning().replace('`', ""), "markdown": code.meaning() },
        "help": { "text": code.help().replace('`', ""), "markdown": code.help() },
        "defaultConfiguration": { "level": sarif_level(code.severity()) },
    })
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// SARIF 2.1.0, as CI code scanning reads it: the findings are results, each located; the
/// problems of the inputs are the invocation's notifications (`executionSuccessful` false when
/// the run could not answer), so an upload shows them as the tool's errors, never as alerts.
fn sarif(findings: &[Diagnostic], problems: &[Diagnostic], exit_code: i32) -> Value {
    let mut rules: Vec<Code> = findings.iter().map(|d| d.code).collect();
    rules.sort_unstable_by_key(|c| c.as_str());
    rules.dedup();
    let results: Vec<Value> = findings
        .iter()
        .map(|d: &Diagnostic| {
            let p = d.pos;
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": rules.iter().position(|c| *c == d.code),
                "level": sarif_level(d.severity),
                "message": { "text": d.message },
                "locations": [sarif_location(&d.file, p.line, p.column, p.end_line, p.end_column)],
            });
            if !d.chain.is_empty() {
                let located: Vec<Value> = d
                    .chain
                    .iter()
                    .map(|s| {
                        let p = s.pos;
                        let mut loc =
                            sarif_location(&s.file, p.line, p.column, p.end_line, p.end_column);
                        loc["message"] = json!({ "text": s.message });
                        loc
                    })
                    .collect();
                let flow: Vec<Value> = located.iter().map(|l| json!({ "location": l })).collect();
                r["codeFlows"] = json!([{ "threadFlows": [{ "locations": flow }] }]);
                r["relatedLocations"] = Value::Array(
                    located
                        .into_iter()
                        .enumerate()
                        .map(|(i, mut l)| {
                            l["id"] = json!(i);
                            l
                        })
                        .collect(),
                );
            }
            r
        })
        .collect();
    let mut kinds: Vec<Code> = problems.iter().map(|d| d.code).collect();
    kinds.sort_unstable_by_key(|c| c.as_str());
    kinds.dedup();
    let notifications: Vec<Value> = problems
        .iter()
        .map(|d| {
            let mut n = json!({
                "level": sarif_level(d.severity),
                "message": { "text": d.message },
                "descriptor": {
                    "id": d.code.as_str(),
                    "index": kinds.iter().position(|c| *c == d.code),
                },
            });
            // A file, not an option's value (`--targets`) nor a problem without a place.
            if !d.file.is_empty() && !d.file.starts_with("--") {
                let p = d.pos;
                n["locations"] = json!([sarif_location(
                    &d.file,
                    p.line.max(1),
                    p.column.max(1),
                    p.end_line.max(1),
                    p.end_column.max(1)
                )]);
            }
            n
        })
        .collect();
    let mut sarif = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "sycl-analyzer",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|c| sarif_rule(*c)).collect::<Vec<_>>(),
                "notifications": kinds.iter().map(|c| sarif_rule(*c)).collect::<Vec<_>>(),
            }},
            "invocations": [{
                "executionSuccessful": exit_code != EXIT_USAGE,
                "exitCode": exit_code,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    });
    let home = env!("CARGO_PKG_REPOSITORY");
    if !home.is_empty() {
        sarif["runs"][0]["tool"]["driver"]["informationUri"] = json!(home);
    }
    sarif
}
