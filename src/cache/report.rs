//! The persisted report: the findings of the last `check` of a workspace, beside its index,
//! keyed by everything they were computed from (each file's path, content hash and
//! preprocessing fingerprint, the device compiles, the targets, the device table, the build).
//! A warm `check` of an unchanged workspace reads the findings instead of analysing again;
//! any change to any of those is a different key, and the analysis runs as before.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::analysis::{FunctionSummary, Report, Settings, Stats};
use crate::base::SourceFile;
use crate::devices::AspectSet;
use crate::diagnostics::{ChainStep, Code, Diagnostic, Severity};
use crate::syntax::Located;
use crate::text::{LineCol, TextRange};

/// The report file of the index at `index`.
pub fn report_path(index: &Path) -> PathBuf {
    index.with_extension("report")
}

/// What the analysis of `files` under `settings` depends on; `env_key` is the compile
/// environment's (`CompileEnv::key`), `hashes` the files' content hashes.
pub fn report_key(files: &[SourceFile], hashes: &[u64], settings: &Settings, env_key: u64) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    super::format_tag().hash(&mut h);
    env_key.hash(&mut h);
    format!("{:?}", settings.targets).hash(&mut h);
    format!("{:?}", settings.table).hash(&mut h);
    // Not all in the environment: `--dpcpp` is an option of the check, not a flag.
    settings.image.hash(&mut h);
    settings.units_elsewhere.hash(&mut h);
    settings.implementation.hash(&mut h);
    files.len().hash(&mut h);
    for (f, content) in files.iter().zip(hashes) {
        f.path.hash(&mut h);
        content.hash(&mut h);
        f.facts.preprocessor.env_key.hash(&mut h);
    }
    h.finish()
}

#[derive(Serialize, Deserialize)]
struct Step {
    function: Option<String>,
    use_: Option<String>,
    file: String,
    range: TextRange,
    pos: LineCol,
    message: String,
}

#[derive(Serialize, Deserialize)]
struct Finding {
    file: String,
    range: TextRange,
    pos: LineCol,
    severity: u8,
    code: String,
    message: String,
    suggestions: Vec<String>,
    function: Option<String>,
    aspect: Option<String>,
    chain: Vec<Step>,
    targets: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Summary {
    file: String,
    name_span: Located,
    name: String,
    kernel: bool,
    declared: Option<Vec<String>>,
    used: u128,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    key: u64,
    diagnostics: Vec<Finding>,
    stats: [usize; 5],
    summaries: Vec<Summary>,
}

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

fn finding(d: &Diagnostic) -> Finding {
    Finding {
        file: d.file.to_string(),
        range: d.range,
        pos: d.pos,
        severity: SEVERITIES
            .iter()
            .position(|s| *s == d.severity)
            .unwrap_or(0) as u8,
        code: d.code.as_str().to_string(),
        message: d.message.clone(),
        suggestions: d.suggestions.clone(),
        function: d.function.clone(),
        aspect: d.aspect.clone(),
        chain: d
            .chain
            .iter()
            .map(|s| Step {
                function: s.function.clone(),
                use_: s.use_.clone(),
                file: s.file.to_string(),
                range: s.range,
                pos: s.pos,
                message: s.message.clone(),
            })
            .collect(),
        targets: d.targets.clone(),
    }
}

fn diagnostic(f: Finding) -> Option<Diagnostic> {
    let code = *Code::ALL.iter().find(|c| c.as_str() == f.code)?;
    let mut d = Diagnostic::new(
        Arc::from(f.file),
        f.range,
        f.pos,
        *SEVERITIES.get(f.severity as usize)?,
        code,
        f.message,
    );
    d.suggestions = f.suggestions;
    d.function = f.function;
    d.aspect = f.aspect;
    d.chain = f
        .chain
        .into_iter()
        .map(|s| ChainStep {
            function: s.function,
            use_: s.use_,
            file: Arc::from(s.file),
            range: s.range,
            pos: s.pos,
            message: s.message,
        })
        .collect();
    d.targets = f.targets;
    Some(d)
}

/// The report saved under `key`, if the file holds one (a missing, corrupt or other-keyed file
/// is no report: the caller analyses).
pub fn load_report(path: &Path, key: u64) -> Option<Report> {
    let bytes = std::fs::read(path).ok()?;
    let stored: Stored = postcard::from_bytes(&bytes).ok()?;
    if stored.format != super::format_tag() || stored.key != key {
        return None;
    }
    let [files, functions, kernels, device_compiles, varying_files] = stored.stats;
    Some(Report {
        diagnostics: stored
            .diagnostics
            .into_iter()
            .map(diagnostic)
            .collect::<Option<_>>()?,
        stats: Stats {
            files,
            functions,
            kernels,
            device_compiles,
            varying_files,
        },
        summaries: stored
            .summaries
            .into_iter()
            .map(|s| FunctionSummary {
                file: Arc::from(s.file),
                name_span: s.name_span,
                name: s.name,
                kernel: s.kernel,
                declared: s.declared,
                used: AspectSet::from_bits(s.used),
            })
            .collect(),
        // Only reports of parts being merged need it; a stored one is a whole's.
        per_target: Vec::new(),
    })
}

/// Saves `report` under `key`, atomically (a temporary file, then a rename).
pub fn save_report(path: &Path, key: u64, report: &Report) -> std::io::Result<()> {
    let s = &report.stats;
    let stored = Stored {
        format: super::format_tag(),
        key,
        diagnostics: report.diagnostics.iter().map(finding).collect(),
        stats: [
            s.files,
            s.functions,
            s.kernels,
            s.device_compiles,
            s.varying_files,
        ],
        summaries: report
            .summaries
            .iter()
            .map(|f| Summary {
                file: f.file.to_string(),
                name_span: f.name_span,
                name: f.name.clone(),
                kernel: f.kernel,
                declared: f.declared.clone(),
                used: f.used.bits(),
            })
            .collect(),
    };
    let bytes = postcard::to_allocvec(&stored).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
