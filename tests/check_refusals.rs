//! What `check` says when it cannot analyse, through the real binary: every input problem
//! (a broken device config, an invalid or empty target list, a malformed compile database
//! entry, no source, an unreachable daemon) exits 2 with the problem in every output format,
//! located where it was written.

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

/// The SARIF of a run that could not answer: no result, the problems as the invocation's
/// notifications, `executionSuccessful` false; returns the notifications.
fn refused_sarif(out: &[u8]) -> Vec<serde_json::Value> {
    let sarif: serde_json::Value = serde_json::from_slice(out).unwrap();
    assert_eq!(sarif["version"], "2.1.0", "{sarif}");
    let run = &sarif["runs"][0];
    assert_eq!(run["results"], serde_json::json!([]), "{sarif}");
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{sarif}");
    assert_eq!(invocation["exitCode"], 2, "{sarif}");
    let notes = invocation["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!notes.is_empty(), "{sarif}");
    for n in &notes {
        // Each names its kind among the driver's notification descriptors.
        let i = n["descriptor"]["index"].as_u64().unwrap() as usize;
        assert_eq!(
            run["tool"]["driver"]["notifications"][i]["id"], n["descriptor"]["id"],
            "{sarif}"
        );
    }
    notes
}

/// `check --format F` in `dir` with `args`, expecting `code`: its standard output.
fn output_of(dir: &std::path::Path, args: &[&str], format: &str, code: i32) -> Vec<u8> {
    check(dir)
        .args(args)
        .args(["--format", format])
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone()
}

/// A code-scanning upload reads stdout as SARIF: a refused target list is a valid SARIF whose
/// notification says why, and the run exits 2 (not 1, "findings, upload them").
#[test]
fn a_refused_target_list_is_a_sarif_notification_and_exit_2() {
    let dir = project();
    let args = ["--targets", "nvidia_gpu_sm80", "."];
    let notes = refused_sarif(&output_of(dir.path(), &args, "sarif", 2));
    assert_eq!(notes[0]["descriptor"]["id"], "invalid-target");
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("nvidia_gpu_sm_80"));
    // An option's value is no artifact: no location rather than a file named `--targets`.
    assert!(notes[0].get("locations").is_none(), "{notes:?}");
    // JSON: the problem in `problems`, no finding.
    let json: serde_json::Value =
        serde_json::from_slice(&output_of(dir.path(), &args, "json", 2)).unwrap();
    assert_eq!(json["diagnostics"], serde_json::json!([]), "{json}");
    assert_eq!(json["problems"][0]["code"], "invalid-target", "{json}");
    assert_eq!(json["problems"][0]["file"], "--targets", "{json}");
    check(dir.path()).args(args).assert().code(2).stderr(
        predicate::str::contains("error[invalid-target]")
            .and(predicate::str::contains("nothing was checked")),
    );
}

/// A device-config file that is not YAML is an error the pipeline sees: exit 2, the error in
/// every output, and no answer from the embedded table in its place. Warnings alone keep the
/// findings' status and are still reported.
#[test]
fn a_broken_device_config_stops_the_run_in_every_output() {
    let dir = project();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "intel_gpu_x: {aspects: [fp64\n",
    )
    .unwrap();
    let args = ["--config", "bad.yaml", "--targets", "intel_gpu_dg1", "."];
    let notes = refused_sarif(&output_of(dir.path(), &args, "sarif", 2));
    assert_eq!(notes[0]["descriptor"]["id"], "yaml-syntax", "{notes:?}");
    let uri = &notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, "bad.yaml", "{notes:?}");
    let json: serde_json::Value =
        serde_json::from_slice(&output_of(dir.path(), &args, "json", 2)).unwrap();
    assert_eq!(json["problems"][0]["code"], "yaml-syntax", "{json}");
    assert_eq!(json["diagnostics"], serde_json::json!([]), "{json}");
    check(dir.path())
        .args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.yaml:2:1: error[yaml-syntax]"))
        .stdout(predicate::str::is_empty());
    // The same file named by the database's -fsycl-device-config-file=.
    let db = serde_json::json!([{
        "directory": dir.path().display().to_string(),
        "file": "src/main.cpp",
        "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -fsycl-device-config-file=bad.yaml -c src/main.cpp",
    }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    let notes = refused_sarif(&output_of(dir.path(), &["."], "sarif", 2));
    assert_eq!(notes[0]["descriptor"]["id"], "yaml-syntax", "{notes:?}");
    std::fs::remove_file(dir.path().join("compile_commands.json")).unwrap();
    // An entry dropped for an unknown aspect, then named as a target: stopped at the entry.
    std::fs::write(
        dir.path().join("dropped.yaml"),
        "my_gpu:\n  aspects: [gpu, fp46]\n",
    )
    .unwrap();
    let args = ["--config", "dropped.yaml", "--targets", "my_gpu", "."];
    let notes = refused_sarif(&output_of(dir.path(), &args, "sarif", 2));
    assert_eq!(notes[0]["descriptor"]["id"], "unknown-aspect", "{notes:?}");
    // A warning (an unknown key) does not stop the run: findings, exit 1, the warning with them.
    std::fs::write(
        dir.path().join("warn.yaml"),
        "my_gpu:\n  aspects: [gpu]\n  colour: blue\n",
    )
    .unwrap();
    let args = ["--config", "warn.yaml", "--targets", "my_gpu", "."];
    let sarif: serde_json::Value =
        serde_json::from_slice(&output_of(dir.path(), &args, "sarif", 1)).unwrap();
    let run = &sarif["runs"][0];
    assert_eq!(
        run["invocations"][0]["executionSuccessful"], true,
        "{sarif}"
    );
    assert_eq!(
        run["invocations"][0]["toolExecutionNotifications"][0]["descriptor"]["id"], "unknown-key",
        "{sarif}"
    );
    assert_eq!(run["results"][0]["ruleId"], "target-unsupported-aspect");
    for r in run["results"].as_array().unwrap() {
        assert!(!r["locations"].as_array().unwrap().is_empty(), "{r}");
    }
}

/// `--targets ""` (an unset CI variable) is refused as the driver refuses `-fsycl-targets=`,
/// instead of quietly checking the implicit spir64 over the database's targets; so is an empty
/// `-fsycl-targets=` in the database, and an empty list given to a query.
#[test]
fn an_empty_target_list_is_refused_not_read_as_spir64() {
    let dir = project();
    let db = serde_json::json!([{
        "directory": dir.path().display().to_string(),
        "file": "src/main.cpp",
        "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp",
    }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    // The database's target finds the double.
    output_of(dir.path(), &["."], "json", 1);
    for empty in ["", ","] {
        let notes = refused_sarif(&output_of(
            dir.path(),
            &["--targets", empty, "."],
            "sarif",
            2,
        ));
        assert_eq!(notes[0]["descriptor"]["id"], "empty-targets", "{notes:?}");
    }
    let db = serde_json::json!([{
        "directory": dir.path().display().to_string(),
        "file": "src/main.cpp",
        "command": "icpx -fsycl -fsycl-targets= -c src/main.cpp",
    }]);
    std::fs::write(dir.path().join("compile_commands.json"), db.to_string()).unwrap();
    let notes = refused_sarif(&output_of(dir.path(), &["."], "sarif", 2));
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("'-fsycl-targets='"));
    for query in ["macros", "traits"] {
        Command::cargo_bin("sycl-analyzer")
            .unwrap()
            .args(["query", query, "--targets", ""])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("error[empty-targets]"));
    }
    // Absent, it is the implicit spir64.
    Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .args(["query", "macros", "--format", "flags"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__",
        ));
}

/// A compile database entry without `directory` or a command is refused where it is written,
/// as clangd refuses it, instead of being skipped into a pass for spir64.
#[test]
fn a_malformed_compile_database_entry_is_refused_with_its_place() {
    let dir = project();
    let root = dir.path().display().to_string();
    let cases = [
        (
            serde_json::json!([{"file": "src/main.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp"}]),
            "entry 1 of 1",
            "\"directory\"",
        ),
        (
            serde_json::json!([
                {"directory": root, "file": "src/main.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp"},
                {"directory": root, "file": "src/other.cpp"},
            ]),
            "entry 2 of 2",
            "\"command\"",
        ),
    ];
    for (db, which, lacks) in cases {
        let text = serde_json::to_string_pretty(&db).unwrap();
        std::fs::write(dir.path().join("compile_commands.json"), &text).unwrap();
        let notes = refused_sarif(&output_of(dir.path(), &["."], "sarif", 2));
        let n = &notes[0];
        assert_eq!(n["descriptor"]["id"], "invalid-compile-database", "{n}");
        let message = n["message"]["text"].as_str().unwrap();
        assert!(
            message.contains(which) && message.contains(lacks),
            "{message}"
        );
        // Located at the entry's opening brace.
        let region = &n["locations"][0]["physicalLocation"]["region"];
        let index: usize = which[6..7].parse().unwrap();
        let line = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start() == "{")
            .nth(index - 1)
            .unwrap()
            .0
            + 1;
        assert_eq!(region["startLine"], line, "{n}");
    }
}

/// A path set whose only `.cpp` is binary checked nothing: exit 2, with the file's note.
#[test]
fn a_path_set_of_binary_files_only_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/blob.cpp"),
        b"\x7fELF\x00\x01\x02garbage",
    )
    .unwrap();
    let notes = refused_sarif(&output_of(dir.path(), &["src"], "sarif", 2));
    let ids: Vec<&str> = notes
        .iter()
        .map(|n| n["descriptor"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["file-skipped", "no-source"], "{notes:?}");
    check(dir.path())
        .arg("src")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("1 file skipped"));
}

/// `check --connect FILE` never takes FILE for the socket: the socket is `--connect=SOCKET`.
/// A daemon that cannot be reached is a SARIF notification too.
#[test]
fn connect_takes_its_socket_with_an_equals_sign() {
    let dir = project();
    let out = check(dir.path())
        .args(["--connect", "src/main.cpp"])
        .env("XDG_RUNTIME_DIR", dir.path().join("run"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cannot connect to the daemon"), "{stderr}");
    assert!(!stderr.contains("at 'src/main.cpp'"), "{stderr}");
    let socket = dir.path().join("no.sock");
    let connect = format!("--connect={}", socket.display());
    let notes = refused_sarif(&output_of(
        dir.path(),
        &[connect.as_str(), "src/main.cpp"],
        "sarif",
        2,
    ));
    assert_eq!(notes[0]["descriptor"]["id"], "run-failed");
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains(&socket.display().to_string()));
    Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .args(["check", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("--connect[=<SOCKET>]").and(
            predicate::str::contains("`check`").and(predicate::str::contains("--connect=SOCKET")),
        ));
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
        .code(2)
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
        .stderr(predicate::str::contains(
            "no C++ source file to analyse in 'empty'",
        ));
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
