//! The IO edge of the analysis: finding C++ files under the given paths (honouring
//! `.gitignore`), reading them, and extracting their facts in parallel. Shared by `check` and
//! the servers; everything past this point is pure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::SourceFile;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::syntax::{self, CPP_EXTENSIONS};
use crate::text::{LineCol, TextRange};

/// Files larger than this are skipped with a notice: no real source is this big, and the
/// parser's memory grows with the file.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

pub fn is_cpp(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CPP_EXTENSIONS.contains(&e))
}

/// C++ files under `paths` (files given directly are taken whatever their extension), sorted.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for root in paths {
        let meta = std::fs::metadata(root)
            .map_err(|e| format!("cannot read '{}': {e}", root.display()))?;
        if meta.is_file() {
            files.push(root.clone());
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .require_git(false)
            .follow_links(false)
            .build();
        for entry in walker {
            let Ok(entry) = entry else { continue };
            if entry.file_type().is_some_and(|t| t.is_file()) && is_cpp(entry.path()) {
                files.push(entry.into_path());
            }
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

pub struct Loaded {
    pub files: Vec<SourceFile>,
    /// Sources of the files, for rendering snippets.
    pub texts: Vec<String>,
    pub notices: Vec<Diagnostic>,
}

fn notice(path: &Arc<str>, message: String) -> Box<Diagnostic> {
    Box::new(Diagnostic {
        file: path.clone(),
        range: TextRange::empty(0),
        pos: LineCol {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        },
        severity: Severity::Note,
        code: Code::FileSkipped,
        message,
        suggestions: Vec::new(),
        function: None,
        aspect: None,
        chain: Vec::new(),
    })
}

/// Reads and extracts every file in parallel. A file that cannot be used becomes a notice.
pub fn load(paths: &[PathBuf], progress: impl Fn() + Sync) -> Loaded {
    let results: Vec<Result<(SourceFile, String), Box<Diagnostic>>> = paths
        .par_iter()
        .map(|p| {
            let name: Arc<str> = Arc::from(p.display().to_string());
            let out = match read_source(p) {
                Ok(text) => {
                    let facts = syntax::extract(&text);
                    Ok((SourceFile { path: name, facts }, text))
                }
                Err(why) => Err(notice(&name, why)),
            };
            progress();
            out
        })
        .collect();
    let mut loaded = Loaded {
        files: Vec::new(),
        texts: Vec::new(),
        notices: Vec::new(),
    };
    for r in results {
        match r {
            Ok((f, t)) => {
                loaded.files.push(f);
                loaded.texts.push(t);
            }
            Err(n) => loaded.notices.push(*n),
        }
    }
    loaded
}

/// The text of a source file, or why it is skipped.
fn read_source(path: &Path) -> Result<String, String> {
    let unreadable = |e: std::io::Error| format!("skipped: cannot read it: {e}");
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "skipped: {} MB is over the {} MB limit for a source file",
            meta.len() >> 20,
            MAX_FILE_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err("skipped: binary file".into());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        // Legacy encodings: the code is still ASCII; only comments or strings are garbled.
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// `-fsycl-targets` values named in a `compile_commands.json`, in order of first appearance.
pub fn targets_from_compile_commands(text: &str) -> Result<Vec<String>, String> {
    let db: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("invalid compile_commands.json: {e}"))?;
    let entries = db
        .as_array()
        .ok_or("compile_commands.json must be a JSON array")?;
    let mut targets: Vec<String> = Vec::new();
    for e in entries {
        let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
            (Some(serde_json::Value::Array(a)), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            (_, Some(serde_json::Value::String(c))) => {
                c.split_whitespace().map(String::from).collect()
            }
            _ => continue,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let value = if let Some(v) = a.strip_prefix("-fsycl-targets=") {
                Some(v.to_string())
            } else if a == "-fsycl-targets" {
                it.next().cloned()
            } else {
                None
            };
            for t in value
                .iter()
                .flat_map(|v| v.trim_matches(['"', '\'']).split(','))
            {
                if !t.is_empty() && !targets.iter().any(|x| x == t) {
                    targets.push(t.to_string());
                }
            }
        }
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_commands_targets_in_both_forms() {
        let db = r#"[{"directory": "/b", "file": "a.cpp", "command": "clang++ -fsycl -fsycl-targets=intel_gpu_pvc,spir64 -c a.cpp"},
                     {"directory": "/b", "file": "b.cpp", "arguments": ["clang++", "-fsycl-targets", "nvidia_gpu_sm_80,intel_gpu_pvc", "b.cpp"]},
                     {"directory": "/b", "file": "c.cpp", "command": "g++ -c c.cpp"}]"#;
        assert_eq!(
            targets_from_compile_commands(db).unwrap(),
            ["intel_gpu_pvc", "spir64", "nvidia_gpu_sm_80"]
        );
        assert!(targets_from_compile_commands("{").is_err());
        assert!(targets_from_compile_commands("{}").is_err());
    }
}
