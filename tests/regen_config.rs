//! config/regen-from-dpcpp.py, the one command that follows a DPC++ release: from an
//! intel/llvm-shaped tree it must give back config/ exactly when the tree says what config/ says,
//! and change exactly what changed upstream. The trees are written here from config/ itself,
//! in the TableGen and C++ shapes of DPC++'s files (classes with defaults and a parent,
//! `defvar`, `!listconcat`, `!listremove`, `#`, `assert`, `StringSwitch` cases).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn config(name: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join("config").join(name)).unwrap()
}

fn list(text: &str) -> Vec<String> {
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    inner
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

struct Target {
    name: String,
    aspects: Vec<String>,
    may: bool,
    sg: Vec<String>,
}

fn targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for line in config("default-device-config.yaml").lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_suffix(':') {
            out.push(Target {
                name: name.to_string(),
                aspects: vec![],
                may: false,
                sg: vec![],
            });
        } else if let Some(v) = line.trim().strip_prefix("aspects:") {
            out.last_mut().unwrap().aspects = list(v);
        } else if let Some(v) = line.trim().strip_prefix("may_support_other_aspects:") {
            out.last_mut().unwrap().may = v.trim() == "true";
        } else if let Some(v) = line.trim().strip_prefix("sub-group-sizes:") {
            out.last_mut().unwrap().sg = list(v);
        }
    }
    out
}

/// (name, value, deprecation message) of config/aspects.yaml.
fn aspects() -> Vec<(String, String, Option<String>)> {
    let field = |line: &str, key: &str| -> Option<String> {
        let rest = &line[line.find(key)? + key.len()..];
        if let Some(quoted) = rest.strip_prefix('"') {
            return Some(quoted[..quoted.find("\", ").unwrap()].to_string());
        }
        Some(rest[..rest.find(',').unwrap()].to_string())
    };
    config("aspects.yaml")
        .lines()
        .filter(|l| l.trim_start().starts_with("- {name: "))
        .map(|l| {
            (
                field(l, "name: ").unwrap(),
                field(l, "value: ").unwrap(),
                field(l, "message: "),
            )
        })
        .collect()
}

/// (canonical, aliases) of every device-specific driver name, in config/targets.yaml's order.
fn driver_names() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let text = config("targets.yaml");
    let mut in_intel = false;
    for line in text.lines() {
        if line.starts_with("intel_gpu:") {
            in_intel = true;
        } else if in_intel && line.starts_with("  ") {
            let (name, aliases) = line.trim().split_once(':').unwrap();
            out.push((name.to_string(), list(aliases)));
        } else {
            in_intel = false;
            for family in ["nvidia_gpu:", "amd_gpu:"] {
                if let Some(names) = line.strip_prefix(family) {
                    out.extend(list(names).into_iter().map(|n| (n, vec![])));
                }
            }
        }
    }
    out
}

fn aspect_def(name: &str) -> String {
    format!("Aspect_{name}")
}

/// DeviceConfigFile.td saying what config/default-device-config.yaml says.
fn device_config_td(targets: &[Target]) -> String {
    let mut td = String::from(
        "// A fixture in the shape of DPC++'s DeviceConfigFile.td.\n\
         include \"llvm/TableGen/DynamicTable.td\"\n\n\
         class Aspect<string name> {\n    string Name = name;\n}\n",
    );
    for (name, _, _) in aspects() {
        writeln!(td, "def {} : Aspect<\"{name}\">;", aspect_def(&name)).unwrap();
    }
    td.push_str(
        "def AspectDropped : Aspect<\"dropped_by_listremove\">;\n\n\
         def TargetTable : DynamicTable {\n  let FilterClass = \"TargetInfo\";\n  \
         string TypeOf_aspects = \"list<Aspect>\";\n}\n\n\
         class TargetInfo<string targetName, list<Aspect> aspectList, list<int> subGroupSizesList, \
         string toolchain = \"\", string options = \"\", bit maySupportOtherAspects_init = 0> {\n  \
         string DeviceId = targetName;\n  bits<1> maySupportOtherAspects = maySupportOtherAspects_init;\n  \
         list<Aspect> aspects = aspectList;\n  list<int> subGroupSizes = subGroupSizesList;\n  \
         string aotToolchain = toolchain;\n  string aotToolchainOptions = options;\n}\n\n\
         /* Targets that may support more aspects, as CudaTargetInfo. */\n\
         class MayTargetInfo<string targetName, list<Aspect> aspectList, list<int> sg = []>\n    \
         : TargetInfo<targetName, aspectList, sg, \"\", \"\", /*may*/1> {\n  \
         assert !eq(!eq(targetName, \"\"), 0), \"a target needs a name\";\n}\n\n\
         def : TargetInfo<\"__TestAspectList\", [], []>;\n",
    );
    for (i, t) in targets.iter().enumerate() {
        let names: Vec<String> = t.aspects.iter().map(|a| aspect_def(a)).collect();
        let (head, tail) = names.split_at(names.len() / 2);
        writeln!(td, "defvar Head{i} = [{}];", head.join(", ")).unwrap();
        // Alternate the list operators so each is read on real-sized lists.
        let aspects = match i % 3 {
            0 => format!("Head{i} # [{}]", tail.join(", ")),
            1 => format!("!listconcat(Head{i}, [{}])", tail.join(", ")),
            _ => format!(
                "!listremove(!listconcat(Head{i}, [AspectDropped], [{}]), [AspectDropped])",
                tail.join(", ")
            ),
        };
        let sg = format!("[{}]", t.sg.join(", "));
        if t.may {
            writeln!(td, "def : MayTargetInfo<\"{}\", {aspects}, {sg}>;", t.name).unwrap();
        } else {
            writeln!(
                td,
                "def : TargetInfo<\"{}\", {aspects},\n    {sg}>;",
                t.name
            )
            .unwrap();
        }
    }
    td
}

fn arch(canonical: &str) -> &str {
    ["intel_gpu_", "nvidia_gpu_", "amd_gpu_"]
        .iter()
        .find_map(|p| canonical.strip_prefix(p))
        .unwrap()
}

/// SYCLTargetParser.cpp saying what config/targets.yaml says.
fn target_parser_cpp(names: &[(String, Vec<String>)]) -> String {
    let mut cpp = String::from(
        "#include \"llvm/TargetParser/SYCLTargetParser.h\"\n\n\
         StringRef sycl_target::resolveGenDevice(StringRef DeviceName) {\n  \
         return StringSwitch<StringRef>(DeviceName)\n",
    );
    for (canonical, aliases) in names {
        if aliases.is_empty() {
            writeln!(cpp, "      .Case(\"{canonical}\", \"{}\")", arch(canonical)).unwrap();
        } else {
            let all: Vec<String> = std::iter::once(canonical)
                .chain(aliases)
                .map(|n| format!("\"{n}\""))
                .collect();
            writeln!(
                cpp,
                "      .Cases({{{}}},\n             \"{}\")",
                all.join(", "),
                arch(canonical)
            )
            .unwrap();
        }
    }
    cpp.push_str(
        "      .Default(\"\");\n}\n\nSmallString<64> sycl_target::getGenDeviceMacro(StringRef DeviceName) {\n  \
         StringRef Ext = StringSwitch<StringRef>(DeviceName)\n",
    );
    for (canonical, _) in names {
        writeln!(
            cpp,
            "          .Case(\"{}\", \"{}\")",
            arch(canonical),
            canonical.to_uppercase()
        )
        .unwrap();
    }
    cpp.push_str("          .Default(\"\");\n  return Macro;\n}\n");
    cpp
}

struct Fixture {
    _dir: tempfile::TempDir,
    llvm: PathBuf,
    out: PathBuf,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An intel/llvm-shaped tree saying what config/ says, and a copy of config/ to write into.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let llvm = dir.path().join("llvm-project");
    write(
        &llvm.join("llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td"),
        &device_config_td(&targets()),
    );
    write(
        &llvm.join("llvm/lib/TargetParser/SYCLTargetParser.cpp"),
        &target_parser_cpp(&driver_names()),
    );
    let mut def = String::from("// aspects.def fixture\n");
    let mut deprecated = String::from("__SYCL_ASPECT_DEPRECATED_ALIAS(usm_system_allocator, usm_system_allocations, \"use usm_system_allocations instead\")\n");
    for (name, value, message) in aspects() {
        match message {
            None => writeln!(def, "__SYCL_ASPECT({name}, {value})").unwrap(),
            Some(m) => writeln!(
                deprecated,
                "__SYCL_ASPECT_DEPRECATED({name}, {value}, \"{m}\")"
            )
            .unwrap(),
        }
    }
    write(&llvm.join("sycl/include/sycl/info/aspects.def"), &def);
    write(
        &llvm.join("sycl/include/sycl/info/aspects_deprecated.def"),
        &deprecated,
    );
    let out = dir.path().join("config");
    std::fs::create_dir_all(&out).unwrap();
    for f in [
        "default-device-config.yaml",
        "aspects.yaml",
        "targets.yaml",
        "sources.yaml",
    ] {
        std::fs::copy(Path::new(ROOT).join("config").join(f), out.join(f)).unwrap();
    }
    Fixture {
        _dir: dir,
        llvm,
        out,
    }
}

/// `--source` arguments naming what config/sources.yaml names, so an unchanged tree gives an
/// unchanged sources.yaml.
fn committed_sources() -> Vec<String> {
    let mut args = Vec::new();
    let (mut data, mut repo) = (String::new(), String::new());
    for line in config("sources.yaml").lines() {
        if line.starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') {
            data = line.split(':').next().unwrap().to_string();
        } else if let Some(r) = line.trim().strip_prefix("repo: ") {
            repo = r.to_string();
        } else if let Some(c) = line.trim().strip_prefix("commit: ") {
            args.push("--source".to_string());
            args.push(format!("{data}={repo}@{c}"));
        }
    }
    args
}

fn regen(f: &Fixture, extra: &[&str]) -> Output {
    Command::new("python3")
        .arg(Path::new(ROOT).join("config/regen-from-dpcpp.py"))
        .arg(&f.llvm)
        .arg("--out")
        .arg(&f.out)
        .args(["--commit", "0123456789abcdef0123456789abcdef01234567"])
        .args(committed_sources())
        .args(extra)
        .output()
        .expect("python3 runs the script")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_tree_saying_what_config_says_gives_config_back_byte_for_byte() {
    let f = fixture();
    let o = regen(&f, &["--check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 file(s) differ"), "{}", text(&o));
    let o = regen(&f, &[]);
    assert!(o.status.success(), "{}", text(&o));
    for file in [
        "default-device-config.yaml",
        "aspects.yaml",
        "targets.yaml",
        "sources.yaml",
    ] {
        assert_eq!(
            std::fs::read_to_string(f.out.join(file)).unwrap(),
            config(file),
            "{file}"
        );
    }
}

#[test]
fn an_upstream_change_changes_exactly_that_and_is_reported() {
    let f = fixture();
    let td = f
        .llvm
        .join("llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td");
    let mut t = targets();
    let pvc = t.iter_mut().find(|t| t.name == "intel_gpu_pvc").unwrap();
    pvc.aspects.retain(|a| a != "fp64");
    pvc.sg = vec!["32".into()];
    std::fs::write(&td, device_config_td(&t)).unwrap();
    // A new aspect upstream: registered with an empty description, and said.
    let def = f.llvm.join("sycl/include/sycl/info/aspects.def");
    let mut text_def = std::fs::read_to_string(&def).unwrap();
    text_def.push_str("__SYCL_ASPECT(ext_oneapi_new_thing, 120)\n");
    std::fs::write(&def, text_def).unwrap();

    let check = regen(&f, &["--check"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let o = regen(&f, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("new aspect 'ext_oneapi_new_thing'"),
        "{}",
        text(&o)
    );
    let new = std::fs::read_to_string(f.out.join("default-device-config.yaml")).unwrap();
    let old = config("default-device-config.yaml");
    let changed: Vec<(&str, &str)> = old
        .lines()
        .zip(new.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 2, "{changed:#?}");
    assert!(changed[0].0.contains("fp64") && !changed[0].1.contains("fp64"));
    assert_eq!(changed[1].1, "  sub-group-sizes: [32]");
    let aspects = std::fs::read_to_string(f.out.join("aspects.yaml")).unwrap();
    assert!(aspects.contains(
        "  - {name: ext_oneapi_new_thing, value: 120, description: \"\"}\n\ndeprecated:"
    ));
}

#[test]
fn a_failed_assert_an_unknown_aspect_or_a_broken_macro_rule_stops_it() {
    let cases: [(&str, &str, &str, &str); 4] = [
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "def : MayTargetInfo<\"nvidia_gpu_sm_50\"",
            "def : MayTargetInfo<\"\"",
            "assert in MayTargetInfo failed: a target needs a name",
        ),
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "def : TargetInfo<\"__TestAspectList\", [], []>;",
            "def : TargetInfo<\"x\", [AspectDropped], []>;",
            "target x lists aspects aspects.def lacks: ['dropped_by_listremove']",
        ),
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "def : TargetInfo<\"__TestAspectList\"",
            "def : TargetInfoRenamed<\"__TestAspectList\"",
            "unknown class 'TargetInfoRenamed'",
        ),
        (
            "llvm/lib/TargetParser/SYCLTargetParser.cpp",
            ".Case(\"pvc\", \"INTEL_GPU_PVC\")",
            ".Case(\"pvc\", \"INTEL_GPU_PONTE_VECCHIO\")",
            "no longer holds",
        ),
    ];
    for (file, from, to, message) in cases {
        let f = fixture();
        let path = f.llvm.join(file);
        let t = std::fs::read_to_string(&path).unwrap();
        assert!(t.contains(from), "{from}");
        std::fs::write(&path, t.replacen(from, to, 1)).unwrap();
        let o = regen(&f, &[]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(message), "{message}: {}", text(&o));
        assert_eq!(
            std::fs::read_to_string(f.out.join("default-device-config.yaml")).unwrap(),
            config("default-device-config.yaml"),
            "nothing is written when the input is refused"
        );
    }
}
