//! `compile_commands.json` as the DPC++ driver reads it: the SYCL options of each entry
//! (targets, device-config files, per-file `-D`/`-I`/`-include`), and where the database is
//! found (upward from the checked paths, as clangd finds it).

use std::path::{Path, PathBuf};

use crate::workspace::{CompileEnv, FileFlags, MAX_FILE_BYTES};

/// The SYCL options a `compile_commands.json` gives, in order of first appearance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyclFlags {
    /// `-fsycl-targets=` values, split at commas.
    pub targets: Vec<String>,
    /// `-fsycl-device-config-file=` paths, made absolute against the entry's directory.
    pub device_configs: Vec<PathBuf>,
    /// What the driver would refuse (an unknown `--offload-arch`), once each.
    pub errors: Vec<crate::devices::driver::DriverError>,
    /// What the analysis reads in a weaker way than the build (an ocloc `-device` that names
    /// no device of the table), once each, with where the database names it.
    pub notes: Vec<(String, crate::text::TextRange)>,
    /// Entries the database cannot be read without (no `directory`, `file` or
    /// `command`/`arguments`), as clangd refuses them: the message and the entry's opening brace.
    pub entry_errors: Vec<(String, crate::text::TextRange)>,
    /// The database these flags come from.
    pub database: Option<PathBuf>,
    /// Some entry compiles device code unoptimised (`-O0`, `-fno-sycl-early-optimizations`):
    /// its images keep every double, so the target checks count them all.
    pub device_unoptimised: bool,
    /// Some entry passes `-fsycl-fp64-conv-emu`.
    pub fp64_conv_emu: bool,
    /// Some entry's compiler is a DPC++ release with typed pointers (its path names 2023 or
    /// older).
    pub typed_pointers: bool,
    /// The entries run AdaptiveCpp: their targets specifications, merged (the devices are in
    /// `targets` too).
    pub acpp: Option<crate::devices::acpp::AcppTargets>,
    /// Each file's macros and include directories.
    pub files: Vec<(PathBuf, FileFlags)>,
}

/// The compile environment of a workspace: the device compile of `targets` (the implicit
/// `spir64` when none is configured) and the per-file flags of `flags`.
pub fn compile_env(
    targets: Option<&[crate::devices::ResolvedTarget]>,
    table: &crate::devices::DeviceTable,
    flags: &SyclFlags,
) -> CompileEnv {
    match &flags.acpp {
        // AdaptiveCpp's passes, unless the targets were configured over the database's.
        Some(spec)
            if targets.is_some_and(|t| {
                t.iter()
                    .map(|t| t.canonical.as_str())
                    .eq(spec.table_targets().iter().map(String::as_str))
            }) =>
        {
            CompileEnv::new(
                crate::devices::acpp::device_compiles(spec),
                flags.files.clone(),
            )
        }
        _ => CompileEnv::for_targets(targets, table, flags.files.clone()),
    }
}

pub fn sycl_flags_from_compile_commands(text: &str) -> Result<SyclFlags, String> {
    use crate::devices::driver;
    use serde_json::value::RawValue;
    // Raw entries first, so that a malformed one is refused where it is written.
    let raw: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(raw) => raw,
        Err(_) => {
            return Err(match serde_json::from_str::<serde_json::Value>(text) {
                Ok(_) => "compile_commands.json must be a JSON array of entries".to_string(),
                Err(e) => format!("invalid compile_commands.json: {e}"),
            });
        }
    };
    let mut flags = SyclFlags::default();
    let mut entries = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let start = r.get().as_ptr() as usize - text.as_ptr() as usize;
        let at = crate::text::TextRange::new(start, start + 1);
        let value: serde_json::Value = serde_json::from_str(r.get()).map_err(|e| e.to_string())?;
        match entry_problem(&value) {
            None => entries.push(value),
            Some(problem) => flags.entry_errors.push((
                format!(
                    "entry {} of {} in compile_commands.json {problem}: clangd and the build \
                     tools refuse such an entry",
                    i + 1,
                    raw.len()
                ),
                at,
            )),
        }
    }
    // Targets a device-config file adds are passed through by name and checked later against
    // the whole table; `--offload-arch` spellings are read against the built-in one.
    let table = crate::devices::DeviceTable::builtin();
    // What an `acpp` command without `--acpp-targets` reads, as the build would.
    let acpp_env = crate::devices::acpp::env_spec(|n| std::env::var(n).ok());
    for e in &entries {
        let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
            (Some(serde_json::Value::Array(a)), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            (_, Some(serde_json::Value::String(c))) => driver::split_command(c),
            _ => continue,
        };
        let dir = PathBuf::from(e.get("directory").and_then(|d| d.as_str()).unwrap_or("."));
        let read = |p: &Path| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.len() <= MAX_FILE_BYTES)
                .and_then(|_| std::fs::read_to_string(p).ok())
        };
        let args = driver::expand_response_files(&args, &dir, &read);
        let f = driver::parse_with_env(&args, &dir, table, acpp_env.as_deref());
        if let Some(spec) = &f.acpp {
            merge_acpp(&mut flags.acpp, spec);
        }
        flags.device_unoptimised |= !f.device_optimised;
        flags.fp64_conv_emu |= f.fp64_conv_emu;
        flags.typed_pointers |= f.release.is_some_and(|r| r.typed_pointers());
        if let Some(file) = e.get("file").and_then(|f| f.as_str()) {
            flags.files.push((
                dir.join(file),
                FileFlags {
                    macros: f.macros.clone(),
                    // The driver's order: `-I`, then `-isystem`, then `-idirafter`.
                    include_dirs: f
                        .include_dirs
                        .iter()
                        .chain(&f.system_include_dirs)
                        .chain(&f.after_dirs)
                        .cloned()
                        .collect(),
                    quote_dirs: f.quote_dirs.clone(),
                    forced_includes: f.forced_includes.clone(),
                },
            ));
        }
        for t in f.targets {
            if !flags.targets.contains(&t) {
                flags.targets.push(t);
            }
        }
        for p in f.device_configs {
            if !flags.device_configs.contains(&p) {
                flags.device_configs.push(p);
            }
        }
        for err in f.errors {
            if !flags.errors.contains(&err) {
                flags.errors.push(err);
            }
        }
        for note in f.notes {
            if !flags.notes.iter().any(|(m, _)| *m == note.message) {
                let at = locate(text, &note.subject);
                flags.notes.push((note.message, at));
            }
        }
    }
    Ok(flags)
}

/// What a compile database entry lacks that clang's `JSONCompilationDatabase` requires: a
/// `directory`, a `file`, and a `command` string or an `arguments` list of strings.
fn entry_problem(entry: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let Some(object) = entry.as_object() else {
        return Some("is not an object".into());
    };
    let string = |key: &str| matches!(object.get(key), Some(Value::String(s)) if !s.is_empty());
    if !string("directory") {
        return Some("has no \"directory\" string".into());
    }
    if !string("file") {
        return Some("has no \"file\" string".into());
    }
    let arguments = match object.get("arguments") {
        Some(Value::Array(a)) => !a.is_empty() && a.iter().all(Value::is_string),
        _ => false,
    };
    if !arguments && !string("command") {
        return Some(
            "has neither a \"command\" string nor an \"arguments\" list of strings".into(),
        );
    }
    None
}

/// Where the database names `word` as a `-device` value (its first such place), else its start.
/// Entries that name different AdaptiveCpp specifications: one specification of them all.
fn merge_acpp(
    into: &mut Option<crate::devices::acpp::AcppTargets>,
    spec: &crate::devices::acpp::AcppTargets,
) {
    let Some(all) = into else {
        *into = Some(spec.clone());
        return;
    };
    if all.spec != spec.spec {
        all.spec = format!("{};{}", all.spec, spec.spec);
    }
    for f in &spec.flows {
        if !all.flows.contains(f) {
            all.flows.push(f.clone());
        }
    }
    for t in &spec.targets {
        if !all.targets.contains(t) {
            all.targets.push(t.clone());
        }
    }
}

fn locate(text: &str, word: &str) -> crate::text::TextRange {
    let after_device = text
        .match_indices("-device")
        .find_map(|(i, _)| text[i..].find(word).map(|j| i + j));
    let start = after_device.or_else(|| text.find(word));
    match start {
        Some(s) if !word.is_empty() => crate::text::TextRange::new(s, s + word.len()),
        _ => crate::text::TextRange::new(0, 0),
    }
}

/// Where a `compile_commands.json` is looked for under a directory: the directory itself, then
/// its `build*` subdirectories in name order.
pub fn compile_commands_candidates(dir: &Path) -> Vec<PathBuf> {
    let mut builds: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_dir()
                        && p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with("build"))
                })
                .map(|p| p.join("compile_commands.json"))
                .collect()
        })
        .unwrap_or_default();
    builds.sort();
    let mut all = vec![dir.join("compile_commands.json")];
    all.extend(builds);
    all.retain(|p| p.is_file());
    all
}

/// The databases that apply to `paths`, as clangd finds one: from each path (a file's
/// directory, or the directory itself) upward, the nearest directory holding a
/// `compile_commands.json` or a `build*/compile_commands.json`; that directory's candidates, in
/// the order of [`compile_commands_candidates`]. Paths are kept as given where they are below
/// the given path (messages name them as the user wrote them).
pub fn database_candidates(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let start = if path.is_dir() {
            path.clone()
        } else {
            match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        let upward = crate::workspace::absolute(&start);
        let levels =
            std::iter::once(start).chain(upward.ancestors().skip(1).map(Path::to_path_buf));
        for dir in levels {
            let found = compile_commands_candidates(&dir);
            if found.is_empty() {
                continue;
            }
            for c in found {
                if seen.insert(crate::workspace::absolute(&c)) {
                    out.push(c);
                }
            }
            break;
        }
    }
    out
}

/// The SYCL options of the first of `candidates` that names any; an unreadable or invalid
/// database is an error.
pub fn find_sycl_flags(candidates: &[PathBuf]) -> Result<Option<SyclFlags>, String> {
    for path in candidates {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let mut flags = sycl_flags_from_compile_commands(&text)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !flags.targets.is_empty()
            || !flags.device_configs.is_empty()
            || !flags.files.is_empty()
            || !flags.entry_errors.is_empty()
        {
            flags.database = Some(path.clone());
            return Ok(Some(flags));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_commands_targets_in_both_forms() {
        let db = r#"[{"directory": "/b", "file": "a.cpp", "command": "clang++ -fsycl -fsycl-targets=intel_gpu_pvc,spir64 -c a.cpp"},
                     {"directory": "/b", "file": "b.cpp", "arguments": ["clang++", "-fsycl-targets", "nvidia_gpu_sm_80,intel_gpu_pvc", "b.cpp"]},
                     {"directory": "/b", "file": "c.cpp", "command": "g++ -c c.cpp"}]"#;
        let flags = sycl_flags_from_compile_commands(db).unwrap();
        assert_eq!(
            flags.targets,
            ["intel_gpu_pvc", "spir64", "nvidia_gpu_sm_80"]
        );
        assert!(sycl_flags_from_compile_commands("{").is_err());
        assert!(sycl_flags_from_compile_commands("{}").is_err());
        let db = r#"[{"directory": "/b", "file": "a.cpp", "command": "icpx -fsycl-device-config-file=cfg/dev.yaml -c a.cpp"}]"#;
        let flags = sycl_flags_from_compile_commands(db).unwrap();
        assert_eq!(flags.device_configs, [PathBuf::from("/b/cfg/dev.yaml")]);
    }
}
