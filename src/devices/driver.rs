//! A compile command read as the DPC++ driver reads it: the SYCL targets it compiles device code
//! for (`-fsycl-targets=`, `--offload-arch=`, `-Xsycl-target-backend` options) and the
//! preprocessor options (`-D`, `-U`, `-I`, `-iquote`, `-isystem`, `-idirafter`, `-include`,
//! `-std=`). Pure: arguments in,
//! flags and the driver's errors out; response files are read through the caller's function.
//!
//! Facts: `../shared/reference/targets.md` §1 and §1d (intel/llvm `clang/lib/Basic/SYCL.cpp`,
//! `OffloadArch.cpp` and the driver tests `sycl-offload-arch-*.cpp`, `sycl-oneapi-gpu-*.cpp`).

use std::path::{Path, PathBuf};

use super::acpp::{self, AcppTargets};
use super::targets::{ocloc_device, resolve_unsuggested, DEVICE_BOUND_PREFIX};
use super::{resolve, DeviceTable, TargetKind};

/// What one compile command says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileFlags {
    /// The targets, as canonical names of the device table (or the generic triples), in order.
    pub targets: Vec<String>,
    /// `-fsycl-device-config-file=` paths, made absolute against the command's directory.
    pub device_configs: Vec<PathBuf>,
    /// `-D` and `-U` in order: `(name, Some(value))` defines (`-DX` is `X=1`), `(name, None)`
    /// undefines.
    pub macros: Vec<(String, Option<String>)>,
    /// `-I` and `--include-directory`, in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-iquote`: searched for `#include "..."` only, before `-I`.
    pub quote_dirs: Vec<PathBuf>,
    pub system_include_dirs: Vec<PathBuf>,
    /// `-idirafter` (`--include-directory-after`): searched after the system directories.
    pub after_dirs: Vec<PathBuf>,
    pub forced_includes: Vec<PathBuf>,
    /// `-std=` as given (`c++17`).
    pub std: Option<String>,
    /// The driver's errors for what it would refuse, with did-you-mean candidates.
    pub errors: Vec<DriverError>,
    /// What the command names that the analysis reads in a weaker way than the build (an
    /// ocloc `-device` that names no device of the table): told, never a refusal.
    pub notes: Vec<DriverNote>,
    /// Device code is optimised before its aspects are recorded: the driver's default (-O2
    /// for the device), off with `-O0` (`/Od`), `-fno-sycl-early-optimizations` or
    /// `-fintelfpga` (DPC++'s `clang/test/Driver/sycl-device-optimizations.cpp`).
    pub device_optimised: bool,
    /// `-fsycl-fp64-conv-emu`: the driver passes it to the device compile of AOT Intel GPU
    /// targets only (and ignores it, with a warning, for the others).
    pub fp64_conv_emu: bool,
    /// The DPC++ release the compiler's path names (`.../compiler/2023.2.1/linux/bin/icpx`).
    pub release: Option<super::DpcppRelease>,
    /// The command runs AdaptiveCpp (`acpp --acpp-targets=...`): its specification read, whose
    /// devices are `targets` and whose passes predefine other macros than DPC++'s.
    pub acpp: Option<AcppTargets>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DriverNote {
    pub message: String,
    /// The word of the command the note is about (the `-device` name), to locate it.
    pub subject: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverError {
    pub message: String,
    pub suggestions: Vec<String>,
}

/// Intel CPU names `--offload-arch` accepts: device code for `spir64_x86_64`.
const INTEL_CPUS: [&str; 17] = [
    "skylake-avx512",
    "core-avx2",
    "corei7-avx",
    "corei7",
    "westmere",
    "sandybridge",
    "ivybridge",
    "broadwell",
    "coffeelake",
    "alderlake",
    "skylake",
    "skx",
    "cascadelake",
    "icelake-client",
    "icelake-server",
    "sapphirerapids",
    "graniterapids",
];

/// A shell-quoted `command` of `compile_commands.json`, split as a POSIX shell would.
pub fn split_command(command: &str) -> Vec<String> {
    shlex::split(command).unwrap_or_else(|| command.split_whitespace().map(String::from).collect())
}

/// Replaces `@file` arguments by the arguments the file holds (shell-quoted, nested up to a
/// depth); a file `read` cannot give stays as it was, as the driver would then fail on it.
pub fn expand_response_files(
    args: &[String],
    dir: &Path,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Vec<String> {
    fn go(
        args: &[String],
        dir: &Path,
        read: &dyn Fn(&Path) -> Option<String>,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        for a in args {
            match a.strip_prefix('@').filter(|_| depth < 8) {
                Some(file) => match read(&dir.join(file)) {
                    Some(text) => go(&split_command(&text), dir, read, depth + 1, out),
                    None => out.push(a.clone()),
                },
                None => out.push(a.clone()),
            }
        }
    }
    let mut out = Vec::new();
    go(args, dir, read, 0, &mut out);
    out
}

/// The generic target a partial or full triple stands for (`nvptx64` → `nvptx64-nvidia-cuda`),
/// as `--targets` resolves it too.
fn generic(target: &str) -> Option<String> {
    resolve_unsuggested(target, DeviceTable::builtin())
        .ok()
        .filter(|t| t.kind == TargetKind::Generic && !t.canonical.contains(':'))
        .map(|t| t.canonical)
}

/// The target an `--offload-arch` value names, as a device-table name.
fn offload_arch(arch: &str, table: &DeviceTable) -> Result<String, DriverError> {
    if arch.is_empty() {
        return Err(DriverError {
            message: "must pass in an explicit cpu or gpu architecture to '--offload-arch'".into(),
            suggestions: Vec::new(),
        });
    }
    if INTEL_CPUS.contains(&arch) {
        return Ok("spir64_x86_64".into());
    }
    let name = if arch.starts_with("sm_") {
        format!("nvidia_gpu_{arch}")
    } else if arch.starts_with("gfx") && !arch.ends_with("-generic") {
        format!("amd_gpu_{arch}")
    } else {
        format!("intel_gpu_{arch}")
    };
    match resolve(&name, table) {
        Ok(t) => Ok(t.canonical),
        Err(e) => Err(DriverError {
            message: format!("SYCL target is invalid: '{arch}'"),
            suggestions: e
                .suggestions
                .iter()
                .filter_map(|s| {
                    ["intel_gpu_", "nvidia_gpu_", "amd_gpu_"]
                        .iter()
                        .find_map(|p| s.strip_prefix(p))
                        .map(String::from)
                })
                .collect(),
        }),
    }
}

/// A device named in a backend option string, for the generic target it binds.
#[derive(Debug)]
enum Bound {
    /// `-device NAME` (ocloc): binds `spir64_gen`.
    Device(String),
    /// `--offload-arch=` / `--cuda-gpu-arch=`: binds `nvptx64-nvidia-cuda` or `amdgcn-amd-amdhsa`.
    Arch(String),
}

/// The devices the backend options of one toolchain name. The driver hands every
/// `-Xsycl-target-backend` string of a toolchain to its backend one after the other, each split
/// as a shell would (`SYCLToolChain::TranslateTargetOpt`), so `-Xs -device -Xs pvc` is
/// `-device pvc`.
fn backend_options(words: &[String]) -> Vec<Bound> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let after_eq = |flag: &str| -> Option<String> {
            w.strip_prefix(flag)
                .and_then(|r| r.strip_prefix('='))
                .map(String::from)
        };
        if w == "-device" {
            if let Some(d) = it.next() {
                out.push(Bound::Device(d.clone()));
            }
        } else if let Some(a) = after_eq("--offload-arch").or_else(|| after_eq("--cuda-gpu-arch")) {
            out.push(Bound::Arch(a));
        } else if w == "--offload-arch" || w == "--cuda-gpu-arch" {
            out.extend(it.next().map(|a| Bound::Arch(a.clone())));
        }
    }
    out
}

/// The targets an ocloc `-device` value binds `spir64_gen` to: each device of a comma list the
/// tables know (`spir64_gen:acm_g10`), and the generic `spir64_gen` itself, with a note, for
/// what they do not (a release or family name, a PCI id, a range, an unknown device): the
/// driver does not read the value, it hands it to ocloc, so nothing is refused here.
fn ocloc_targets(value: &str, targets: &mut Vec<String>, notes: &mut Vec<DriverNote>) {
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match ocloc_device(name) {
            Some(device) => {
                let short = device.strip_prefix("intel_gpu_").unwrap_or(device);
                targets.push(format!("{DEVICE_BOUND_PREFIX}{short}"));
            }
            None => {
                targets.push("spir64_gen".to_string());
                notes.push(DriverNote {
                    message: format!(
                        "ocloc device '{name}' (-device) names no device of the device table: \
                         kernels are checked for the generic spir64_gen target there"
                    ),
                    subject: name.to_string(),
                });
            }
        }
    }
}

/// An option's value: joined (`-DX`, `-I/p`), after `=`, or the next argument.
fn value<'a>(a: &str, flag: &str, it: &mut impl Iterator<Item = &'a String>) -> Option<String> {
    let rest = a.strip_prefix(flag)?;
    if rest.is_empty() {
        it.next().cloned()
    } else {
        Some(rest.strip_prefix('=').unwrap_or(rest).to_string())
    }
}

/// Reads a compile command's arguments (the compiler first, as in `compile_commands.json`).
pub fn parse(args: &[String], dir: &Path, table: &DeviceTable) -> CompileFlags {
    parse_with_env(args, dir, table, None)
}

/// [`parse`], with the `ACPP_TARGETS` value of the environment the command runs in (the caller
/// reads it: [`acpp::env_spec`]), used when an `acpp` command names no `--acpp-targets`.
pub fn parse_with_env(
    args: &[String],
    dir: &Path,
    table: &DeviceTable,
    acpp_env: Option<&str>,
) -> CompileFlags {
    let mut f = parse_dpcpp(args, dir, table);
    if !acpp::is_acpp(args) {
        return f;
    }
    // AdaptiveCpp's default flow is `generic` in a typical installation
    // (`doc/using-hipsycl.md`); an installation's own default is not visible here.
    let spec = acpp::spec_of(args, acpp_env).unwrap_or_else(|| "generic".to_string());
    match acpp::parse_spec(&spec, table) {
        Ok(t) => {
            for name in t.table_targets() {
                if !f.targets.contains(&name) {
                    f.targets.push(name);
                }
            }
            f.acpp = Some(t);
        }
        Err(errors) => f.errors.extend(errors.into_iter().map(|e| DriverError {
            message: e.message,
            suggestions: e.suggestions,
        })),
    }
    f
}

fn parse_dpcpp(args: &[String], dir: &Path, table: &DeviceTable) -> CompileFlags {
    let mut f = CompileFlags {
        release: args
            .first()
            .and_then(|c| super::DpcppRelease::of_compiler(c)),
        ..CompileFlags::default()
    };
    // The last of each kind wins, as for any clang option.
    let mut opt_level: Option<bool> = None;
    let mut early: Option<bool> = None;
    let mut fpga = false;
    let mut targets: Vec<String> = Vec::new();
    let mut arches: Vec<String> = Vec::new();
    // (triple given with `=`, option string)
    let mut backend: Vec<(Option<String>, String)> = Vec::new();
    let mut empty_targets = false;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.as_str();
        if let Some(level) = a.strip_prefix("-O") {
            opt_level = Some(level != "0");
        } else if matches!(a, "/Od" | "/O1" | "/O2" | "/Ox") {
            opt_level = Some(a != "/Od");
        } else if a == "-fsycl-early-optimizations" || a == "-fno-sycl-early-optimizations" {
            early = Some(a == "-fsycl-early-optimizations");
        } else if a == "-fintelfpga" {
            fpga = true;
        } else if a == "-fsycl-fp64-conv-emu" {
            f.fp64_conv_emu = true;
        } else if let Some(v) = a.strip_prefix("-fsycl-targets=") {
            empty_targets |= v.split(',').all(|t| t.trim().is_empty());
            targets.extend(v.split(',').filter(|t| !t.is_empty()).map(String::from));
        } else if a == "-fsycl-targets" {
            if let Some(v) = it.next() {
                empty_targets |= v.split(',').all(|t| t.trim().is_empty());
                targets.extend(v.split(',').filter(|t| !t.is_empty()).map(String::from));
            }
        } else if let Some(v) = a.strip_prefix("--offload-arch=") {
            if v.is_empty() {
                arches.push(String::new());
            }
            arches.extend(v.split(',').filter(|t| !t.is_empty()).map(String::from));
        } else if let Some(triple) = a.strip_prefix("-Xsycl-target-backend=") {
            if let Some(opts) = it.next() {
                backend.push((Some(triple.to_string()), opts.clone()));
            }
        } else if a == "-Xsycl-target-backend" || a == "-Xs" {
            if let Some(opts) = it.next() {
                backend.push((None, opts.clone()));
            }
        } else if let Some(v) = a.strip_prefix("-fsycl-device-config-file=") {
            let p = dir.join(v);
            if !f.device_configs.contains(&p) {
                f.device_configs.push(p);
            }
        } else if let Some(v) = a.strip_prefix("-std=") {
            f.std = Some(v.to_string());
        } else if a.starts_with("-iquote") {
            if let Some(v) = value(a, "-iquote", &mut it) {
                f.quote_dirs.push(dir.join(v));
            }
        } else if a.starts_with("-idirafter") {
            if let Some(v) = value(a, "-idirafter", &mut it) {
                f.after_dirs.push(dir.join(v));
            }
        } else if a.starts_with("--include-directory-after") {
            if let Some(v) = value(a, "--include-directory-after", &mut it) {
                f.after_dirs.push(dir.join(v));
            }
        } else if a.starts_with("--include-directory") {
            if let Some(v) = value(a, "--include-directory", &mut it) {
                f.include_dirs.push(dir.join(v));
            }
        } else if a.starts_with("-isystem") {
            if let Some(v) = value(a, "-isystem", &mut it) {
                f.system_include_dirs.push(dir.join(v));
            }
        } else if a.starts_with("-include") && !a.starts_with("-include-pch") {
            if let Some(v) = value(a, "-include", &mut it) {
                f.forced_includes.push(dir.join(v));
            }
        } else if a.starts_with("-I") {
            if let Some(v) = value(a, "-I", &mut it) {
                f.include_dirs.push(dir.join(v));
            }
        } else if a.starts_with("-D") {
            if let Some(v) = value(a, "-D", &mut it) {
                let (name, value) = match v.split_once('=') {
                    Some((n, val)) => (n.to_string(), val.to_string()),
                    None => (v.clone(), "1".to_string()),
                };
                f.macros.push((name, Some(value)));
            }
        } else if a.starts_with("-U") {
            if let Some(v) = value(a, "-U", &mut it) {
                f.macros.push((v, None));
            }
        }
    }
    f.device_optimised = opt_level.unwrap_or(true) && early.unwrap_or(!fpga);
    if empty_targets {
        // clang's wording for an empty joined value; DPC++ then builds no device code at all,
        // so the analysis would answer for targets nobody compiles for.
        f.errors.push(DriverError {
            message: "joined argument expects additional value: '-fsycl-targets='".into(),
            suggestions: Vec::new(),
        });
    }
    for arch in &arches {
        match offload_arch(arch, table) {
            Ok(t) => targets.push(t),
            Err(e) => f.errors.push(e),
        }
    }
    // Backend options bind a device to a generic target; a triple-less option applies to every
    // target (the driver refuses it with several, which is not modelled here).
    let mut groups: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for (triple, opts) in backend {
        let key = triple
            .as_deref()
            .map(|t| generic(t).unwrap_or_else(|| t.to_string()));
        let words = split_command(&opts);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, w)) => w.extend(words),
            None => groups.push((key, words)),
        }
    }
    let mut bound: Vec<(&'static str, String)> = Vec::new();
    for (key, words) in &groups {
        for b in backend_options(words) {
            let family = match &b {
                Bound::Device(_) => "spir64_gen",
                Bound::Arch(a) if a.starts_with("sm_") => "nvptx64-nvidia-cuda",
                Bound::Arch(_) => "amdgcn-amd-amdhsa",
            };
            if key.as_deref().is_some_and(|k| k != family) {
                continue;
            }
            match &b {
                Bound::Device(d) => {
                    let mut ts = Vec::new();
                    ocloc_targets(d, &mut ts, &mut f.notes);
                    bound.extend(ts.into_iter().map(|t| (family, t)));
                }
                Bound::Arch(a) => {
                    let name = if family == "nvptx64-nvidia-cuda" {
                        format!("nvidia_gpu_{a}")
                    } else {
                        format!("amd_gpu_{a}")
                    };
                    match resolve(&name, table) {
                        Ok(t) => bound.push((family, t.canonical)),
                        Err(e) => f.errors.push(DriverError {
                            message: format!("SYCL target is invalid: '{name}'"),
                            suggestions: e.suggestions,
                        }),
                    }
                }
            }
        }
    }
    for t in targets {
        let family = generic(&t);
        let resolved: Vec<String> = match family {
            Some(family) if bound.iter().any(|(f, _)| *f == family) => bound
                .iter()
                .filter(|(f, _)| *f == family)
                .map(|(_, n)| n.clone())
                .collect(),
            Some(family) => vec![family],
            None => vec![t],
        };
        for r in resolved {
            if !f.targets.contains(&r) {
                f.targets.push(r);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    f.notes.retain(|n| seen.insert(n.clone()));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(cmd: &str) -> CompileFlags {
        parse(&split_command(cmd), Path::new("/b"), DeviceTable::builtin())
    }

    #[test]
    fn every_way_of_naming_targets() {
        let t = |cmd: &str| flags(cmd).targets;
        assert_eq!(
            t("clang++ -fsycl -fsycl-targets=intel_gpu_pvc,spir64 a.cpp"),
            ["intel_gpu_pvc", "spir64"]
        );
        assert_eq!(
            t("clang++ -fsycl --offload-arch=pvc a.cpp"),
            ["intel_gpu_pvc"]
        );
        assert_eq!(
            t("icpx -fsycl --offload-arch=bmg_g21,sm_80 a.cpp"),
            ["intel_gpu_bmg_g21", "nvidia_gpu_sm_80"]
        );
        assert_eq!(
            t("clang++ -fsycl --offload-arch=gfx90a a.cpp"),
            ["amd_gpu_gfx90a"]
        );
        assert_eq!(
            t("clang++ -fsycl --offload-arch=sapphirerapids a.cpp"),
            ["spir64_x86_64"]
        );
        assert_eq!(
            t("clang++ -fsycl --offload-arch=tgl a.cpp"),
            ["intel_gpu_tgllp"],
            "an alias"
        );
        assert_eq!(
            t(
                r#"clang++ -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend "-device dg1" a.cpp"#
            ),
            ["spir64_gen:dg1"]
        );
        assert_eq!(
            t(
                r#"clang++ -fsycl -fsycl-targets=spir64_gen -Xs "-device pvc -options -ze-opt" a.cpp"#
            ),
            ["spir64_gen:pvc"]
        );
        assert_eq!(
            t("clang++ -fsycl -fsycl-targets=nvptx64-nvidia-cuda -Xsycl-target-backend=nvptx64-nvidia-cuda --offload-arch=sm_80 a.cpp"),
            ["nvidia_gpu_sm_80"]
        );
        assert_eq!(
            t("clang++ -fsycl -fsycl-targets=amdgcn-amd-amdhsa -Xsycl-target-backend --offload-arch=gfx906 a.cpp"),
            ["amd_gpu_gfx906"]
        );
        assert_eq!(
            t("clang++ -fsycl -fsycl-targets=nvptx64 a.cpp"),
            ["nvptx64-nvidia-cuda"],
            "partial triple"
        );
        assert_eq!(
            t("clang++ -fsycl -fsycl-targets=spir64_gen-unknown-unknown a.cpp"),
            ["spir64_gen"]
        );
        // A backend option for another triple binds nothing here.
        assert_eq!(
            t(
                r#"clang++ -fsycl -fsycl-targets=spir64_gen,nvptx64 -Xsycl-target-backend=nvptx64-nvidia-cuda --offload-arch=sm_70 a.cpp"#
            ),
            ["spir64_gen", "nvidia_gpu_sm_70"]
        );
    }

    /// Every name ocloc takes for a device of the tables binds it, whatever the spelling;
    /// what names none keeps the generic target with a note, never an error (the driver hands
    /// `-device` to ocloc unread: `SYCLToolChain::TranslateTargetOpt`, SYCL.cpp).
    #[test]
    fn ocloc_device_names_in_every_spelling() {
        let with = |device: &str| {
            flags(&format!(
                r#"icpx -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend "-device {device}" a.cpp"#
            ))
        };
        for spelling in [
            "acm-g10", "acm_g10", "ACM-G10", "acmg10", "dg2-g10", "dg2_g10", "12.55.8",
        ] {
            let f = with(spelling);
            assert_eq!(f.targets, ["spir64_gen:acm_g10"], "{spelling}");
            assert!(
                f.errors.is_empty() && f.notes.is_empty(),
                "{spelling}: {f:?}"
            );
        }
        assert_eq!(with("dg2").targets, ["spir64_gen:dg2"]);
        assert_eq!(with("tgl").targets, ["spir64_gen:tgllp"]);
        assert_eq!(
            with("mtl_p").targets,
            ["spir64_gen:mtl_h"],
            "the driver's own name"
        );
        assert_eq!(with("pvc_xt_c0_vg").targets, ["spir64_gen:pvc_vg"]);
        assert_eq!(
            with("dg1,pvc").targets,
            ["spir64_gen:dg1", "spir64_gen:pvc"]
        );
        for unknown in ["xe-hpg", "gen12lp", "0x56a0", "dg1:pvc", "12.55", "acm-g13"] {
            let f = with(unknown);
            assert_eq!(f.targets, ["spir64_gen"], "{unknown}");
            assert!(f.errors.is_empty(), "{unknown}: {:?}", f.errors);
            assert_eq!(f.notes.len(), 1, "{unknown}");
            assert_eq!(f.notes[0].subject, unknown);
        }
        let f = with("dg1,xe-hpg");
        assert_eq!(f.targets, ["spir64_gen:dg1", "spir64_gen"]);
        assert_eq!(f.notes.len(), 1);
        // The forms of the option: `=TRIPLE` (a full triple too), `-Xs`, and the words of one
        // option string spread over several.
        for cmd in [
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend=spir64_gen "-device acm-g10" a.cpp"#,
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend=spir64_gen-unknown-unknown "-device acm-g10" a.cpp"#,
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xs "-device acm-g10" a.cpp"#,
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xs -device -Xs acm-g10 a.cpp"#,
        ] {
            assert_eq!(flags(cmd).targets, ["spir64_gen:acm_g10"], "{cmd}");
        }
        // An option for another toolchain binds nothing here (CHECK_TOOLS_BEOPTS: options
        // for `intel_gpu_dg1` go to the dg1 toolchain only).
        assert_eq!(
            flags(r#"icpx -fsycl -fsycl-targets=intel_gpu_dg1,spir64_gen -Xsycl-target-backend=intel_gpu_dg1 "-device skl" a.cpp"#).targets,
            ["intel_gpu_dg1", "spir64_gen"]
        );
        // CHECK_TOOLS_MIX: `intel_gpu_dg1` and a `spir64_gen` for skl are two compiles.
        assert_eq!(
            flags(r#"icpx -fsycl -fsycl-targets=intel_gpu_dg1,spir64_gen -Xsycl-target-backend=spir64_gen "-device skl" a.cpp"#).targets,
            ["intel_gpu_dg1", "spir64_gen:skl"]
        );
    }

    #[test]
    fn driver_errors_with_did_you_mean() {
        let f = flags("clang++ -fsycl --offload-arch=pvcc a.cpp");
        assert!(f.targets.is_empty());
        assert_eq!(f.errors[0].message, "SYCL target is invalid: 'pvcc'");
        assert!(
            f.errors[0].suggestions.contains(&"pvc".to_string()),
            "{:?}",
            f.errors
        );
        let f = flags("clang++ -fsycl --offload-arch= a.cpp");
        assert_eq!(
            f.errors[0].message,
            "must pass in an explicit cpu or gpu architecture to '--offload-arch'"
        );
        let f = flags("clang++ -fsycl --offload-arch=gfx9-generic a.cpp");
        assert_eq!(f.errors.len(), 1, "generic AMD archs are refused");
        for line in [
            "clang++ -fsycl -fsycl-targets= a.cpp",
            "clang++ -fsycl -fsycl-targets , a.cpp",
        ] {
            let f = flags(line);
            assert_eq!(
                f.errors[0].message, "joined argument expects additional value: '-fsycl-targets='",
                "{line}"
            );
        }
        assert!(flags("clang++ -fsycl -fsycl-targets=spir64 a.cpp")
            .errors
            .is_empty());
    }

    #[test]
    fn preprocessor_options_in_every_spelling() {
        let f = flags(
            r#"clang++ -DUSE_DOUBLE -D VALUE_TYPE=double '-DNAME="a b"' -UNDEBUG -Iinc -I /abs -isystem sys -iquote q -idirafter late --include-directory=more --include-directory again -include pre.h -std=c++17 -c a.cpp"#,
        );
        assert_eq!(
            f.macros,
            [
                ("USE_DOUBLE".to_string(), Some("1".to_string())),
                ("VALUE_TYPE".to_string(), Some("double".to_string())),
                ("NAME".to_string(), Some("\"a b\"".to_string())),
                ("NDEBUG".to_string(), None),
            ]
        );
        assert_eq!(
            f.include_dirs,
            ["/b/inc", "/abs", "/b/more", "/b/again"].map(PathBuf::from)
        );
        assert_eq!(f.system_include_dirs, [PathBuf::from("/b/sys")]);
        assert_eq!(f.quote_dirs, [PathBuf::from("/b/q")]);
        assert_eq!(f.after_dirs, [PathBuf::from("/b/late")]);
        assert_eq!(f.forced_includes, [PathBuf::from("/b/pre.h")]);
        assert_eq!(f.std.as_deref(), Some("c++17"));
    }

    #[test]
    fn adaptivecpp_commands_name_their_devices() {
        let f = flags(
            r#"acpp --acpp-targets="omp;cuda:sm_80;hip:gfx90a;generic" -DN=4 -Iinc -c a.cpp"#,
        );
        assert_eq!(
            f.targets,
            ["x86_64", "nvidia_gpu_sm_80", "amd_gpu_gfx90a", "spir64"]
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert_eq!(f.acpp.as_ref().unwrap().flows.len(), 4);
        assert_eq!(f.macros, [("N".to_string(), Some("4".to_string()))]);
        assert_eq!(f.include_dirs, [PathBuf::from("/b/inc")]);
        // CMake's launch rule: the launcher, its options, then the real compiler's command.
        let f = flags(
            r#"/opt/acpp/lib/cmake/AdaptiveCpp/syclcc-launcher --launcher-cxx-compiler=/usr/bin/clang++ --launcher-syclcc=/opt/acpp/bin/acpp --acpp-targets="cuda:sm_70" /usr/bin/clang++ -c a.cpp"#,
        );
        assert_eq!(f.targets, ["nvidia_gpu_sm_70"]);
        let f = flags("syclcc --hipsycl-targets=hip:gfx906 -c a.cpp");
        assert_eq!(f.targets, ["amd_gpu_gfx906"]);
        // The environment when the command names none; `generic` when neither does.
        let args = split_command("acpp -c a.cpp");
        let f = parse_with_env(&args, Path::new("/b"), DeviceTable::builtin(), Some("omp"));
        assert_eq!(f.targets, ["x86_64"]);
        assert_eq!(flags("acpp -c a.cpp").targets, ["spir64"]);
        let f = flags("acpp --acpp-targets=cdua:sm_80 -c a.cpp");
        assert!(f.targets.is_empty());
        assert!(f.errors[0].suggestions.contains(&"cuda".to_string()));
        // A DPC++ command is read as before.
        assert_eq!(
            flags("clang++ -fsycl -fsycl-targets=spir64 a.cpp").acpp,
            None
        );
    }

    #[test]
    fn response_files_nest_and_missing_ones_stay() {
        let read = |p: &Path| match p.to_str()? {
            "/b/r1" => Some("-fsycl --offload-arch=pvc @r2".to_string()),
            "/b/r2" => Some("'-DX=1 2'".to_string()),
            _ => None,
        };
        let args: Vec<String> = ["clang++", "@r1", "@missing"].map(String::from).to_vec();
        let all = expand_response_files(&args, Path::new("/b"), &read);
        assert_eq!(
            all,
            [
                "clang++",
                "-fsycl",
                "--offload-arch=pvc",
                "-DX=1 2",
                "@missing"
            ]
        );
    }
}
