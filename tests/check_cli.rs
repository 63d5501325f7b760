//! `sycl-analyzer check` through the real binary: formats, exit codes, target sources, bad files.

use assert_cmd::Command;
use predicates::prelude::*;

fn bin() -> Command {
    let mut c = Command::cargo_bin("sycl-analyzer").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn json_out(args: &[&str], code: i32) -> serde_json::Value {
    let out = bin()
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// `check DIR --targets TARGETS --format json --no-cache`, which must exit with `code`.
fn check_for(dir: &std::path::Path, targets: &str, code: i32) -> serde_json::Value {
    json_out(
        &[
            "check",
            dir.to_str().unwrap(),
            "--targets",
            targets,
            "--format",
            "json",
            "--no-cache",
        ],
        code,
    )
}

#[test]
fn example_project_json_shape_and_targets_from_compile_commands() {
    let v = json_out(&["check", "examples/vector-math", "--format", "json"], 1);
    let diags = v["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(
        codes.iter().filter(|c| **c == "aspect-mismatch").count(),
        2,
        "{codes:?}"
    );
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == "target-unsupported-aspect")
            .count(),
        2
    );
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == "target-unsupported-sub-group-size")
            .count(),
        1
    );
    let kernel = diags
        .iter()
        .find(|d| {
            d["code"] == "aspect-mismatch" && d["file"] == "examples/vector-math/src/main.cpp"
        })
        .unwrap();
    assert_eq!(kernel["aspect"], "fp64");
    assert_eq!(kernel["line"], 17);
    assert!(kernel["function"]
        .as_str()
        .unwrap()
        .starts_with("lambda at examples/vector-math/src/main.cpp:17:37"));
    let chain = kernel["chain"].as_array().unwrap();
    assert_eq!(
        chain[0]["function"],
        "mix(sycl::half*, const float*, const float*, size_t)"
    );
    assert_eq!(chain[1]["function"], "blend(float, float)");
    assert_eq!(chain[2]["use"], "double literal 0.5");
    assert_eq!(chain[2]["file"], "examples/vector-math/src/blend.hpp");
    assert_eq!(chain[2]["line"], 7);
    assert_eq!(v["stats"]["files"], 3);
    assert_eq!(v["stats"]["kernels"], 4);
}

#[test]
fn explicit_targets_override_compile_commands() {
    // spir64 guarantees nothing and excludes nothing: only the mismatches remain.
    let v = json_out(
        &[
            "check",
            "examples/vector-math",
            "--targets",
            "spir64",
            "--format",
            "json",
        ],
        1,
    );
    assert!(v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["code"] == "aspect-mismatch"));
}

#[test]
fn user_device_config_applies_to_check() {
    let v = json_out(
        &[
            "--config",
            "examples/vector-math/devices.yaml",
            "check",
            "examples/vector-math",
            "--targets",
            "intel_gpu_xe3p",
            "--format",
            "json",
        ],
        1,
    );
    let sub_group: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "target-unsupported-sub-group-size")
        .collect();
    assert_eq!(sub_group.len(), 1);
    assert!(sub_group[0]["message"]
        .as_str()
        .unwrap()
        .contains("'intel_gpu_xe3p' does not support (its sizes: 16)"));
}

#[test]
fn text_output_has_snippets_chain_and_summary() {
    bin()
        .args(["check", "tests/fixtures/s1_type_use_through_calls.cpp"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "warning[aspect-mismatch]: function 'func1(int)' uses aspect 'fp16' not listed in its 'sycl::device_has' attribute",
        ))
        .stdout(predicate::str::contains("propagated from call to function 'func2(int)'"))
        .stdout(predicate::str::contains("uses 'Struct1' here"))
        .stdout(predicate::str::contains("0 error(s), 1 warning(s), 0 note(s) in 1 file(s)"));
}

#[test]
fn clean_code_exits_0() {
    bin()
        .args([
            "check",
            "tests/fixtures/neg_float_only_kernels.cpp",
            "tests/fixtures/neg_host_code.cpp",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "0 error(s), 0 warning(s), 0 note(s) in 2 file(s)",
        ));
}

#[test]
fn sarif_output() {
    let v = json_out(
        &[
            "check",
            "tests/fixtures/s1_type_use_through_calls.cpp",
            "--format",
            "sarif",
        ],
        1,
    );
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "sycl-analyzer");
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "aspect-mismatch");
    assert_eq!(r["level"], "warning");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        15
    );
    assert_eq!(
        r["codeFlows"][0]["threadFlows"][0]["locations"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "aspect-mismatch"
    );
}

#[test]
fn bad_inputs() {
    bin()
        .args(["check", "/nonexistent/src"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
    bin()
        .args([
            "check",
            "examples/vector-math",
            "--targets",
            "intel_gpu_dg3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "SYCL target is invalid: 'intel_gpu_dg3'",
        ));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.cpp"), b"\x7fELF\x00\x00\x01garbage").unwrap();
    std::fs::write(
        dir.path().join("latin1.cpp"),
        b"// caf\xe9\n[[sycl::device_has()]] void f() { double d; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ignored.cpp"),
        b"[[sycl::device_has()]] void g() { double d; }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), b"ignored.cpp\n").unwrap();
    let out = bin()
        .args(["check", dir.path().to_str().unwrap(), "--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(
        v["stats"]["files"], 1,
        "blob skipped, ignored.cpp not walked: {v}"
    );
    // A skipped file is a problem of the input, beside the findings.
    assert!(v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "file-skipped"
            && d["severity"] == "note"
            && d["message"].as_str().unwrap().contains("binary")));
    assert!(!diags.iter().any(|d| d["code"] == "file-skipped"), "{v}");
    assert!(diags
        .iter()
        .any(|d| d["code"] == "aspect-mismatch"
            && d["file"].as_str().unwrap().ends_with("latin1.cpp")));
}

#[test]
fn compile_commands_found_in_build_or_given_explicitly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("k.cpp"), "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n").unwrap();
    let db = r#"[{"directory": ".", "file": "k.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_acm_g10 -c k.cpp"}]"#;
    std::fs::write(dir.path().join("build/compile_commands.json"), db).unwrap();
    let root = dir.path().to_str().unwrap();
    let v = json_out(&["check", root, "--format", "json"], 1);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "target-unsupported-aspect");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("'intel_gpu_acm_g10'"));
    // Given explicitly, from elsewhere; a database without targets leaves the implicit spir64.
    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        r#"[{"directory": ".", "file": "k.cpp", "command": "icpx -fsycl -c k.cpp"}]"#,
    )
    .unwrap();
    let v = json_out(
        &[
            "check",
            root,
            "--compile-commands",
            other.to_str().unwrap(),
            "--format",
            "json",
        ],
        0,
    );
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
    std::fs::write(&other, "not json").unwrap();
    bin()
        .args(["check", root, "--compile-commands", other.to_str().unwrap()])
        .assert()
        .code(2);
}

/// A directory holding `k.cpp`, one kernel that computes in double.
fn fp64_kernel_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n",
    )
    .unwrap();
    dir
}

/// `compile_commands.json` in `dir` with one entry compiling `k.cpp` by `command`.
fn write_database(dir: &std::path::Path, command: &str) {
    let root = dir.to_str().unwrap();
    let db = serde_json::json!([{ "directory": root, "file": "k.cpp", "command": command }]);
    std::fs::write(dir.join("compile_commands.json"), db.to_string()).unwrap();
}

/// The newer ways of naming targets: `--offload-arch`, a backend `-device`, and a response
/// file holding them, in a shell-quoted `command`.
#[test]
fn offload_arch_backend_device_and_response_files_in_compile_commands() {
    let dir = fp64_kernel_dir();
    let root = dir.path().to_str().unwrap();
    let targets_of = |command: &str| -> Vec<String> {
        write_database(dir.path(), command);
        let v = json_out(&["check", root, "--format", "json"], 1);
        let mut t: Vec<String> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "target-unsupported-aspect")
            .flat_map(|d| {
                // "... which no device of target 'a', 'b' has: ..."
                let m = d["message"].as_str().unwrap();
                let names = m
                    .split(" of target ")
                    .nth(1)
                    .unwrap()
                    .split(" has")
                    .next()
                    .unwrap();
                names
                    .split(", ")
                    .map(|n| n.trim_matches('\'').to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        t.sort();
        t
    };
    assert_eq!(
        targets_of("icpx -fsycl --offload-arch=dg1,acm_g10 -c k.cpp"),
        ["intel_gpu_acm_g10", "intel_gpu_dg1"]
    );
    assert_eq!(
        targets_of(
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend "-device dg1" -c k.cpp"#
        ),
        ["spir64_gen:dg1"]
    );
    std::fs::write(dir.path().join("sycl.rsp"), "-fsycl '--offload-arch=dg1'\n").unwrap();
    assert_eq!(targets_of("icpx @sycl.rsp -c k.cpp"), ["intel_gpu_dg1"]);
    // What the driver refuses is an error with its text, not an analysis for other targets.
    let db = serde_json::json!([{ "directory": root, "file": "k.cpp", "command": "icpx -fsycl --offload-arch=dg1,pvcc -c k.cpp" }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    let v = json_out(&["check", root, "--format", "json"], 2);
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    let d = &v["problems"][0];
    assert_eq!(d["code"], "invalid-target");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("SYCL target is invalid: 'pvcc'; did you mean"),
        "{d}"
    );
}

/// Any name ocloc takes for a device binds it (`acm-g10`, the hyphenated spelling CMake files
/// use, was refused as an invalid target and the check reported nothing); a name of no device
/// of the tables (a family, a PCI id) keeps the generic `spir64_gen` with a note located in the
/// database, never an error.
#[test]
fn ocloc_device_names_in_compile_commands_bind_or_note() {
    let dir = fp64_kernel_dir();
    let root = dir.path().to_str().unwrap();
    let check = |device: &str, code: i32| -> serde_json::Value {
        let command = format!(
            r#"icpx -fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend=spir64_gen "-device {device}" -c k.cpp"#
        );
        write_database(dir.path(), &command);
        json_out(&["check", root, "--format", "json", "--no-cache"], code)
    };
    // The findings, then the problems of the inputs (a note on the database).
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v["problems"].as_array().unwrap())
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    for device in ["acm-g10", "acm_g10", "dg2-g10", "12.55.8"] {
        let v = check(device, 1);
        assert_eq!(codes(&v), ["target-unsupported-aspect"], "{device}: {v}");
        let m = v["diagnostics"][0]["message"].as_str().unwrap();
        assert!(m.contains("'spir64_gen:acm_g10'"), "{device}: {m}");
    }
    let v = check("dg1,pvc", 1);
    let m = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(m.contains("'spir64_gen:dg1'") && !m.contains("pvc"), "{m}");
    // A family name: the generic spir64_gen (which may have fp64) with a note, exit 0.
    let v = check("xe-hpg", 0);
    assert_eq!(codes(&v), ["unbound-device"], "{v}");
    let d = &v["problems"][0];
    assert_eq!(d["severity"], "note");
    assert!(d["file"]
        .as_str()
        .unwrap()
        .ends_with("compile_commands.json"));
    let db = std::fs::read_to_string(dir.path().join("compile_commands.json")).unwrap();
    let at = db.find("xe-hpg").unwrap();
    assert_eq!(d["column"].as_u64().unwrap() as usize, at + 1, "{d}");
    assert!(d["message"].as_str().unwrap().contains("'xe-hpg'"));
    // In text, on standard error with the other problems of the inputs, not counted among the
    // findings of the summary.
    let out = bin()
        .args(["check", root, "--no-cache"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(stderr.contains("note[unbound-device]"), "{stderr}");
    assert!(stdout.contains("0 note(s)"), "{stdout}");
    // --targets wins over the database: its notes do not apply.
    let v = json_out(
        &[
            "check",
            root,
            "--targets",
            "spir64_gen:acm-g10",
            "--format",
            "json",
            "--no-cache",
        ],
        1,
    );
    assert_eq!(codes(&v), ["target-unsupported-aspect"], "{v}");
}

#[test]
fn device_config_file_named_in_compile_commands_applies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cpp"), "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n").unwrap();
    std::fs::write(dir.path().join("devs.yaml"), "my_dev:\n  aspects: [gpu]\n").unwrap();
    let db = r#"[{"directory": "DIR", "file": "k.cpp", "command": "icpx -fsycl -fsycl-targets=my_dev -fsycl-device-config-file=devs.yaml -c k.cpp"}]"#
        .replace("DIR", dir.path().to_str().unwrap());
    std::fs::create_dir(dir.path().join("build-release")).unwrap();
    std::fs::write(dir.path().join("build-release/compile_commands.json"), db).unwrap();
    let v = json_out(
        &["check", dir.path().to_str().unwrap(), "--format", "json"],
        1,
    );
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "target-unsupported-aspect", "{v}");
    assert!(d["message"].as_str().unwrap().contains("'my_dev'"));
}

/// A project whose types and branches come from the preprocessor, as real kernels choose them.
fn preprocessed_project(dir: &std::path::Path, compile_flags: &str) {
    let w = |p: &str, t: &str| {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    };
    w(
        "include/real.h",
        "#pragma once\n#ifdef USE_DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\n#define P double\n#define TENTH(v) ((v) * 0.1)\n",
    );
    w(
        "src/main.cpp",
        "#include <sycl/sycl.hpp>\n#include \"real.h\"\nvoid run(sycl::queue& q, real* a, float* b) {\n  q.parallel_for(sycl::range<1>(8), [=](sycl::id<1> i) { a[i] = a[i] * 2; });\n  q.parallel_for(sycl::range<1>(8), [=](sycl::id<1> i) {\n#if __SYCL_ANY_DEVICE_HAS_fp64__\n    double t = b[i];\n#else\n    float t = b[i];\n#endif\n    b[i] = t;\n  });\n#ifndef __SYCL_DEVICE_ONLY__\n  q.single_task([=] { double host_only = 1; (void)host_only; });\n#endif\n}\nvoid run2(sycl::queue& q, float* b) {\n  q.single_task([=] { P x = b[0]; b[0] = x; });\n}\nvoid run3(sycl::queue& q, float* b) {\n  q.single_task([=] { b[1] = TENTH(b[1]); });\n}\n",
    );
    let dir_s = dir.display().to_string();
    w(
        "compile_commands.json",
        &format!(
            r#"[{{"directory": "{dir_s}", "file": "src/main.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -Iinclude {compile_flags} -c src/main.cpp"}}]"#
        ),
    );
}

#[test]
fn macros_and_conditionals_are_those_of_the_compile() {
    let findings = |flags: &str| -> Vec<(u64, String)> {
        let dir = tempfile::tempdir().unwrap();
        preprocessed_project(dir.path(), flags);
        let v = json_out(
            &["check", dir.path().to_str().unwrap(), "--format", "json"],
            1,
        );
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["aspect"] == "fp64")
            .map(|d| {
                let last = d["chain"].as_array().unwrap().last().unwrap();
                (
                    d["line"].as_u64().unwrap(),
                    last["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // dg1 has no fp64. Without -DUSE_DOUBLE `real` is float: `P x` (a double by `#define P
    // double`, in a header reached through -Iinclude) is found.
    // The double under `__SYCL_ANY_DEVICE_HAS_fp64__` is not compiled for dg1, nor the host-only
    // kernel under `#ifndef __SYCL_DEVICE_ONLY__`.
    let plain = findings("");
    // `TENTH(v)` computes in double inside its expansion (0.1 is no float: not narrowed at -O2):
    // the use names the macro.
    assert_eq!(
        plain.iter().map(|f| f.0).collect::<Vec<_>>(),
        [18, 21],
        "{plain:?}"
    );
    assert!(
        plain[1].1.ends_with("in the expansion of macro 'TENTH'"),
        "{plain:?}"
    );
    let with = findings("-DUSE_DOUBLE");
    assert_eq!(
        with.iter().map(|f| f.0).collect::<Vec<_>>(),
        [4, 18, 21],
        "{with:?}"
    );
}

/// Device code is compiled once per target: `__SYCL_TARGET_*__` and the triple's macros are
/// defined only in their own target's compile.
#[test]
fn each_target_has_its_own_device_compile() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w(
        "k.cpp",
        r#"#include <sycl/sycl.hpp>
void pvc_only(sycl::queue& q, float* b) {
  q.single_task([=] {
#ifdef __SYCL_TARGET_INTEL_GPU_PVC__
    double t = b[0];
#else
    float t = b[0];
#endif
    b[0] = t;
  });
}
void dg1_only(sycl::queue& q, float* b) {
  q.single_task([=] {
#if defined(__SYCL_TARGET_INTEL_GPU_DG1__)
    double t = b[1];
    b[1] = t;
#endif
  });
}
void decorated(sycl::queue& q, float* b) {
  q.single_task([=]() [[sycl::device_has()]] {
#ifdef __NVPTX__
    b[2] = b[2] * 2.0;
#endif
  });
}
"#,
    );
    let run = |targets: &str| check_for(dir.path(), targets, 1);
    let found = |v: &serde_json::Value| -> Vec<(u64, String, Vec<String>)> {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let targets = d["targets"]
                    .as_array()
                    .map(|a| a.iter().map(|t| t.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default();
                (
                    d["line"].as_u64().unwrap(),
                    d["code"].as_str().unwrap().to_string(),
                    targets,
                )
            })
            .collect()
    };
    let v = run("intel_gpu_pvc,intel_gpu_dg1,nvidia_gpu_sm_80");
    let f = found(&v);
    // pvc has fp64: its double is fine, and dg1 never compiles it. dg1's own double is
    // found for dg1 alone; the decorated kernel's double exists in the CUDA compile only.
    assert_eq!(
        f,
        [
            (
                13,
                "target-unsupported-aspect".to_string(),
                vec!["intel_gpu_dg1".to_string()]
            ),
            (
                21,
                "aspect-mismatch".to_string(),
                vec!["nvidia_gpu_sm_80".to_string()]
            ),
        ],
        "{v:#}"
    );
    let msgs: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        msgs[1].ends_with("(in the device compile for 'nvidia_gpu_sm_80')"),
        "{msgs:?}"
    );
    // Before per-target compiles every target's macro was defined at once: pvc's double
    // made a dg1 finding.
    assert!(!msgs[0].contains("pvc_only"), "{msgs:?}");
    // With one target there is one compile, and its macros decide.
    let v = run("intel_gpu_dg1");
    assert_eq!(
        found(&v),
        [(
            13,
            "target-unsupported-aspect".to_string(),
            vec!["intel_gpu_dg1".to_string()]
        )],
        "{v:#}"
    );
}

/// `-include FILE` is read before the file's first line, as the compiler does.
#[test]
fn forced_includes_define_macros_for_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    };
    w("cfg/prec.h", "#pragma once\n#define REAL double\n");
    w(
        "src/main.cpp",
        "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, float* b) {\n  q.single_task([=] { REAL x = b[0]; b[0] = x; });\n}\n",
    );
    let d = dir.path().display().to_string();
    let commands = |extra: &str| {
        format!(
            r#"[{{"directory": "{d}", "file": "src/main.cpp", "arguments": ["icpx", "-fsycl", "-fsycl-targets=intel_gpu_dg1"{extra}, "-c", "src/main.cpp"]}}]"#
        )
    };
    let lines = |v: serde_json::Value| -> Vec<u64> {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["line"].as_u64().unwrap())
            .collect()
    };
    w(
        "compile_commands.json",
        &commands(r#", "-include", "cfg/prec.h""#),
    );
    let args = ["check", &*d, "--format", "json", "--no-cache"];
    assert_eq!(lines(json_out(&args, 1)), [3]);
    // Without it REAL is an unknown name: nothing to find.
    w("compile_commands.json", &commands(""));
    assert_eq!(lines(json_out(&args, 0)), Vec::<u64>::new());
}

/// A header included inside a kernel is compiled there: its doubles are the kernel's.
#[test]
fn an_include_inside_a_kernel_is_part_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w("constants.h", "const double scale = 0.5;\n");
    w(
        "k.cpp",
        "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, float* b) {\n  q.single_task([=] {\n    #include \"constants.h\"\n    b[0] = b[0] * scale;\n  });\n}\n",
    );
    let v = check_for(dir.path(), "intel_gpu_dg1", 1);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "target-unsupported-aspect", "{v:#}");
    let last = d["chain"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["line"], 4, "{v:#}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .ends_with("in the text of #include \"constants.h\""),
        "{v:#}"
    );
}

/// A header is compiled with what its translation unit defined before including it (HeCBench's
/// minisweep: `utils.h` defines `P double`, then `main.cpp` includes `kernels.cpp`).
#[test]
fn a_header_sees_the_macros_its_includer_defined_first() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w("utils.h", "#pragma once\n#define P double\n");
    w(
        "kernels.cpp",
        "void run(sycl::queue& q, float* b) {\n  q.single_task([=] { P x = b[0]; b[0] = x; });\n}\n",
    );
    w(
        "main.cpp",
        "#include <sycl/sycl.hpp>\n#include \"utils.h\"\n#include \"kernels.cpp\"\nint main() {}\n",
    );
    let v = check_for(dir.path(), "intel_gpu_dg1", 1);
    let d = &v["diagnostics"][0];
    assert!(
        d["file"].as_str().unwrap().ends_with("kernels.cpp"),
        "{v:#}"
    );
    // `x`, a double by `P`.
    assert_eq!(
        (
            d["chain"][0]["line"].as_u64(),
            d["chain"][0]["column"].as_u64()
        ),
        (Some(2), Some(25))
    );
}

/// A guarded header included by two headers is compiled where it is first included; compiled
/// through the other one, its guard must not empty it (HeCBench segsort's own `int log2(int)`
/// was lost, and `log2(int)` taken for the double one).
#[test]
fn a_guarded_header_reached_twice_keeps_its_contents() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w(
        "common.h",
        "#ifndef COMMON_H\n#define COMMON_H\ninline int log2(int u) { return u > 1 ? 1 + log2(u / 2) : 0; }\n#endif\n",
    );
    w("a.h", "#include \"common.h\"\ninline void run_a(sycl::queue& q, int* p) {\n  q.single_task([=] { p[0] = log2(p[1]); });\n}\n");
    w("z.h", "#include \"common.h\"\ninline void run_z(sycl::queue& q, int* p) {\n  q.single_task([=] { p[0] = log2(p[1]); });\n}\n");
    w(
        "main.cpp",
        "#include <sycl/sycl.hpp>\n#include \"z.h\"\n#include \"a.h\"\nint main() {}\n",
    );
    let v = check_for(dir.path(), "intel_gpu_dg1", 0);
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0, "{v:#}");
    assert_eq!(v["kernels"].as_array().unwrap().len(), 2, "{v:#}");
}

/// `report ARGS`'s standard output; it must exit 0.
fn report_out(args: &[&str]) -> Vec<u8> {
    bin()
        .arg("report")
        .args(args)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone()
}

/// `report`: every kernel × every target, with the reason of each cell that is not
/// compatible; a kernel a target's compile does not compile is `not_compiled` there.
#[test]
fn report_gives_the_kernel_target_matrix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        r#"#include <sycl/sycl.hpp>
void run(sycl::queue& q, double* d, float* f) {
  q.single_task([=] { d[0] = d[1] * 2; });
  q.parallel_for(sycl::nd_range<1>(8, 8), [=](sycl::nd_item<1> it) [[sycl::reqd_sub_group_size(8)]] { f[0] = 1; });
#ifdef __NVPTX__
  q.single_task([=] { f[1] = 2; });
#endif
}
"#,
    )
    .unwrap();
    let out = report_out(&[
        dir.path().to_str().unwrap(),
        "--targets",
        "intel_gpu_dg1,nvidia_gpu_sm_80,spir64",
        "--format",
        "json",
        "--no-cache",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        v["targets"],
        serde_json::json!(["intel_gpu_dg1", "nvidia_gpu_sm_80", "spir64"])
    );
    let status = |k: usize, t: &str| v["kernels"][k]["targets"][t]["status"].clone();
    let lines: Vec<u64> = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 4, 6], "{v:#}");
    // The double: not in dg1's image, fine on sm_80, a JIT spir64 device may lack fp64.
    assert_eq!(status(0, "intel_gpu_dg1"), "not_in_image");
    assert_eq!(
        v["kernels"][0]["targets"]["intel_gpu_dg1"]["reasons"][0]["aspect"],
        "fp64"
    );
    let chain = &v["kernels"][0]["targets"]["intel_gpu_dg1"]["reasons"][0]["chain"];
    assert_eq!(chain[0]["line"], 3, "{v:#}");
    assert_eq!(status(0, "nvidia_gpu_sm_80"), "compatible");
    assert_eq!(status(0, "spir64"), "may_fail");
    // Sub-group size 8: dg1 has it (8, 16, 32), sm_80 only 32.
    assert_eq!(status(1, "intel_gpu_dg1"), "compatible");
    assert_eq!(status(1, "nvidia_gpu_sm_80"), "not_in_image");
    assert_eq!(
        v["kernels"][1]["targets"]["nvidia_gpu_sm_80"]["reasons"][0]["sub_group_size"],
        8
    );
    // Compiled for CUDA only.
    assert_eq!(status(2, "intel_gpu_dg1"), "not_compiled");
    assert_eq!(status(2, "nvidia_gpu_sm_80"), "compatible");
    assert_eq!(v["summary"]["intel_gpu_dg1"]["not_in_image"], 1);
    assert_eq!(v["summary"]["intel_gpu_dg1"]["aspects"]["fp64"], 1);
    // Markdown, for a pull request: the same cells.
    let md = report_out(&[
        dir.path().to_str().unwrap(),
        "--targets",
        "intel_gpu_dg1,nvidia_gpu_sm_80",
        "--no-cache",
    ]);
    let md = String::from_utf8(md).unwrap();
    assert!(
        md.contains("- **intel_gpu_dg1**: 1 of 3 kernels run; 1 not in its image (1 use fp64)"),
        "{md}"
    );
    assert!(md.contains("| ❌ fp64 | ✅ |"), "{md}");
    assert!(md.contains("| — | ✅ |"), "{md}");
}

/// Uses behind `if_device_has` are shown as guarded, never as a reason a kernel fails.
#[test]
fn report_shows_guarded_uses_as_such() {
    let out = report_out(&[
        "tests/fixtures/if_device_has.cpp",
        "--targets",
        "intel_gpu_dg1",
        "--format",
        "json",
        "--no-cache",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let k = &v["kernels"][0];
    assert_eq!(k["line"], 9, "{v:#}");
    assert_eq!(k["guarded"], serde_json::json!(["fp16", "fp64"]), "{v:#}");
    assert_eq!(k["targets"]["intel_gpu_dg1"]["status"], "compatible");
    assert_eq!(
        v["kernels"][2]["targets"]["intel_gpu_dg1"]["status"],
        "not_in_image"
    );
}

/// A warm `check` whose files all come from the persisted index leaves the index file as it
/// is (writing it again was a third of a warm run); an edited file makes it written again, and
/// both runs give the findings of a cold one.
#[test]
fn a_warm_check_writes_the_index_only_when_a_file_changed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let kernel = src.join("k.cpp");
    let text = "void run(sycl::queue &q, double *d) {\n\
                q.single_task([=]() [[sycl::device_has()]] { d[0] = 1.0; });\n}\n";
    std::fs::write(&kernel, text).unwrap();
    std::fs::write(src.join("other.cpp"), "int other() { return 1; }\n").unwrap();
    let cache = dir.path().join("cache");
    let run = || {
        let out = bin()
            .args(["check", src.to_str().unwrap(), "--format", "json"])
            .env("XDG_CACHE_HOME", &cache)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["diagnostics"].as_array().unwrap().len()
    };
    let index = || {
        let mut files: Vec<_> = std::fs::read_dir(cache.join("sycl-analyzer"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "idx"))
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let f = files.remove(0);
        (
            f.clone(),
            std::fs::metadata(&f).unwrap().modified().unwrap(),
        )
    };
    assert_eq!(run(), 1);
    let (path, written) = index();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(run(), 1);
    assert_eq!(
        index(),
        (path.clone(), written),
        "an unchanged workspace rewrote the index"
    );
    std::fs::write(
        &kernel,
        format!("{text}void more(float *f) {{ f[0] = 2.0f; }}\n"),
    )
    .unwrap();
    assert_eq!(run(), 1);
    assert!(
        index().1 > written,
        "an edited file did not reach the index"
    );
}

/// A warm `check` of an unchanged workspace answers from the persisted report, exactly as a cold
/// one; anything the findings depend on (a file's text, a header it includes, the targets)
/// makes it analyse again, and a damaged report file is no answer.
#[test]
fn a_warm_check_reuses_the_report_only_while_nothing_changed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let kernel = src.join("k.cpp");
    let text = "#include \"real.h\"\nvoid run(sycl::queue &q, real *d) {\n\
                q.single_task([=]() [[sycl::device_has()]] { d[0] = 1; });\n}\n";
    std::fs::write(&kernel, text).unwrap();
    let header = src.join("real.h");
    std::fs::write(&header, "#define real double\n").unwrap();
    let cache = dir.path().join("cache");
    let run = |targets: &str| {
        let out = bin()
            .args(["check", src.to_str().unwrap(), "--format", "json"])
            .args(["--targets", targets])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let cold = |targets: &str| {
        let out = bin()
            .args([
                "check",
                src.to_str().unwrap(),
                "--format",
                "json",
                "--no-cache",
            ])
            .args(["--targets", targets])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run("intel_gpu_dg1");
    assert!(first.contains("\"aspect\": \"fp64\""), "{first}");
    let report = std::fs::read_dir(cache.join("sycl-analyzer"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "report"))
        .expect("a report file");
    let saved = std::fs::metadata(&report).unwrap().modified().unwrap();
    assert_eq!(run("intel_gpu_dg1"), first);
    assert_eq!(
        std::fs::metadata(&report).unwrap().modified().unwrap(),
        saved,
        "a warm run of an unchanged workspace analysed again"
    );
    // The header changes the kernel's types: no finding any more.
    std::fs::write(&header, "#define real float\n").unwrap();
    let after = run("intel_gpu_dg1");
    assert!(!after.contains("fp64"), "{after}");
    assert_eq!(after, cold("intel_gpu_dg1"));
    std::fs::write(&header, "#define real double\n").unwrap();
    assert_eq!(run("intel_gpu_dg1"), first);
    // Another target: other findings (a Nvidia GPU has fp64).
    assert_eq!(run("nvidia_gpu_sm_80"), cold("nvidia_gpu_sm_80"));
    assert_ne!(first, cold("nvidia_gpu_sm_80"));
    // A damaged report is read as none.
    run("intel_gpu_dg1");
    let bytes = std::fs::read(&report).unwrap();
    std::fs::write(&report, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(run("intel_gpu_dg1"), first);
}

/// A header read by a warm `check` from the index is read again when a source file was added:
/// the new unit may compile it otherwise (a `#define` before its `#include`).
#[test]
fn a_warm_check_reads_a_header_again_for_a_new_unit() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let w = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap();
    w(
        "kern.h",
        "#pragma once\n#ifdef USE_DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\n\
         inline void run(sycl::queue &q, real *b) {\n  q.single_task([=] { b[0] = b[0] * 2; });\n}\n",
    );
    w("a.cpp", "#include \"kern.h\"\nint main() { return 0; }\n");
    let cache = dir.path().join("cache");
    let run = |cached: bool| {
        let mut cmd = bin();
        cmd.args(["check", src.to_str().unwrap(), "--format", "json"])
            .args(["--targets", "intel_gpu_dg1"])
            .env("XDG_CACHE_HOME", &cache);
        if !cached {
            cmd.arg("--no-cache");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    assert!(!run(true).contains("fp64"));
    w(
        "b.cpp",
        "#define USE_DOUBLE\n#include \"kern.h\"\nint main() { return 0; }\n",
    );
    let warm = run(true);
    assert!(warm.contains("\"aspect\": \"fp64\""), "{warm}");
    assert_eq!(warm, run(false));
}

/// A warm `check` keeps no texts of the files the index answers for, but still finds what
/// they include that is not C++ (HeCBench's `#include "kernel.sycl"`): a changed file beside
/// them is analysed with their facts as a cold run would (a first version of the index that
/// let those texts go lost the fragments, and every such file was parsed again without them).
#[test]
fn a_warm_check_after_an_edit_still_reads_fragments() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let w = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap();
    w("scale.sycl", "b[0] = b[0] * 0.5;\n");
    w(
        "k.cpp",
        "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, double* b) {\n  q.single_task([=] {\n    #include \"scale.sycl\"\n  });\n}\n",
    );
    w("other.cpp", "void other() {}\n");
    let cache = dir.path().join("cache");
    let run = |extra: &[&str]| {
        let out = bin()
            .args(["check", src.to_str().unwrap(), "--format", "json"])
            .args(["--targets", "intel_gpu_dg1"])
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run(&[]);
    assert!(first.contains("scale.sycl"), "{first}");
    w("other.cpp", "void other() { int x = 1; }\n");
    let warm = run(&[]);
    assert_eq!(warm, run(&["--no-cache"]));
    assert_eq!(warm, first);
}

/// Each instantiation of a kernel template that uses an aspect is a finding naming the
/// instance; a kernel kept in the image after -O2 narrowing (`x * 0.5` on a float) is none.
#[test]
fn findings_name_the_instance_and_follow_the_optimised_image() {
    let v = json_out(
        &[
            "check",
            "tests/fixtures/kernel_instances_named.cpp",
            "tests/fixtures/optimised_images_narrow_float_constants.cpp",
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "json",
            "--no-cache",
        ],
        1,
    );
    let kernels: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["file"]
                .as_str()
                .unwrap()
                .ends_with("kernel_instances_named.cpp")
        })
        .map(|d| {
            (
                d["function"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(kernels.len(), 1, "one finding for the lambda: {kernels:?}");
    assert_eq!(
        kernels[0].0,
        "lambda at tests/fixtures/kernel_instances_named.cpp:8:37 in fill<double>(sycl::queue&, double*)"
    );
    assert!(
        kernels[0].1.ends_with(
            "(also in 1 other instance of the template: fill<long double>(sycl::queue&, long double*))"
        ),
        "{kernels:?}"
    );
    let narrowed = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "target-unsupported-aspect" && d["line"] == 12)
        .filter(|d| d["file"].as_str().unwrap().contains("optimised_images"))
        .count();
    assert_eq!(narrowed, 0, "x[0] * 0.5 is a float multiply at -O2");
}

/// A oneMKL call on double data runs the library's fp64 kernel: reported at the call for a
/// target without fp64, naming the routine and the element type; a half one for a configured
/// target without fp16; nothing for the implicit spir64.
#[test]
fn library_kernel_on_double_data_for_a_target_without_fp64() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("solve.cpp"),
        "#include <sycl/sycl.hpp>\n\
         #include <oneapi/mkl.hpp>\n\
         void solve(sycl::queue &q, std::int64_t n, double *a, sycl::half *h, float *c) {\n\
         \x20 auto t = oneapi::mkl::transpose::nontrans;\n\
         \x20 oneapi::mkl::blas::column_major::gemm(q, t, t, n, n, n, 1.0, a, n, a, n, 0.0, a, n);\n\
         \x20 oneapi::mkl::blas::column_major::gemm(q, t, t, n, n, n, 1.0f, h, n, h, n, 0.0f, c, n);\n\
         }\n",
    )
    .unwrap();
    let v = check_for(dir.path(), "intel_gpu_dg1", 1);
    let found = v["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d["code"], "library-kernel-unsupported-aspect");
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(5), Some(3))
    );
    assert_eq!(d["aspect"], "fp64");
    assert_eq!(d["function"], "oneapi::mkl::blas::column_major::gemm");
    assert_eq!(d["targets"], serde_json::json!(["intel_gpu_dg1"]));
    assert_eq!(d["chain"][0]["use"], "double");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("'oneapi::mkl::blas::column_major::gemm' on 'double' data")
            && message.contains("aspect 'fp64'")
            && message.contains("target 'intel_gpu_dg1'"),
        "{message}"
    );

    let config = dir.path().join("devices.yaml");
    std::fs::write(
        &config,
        "no_half_gpu:\n  aspects: [gpu, fp64]\n  may_support_other_aspects: false\n",
    )
    .unwrap();
    let v = json_out(
        &[
            "--config",
            config.to_str().unwrap(),
            "check",
            dir.path().to_str().unwrap(),
            "--targets",
            "no_half_gpu",
            "--format",
            "json",
            "--no-cache",
        ],
        1,
    );
    let found = v["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["line"], 6);
    assert_eq!(found[0]["aspect"], "fp16");
    assert_eq!(found[0]["chain"][0]["use"], "sycl::half");

    let v = json_out(
        &[
            "check",
            dir.path().to_str().unwrap(),
            "--format",
            "json",
            "--no-cache",
        ],
        0,
    );
    assert_eq!(v["diagnostics"], serde_json::json!([]));
}

/// A database of `acpp` commands: the devices of `--acpp-targets` are the targets, each pass
/// preprocesses with its own macros, and AdaptiveCpp's rules hold: no `device_has` is read
/// (the attribute's mismatch is no finding), and a target finding says the kernel is compiled
/// for the device all the same. The same sources under DPC++ keep DPC++'s findings.
#[test]
fn adaptivecpp_compile_commands_name_the_targets_and_their_passes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        r#"#include <sycl/sycl.hpp>
void device_pass_only(sycl::queue& q, float* b) {
  q.single_task([=] {
#ifdef __SYCL_DEVICE_ONLY__
    double t = b[0];
    b[0] = t;
#endif
  });
}
void cuda_pass_only(sycl::queue& q, float* b) {
  q.single_task([=] {
#if defined(__CUDA_ARCH__) && defined(__ACPP__)
    double t = b[1];
    b[1] = t;
#endif
  });
}
void single_source_only(sycl::queue& q, float* b) {
  q.single_task([=] {
#ifdef __SYCL_SINGLE_SOURCE__
    double t = b[2];
    b[2] = t;
#endif
  });
}
void decorated(sycl::queue& q, float* b) {
  q.single_task([=]() [[sycl::device_has()]] {
    b[3] = b[3] * 2.0;
  });
}
void device_branch(sycl::queue& q, float* b) {
  q.single_task([=] {
    __acpp_if_target_device(double t = b[4]; b[4] = t;)
  });
}
void host_branch(sycl::queue& q, float* b) {
  q.single_task([=] {
    __acpp_if_target_host(double t = b[5]; b[5] = t;)
  });
}
"#,
    )
    .unwrap();
    let found = |command: &str, code: i32| -> Vec<(u64, String, Vec<String>, String)> {
        write_database(dir.path(), command);
        let v = json_out(&["check", root, "--format", "json", "--no-cache"], code);
        // Findings, then the problems that refused the run (an invalid target).
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v["problems"].as_array().unwrap())
            .map(|d| {
                let targets = d["targets"]
                    .as_array()
                    .map(|a| a.iter().map(|t| t.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default();
                (
                    d["line"].as_u64().unwrap(),
                    d["code"].as_str().unwrap().to_string(),
                    targets,
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // gfx1200 lacks fp64: its device pass compiles the device-only double; the CUDA-only one
    // is in no pass; the single-source one is in the host pass only (omp: the host CPU has
    // fp64; generic: no concrete device); `2.0 * float` is narrowed to float at -O2.
    let f = found(
        r#"/opt/acpp/bin/acpp --acpp-targets="omp;hip:gfx1200;generic" -O2 -c k.cpp"#,
        1,
    );
    // `__acpp_if_target_device(...)` is code of the device passes only, and
    // `__acpp_if_target_host(...)` of the host pass only (backend.hpp).
    assert_eq!(f.iter().map(|d| d.0).collect::<Vec<_>>(), [3, 32], "{f:#?}");
    assert_eq!(f[0].1, "target-unsupported-aspect");
    assert_eq!(f[0].2, ["amd_gpu_gfx1200"]);
    assert_eq!(f[1].2, ["amd_gpu_gfx1200"]);
    assert!(
        f[0].3
            .contains("AdaptiveCpp compiles it for that device all the same"),
        "{}",
        f[0].3
    );
    // The kernel × target report: AdaptiveCpp leaves no kernel out of gfx1200's code, so the
    // cell is "may fail", not "not in image"; the decorated kernel's empty `device_has` is
    // not read.
    let out = bin()
        .args(["report", root, "--format", "json"])
        .assert()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let cells: Vec<(u64, String)> = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["line"].as_u64().unwrap(),
                k["targets"]["amd_gpu_gfx1200"]["status"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [
            (3, "may_fail".to_string()),
            (11, "compatible".to_string()),
            (19, "compatible".to_string()),
            (27, "compatible".to_string()),
            (32, "may_fail".to_string()),
            (37, "compatible".to_string())
        ],
        "{v:#}"
    );
    // omp and generic alone: the double under `__SYCL_SINGLE_SOURCE__` runs on the host CPU,
    // which has fp64, and generic names no device; nothing to say.
    assert_eq!(
        found(r#"acpp --acpp-targets="omp;generic" -c k.cpp"#, 0),
        []
    );
    // What acpp refuses is an error with did-you-mean, not an analysis for other targets.
    let f = found("acpp --acpp-targets=hip:gfx120 -c k.cpp", 2);
    assert_eq!(f[0].1, "invalid-target");
    assert!(f[0].3.contains("did you mean"), "{}", f[0].3);
    // The same file under DPC++: device_has is read.
    let f = found("icpx -fsycl -fsycl-targets=amd_gpu_gfx1200 -c k.cpp", 1);
    assert!(f.iter().any(|d| d.1 == "aspect-mismatch"), "{f:#?}");
}

/// DPC++ 2023 and older counted a `double *` as a use of fp64 (typed pointers): the release
/// comes from the compiler path of compile_commands.json, `--dpcpp` overrides it, and the
/// persisted report of one release is never replayed for another.
#[test]
fn the_dpcpp_release_decides_whether_a_double_pointer_uses_fp64() {
    let dir = tempfile::tempdir().unwrap();
    let src = "#include <sycl/sycl.hpp>\n\
               void run(sycl::queue &q, double *d, int *out) {\n\
               q.single_task([=]() [[sycl::device_has()]] { out[0] = d != nullptr; });\n}\n";
    std::fs::write(dir.path().join("k.cpp"), src).unwrap();
    let db = serde_json::json!([{
        "directory": dir.path(),
        "file": "k.cpp",
        "command": "/opt/intel/oneapi/compiler/2023.2.1/linux/bin/icpx -fsycl -c k.cpp",
    }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    let cache = dir.path().join("cache");
    let run = |extra: &[&str], code: i32| {
        let out = bin()
            .current_dir(dir.path())
            .args(["check", ".", "--format", "json"])
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let old = run(&[], 1);
    assert_eq!(old.len(), 1, "{old:?}");
    assert!(old[0].contains("fp64"), "{old:?}");
    assert_eq!(run(&["--dpcpp", "2024.0"], 0), Vec::<String>::new());
    assert_eq!(run(&["--dpcpp", "current"], 0), Vec::<String>::new());
    assert_eq!(run(&["--dpcpp", "2023.2"], 1), old);
    bin()
        .current_dir(dir.path())
        .args(["check", ".", "--dpcpp", "23"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'23' is not a DPC++ release"));
}

/// DPC++ 2023 and older recorded an image's aspects before optimisation only (no intel/llvm
/// PR #8681): a double LLVM narrows back to float still kept the kernel out of a target without
/// fp64. The release comes from the compile database's compiler path, `--dpcpp` overrides it,
/// and one release's persisted report is not replayed for another.
#[test]
fn the_dpcpp_release_decides_whether_a_narrowed_double_counts() {
    let dir = tempfile::tempdir().unwrap();
    let src = "#include <sycl/sycl.hpp>\n\
               using scalar = float;\n\
               void run(sycl::queue &q, scalar *p) {\n\
               q.single_task([=] { scalar a = p[0]; scalar s2 = 1. + a * a; p[1] = s2; });\n\
               q.single_task([=] { p[1] = 1.f + p[0] * p[0]; });\n}\n";
    std::fs::write(dir.path().join("k.cpp"), src).unwrap();
    let db = serde_json::json!([{
        "directory": dir.path(),
        "file": "k.cpp",
        "command": "/opt/intel/oneapi/compiler/2023.0.0/linux/bin/icpx -fsycl \
                    -fsycl-targets=intel_gpu_adl_p -c k.cpp",
    }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    let cache = dir.path().join("cache");
    let run = |extra: &[&str]| {
        let out = bin()
            .current_dir(dir.path())
            .args(["check", ".", "--format", "json"])
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
            .stdout;
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let code = d["code"].as_str().unwrap_or_default();
                let line = d["line"].as_u64().unwrap_or_default();
                format!("{code}@{line}")
            })
            .collect::<Vec<_>>()
    };
    let old = run(&[]);
    assert_eq!(old.len(), 1, "{old:?}");
    assert_eq!(old, ["target-unsupported-aspect@4"]);
    assert_eq!(run(&["--dpcpp", "2024.0"]), Vec::<String>::new());
    assert_eq!(run(&["--dpcpp", "2023.2"]), old);
}
