//! `config from-sycl-ls`: a `sycl-ls --verbose` transcript (a file or standard input) to
//! device-config YAML on standard output, into `--output`, or appended to a `--merge` file. The
//! reading is `devices::sycl_ls`'s; the YAML written is loaded back by the checker of
//! `config check` and its problems reported.

use std::io::{IsTerminal as _, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::output::{self, Reporter};
use super::{read_file, EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use crate::devices::names::driver_names;
use crate::devices::sycl_ls::{self, Conversion, Entry};
use crate::devices::yaml::{self, Value};
use crate::devices::{config, ConfigFile};
use crate::diagnostics::{Code, Diagnostic, DiagnosticSink};
use crate::text::LineIndex;

pub(super) struct FromSyclLs {
    /// `None` or `-`: standard input.
    pub input: Option<PathBuf>,
    pub merge: Option<PathBuf>,
    pub output: Option<PathBuf>,
}

pub(super) fn from_sycl_ls(args: &FromSyclLs, reporter: &mut Reporter) -> Result<i32, String> {
    let (label, bytes) = match args.input.as_deref() {
        None if std::io::stdin().is_terminal() => return Err(
            "no transcript: pass the file that holds the output of `sycl-ls --verbose`, or pipe \
                 it in (`sycl-ls --verbose | sycl-analyzer config from-sycl-ls`)"
                .into(),
        ),
        None => stdin()?,
        Some(p) if p == Path::new("-") => stdin()?,
        Some(p) => (p.display().to_string(), read_file(p)?),
    };
    let text = String::from_utf8_lossy(&bytes);
    let label: Arc<str> = Arc::from(label);
    reporter.add_source(&label, &text);
    let conversion = sycl_ls::read(label.clone(), &text);
    let mut diagnostics = conversion.diagnostics.clone();
    if conversion.is_malformed() {
        reporter.report(&diagnostics);
        return Ok(EXIT_USAGE);
    }

    // The YAML to write, with the targets it must define when it is a merge.
    let (written, target) = match &args.merge {
        None => {
            let entries: Vec<&Entry> = conversion.entries.iter().collect();
            let header = [
                "Device config made by `sycl-analyzer config from-sycl-ls` from a `sycl-ls --verbose`"
                    .to_string(),
                format!("transcript: {label}"),
                "One entry per target, what its devices report. Use it with --config FILE, and an"
                    .to_string(),
                "entry's name in --targets.".to_string(),
            ];
            let yaml = sycl_ls::render(&conversion, &entries, &header);
            let target = args
                .output
                .as_ref()
                .map_or("<stdout>".to_string(), |p| p.display().to_string());
            (Some((yaml, Vec::new())), target)
        }
        Some(merge) => {
            let target = args.output.as_ref().unwrap_or(merge);
            let merged = merged_text(
                &conversion,
                &label,
                &text,
                merge,
                reporter,
                &mut diagnostics,
            )?;
            (merged, target.display().to_string())
        }
    };

    if let Some((yaml, expected)) = written {
        // The same checker as `config check`: what is written must load.
        let target: Arc<str> = Arc::from(target);
        reporter.add_source(&target, &yaml);
        let checked = config::load_bytes(target.clone(), yaml.as_bytes());
        if let Some(merge) = &args.merge {
            if let Err(e) = keeps_every_entry(&checked, &expected, merge) {
                reporter.report(&diagnostics);
                return Err(e);
            }
        }
        diagnostics.extend(checked.diagnostics);
        match args.output.as_ref().or(args.merge.as_ref()) {
            Some(path) => write_atomically(path, &yaml)?,
            None => output::out(&yaml),
        }
    }
    reporter.report(&diagnostics);
    Ok(if diagnostics.iter().any(Diagnostic::is_error) {
        EXIT_INVALID
    } else {
        EXIT_OK
    })
}

fn stdin() -> Result<(String, Vec<u8>), String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(("<stdin>".to_string(), bytes))
}

/// The merge file with the entries of targets it does not define appended, and the targets the
/// result must define (the file's valid entries and the new ones); `None` when there is nothing
/// to add. The targets the file defines are `merge-existing-target` warnings on the transcript.
fn merged_text(
    conversion: &Conversion,
    label: &str,
    transcript: &str,
    merge: &Path,
    reporter: &mut Reporter,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Option<(String, Vec<String>)>, String> {
    let bytes = read_file(merge)?;
    let name: Arc<str> = Arc::from(merge.display().to_string());
    let existing = config::load_bytes(name.clone(), &bytes);
    if existing.entries.is_none() {
        reporter.add_source(&name, &String::from_utf8_lossy(&bytes));
        reporter.report(&existing.diagnostics);
        return Err(format!(
            "cannot merge into '{}': it is not a device config (a YAML mapping of targets)",
            merge.display()
        ));
    }
    let text = String::from_utf8(bytes).expect("a loaded config is UTF-8");
    let defined = defined_targets(&text);
    let index = LineIndex::new(&text);
    let mut sink = DiagnosticSink::new(Arc::from(label), transcript);
    let mut added = Vec::new();
    for e in &conversion.entries {
        match defined.iter().find(|(n, _)| *n == e.name) {
            Some((_, at)) => {
                let line = index.position(&text, *at).0 + 1;
                let d = &conversion.devices[e.devices[0]];
                sink.warning(
                    d.range,
                    Code::MergeExistingTarget,
                    format!(
                        "target '{}' is already defined in '{}' (line {line}): the file's entry is \
                         kept, this device's left out",
                        e.name,
                        merge.display()
                    ),
                );
            }
            None => added.push(e),
        }
    }
    diagnostics.extend(sink.finish());
    if added.is_empty() {
        return Ok(None);
    }
    let mut merged = text;
    if !merged.is_empty() && !merged.ends_with('\n') {
        merged.push('\n');
    }
    if !merged.is_empty() {
        merged.push('\n');
    }
    let header = [format!(
        "Added by `sycl-analyzer config from-sycl-ls` from {label}."
    )];
    merged.push_str(&sycl_ls::render(conversion, &added, &header));
    let expected = existing
        .entries
        .iter()
        .flatten()
        .map(|e| e.name.clone())
        .chain(added.iter().map(|e| e.name.clone()))
        .collect();
    Ok(Some((merged, expected)))
}

/// Every top-level key of a config text (canonical names, as the loader applies them), with
/// its offset: entries with errors too, which the loader drops but the file still holds.
fn defined_targets(text: &str) -> Vec<(String, usize)> {
    let Ok(docs) = yaml::parse(text) else {
        return Vec::new();
    };
    let Some(Value::Map(pairs)) = docs.into_iter().next().map(|d| d.value) else {
        return Vec::new();
    };
    pairs
        .iter()
        .filter_map(|(k, _)| {
            let name = k.as_str()?;
            let name = driver_names().canonical_of_alias(name).unwrap_or(name);
            Some((name.to_string(), k.range.start))
        })
        .collect()
}

/// A merge that would lose an entry (a file whose layout appending does not extend: a flow
/// mapping, a second document) is refused, and nothing written.
fn keeps_every_entry(
    checked: &ConfigFile,
    expected: &[String],
    merge: &Path,
) -> Result<(), String> {
    let names: Vec<&str> = checked
        .entries
        .iter()
        .flatten()
        .map(|e| e.name.as_str())
        .collect();
    match expected.iter().find(|n| !names.contains(&n.as_str())) {
        None => Ok(()),
        Some(lost) => Err(format!(
            "appending to '{}' would not keep target '{lost}' (is it a flow mapping, or more than \
             one document?): nothing written; write the entries to a file of their own with \
             --output",
            merge.display()
        )),
    }
}

/// Writes through a temporary file in the same directory, so a reader never sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path.file_name().map_or_else(
        || "sycl-analyzer-config".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write '{}': {e}", path.display())
        })
}
