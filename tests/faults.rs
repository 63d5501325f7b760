//! Fault injection against the running language server and daemon: broken, deleted and
//! unreadable config files while diagnostics are served; hostile sources (huge, binary, not
//! UTF-8, 10 000 nested parentheses, symlink loops); a source deleted while open; ten thousand
//! files changed at once; clients that vanish mid-request. The server must answer throughout.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Client;
use serde_json::{json, Value};

const KERNEL: &str =
    "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n";

/// A name and what it does to the config file.
type Fault<'a> = (&'a str, &'a dyn Fn(&Path));

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn start(root: &Path, options: Value) -> Client {
    start_env(root, options, &[])
}

fn start_env(root: &Path, options: Value, env: &[(&str, &str)]) -> Client {
    let mut c = Client::start_with_env(&[], env);
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(root),
                "capabilities": { "window": { "workDoneProgress": true } },
                "initializationOptions": options }),
    );
    c.notify("initialized", json!({}));
    c
}

fn codes(d: &Value) -> Vec<String> {
    d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["code"].as_str().unwrap_or("").to_string())
        .collect()
}

fn peak_rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn shutdown(mut c: Client) {
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    c.notify("exit", Value::Null);
    assert!(c.child.wait().unwrap().success());
}

#[test]
fn config_faults_keep_the_last_good_table_and_recover_by_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let k = root.join("k.cpp");
    std::fs::write(&k, KERNEL).unwrap();
    let cfg = root.join("devices.yaml");
    let good = "my_gpu:\n  aspects: [gpu]\n";
    std::fs::write(&cfg, good).unwrap();
    let mut c = start(
        &root,
        json!({ "targets": "my_gpu", "deviceConfig": "devices.yaml" }),
    );
    let ku = uri(&k);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": ku, "languageId": "cpp", "version": 1, "text": KERNEL } }),
    );
    let d = c.diagnostics_for(&ku, |p| p["version"] == 1);
    assert_eq!(
        codes(&d),
        ["target-unsupported-aspect"],
        "my_gpu lacks fp64"
    );
    let mut version = 1;
    let faults: [Fault; 5] = [
        ("truncated", &|p| {
            std::fs::write(p, "my_gpu:\n  aspects: [gp").unwrap()
        }),
        ("garbage", &|p| {
            let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
            std::fs::write(p, bytes).unwrap()
        }),
        ("deleted", &|p| std::fs::remove_file(p).unwrap()),
        ("replaced by rename", &|p| {
            let tmp = p.with_extension("tmp");
            std::fs::write(&tmp, "{{{{ not: [yaml").unwrap();
            std::fs::rename(&tmp, p).unwrap()
        }),
        ("unreadable (a directory now)", &|p| {
            std::fs::remove_file(p).unwrap();
            std::fs::create_dir(p).unwrap()
        }),
    ];
    for (what, fault) in faults {
        fault(&cfg);
        // The server goes on serving edits with the last good table...
        std::thread::sleep(Duration::from_millis(400));
        version += 1;
        let text = format!("{KERNEL}// {what}\n");
        c.notify("textDocument/didChange", json!({ "textDocument": { "uri": ku, "version": version }, "contentChanges": [{ "text": text }] }));
        let d = c.diagnostics_for(&ku, |p| p["version"] == version);
        assert_eq!(codes(&d), ["target-unsupported-aspect"], "{what}");
        assert!(
            d["diagnostics"][0]["message"]
                .as_str()
                .unwrap()
                .contains("my_gpu"),
            "{what}: {d}"
        );
        // ...says what is wrong...
        let r = c.request(
            "sycl/aspectTraits",
            json!({ "targets": "my_gpu", "aspects": ["gpu", "fp64"] }),
        );
        assert_eq!(
            r["result"]["all_devices_have"],
            json!({ "gpu": true, "fp64": false }),
            "{what}: {r}"
        );
        // ...and recovers by itself once the file is fixed: my_gpu gains fp64.
        if cfg.is_dir() {
            std::fs::remove_dir(&cfg).unwrap();
        }
        std::fs::write(&cfg, "my_gpu:\n  aspects: [gpu, fp64]\n").unwrap();
        let d = c.diagnostics_for(&ku, |p| p["diagnostics"] == json!([]));
        assert_eq!(d["diagnostics"], json!([]), "{what}: recovered");
        std::fs::write(&cfg, good).unwrap();
        c.diagnostics_for(&ku, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    }
    shutdown(c);
}

fn hostile_workspace(root: &Path) {
    std::fs::write(root.join("k.cpp"), KERNEL).unwrap();
    // 50 MB of plausible C++.
    let line = "int filler_function_with_a_long_name(int x) { return x * 2 + 1; }\n";
    let big = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    std::fs::write(root.join("huge.cpp"), big).unwrap();
    let binary: Vec<u8> = (0..65536u32).map(|i| (i * 31 % 256) as u8).collect();
    std::fs::write(root.join("binary.cpp"), binary).unwrap();
    let mut latin1 = b"// caf\xe9 \xff\xfe\n".to_vec();
    latin1.extend_from_slice(KERNEL.replace("run", "run_latin1").as_bytes());
    std::fs::write(root.join("latin1.cpp"), latin1).unwrap();
    let n = 10_000;
    std::fs::write(
        root.join("nested.cpp"),
        format!(
            "void p() {{ int x = {}1{}; }}\nvoid b() {}{}\n",
            "(".repeat(n),
            ")".repeat(n),
            "{".repeat(n),
            "}".repeat(n)
        ),
    )
    .unwrap();
    std::fs::create_dir(root.join("loop")).unwrap();
    std::os::unix::fs::symlink(root, root.join("loop/back")).unwrap();
    std::os::unix::fs::symlink(root.join("loop/self"), root.join("loop/self")).unwrap();
}

#[test]
fn hostile_sources_become_notes_or_findings_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    hostile_workspace(&root);
    let mut c = start(&root, json!({ "targets": "intel_gpu_dg1" }));
    c.timeout = Duration::from_secs(120);
    let names = ["huge.cpp", "binary.cpp", "latin1.cpp"];
    let uris: Vec<String> = names.iter().map(|n| uri(&root.join(n))).collect();
    let got = c.diagnostics_for_each(&uris);
    let first = |i: usize| got[&uris[i]]["diagnostics"][0].clone();
    assert_eq!(first(0)["code"], "file-skipped");
    assert!(first(0)["message"].as_str().unwrap().contains("limit"));
    assert_eq!(first(1)["code"], "file-skipped");
    assert!(first(1)["message"].as_str().unwrap().contains("binary"));
    // Not UTF-8: still read (the code is ASCII), the finding is there.
    assert_eq!(codes(&got[&uris[2]]), ["target-unsupported-aspect"]);
    // The nested file is read (or cut off) without a crash; opened, it is answered.
    let nested = root.join("nested.cpp");
    let text = std::fs::read_to_string(&nested).unwrap();
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri(&nested), "languageId": "cpp", "version": 1, "text": text } }));
    c.diagnostics_for(&uri(&nested), |p| p["version"] == 1);
    // Opening the 50 MB file: a note, not a parse of 50 MB on every keystroke.
    let huge = root.join("huge.cpp");
    let text = std::fs::read_to_string(&huge).unwrap();
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri(&huge), "languageId": "cpp", "version": 1, "text": text } }));
    let d = c.diagnostics_for(&uri(&huge), |p| p["version"] == 1);
    assert_eq!(codes(&d), ["file-skipped"]);
    let r = c.request("sycl/listTargets", json!({}));
    assert!(r["result"].is_array());
    // The 50 MB text arrives once in the protocol and is kept by the editor's document; it is
    // never parsed or indexed.
    let rss = peak_rss_mib(c.child.id());
    assert!(rss < 400.0, "peak RSS {rss} MiB");
    shutdown(c);
}

#[test]
fn check_reads_hostile_sources_with_notes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    hostile_workspace(&root);
    let out = Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .args([
            "check",
            "--no-cache",
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "json",
        ])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The findings and the problems of the inputs (files skipped).
    let found: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["problems"].as_array().unwrap())
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            let name = Path::new(file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            (name, d["code"].as_str().unwrap().to_string())
        })
        .collect();
    for expected in [
        ("binary.cpp", "file-skipped"),
        ("huge.cpp", "file-skipped"),
        ("k.cpp", "target-unsupported-aspect"),
        ("latin1.cpp", "target-unsupported-aspect"),
    ] {
        assert!(
            found.contains(&(expected.0.into(), expected.1.into())),
            "{expected:?} in {found:?}"
        );
    }
}

#[test]
fn deleted_while_open_and_ten_thousand_files_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let k = root.join("k.cpp");
    std::fs::write(&k, KERNEL).unwrap();
    let mut c = start(&root, json!({ "targets": "intel_gpu_dg1" }));
    c.timeout = Duration::from_secs(120);
    let ku = uri(&k);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": ku, "languageId": "cpp", "version": 1, "text": KERNEL } }),
    );
    c.diagnostics_for(&ku, |p| p["version"] == 1);
    // Deleted on disk while open: the editor's text still counts.
    std::fs::remove_file(&k).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": ku, "version": 2 }, "contentChanges": [{ "text": format!("{KERNEL}\n") }] }));
    let d = c.diagnostics_for(&ku, |p| p["version"] == 2);
    assert_eq!(codes(&d), ["target-unsupported-aspect"]);
    // Ten thousand files appear at once (a checkout, a generator).
    let gen = root.join("gen");
    std::fs::create_dir(&gen).unwrap();
    for i in 0..10_000 {
        let body = if i == 9_999 {
            KERNEL.replace("run", "run_last")
        } else {
            format!("int helper_{i}(int x) {{ return x + {i}; }}\n")
        };
        std::fs::write(gen.join(format!("f{i}.cpp")), body).unwrap();
    }
    let started = Instant::now();
    let r = c.request("sycl/listAspects", json!({}));
    assert!(r["result"].is_array(), "answered while the files are read");
    let d = c.diagnostics_for(&uri(&gen.join("f9999.cpp")), |_| true);
    assert_eq!(codes(&d), ["target-unsupported-aspect"]);
    eprintln!("10 000 new files analysed in {:?}", started.elapsed());
    // Closing the deleted document drops it.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": ku } }),
    );
    c.diagnostics_for(&ku, |p| p["diagnostics"] == json!([]));
    shutdown(c);
}

#[test]
fn a_client_that_vanishes_mid_request() {
    // The language server's client closes the pipe right after a request: the server exits
    // by itself instead of hanging.
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "processId": null, "rootUri": uri(dir.path()), "capabilities": {} } }).to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{init}", init.len()).unwrap();
        let half = r#"{"jsonrpc": "2.0", "id": 2, "method": "sycl/listTargets", "par"#;
        write!(stdin, "Content-Length: 200\r\n\r\n{half}").unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the server outlived its client");
        std::thread::sleep(Duration::from_millis(50));
    }

    // The daemon: clients that disconnect in the middle of a line or of a heavy request do
    // not disturb the others.
    let socket: PathBuf = dir.path().join("d.sock");
    let mut daemon = Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .args(["daemon", "--socket"])
        .arg(&socket)
        .arg("--root")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < deadline, "daemon did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    for i in 0..50 {
        let mut s = UnixStream::connect(&socket).unwrap();
        if i % 2 == 0 {
            s.write_all(br#"{"jsonrpc": "2.0", "id": 1, "method": "sycl/chec"#)
                .unwrap();
        } else {
            let req = json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/checkFile", "params": { "path": "examples/vector-math/src/main.cpp" } });
            writeln!(s, "{req}").unwrap();
        }
        drop(s);
    }
    let s = UnixStream::connect(&socket).unwrap();
    let mut w = s.try_clone().unwrap();
    writeln!(
        w,
        "{}",
        json!({ "jsonrpc": "2.0", "id": 7, "method": "sycl/listAspects" })
    )
    .unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], 7);
    assert!(v["result"].is_array());
    daemon.kill().unwrap();
    daemon.wait().unwrap();
}

/// When the kernel drops file events (its queue overflows while thousands of files change on a
/// busy machine), the server reads the workspace again: new files are analysed, deleted ones
/// cleared. The test makes every batch count as lost.
#[test]
fn lost_file_events_are_recovered_by_a_rescan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let old = root.join("old.cpp");
    std::fs::write(&old, KERNEL).unwrap();
    let mut c = start_env(
        &root,
        json!({ "targets": "intel_gpu_dg1" }),
        &[("SYCL_ANALYZER_TEST_LOSE_EVENTS", "1")],
    );
    let d = c.diagnostics_for(&uri(&old), |_| true);
    assert_eq!(codes(&d), ["target-unsupported-aspect"]);
    let new = root.join("sub/new.cpp");
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(&new, KERNEL).unwrap();
    std::fs::remove_file(&old).unwrap();
    let d = c.diagnostics_for(&uri(&new), |_| true);
    assert_eq!(codes(&d), ["target-unsupported-aspect"]);
    c.diagnostics_for(&uri(&old), |p| p["diagnostics"] == json!([]));
    shutdown(c);
}
