//! `query ... --connect`: the same questions, answered by a running daemon.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::output;
use super::{MacroOutput, Query, TextFormat, EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use crate::devices::{render_macros, MacroFormat};
use crate::server::{client, codes};

pub fn query(socket: &Path, query: &Query) -> Result<i32, String> {
    let (method, params) = match query {
        Query::Target { names, format } => {
            require_json(*format == TextFormat::Json)?;
            let names: Vec<&str> = names.iter().flat_map(|n| n.split(',')).collect();
            ("sycl/targetInfo", json!({ "names": names }))
        }
        Query::Macros { targets, .. } => (
            "sycl/predefinedMacros",
            json!({ "targets": given_targets(targets.as_deref())? }),
        ),
        Query::Traits {
            targets,
            aspects,
            format,
        } => {
            require_json(*format == TextFormat::Json)?;
            let mut p = json!({ "targets": given_targets(targets.as_deref())? });
            if !aspects.is_empty() {
                p["aspects"] = json!(aspects);
            }
            ("sycl/aspectTraits", p)
        }
    };
    match client::call(socket, method, params) {
        Ok(result) => {
            match query {
                Query::Macros { format, .. } if *format != MacroOutput::Json => {
                    let f = match format {
                        MacroOutput::Flags => MacroFormat::Flags,
                        MacroOutput::Header => MacroFormat::Header,
                        _ => MacroFormat::Cmake,
                    };
                    output::out(&render_macros(
                        &macro_pairs(&result),
                        &target_names(&result),
                        f,
                    ));
                }
                _ => output::print_json(&result),
            }
            let invalid = result
                .as_array()
                .is_some_and(|a| a.iter().any(|t| t["valid"] == false));
            Ok(if invalid { EXIT_INVALID } else { EXIT_OK })
        }
        Err(Ok(e)) if e.code == codes::INVALID_INPUT => {
            if let Some(d) = &e.data {
                output::print_json(d);
            }
            eprintln!("error: {}", e.message);
            // An invalid name asked about is `query target`'s answer; any other query could
            // not be answered.
            Ok(if matches!(query, Query::Target { .. }) {
                EXIT_INVALID
            } else {
                EXIT_USAGE
            })
        }
        Err(Ok(e)) => Err(format!(
            "the daemon answered error {}: {}",
            e.code, e.message
        )),
        Err(Err(transport)) => Err(transport),
    }
}

/// The `targets` parameter of a query: the protocol's empty string for the implicit `spir64`
/// when the option is absent; an empty list given is refused here, as a local query refuses it.
fn given_targets(list: Option<&str>) -> Result<&str, String> {
    match list {
        None => Ok(""),
        Some(l) if l.split(',').all(|n| n.trim().is_empty()) => Err(
            "the target list is empty: name at least one target, or leave --targets out for \
             the implicit spir64"
                .into(),
        ),
        Some(l) => Ok(l),
    }
}

fn require_json(json: bool) -> Result<(), String> {
    if json {
        Ok(())
    } else {
        Err("--connect answers in JSON only for this query (use --format json)".into())
    }
}

fn macro_pairs(result: &Value) -> Vec<(String, String)> {
    result["macros"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("1").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn target_names(result: &Value) -> Vec<&str> {
    result["targets"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `check --connect`: the daemon's findings for the paths, printed as `check` prints its own
/// (same formats, same exit codes). The daemon analyses its whole project, so callers in
/// other files are seen as they would be by `check` of the project.
pub fn check(
    socket: &Path,
    args: &super::check::CheckArgs,
    reporter: &mut super::output::Reporter,
) -> Result<i32, String> {
    use super::check::{refuse, unlocated};
    // A daemon that cannot be reached, or that cannot answer, still gets a SARIF or JSON
    // answer that says so, as `check` computed here does.
    match check_with(socket, args, reporter) {
        Ok(code) => Ok(code),
        Err(message) => Ok(refuse(
            args.format,
            &[unlocated(crate::diagnostics::Code::RunFailed, message)],
            reporter,
        )),
    }
}

fn check_with(
    socket: &Path,
    args: &super::check::CheckArgs,
    reporter: &mut super::output::Reporter,
) -> Result<i32, String> {
    use super::check::{emit, refuse};
    use crate::diagnostics::Diagnostic;
    if args.compile_commands.is_some() || !args.include_dirs.is_empty() {
        return Err(
            "--compile-commands and --include-dir cannot be used with --connect: the daemon \
             reads its project's own compile_commands.json"
                .into(),
        );
    }
    if args.shard.is_some() || !args.facts.is_empty() {
        return Err("--shard and --facts cannot be used with --connect".into());
    }
    let mut paths = Vec::new();
    for p in &args.paths {
        let abs = p
            .canonicalize()
            .map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
        paths.push(abs.display().to_string());
    }
    let mut params = json!({ "paths": paths });
    if let Some(t) = &args.targets {
        params["targets"] = json!(t);
    }
    let result = match client::call(socket, "sycl/check", params) {
        Ok(r) => r,
        Err(Ok(e)) if e.code == codes::INVALID_INPUT => {
            let mut diagnostics: Vec<Diagnostic> = e
                .data
                .as_ref()
                .and_then(|d| serde_json::from_value(d["diagnostics"].clone()).ok())
                .unwrap_or_default();
            // Located in the `--targets` value, as `check` locates them.
            let list = args.targets.clone().unwrap_or_default();
            reporter.add_source("--targets", &list);
            let text: std::sync::Arc<str> = list.as_str().into();
            for d in &mut diagnostics {
                d.file = "--targets".into();
                d.locate(&mut |_| Some(text.clone()));
            }
            if diagnostics.is_empty() {
                return Err(e.message);
            }
            return Ok(refuse(args.format, &diagnostics, reporter));
        }
        Err(Ok(e)) => {
            return Err(format!(
                "the daemon answered error {}: {}",
                e.code, e.message
            ))
        }
        Err(Err(transport)) => return Err(transport),
    };
    let root = PathBuf::from(result["root"].as_str().unwrap_or("."));
    let relative = args.paths.iter().all(|p| p.is_relative());
    if relative && root.is_dir() {
        // Named from the daemon's root, as `check` names a project's files from its root
        // wherever it is run; the snippets are read from there too.
        std::env::set_current_dir(&root)
            .map_err(|e| format!("cannot enter the daemon's root '{}': {e}", root.display()))?;
    }
    let name = |file: &str| display_name(&root, file, relative);
    let mut diagnostics: Vec<Diagnostic> = serde_json::from_value(result["diagnostics"].clone())
        .map_err(|e| format!("the daemon's answer is not understood: {e}"))?;
    let mut texts = crate::workspace::SourceTexts::default();
    for d in &mut diagnostics {
        d.file = name(&d.file).into();
        for step in &mut d.chain {
            step.file = name(&step.file).into();
        }
        d.locate(&mut |file| texts.get(file));
    }
    let kernels: Vec<Value> = result["kernels"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut k| {
            if let Some(f) = k["file"].as_str() {
                k["file"] = json!(name(f));
            }
            k
        })
        .collect();
    let stats = serde_json::from_value(result["stats"].clone()).unwrap_or_default();
    let targets = match result["targets"].as_array() {
        Some(t) if !t.is_empty() => t
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => "spir64 (implicit)".to_string(),
    };
    let report = crate::analysis::Report {
        diagnostics,
        stats,
        ..Default::default()
    };
    Ok(emit(args.format, &report, kernels, &targets, &[], reporter))
}

/// A file the daemon names relative to its `root`, named as `check` names it: relative to the
/// root (as `check` names a project's files, from wherever it runs); absolute when the user
/// gave absolute paths.
pub fn display_name(root: &Path, file: &str, relative: bool) -> String {
    if relative {
        crate::workspace::tidy(Path::new(file))
            .display()
            .to_string()
    } else {
        root.join(file).display().to_string()
    }
}
