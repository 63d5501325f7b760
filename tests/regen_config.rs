//! config/regen-from-dpcpp.py, the one command that follows a DPC++ release: from an
//! intel/llvm-shaped tree it must give back config/ exactly when the tree says what config/ says,
//! and change exactly what changed upstream. The trees are written here from config/ itself,
//! in the TableGen and C++ shapes of DPC++'s files (classes with defaults and a parent, with
//! and without a body, `defvar`, `!listconcat`, `!listremove`, `#`, `assert`, a def's `let`,
//! both spellings of aspect records, the self-test lists, an aspect listed twice,
//! `StringSwitch` cases over several lines). The shapes are those the script met when first run
//! on the real files (KornevNikita/llvm@fabc8bf0a590's DeviceConfigFile.td and aspects.def,
//! intel/llvm's aspects_deprecated.def and SYCLTargetParser.cpp); no upstream text is copied.

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

/// The record name of an aspect, in both of DPC++'s spellings: `AspectExt_oneapi_graph` for
/// the older aspects, `Aspectext_oneapi_ipc_event` for the newer ones.
fn aspect_def(name: &str) -> String {
    if name.starts_with("ext_") && name.len() % 2 == 0 {
        format!("Aspect{name}")
    } else {
        let mut c = name.chars();
        let first = c.next().unwrap().to_ascii_uppercase();
        format!("Aspect{first}{}", c.as_str())
    }
}

/// The aspect list of target `i` as an expression, `names` split in two and joined again by
/// one of the list operators (alternating, so each is read on real-sized lists).
fn aspects_expr(td: &mut String, i: usize, names: &[String]) -> String {
    let (head, tail) = names.split_at(names.len() / 2);
    writeln!(td, "defvar Head{i} = [{}];", head.join(", ")).unwrap();
    match i % 3 {
        0 => format!("Head{i} # [{}]", tail.join(", ")),
        1 => format!("!listconcat(Head{i}, [{}])", tail.join(", ")),
        _ => format!(
            "!listremove(!listconcat(Head{i}, [AspectDropped], [{}]), [AspectDropped])",
            tail.join(", ")
        ),
    }
}

/// DeviceConfigFile.td saying what config/default-device-config.yaml says, in the shapes of
/// DPC++'s file: `include`, named aspect records in both spellings, deprecated aspects (one of
/// them an alias only), the DynamicTable, the self-test lists over many lines, classes that
/// derive from TargetInfo with and without a body (an `int` argument with a default made into
/// a list, an `assert` pasting an int into its message, a global list pasted before an
/// argument), all six TargetInfo arguments given, a `let` in a def's body, comments everywhere,
/// and an aspect listed twice in the CUDA-like targets (written once by the script).
fn device_config_td(targets: &[Target]) -> String {
    let mut td = String::from(
        "//===- A fixture in the shape of DPC++'s DeviceConfigFile.td -*- tablegen -*-===//\n\n\
         include \"llvm/TableGen/DynamicTable.td\"\n\n\
         class Aspect<string name> {\n    string Name = name;\n}\n\n",
    );
    let (current, deprecated): (Vec<_>, Vec<_>) =
        aspects().into_iter().partition(|a| a.2.is_none());
    for (name, _, _) in &current {
        writeln!(td, "def {} : Aspect<\"{name}\">;", aspect_def(name)).unwrap();
    }
    td.push_str("\n// Deprecated aspects\n");
    let mut deprecated: Vec<String> = deprecated.into_iter().map(|a| a.0).collect();
    deprecated.insert(2, "usm_system_allocator".into()); // an alias in aspects_deprecated.def
    for name in &deprecated {
        writeln!(td, "def {} : Aspect<\"{name}\">;", aspect_def(name)).unwrap();
    }
    td.push_str(
        "def AspectDropped : Aspect<\"dropped_by_listremove\">;\n\n\n\
         def TargetTable : DynamicTable {\n  let FilterClass = \"TargetInfo\";\n  \
         let Fields = [\"DeviceId\", \"maySupportOtherAspects\", \"aspects\",\n                \
         \"subGroupSizes\", \"aotToolchain\", \"aotToolchainOptions\"];\n  \
         string TypeOf_aspects = \"list<Aspect>\";\n  string TypeOf_subGroupSizes = \"list<int>\";\n}\n\n\
         // The fields must match the C++ struct.\n\
         class TargetInfo<string targetName, list<Aspect> aspectList, list<int> subGroupSizesList, \
         string toolchain = \"\", string options = \"\", bit maySupportOtherAspects_init = 0> {\n  \
         string DeviceId = targetName;\n  bits<1> maySupportOtherAspects = maySupportOtherAspects_init;\n  \
         list<Aspect> aspects = aspectList;\n  list<int> subGroupSizes = subGroupSizesList;\n  \
         string aotToolchain = toolchain;\n  string aotToolchainOptions = options;\n}\n\n\
         // Self-tests: every aspect defined above, no target.\n\
         def : TargetInfo<\"__TestAspectList\",\n    [",
    );
    for (k, (name, _, _)) in current.iter().enumerate() {
        let sep = match k {
            0 => "",
            _ if k % 4 == 0 => ", \n    ",
            _ => ", ",
        };
        write!(td, "{sep}{}", aspect_def(name)).unwrap();
    }
    td.push_str("],\n    []>;\ndef : TargetInfo<\"__TestDeprecatedAspectList\",\n    [");
    let dep: Vec<String> = deprecated.iter().map(|n| aspect_def(n)).collect();
    writeln!(td, "{}],\n    []>;\n", dep.join(", ")).unwrap();
    td.push_str(
        "/* Targets that may support more aspects. */\n\
         class MayTargetInfo<string targetName, list<Aspect> aspectList, list<int> sg = []>\n    \
         : TargetInfo<targetName, aspectList, sg, \"\", \"\", /*may*/1> {\n  \
         assert !eq(!eq(targetName, \"\"), 0), \"a target needs a name\";\n}\n\n\
         // As CudaTargetInfo: one sub-group size, checked.\n\
         class OneSgTargetInfo<string targetName, list<Aspect> aspectList, int subGroupSize = 32, \
         string toolchain = \"\", string options = \"\">\n    \
         : TargetInfo<targetName, aspectList, [subGroupSize], toolchain, options, /*maySupportOtherAspects*/1> {\n  \
         assert !eq(subGroupSize, 32), \"sub-group size must be 32, not \" # subGroupSize # \".\";\n}\n\n\
         // As HipTargetInfo: a parent and no body.\n\
         class NoBodyTargetInfo<string targetName, list<Aspect> aspectList, list<int> subGroupSizesList, \
         string toolchain = \"\", string options = \"\">\n    \
         : TargetInfo<targetName, aspectList, subGroupSizesList, toolchain, options, /*maySupportOtherAspects*/0>;\n\n",
    );
    // As IntelTargetInfo: a global list pasted before the argument, in the parent's arguments.
    let base: Vec<String> = targets
        .iter()
        .find(|t| t.name.starts_with("intel_gpu_"))
        .map(|t| t.aspects.iter().take(4).cloned().collect())
        .unwrap_or_default();
    let base_defs: Vec<String> = base.iter().map(|a| aspect_def(a)).collect();
    writeln!(
        td,
        "defvar GpuBaseAspects = [{}];\n\
         class BaseTargetInfo<string Name, list<Aspect> Aspects, list<int> subGroupSizesList>\n\
         : TargetInfo<Name, GpuBaseAspects # Aspects, subGroupSizesList>;\n\
         //def : BaseTargetInfo<\"commented_out\", [], []>;\n",
        base_defs.join(",\n    ")
    )
    .unwrap();
    for (i, t) in targets.iter().enumerate() {
        let names: Vec<String> = t.aspects.iter().map(|a| aspect_def(a)).collect();
        let sg = format!("[{}]", t.sg.join(", "));
        if t.may && t.sg == ["32"] {
            // The first aspect listed twice, as upstream lists one twice in its CUDA targets.
            let mut twice = names.clone();
            twice.extend(names.first().cloned());
            let aspects = aspects_expr(&mut td, i, &twice);
            if i % 2 == 0 {
                writeln!(td, "def : OneSgTargetInfo<\"{}\", {aspects}>;", t.name).unwrap();
            } else {
                writeln!(
                    td,
                    "def : OneSgTargetInfo<\"{}\",\n    {aspects},\n    32>;",
                    t.name
                )
                .unwrap();
            }
        } else if t.may && i % 2 == 0 {
            let aspects = aspects_expr(&mut td, i, &names);
            writeln!(td, "def : MayTargetInfo<\"{}\", {aspects}, {sg}>;", t.name).unwrap();
        } else if t.may {
            let aspects = aspects_expr(&mut td, i, &names);
            writeln!(
                td,
                "def : TargetInfo<\"{}\", {aspects}, {sg}, \"\", \"\", 1>;",
                t.name
            )
            .unwrap();
        } else if !base.is_empty() && t.aspects.starts_with(&base) {
            let aspects = aspects_expr(&mut td, i, &names[base.len()..]);
            writeln!(td, "def : BaseTargetInfo<\"{}\", {aspects}, {sg}>;", t.name).unwrap();
        } else if i % 3 == 0 {
            let aspects = aspects_expr(&mut td, i, &names);
            writeln!(
                td,
                "def : TargetInfo<\"{}\", {aspects}, {sg}, \"\", \"\", 1> {{\n  \
                 let maySupportOtherAspects = 0; // the def's own body wins\n}}",
                t.name
            )
            .unwrap();
        } else if i % 3 == 1 {
            let aspects = aspects_expr(&mut td, i, &names);
            writeln!(
                td,
                "def : NoBodyTargetInfo<\"{}\", {aspects}, {sg}>; // a comment",
                t.name
            )
            .unwrap();
        } else {
            let aspects = aspects_expr(&mut td, i, &names);
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

/// SYCLTargetParser.cpp saying what config/targets.yaml says, formatted as clang-format
/// formats DPC++'s: long `.Cases` lists broken over lines, the macro switch with its own
/// `.Cases` of short aliases, nested braces, and a third StringSwitch that is no target table.
fn target_parser_cpp(names: &[(String, Vec<String>)]) -> String {
    let mut cpp = String::from(
        "//===-- SYCLTargetParser.cpp - a fixture ------------------------*- C++ -*-===//\n\
         #include \"llvm/TargetParser/SYCLTargetParser.h\"\n\
         #include \"llvm/ADT/StringSwitch.h\"\n\n\
         using namespace llvm;\n\n\
         StringRef sycl_target::resolveGenDevice(StringRef DeviceName) {\n  \
         return StringSwitch<StringRef>(DeviceName)\n",
    );
    for (canonical, aliases) in names {
        let all: Vec<String> = std::iter::once(canonical)
            .chain(aliases)
            .map(|n| format!("\"{n}\""))
            .collect();
        match aliases.len() {
            0 => writeln!(cpp, "      .Case(\"{canonical}\", \"{}\")", arch(canonical)).unwrap(),
            1 => writeln!(
                cpp,
                "      .Cases({{{}}}, \"{}\")",
                all.join(", "),
                arch(canonical)
            )
            .unwrap(),
            _ => {
                let (a, b) = all.split_at(all.len() - 1);
                writeln!(
                    cpp,
                    "      .Cases({{{},\n              {}}},\n             \"{}\")",
                    a.join(", "),
                    b[0],
                    arch(canonical)
                )
                .unwrap()
            }
        }
    }
    cpp.push_str(
        "      .Default(\"\");\n}\n\nSmallString<64> sycl_target::getGenDeviceMacro(StringRef DeviceName) {\n  \
         StringRef Ext =\n      StringSwitch<StringRef>(DeviceName)\n",
    );
    for (canonical, aliases) in names {
        let short: Vec<String> = std::iter::once(arch(canonical))
            .chain(aliases.iter().map(|a| arch(a)))
            .filter(|a| !a.starts_with(|c: char| c.is_ascii_digit()))
            .map(|a| format!("\"{a}\""))
            .collect();
        let macro_name = canonical.to_uppercase();
        if short.len() > 1 {
            writeln!(
                cpp,
                "          .Cases({{{}}}, \"{macro_name}\")",
                short.join(", ")
            )
            .unwrap();
        } else {
            writeln!(cpp, "          .Case({}, \"{macro_name}\")", short[0]).unwrap();
        }
    }
    cpp.push_str(
        "          .Default(\"\");\n  SmallString<64> Macro;\n  if (!Ext.empty()) {\n    \
         Macro = \"__SYCL_TARGET_\";\n    Macro += Ext;\n    Macro += \"__\";\n  }\n  return Macro;\n}\n\n\
         StringRef sycl_target::getGenGRFFlag(StringRef GRFMode) {\n  \
         return StringSwitch<StringRef>(GRFMode)\n      \
         .Case(\"auto\", \"-ze-auto-grf\")\n      .Case(\"large\", \"-ze-large-grf\")\n      \
         .Default(\"\");\n}\n",
    );
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
    let mut deprecated = String::new();
    for (k, (name, value, message)) in aspects().into_iter().filter(|a| a.2.is_some()).enumerate() {
        if k == 2 {
            // An alias has no value of its own: no entry of aspects.yaml (the .td defines it).
            deprecated.push_str(
                "// An alias: it doesn't get a token of its own\n\
                 __SYCL_ASPECT_DEPRECATED_ALIAS(usm_system_allocator, usm_system_allocations,\n    \
                 \"use usm_system_allocations instead\")\n",
            );
        }
        let m = message.unwrap();
        writeln!(
            deprecated,
            "__SYCL_ASPECT_DEPRECATED({name}, {value}, \"{m}\")"
        )
        .unwrap();
    }
    for (name, value, _) in aspects().into_iter().filter(|a| a.2.is_none()) {
        writeln!(def, "__SYCL_ASPECT({name}, {value})").unwrap();
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
    let mut args = vec![
        "--commit".to_string(),
        "0123456789abcdef0123456789abcdef01234567".to_string(),
    ];
    args.extend(committed_sources());
    args.extend(extra.iter().map(|s| s.to_string()));
    regen_args(f, &args)
}

fn regen_args(f: &Fixture, args: &[String]) -> Output {
    Command::new("python3")
        .arg(Path::new(ROOT).join("config/regen-from-dpcpp.py"))
        .arg(&f.llvm)
        .arg("--out")
        .arg(&f.out)
        .args(args)
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

/// The fixture tree is no git checkout, like a tree of files copied from several repositories:
/// when `--source` names where every input comes from, no `--commit` is needed.
#[test]
fn copied_files_with_every_source_named_need_no_commit() {
    let f = fixture();
    let mut args = committed_sources();
    args.push("--check".into());
    let o = regen_args(&f, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 file(s) differ"), "{}", text(&o));
    // One input left to the checkout's commit: that commit is needed.
    let o = regen_args(&f, &args[2..]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("give its commit with --commit"),
        "{}",
        text(&o)
    );
}

/// An aspect listed twice upstream is written once and said once (not once a target); a
/// self-test list of the .td naming an aspect the .def files lack (files of different
/// commits) is said, and changes nothing.
#[test]
fn notes_say_what_upstream_lists_twice_and_where_the_files_disagree() {
    let f = fixture();
    // The fixture lists the first aspect of each one-sub-group-size target twice.
    let mut twice: Vec<(String, Vec<String>)> = Vec::new();
    for t in targets() {
        if t.may && t.sg == ["32"] && !t.aspects.is_empty() {
            match twice.iter_mut().find(|(a, _)| *a == t.aspects[0]) {
                Some((_, names)) => names.push(t.name.clone()),
                None => twice.push((t.aspects[0].clone(), vec![t.name.clone()])),
            }
        }
    }
    assert!(twice.iter().any(|(_, names)| names.len() > 1));
    let expected: Vec<String> = twice
        .iter()
        .map(|(aspect, names)| {
            let where_ = match names.len() {
                1 => names[0].clone(),
                n => format!("{n} targets ({} .. {})", names[0], names[n - 1]),
            };
            format!("note: upstream lists {aspect} twice in {where_}: written once")
        })
        .collect();
    let o = regen(&f, &["--check"]);
    assert!(text(&o).contains("0 file(s) differ"), "{}", text(&o));
    let notes: Vec<String> = text(&o)
        .lines()
        .filter(|l| l.contains("twice"))
        .map(String::from)
        .collect();
    assert_eq!(notes, expected, "{}", text(&o));
    assert!(!text(&o).contains("does not"), "{}", text(&o));

    let path = f.llvm.join("sycl/include/sycl/info/aspects_deprecated.def");
    let t = std::fs::read_to_string(&path).unwrap();
    let without_alias: String = t
        .split_inclusive('\n')
        .filter(|l| !l.contains("usm_system_allocat"))
        .collect();
    assert_ne!(t, without_alias);
    std::fs::write(&path, without_alias).unwrap();
    let o = regen(&f, &["--check"]);
    assert!(text(&o).contains("0 file(s) differ"), "{}", text(&o));
    assert!(
        text(&o).contains(
            "__TestDeprecatedAspectList names usm_system_allocator, which aspects_deprecated.def does not define"
        ),
        "{}",
        text(&o)
    );
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
    let cases: [(&str, &str, &str, &str); 5] = [
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "def : MayTargetInfo<\"spir64\"",
            "def : MayTargetInfo<\"\"",
            "assert in MayTargetInfo failed: a target needs a name",
        ),
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "def : TargetInfo<\"__TestDeprecatedAspectList\"",
            "def : TargetInfo<\"x\", [AspectDropped], []>;\ndef : TargetInfo<\"__TestDeprecatedAspectList\"",
            "target x lists aspects aspects.def lacks: ['dropped_by_listremove']",
        ),
        (
            "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td",
            "\n    32>;",
            "\n    16>;",
            "sub-group size must be 32, not 16.",
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

/// Copies the name sources of a fixture (aspects.def, aspects_deprecated.def, the driver's name
/// table) into a tree of their own: the newer revision `--names-from` reads.
fn names_tree(f: &Fixture) -> PathBuf {
    let tree = f.llvm.parent().unwrap().join("newer");
    for rel in [
        "sycl/include/sycl/info/aspects.def",
        "sycl/include/sycl/info/aspects_deprecated.def",
        "llvm/lib/TargetParser/SYCLTargetParser.cpp",
    ] {
        write(
            &tree.join(rel),
            &std::fs::read_to_string(f.llvm.join(rel)).unwrap(),
        );
    }
    tree
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// The device table of an older revision, the names and aspects of a newer one: a driver name
/// the older table lacks stays a valid name (said, not dropped), the table loses only its entry,
/// and sources.yaml names each revision (the newer one's HEAD for the three name data).
#[test]
fn names_from_a_newer_tree_keep_driver_names_the_older_table_lacks() {
    let f = fixture();
    let newer = names_tree(&f);
    git(&newer, &["init", "-q"]);
    git(&newer, &["add", "."]);
    git(&newer, &["commit", "-qm", "newer"]);
    let head = git(&newer, &["rev-parse", "HEAD"]);
    // The older table has no entry for the newest name of the driver's table.
    let mut older = targets();
    older.retain(|t| t.name != "intel_gpu_cri");
    std::fs::write(
        f.llvm
            .join("llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td"),
        device_config_td(&older),
    )
    .unwrap();
    std::fs::remove_file(f.llvm.join("llvm/lib/TargetParser/SYCLTargetParser.cpp")).unwrap();

    let names_from = ["--names-from", newer.to_str().unwrap()];
    let args: Vec<String> = [
        "--source",
        "device_table=intel/llvm@250ca20b58e27e44c9a8f77a2f45f12398c3768e",
    ]
    .iter()
    .chain(&names_from)
    .map(|s| s.to_string())
    .collect();
    let o = regen_args(&f, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(
            "driver name 'intel_gpu_cri' has no device-table entry (valid; no AOT filtering)"
        ),
        "{}",
        text(&o)
    );
    let table = std::fs::read_to_string(f.out.join("default-device-config.yaml")).unwrap();
    assert!(!table.contains("intel_gpu_cri:"));
    assert_eq!(table.matches(":\n  aspects:").count(), targets().len() - 1);
    // The names are the newer tree's: all of config/targets.yaml, cri included, generated from
    // its commit.
    let names = std::fs::read_to_string(f.out.join("targets.yaml")).unwrap();
    let committed = config("targets.yaml");
    let (new_head, old_head) = (
        names.lines().nth(1).unwrap(),
        committed.lines().nth(1).unwrap(),
    );
    assert!(
        new_head.contains(&format!("intel/llvm@{}", &head[..12])),
        "{new_head}"
    );
    assert_eq!(names.replace(new_head, old_head), committed);
    let sources = std::fs::read_to_string(f.out.join("sources.yaml")).unwrap();
    assert!(sources.contains("device_table:   # default-device-config.yaml\n  repo: intel/llvm\n  commit: 250ca20b58e27e44c9a8f77a2f45f12398c3768e\n"));
    for data in ["aspects:", "aspects_deprecated:", "target_names:"] {
        let at = sources.find(&format!("\n{data}")).unwrap();
        assert!(
            sources[at..].contains(&format!("  repo: intel/llvm\n  commit: {head}\n")),
            "{data}\n{sources}"
        );
    }

    // A newer tree that is no git checkout needs its commits named.
    std::fs::remove_dir_all(newer.join(".git")).unwrap();
    let o = regen_args(&f, &args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("give its commit with --source aspects=REPO@COMMIT"),
        "{}",
        text(&o)
    );
}

/// Revisions before SYCLTargetParser.cpp keep the name tables in the driver's SYCL.cpp
/// (`SYCL::gen::resolveGenDevice`): read from there, and sources.yaml says so.
#[test]
fn the_name_table_is_read_from_the_drivers_sycl_cpp_in_older_revisions() {
    let f = fixture();
    let parser = f.llvm.join("llvm/lib/TargetParser/SYCLTargetParser.cpp");
    let cpp = std::fs::read_to_string(&parser)
        .unwrap()
        .replace("sycl_target::", "SYCL::gen::");
    std::fs::remove_file(&parser).unwrap();
    write(
        &f.llvm.join("clang/lib/Driver/ToolChains/SYCL.cpp"),
        &format!(
            "// Other driver code first, calling the table.\n\
             static bool known(StringRef D) {{ return !SYCL::gen::resolveGenDevice(D).empty(); }}\n\n{cpp}"
        ),
    );
    let o = regen(&f, &["--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("1 file(s) differ: sources.yaml"),
        "{}",
        text(&o)
    );
    let o = regen(&f, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let sources = std::fs::read_to_string(f.out.join("sources.yaml")).unwrap();
    assert!(
        sources.contains("  path: clang/lib/Driver/ToolChains/SYCL.cpp\n"),
        "{sources}"
    );
    // Neither file: said, and nothing written.
    std::fs::remove_file(f.llvm.join("clang/lib/Driver/ToolChains/SYCL.cpp")).unwrap();
    let o = regen(&f, &["--check"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("defines resolveGenDevice"),
        "{}",
        text(&o)
    );
}
