//! What the CLI prints: compiler-style diagnostics on stderr, JSON or text answers on stdout.
//! The JSON shapes are an interface documented in protocol.md.

use std::collections::HashMap;
use std::fmt::Write as _;

use std::io::IsTerminal;

use codespan_reporting::diagnostic::{
    Diagnostic as Report, Label, LabelStyle, Severity as ReportSeverity,
};
use codespan_reporting::files::{Error as FilesError, Files, SimpleFiles};
use codespan_reporting::term::{self, termcolor, Config, DisplayStyle};
use serde_json::Value;

use crate::devices::catalogue::Listed;
use crate::devices::{
    registry, AspectId, ConfigFile, DeviceTable, InvalidTarget, ResolvedTarget, TargetList,
    TraitSets,
};
use crate::diagnostics::{Diagnostic, Severity};
use crate::text::TextRange;

/// Renders diagnostics compiler-style (`file:line:col: error[code]: message`) on stderr.
pub struct Reporter {
    files: SimpleFiles<String, String>,
    ids: HashMap<String, usize>,
    color: bool,
}

impl Reporter {
    pub fn new(color: bool) -> Self {
        Self {
            files: SimpleFiles::new(),
            ids: HashMap::new(),
            color,
        }
    }

    pub fn add_source(&mut self, name: &str, text: &str) {
        let id = self.files.add(name.to_string(), text.to_string());
        self.ids.insert(name.to_string(), id);
    }

    /// Compiler-style one-liners on stderr (for problems in inputs and options).
    pub fn report(&mut self, diagnostics: &[Diagnostic]) {
        let choice = if self.color {
            termcolor::ColorChoice::Auto
        } else {
            termcolor::ColorChoice::Never
        };
        let mut stderr = termcolor::StandardStream::stderr(choice);
        self.emit(&mut stderr, DisplayStyle::Medium, diagnostics);
    }

    /// Findings with source snippets and their call chains, on stdout: the answer of `check`.
    pub fn report_to_stdout(&mut self, diagnostics: &[Diagnostic]) {
        let color = self.color && std::io::stdout().is_terminal();
        let choice = if color {
            termcolor::ColorChoice::Auto
        } else {
            termcolor::ColorChoice::Never
        };
        let mut stdout = termcolor::StandardStream::stdout(choice);
        self.emit(&mut stdout, DisplayStyle::Rich, diagnostics);
    }

    /// The file id and the range, on char boundaries, of a location in a source added.
    fn located(&self, file: &str, range: TextRange) -> Option<(usize, std::ops::Range<usize>)> {
        let &id = self.ids.get(file)?;
        let source = self
            .files
            .get(id)
            .map(|f| f.source().as_str())
            .unwrap_or("");
        Some((id, on_boundaries(source, range)))
    }

    fn emit(
        &self,
        w: &mut termcolor::StandardStream,
        style: DisplayStyle,
        diagnostics: &[Diagnostic],
    ) {
        let config = Config {
            display_style: style,
            ..Config::default()
        };
        let files = Snippets(&self.files);
        for d in diagnostics {
            let severity = match d.severity {
                Severity::Error => ReportSeverity::Error,
                Severity::Warning => ReportSeverity::Warning,
                Severity::Note => ReportSeverity::Note,
            };
            let mut report = Report::new(severity)
                .with_code(d.code.as_str())
                .with_message(&d.message);
            let mut labels = InOrder::default();
            let mut notes = Vec::new();
            match self.located(&d.file, d.range) {
                Some((id, range)) => labels.push(LabelStyle::Primary, id, range, ""),
                None => notes.push(format!("in {}:{}:{}", d.file, d.pos.line, d.pos.column)),
            }
            for step in &d.chain {
                match self.located(&step.file, step.range) {
                    Some((id, range)) => {
                        labels.push(LabelStyle::Secondary, id, range, &step.message)
                    }
                    None => notes.push(format!(
                        "{}:{}:{}: {}",
                        step.file, step.pos.line, step.pos.column, step.message
                    )),
                }
            }
            report = report.with_labels(labels.labels).with_notes(notes);
            let _ = term::emit_to_write_style(w, &config, &files, &report);
        }
    }
}

/// Labels in call order. codespan draws one snippet per file id, its labels sorted by line:
/// a step that is not further down the file than the one before it (a chain climbing a file,
/// or coming back to one) is given a snippet of its own, so the snippets read kernel → use.
#[derive(Default)]
struct InOrder {
    labels: Vec<Label<SnippetId>>,
    snippets: usize,
}

/// A file, and the snippet of a finding it is shown in.
type SnippetId = (usize, usize);

impl InOrder {
    fn push(
        &mut self,
        style: LabelStyle,
        file: usize,
        range: std::ops::Range<usize>,
        message: &str,
    ) {
        let further_down = self
            .labels
            .last()
            .is_some_and(|l| l.file_id.0 == file && l.range.start < range.start);
        if !further_down {
            self.snippets += 1;
        }
        self.labels
            .push(Label::new(style, (file, self.snippets), range).with_message(message));
    }
}

/// The sources under snippet ids: each snippet of a file reads the same text.
struct Snippets<'f>(&'f SimpleFiles<String, String>);

impl<'f> Files<'f> for Snippets<'f> {
    type FileId = SnippetId;
    type Name = String;
    type Source = &'f str;

    fn name(&'f self, id: SnippetId) -> Result<String, FilesError> {
        self.0.name(id.0)
    }

    fn source(&'f self, id: SnippetId) -> Result<&'f str, FilesError> {
        self.0.source(id.0)
    }

    fn line_index(&'f self, id: SnippetId, byte_index: usize) -> Result<usize, FilesError> {
        self.0.line_index(id.0, byte_index)
    }

    fn line_range(
        &'f self,
        id: SnippetId,
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, FilesError> {
        self.0.line_range(id.0, line_index)
    }
}

/// A range widened to char boundaries of the (lossily decoded) source it is shown against.
fn on_boundaries(source: &str, range: TextRange) -> std::ops::Range<usize> {
    let mut start = range.start.min(source.len());
    let mut end = range.end.clamp(start, source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Writes an answer to stdout. A closed pipe (`| head`) is not an error worth a panic.
pub fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

pub fn print_json(value: &Value) {
    let mut text = serde_json::to_string_pretty(value).expect("JSON values always serialize");
    text.push('\n');
    out(&text);
}

pub fn targets_text(list: &[Listed], table: &DeviceTable) -> String {
    let mut rows = vec![[
        "TARGET".to_string(),
        "ASPECTS".into(),
        "OTHER".into(),
        "SUB-GROUPS".into(),
        "AOT".into(),
        "ALIASES".into(),
    ]];
    let names = crate::devices::names::driver_names();
    for t in list {
        let info = t.info(table);
        let sg: Vec<String> = info
            .map(|i| i.sub_group_sizes.iter().map(u32::to_string).collect())
            .unwrap_or_default();
        rows.push([
            t.name.clone(),
            info.map_or("-".into(), |i| i.aspects.len().to_string()),
            if info.is_none_or(|i| i.may_support_other_aspects) {
                "may"
            } else {
                "no"
            }
            .into(),
            if sg.is_empty() {
                "-".into()
            } else {
                sg.join(",")
            },
            t.compile.describe(),
            names.aliases(&t.name).join(","),
        ]);
    }
    let mut out = table_text(&rows);
    let _ = writeln!(
        out,
        "{} targets; ASPECTS counts the aspects every device of the target has, OTHER tells whether a device may have more.",
        list.len()
    );
    let driver_only: Vec<&str> = list
        .iter()
        .filter(|t| t.entry.is_none())
        .map(|t| t.name.as_str())
        .collect();
    if !driver_only.is_empty() {
        let _ = writeln!(
            out,
            "No device-config entry (the driver's names only, every kernel in their images): {}.",
            driver_only.join(", ")
        );
    }
    out
}

fn table_text<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn aspects_text() -> String {
    let mut rows = vec![["VALUE".to_string(), "ASPECT".into(), "NOTE".into()]];
    for (_, a) in registry().iter() {
        rows.push([
            a.value.to_string(),
            a.name.clone(),
            a.deprecated
                .as_ref()
                .map(|m| format!("deprecated: {m}"))
                .unwrap_or_default(),
        ]);
    }
    table_text(&rows)
}

pub fn query_target_text(
    results: &[Result<ResolvedTarget, InvalidTarget>],
    table: &DeviceTable,
) -> String {
    let mut out = String::new();
    for r in results {
        match r {
            Ok(t) => {
                let info = t.entry.as_deref().and_then(|e| table.get(e));
                let _ = write!(out, "{}: valid", t.input);
                if t.canonical != t.input {
                    let _ = write!(out, ", alias of {}", t.canonical);
                }
                let _ = write!(
                    out,
                    ", macro {}",
                    t.macro_name.as_deref().unwrap_or("(none)")
                );
                match info {
                    Some(i) => {
                        let placeholder = &*i.source == crate::devices::config::BUILTIN_FILE
                            && t.entry.as_deref().is_some_and(DeviceTable::is_placeholder);
                        let _ = write!(
                            out,
                            ", {} aspects{}",
                            i.aspects.len(),
                            if i.may_support_other_aspects {
                                " (devices may have more)"
                            } else if placeholder {
                                " (an empty placeholder in DPC++'s default table, not what its \
                                 devices have: a --config entry can list them)"
                            } else {
                                ""
                            }
                        );
                        if let (Some(tc), Some(o)) = (&i.aot_toolchain, &i.aot_toolchain_options) {
                            let _ = write!(out, ", AOT {tc} {o}");
                        }
                    }
                    None => out
                        .push_str(", no device-table entry (any aspect possible, none guaranteed)"),
                }
                out.push('\n');
            }
            Err(e) => {
                let _ = write!(out, "{}: {}", e.input, e.message);
                if !e.suggestions.is_empty() {
                    let _ = write!(out, " (did you mean {}?)", e.suggestions.join(", "));
                }
                out.push('\n');
            }
        }
    }
    out
}

pub fn traits_text(list: &TargetList, sets: &TraitSets, aspects: &[AspectId]) -> String {
    let reg = registry();
    let mut rows = vec![[
        "ASPECT".to_string(),
        "any_device_has".into(),
        "all_devices_have".into(),
    ]];
    for &id in aspects {
        rows.push([
            reg.name(id).to_string(),
            sets.any_device_has(id).to_string(),
            sets.all_devices_have(id).to_string(),
        ]);
    }
    format!(
        "-fsycl-targets={}\n{}",
        crate::proto::canonical_names(list).join(","),
        table_text(&rows)
    )
}

pub fn config_summary(cfg: &ConfigFile) -> String {
    let errors = cfg.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = cfg.diagnostics.len() - errors;
    match &cfg.entries {
        Some(e) => format!(
            "{}: {} target(s) apply, {errors} error(s), {warnings} warning(s)",
            cfg.file,
            e.len()
        ),
        None => format!(
            "{}: not usable, {errors} error(s), {warnings} warning(s)",
            cfg.file
        ),
    }
}
