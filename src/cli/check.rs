//! `sycl-analyzer check`: analyse a workspace from the command line, for people and for CI.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde_json::{json, Value};

use super::output::{self, Reporter};
use super::{EXIT_INVALID, EXIT_OK};
use crate::analysis::{self, Report, Settings};
use crate::devices::{self, DeviceTable, ResolvedTarget};
use crate::diagnostics::{Code, Diagnostic, Severity};
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
    pub format: CheckFormat,
    /// Neither read nor write the persisted index.
    pub no_cache: bool,
    /// `--shard K/N`: extract only this shard's files into `facts_out`, analyse nothing.
    pub shard: Option<Shard>,
    pub facts_out: Option<PathBuf>,
    /// Facts files of the shards, merged: their files are not parsed again.
    pub facts: Vec<PathBuf>,
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

/// The SYCL options of `compile_commands.json`: the one given, or one at the top of a checked
/// directory or in its `build*/`.
fn compile_flags(args: &CheckArgs) -> Result<Option<workspace::SyclFlags>, String> {
    let candidates: Vec<PathBuf> = match &args.compile_commands {
        Some(p) => vec![p.clone()],
        None => args
            .paths
            .iter()
            .filter(|p| p.is_dir())
            .flat_map(|p| workspace::compile_commands_candidates(p))
            .collect(),
    };
    workspace::find_sycl_flags(&candidates)
}

/// A workspace read for the command line: its device table when `compile_commands.json` named
/// device-config files, the targets, and the facts.
pub(crate) struct Workspace {
    pub table: Option<DeviceTable>,
    pub targets: Option<Vec<ResolvedTarget>>,
    pub loaded: workspace::Loaded,
    /// Where the last report of this workspace is kept, and the compile environment's key
    /// (`None` with `--no-cache` or for a shard).
    pub report: Option<(std::path::PathBuf, u64)>,
}

/// Reads the workspace `args` name (targets, device configs and flags from
/// `compile_commands.json`); `Err(status)` when the targets are refused (already reported).
/// `configs_given`: `--config` was used, so the device-config files of `compile_commands.json`
/// do not apply. `pack`: the facts are loaded packed (`Loaded::packed`).
pub(crate) fn load(
    args: &CheckArgs,
    configs_given: bool,
    pack: bool,
    table: &DeviceTable,
    reporter: &mut Reporter,
) -> Result<Result<Workspace, i32>, String> {
    let flags = compile_flags(args)?.unwrap_or_default();
    let mut owned_table = None;
    if !configs_given && !flags.device_configs.is_empty() {
        let mut configs = Vec::new();
        for p in &flags.device_configs {
            configs.push(super::load_config(p, reporter)?);
        }
        let diagnostics: Vec<Diagnostic> =
            configs.iter().flat_map(|c| c.diagnostics.clone()).collect();
        reporter.report(&diagnostics);
        owned_table = Some(DeviceTable::with_overlays(&configs));
    }
    let table = owned_table.as_ref().unwrap_or(table);
    // What the driver would refuse in the build's own commands (an unknown `--offload-arch`):
    // the build fails there, so the analysis would answer for targets nobody compiles for.
    if args.targets.is_none() && !flags.errors.is_empty() {
        super::report_driver_errors(
            "compile_commands.json",
            &flags.errors,
            reporter,
            args.format != CheckFormat::Text,
        );
        return Ok(Err(EXIT_INVALID));
    }
    let list = args
        .targets
        .clone()
        .or_else(|| (!flags.targets.is_empty()).then(|| flags.targets.join(",")));
    let targets: Option<Vec<ResolvedTarget>> = match list {
        None => None,
        Some(list) => {
            let parsed = devices::parse_target_list(&list, table);
            if !parsed.invalid.is_empty() {
                super::report_invalid_targets(
                    &list,
                    &parsed,
                    reporter,
                    args.format != CheckFormat::Text,
                );
                return Ok(Err(EXIT_INVALID));
            }
            Some(parsed.targets)
        }
    };
    let files = workspace::discover(&args.paths)?;
    let bar = progress_bar(files.len());
    // The persisted index of the first path: unchanged files are not parsed again.
    let index_path = if args.no_cache {
        None
    } else {
        args.paths.first().and_then(|p| crate::cache::index_path(p))
    };
    let mut index = index_path
        .as_deref()
        .map(crate::cache::Index::load)
        .unwrap_or_default();
    for f in &args.facts {
        index.extend(crate::cache::Index::load_strict(f)?);
    }
    let env = workspace::compile_env(targets.as_deref(), table, &flags);
    let mine = args.shard.map(|s| workspace::shard_of(&files, s.k, s.n));
    let loaded = workspace::load_selected(
        &files,
        &index,
        false,
        pack,
        &env,
        || {
            if let Some(b) = &bar {
                b.inc(1);
            }
        },
        |i| mine.as_ref().is_none_or(|m| m[i]),
    );
    // A shard's files alone would replace the whole workspace's index; facts merged from
    // shards are not in the index on disk yet.
    let unchanged = args.facts.is_empty() && loaded.same_as(&index);
    if let (Some(p), None, false) = (&index_path, args.shard, unchanged) {
        let _ = loaded.save_index(p);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    drop(index);
    // Parsing left its trees and texts freed: given back before the analysis grows.
    crate::memory::trim();
    let report = match (&index_path, args.shard) {
        (Some(p), None) => Some((crate::cache::report_path(p), env.key())),
        _ => None,
    };
    Ok(Ok(Workspace {
        table: owned_table,
        targets,
        loaded,
        report,
    }))
}

pub fn run(
    args: CheckArgs,
    configs_given: bool,
    table: &DeviceTable,
    reporter: &mut Reporter,
) -> Result<i32, String> {
    let ws = match load(&args, configs_given, true, table, reporter)? {
        Ok(ws) => ws,
        Err(code) => return Ok(code),
    };
    if let Some(shard) = args.shard {
        let out = args
            .facts_out
            .as_deref()
            .ok_or("--shard needs --facts-out FILE")?;
        ws.loaded
            .save_index(out)
            .map_err(|e| format!("cannot write '{}': {e}", out.display()))?;
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
    let table = ws.table.as_ref().unwrap_or(table);
    let (targets, mut loaded) = (ws.targets, ws.loaded);
    let settings = Settings {
        table,
        targets: targets.as_deref(),
    };
    // The last run's findings when nothing they depend on changed (a warm start).
    let key = ws.report.map(|(path, env)| {
        let key = crate::cache::report_key(&loaded.files, &loaded.hashes, &settings, env);
        (path, key)
    });
    let kept = key
        .as_ref()
        .and_then(|(path, key)| crate::cache::load_report(path, *key));
    let mut report = kept.unwrap_or_else(|| {
        // A part of the workspace at a time, its facts decoded only while it is analysed.
        let report = if loaded.outlined {
            analysis::analyze_parts(
                &loaded.files,
                crate::syntax::PackedFacts::unpack_once(std::mem::take(&mut loaded.packed)),
                &settings,
            )
        } else {
            analysis::analyze(&loaded.files, &settings)
        };
        if let Some((path, key)) = &key {
            let _ = crate::cache::save_report(path, *key, &report);
        }
        report
    });
    report.diagnostics.extend(loaded.notices);
    match args.format {
        CheckFormat::Json => {
            let reg = crate::devices::registry();
            let kernels: Vec<_> = report
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
            output::print_json(&json!({
                "diagnostics": report.diagnostics,
                "kernels": kernels,
                "stats": report.stats,
            }))
        }
        CheckFormat::Sarif => output::print_json(&sarif(&report)),
        CheckFormat::Text => {
            // Only flagged files are shown: they are read again rather than all kept.
            let mut shown: Vec<&str> = report
                .diagnostics
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
            reporter.report_to_stdout(&report.diagnostics);
            output::out(&summary(&report, targets.as_deref()));
        }
    }
    let flagged = report
        .diagnostics
        .iter()
        .any(|d| matches!(d.severity, Severity::Error | Severity::Warning));
    // The process ends here: freeing every file's facts one block at a time was a quarter of
    // a warm `check`, for memory the exit gives back at once.
    std::mem::forget(loaded.files);
    Ok(if flagged { EXIT_INVALID } else { EXIT_OK })
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

fn summary(report: &Report, targets: Option<&[ResolvedTarget]>) -> String {
    let count = |s: Severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count()
    };
    let targets = targets.map_or("spir64 (implicit)".to_string(), |t| {
        t.iter()
            .map(|t| t.canonical.as_str())
            .collect::<Vec<_>>()
            .join(",")
    });
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
    // Characters a URI reference cannot carry raw; `/` separates segments and stays.
    const SEGMENT: &AsciiSet = &CONTROLS
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
    let relative = file.replace('\\', "/");
    let relative = relative.trim_start_matches("./");
    utf8_percent_encode(relative, SEGMENT).to_string()
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

/// SARIF 2.1.0, as CI code scanning reads it.
fn sarif(report: &Report) -> Value {
    let mut rules: Vec<Code> = report.diagnostics.iter().map(|d| d.code).collect();
    rules.sort_unstable_by_key(|c| c.as_str());
    rules.dedup();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d: &Diagnostic| {
            let level = sarif_level(d.severity);
            let p = d.pos;
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": rules.iter().position(|c| *c == d.code),
                "level": level,
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
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "sycl-analyzer",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|c| sarif_rule(*c)).collect::<Vec<_>>(),
            }},
            "results": results,
        }]
    })
}
