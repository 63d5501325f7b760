//! What `check` says when it cannot analyse, through the real binary: a refused target list in
//! each output format and where it was written, and a path set with no source in it.

use assert_cmd::Command;
use predicates::prelude::*;

fn check(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("sycl-analyzer").unwrap();
    c.current_dir(dir).args(["check", "--no-cache"]);
    c
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/main.cpp"),
        "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, double *p) {\n  q.single_task([=] { p[0] = p[1] * 0.1; });\n}\n",
    )
    .unwrap();
    dir
}

/// A code-scanning upload reads stdout as SARIF: a refused target list is a SARIF result too.
#[test]
fn a_refused_target_list_is_sarif_under_format_sarif() {
    let dir = project();
    let out = check(dir.path())
        .args(["--targets", "nvidia_gpu_sm80", "--format", "sarif", "."])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let sarif: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(sarif["version"], "2.1.0", "{sarif}");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "invalid-target", "{sarif}");
    assert!(result["message"]["text"]
        .as_str()
        .unwrap()
        .contains("nvidia_gpu_sm_80"));
    // An option's value is no artifact: no location rather than a file named `--targets`.
    assert!(result.get("locations").is_none(), "{sarif}");
    assert!(!sarif.to_string().contains("\"--targets\""), "{sarif}");
    // JSON keeps its diagnostics shape.
    let out = check(dir.path())
        .args(["--targets", "nvidia_gpu_sm80", "--format", "json", "."])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "invalid-target", "{json}");
}

/// A bad name in compile_commands.json is shown in that file, where the entry spells it.
#[test]
fn a_bad_target_of_the_database_is_located_in_the_database() {
    let dir = project();
    let db = serde_json::json!([{
        "directory": dir.path().display().to_string(),
        "file": "src/main.cpp",
        "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg7 -c src/main.cpp",
    }]);
    let text = serde_json::to_string_pretty(&db).unwrap();
    std::fs::write(dir.path().join("compile_commands.json"), &text).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("intel_gpu_dg7"))
        .unwrap()
        + 1;
    let column = text
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("intel_gpu_dg7")
        .unwrap()
        + 1;
    check(dir.path())
        .arg(".")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "compile_commands.json:{line}:{column}: error[invalid-target]"
        )))
        .stderr(predicate::str::contains("--targets").not());
}

/// An empty directory or a path set without sources is an error, not a pass on nothing.
#[test]
fn a_path_set_without_sources_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("empty/notes.txt"), "no code here\n").unwrap();
    check(dir.path())
        .arg("empty")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no C++ source file in 'empty'"));
    check(dir.path())
        .arg("missing")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read 'missing'"));
}

/// `--connect` is for `query`, `check` and `watch`: another command refuses it rather than
/// ignore it.
#[test]
fn connect_outside_query_is_refused() {
    let dir = project();
    for args in [
        &["report", "--connect", "/tmp/d.sock"][..],
        &["targets", "--connect"][..],
    ] {
        Command::cargo_bin("sycl-analyzer")
            .unwrap()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "--connect applies to `query`, `check`, `watch` and `lsp` (without --listen) only",
            ));
    }
}
