//! The daemon's terminal clients, as real processes: `check --connect` prints what `check`
//! prints; `watch` in a pseudo-terminal shows a finding appear after a save; many subscribers,
//! one of which never reads, all get each change.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("sycl-analyzer")
}

/// A copy of `examples/vector-math` (three findings for intel_gpu_dg1) to change freely.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector-math");
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for f in [
        "compile_commands.json",
        "src/main.cpp",
        "src/device_lib.cpp",
        "src/blend.hpp",
    ] {
        std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

struct Daemon {
    child: Child,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A daemon over `root`, started from another directory (its paths must not depend on it).
fn daemon(root: &Path) -> Daemon {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("d.sock");
    let child = Command::new(bin())
        .current_dir(dir.path())
        .args(["daemon", "--socket"])
        .arg(&socket)
        .arg("--root")
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "no daemon");
        std::thread::sleep(Duration::from_millis(20));
    }
    Daemon {
        child,
        socket,
        _dir: dir,
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn check_connect_prints_what_check_prints() {
    let proj = project();
    let d = daemon(proj.path());
    let socket = d.socket.to_str().unwrap();
    let connect = format!("--connect={socket}");
    let cases: &[&[&str]] = &[
        &[
            "--targets",
            "intel_gpu_dg1,nvidia_gpu_sm_80",
            "--format",
            "text",
        ],
        &[
            "--targets",
            "intel_gpu_dg1,nvidia_gpu_sm_80",
            "--format",
            "json",
        ],
        &["--format", "sarif"],
        &[
            "src/main.cpp",
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "json",
        ],
        &["src/main.cpp", "--targets", "intel_gpu_dg1"],
        &["src", "--targets", "nvidia_gpu_sm_80"],
    ];
    for args in cases {
        let local = run_in(proj.path(), &[&["check", "--no-cache"], *args].concat());
        let remote = run_in(proj.path(), &[&["check", connect.as_str()], *args].concat());
        let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(text(&remote), text(&local), "check {args:?}");
        assert_eq!(remote.status.code(), local.status.code(), "check {args:?}");
        assert!(
            text(&local).contains("warning") || text(&local).contains("\"level\""),
            "{args:?}: the case finds something: {}",
            text(&local)
        );
        assert_eq!(local.status.code(), Some(1), "{args:?}");
    }
    // From a subdirectory, files and kernels are named from the project's root by both.
    let args = ["device_lib.cpp", "--targets", "intel_gpu_dg1"];
    let src = proj.path().join("src");
    let local = run_in(&src, &[&["check", "--no-cache"], &args[..]].concat());
    let remote = run_in(&src, &[&["check", connect.as_str()], &args[..]].concat());
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text(&remote), text(&local));
    assert!(
        text(&local).contains("┌─ src/device_lib.cpp:5:61"),
        "{}",
        text(&local)
    );
    // The daemon follows the disk: a fix is answered at once, exit 0 as `check` gives.
    let blend = proj.path().join("src/blend.hpp");
    let fixed = std::fs::read_to_string(&blend)
        .unwrap()
        .replace("a * 0.5 +", "a * 0.5f +");
    std::fs::write(&blend, fixed).unwrap();
    let remote = run_in(
        proj.path(),
        &[
            "check",
            connect.as_str(),
            "src/device_lib.cpp",
            "--targets",
            "intel_gpu_dg1",
        ],
    );
    let out = String::from_utf8_lossy(&remote.stdout);
    assert_eq!(remote.status.code(), Some(0), "{out}");
    assert!(out.starts_with("0 error(s), 0 warning(s)"), "{out}");
    // The double back, and a directory asked about at once: its sources are read again too.
    let original = std::fs::read_to_string(&blend)
        .unwrap()
        .replace("a * 0.5f +", "a * 0.5 +");
    std::fs::write(&blend, original).unwrap();
    let remote = run_in(
        proj.path(),
        &[
            "check",
            connect.as_str(),
            "src",
            "--targets",
            "intel_gpu_dg1",
        ],
    );
    assert_eq!(remote.status.code(), Some(1), "{remote:?}");

    // Refusals as `check` refuses, all exit 2: a bad target (located in the option), options
    // the daemon cannot honour, no daemon.
    let bad = run_in(
        proj.path(),
        &[
            "check",
            connect.as_str(),
            "--targets",
            "intel_gpu_dg1,intel_gpu_bad",
        ],
    );
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains(
            "--targets:1:15: error[invalid-target]: SYCL target is invalid: 'intel_gpu_bad'"
        ),
        "{err}"
    );
    let include = run_in(
        proj.path(),
        &["check", connect.as_str(), "--include-dir", "src"],
    );
    assert_eq!(include.status.code(), Some(2));
    let none = run_in(proj.path(), &["check", "--connect=/nonexistent/d.sock"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("cannot connect to the daemon"));
}

/// A pseudo-terminal's two ends: the child gets the secondary as its terminal.
fn pty() -> (OwnedFd, OwnedFd) {
    let (mut primary, mut secondary) = (0, 0);
    // SAFETY: openpty writes the two descriptors it opens; the other arguments may be null.
    let r = unsafe {
        libc::openpty(
            &mut primary,
            &mut secondary,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty failed");
    // SAFETY: both were just opened and are owned here alone.
    unsafe {
        (
            OwnedFd::from_raw_fd(primary),
            OwnedFd::from_raw_fd(secondary),
        )
    }
}

/// Reads the terminal until `wanted` appears; everything read so far on failure.
fn read_until(rx: &std::sync::mpsc::Receiver<String>, seen: &mut String, wanted: &str) {
    let start = Instant::now();
    while !seen.contains(wanted) {
        let left = Duration::from_secs(30).saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(chunk) => seen.push_str(&chunk),
            Err(_) => panic!("{wanted:?} never appeared in:\n{seen}"),
        }
    }
}

#[test]
fn watch_in_a_terminal_shows_a_finding_appear_after_a_save() {
    let proj = project();
    let blend = proj.path().join("src/blend.hpp");
    let original = std::fs::read_to_string(&blend).unwrap();
    std::fs::write(&blend, original.replace("a * 0.5 +", "a * 0.5f +")).unwrap();
    let (primary, secondary) = pty();
    let mut child = Command::new(bin())
        .current_dir(proj.path())
        .args(["watch", "--targets", "intel_gpu_dg1"])
        .stdin(Stdio::from(secondary.try_clone().unwrap()))
        .stdout(Stdio::from(secondary.try_clone().unwrap()))
        .stderr(Stdio::from(secondary))
        .spawn()
        .unwrap();
    let own_socket = std::env::temp_dir().join(format!("sycl-analyzer-watch-{}.sock", child.id()));
    let (tx, rx) = std::sync::mpsc::channel();
    let mut reader = std::fs::File::from(primary);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    read_until(
        &rx,
        &mut seen,
        "0 error(s), 0 warning(s), 0 note(s) in 0 file(s); watching",
    );
    assert!(!seen.contains("fp64"), "{seen}");
    // The save that brings the double back.
    std::fs::write(&blend, &original).unwrap();
    read_until(&rx, &mut seen, "2 file(s); watching");
    // Coloured, as a terminal gets it: compared without the colours.
    assert!(seen.contains("\x1b["), "{seen}");
    let plain = strip_colours(&seen);
    let after = &plain[plain.find("files changed").expect("a change was printed")..];
    assert!(
        after.contains("warning[target-unsupported-aspect]: kernel 'lambda at src/main.cpp:17:37' uses aspect 'fp64'"),
        "{after}"
    );
    // With its source line, as `check` shows it.
    assert!(after.contains("a * 0.5 + b * 0.5f"), "{after}");
    assert!(after.contains("0 error(s), 4 warning(s)"), "{after}");
    // The daemon it started ends with it.
    assert!(own_socket.exists(), "{}", own_socket.display());
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    let start = Instant::now();
    while own_socket.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "its daemon outlived watch"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn strip_colours(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, ended by a letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn sixteen_subscribers_with_one_that_never_reads_all_get_each_change() {
    let dir = tempfile::tempdir().unwrap();
    // Enough findings that the first state overflows the socket buffer of one never read.
    for i in 0..400 {
        std::fs::write(
            dir.path().join(format!("k{i}.cpp")),
            format!(
                "#include <sycl/sycl.hpp>\nvoid run{i}(sycl::queue &q, float *o) {{\n  \
                 q.single_task([=] {{ o[0] = o[1] * 0.{i}1; }});\n}}\n"
            ),
        )
        .unwrap();
    }
    let d = daemon(dir.path());
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/subscribe",
                            "params": { "targets": "intel_gpu_dg1" } });
    let mut stalled = UnixStream::connect(&d.socket).unwrap();
    writeln!(stalled, "{subscribe}").unwrap();
    let readers: Vec<_> = (0..15)
        .map(|_| {
            let s = UnixStream::connect(&d.socket).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let mut w = s.try_clone().unwrap();
            writeln!(w, "{subscribe}").unwrap();
            BufReader::new(s)
        })
        .collect();
    let done = |r: &mut BufReader<UnixStream>| -> Value {
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["method"] == "sycl/publishDone" {
                return v;
            }
        }
    };
    let mut readers: Vec<_> = readers
        .into_iter()
        .map(|mut r| {
            assert_eq!(done(&mut r)["params"]["files"], 400);
            r
        })
        .collect();
    std::fs::write(dir.path().join("k7.cpp"), "void nothing() {}\n").unwrap();
    let start = Instant::now();
    for r in &mut readers {
        assert_eq!(done(r)["params"]["files"], 399);
    }
    // All within the watcher's debounce and one analysis, not behind the stalled one's timeout.
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "{:?}",
        start.elapsed()
    );
    drop(stalled);
}

/// Reads notifications until a `sycl/publishDone` or a `sycl/subscriptionError`.
fn next_state(r: &mut BufReader<UnixStream>) -> Value {
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        if v["method"] == "sycl/publishDone" || v["method"] == "sycl/subscriptionError" {
            return v;
        }
    }
}

fn subscriber(socket: &Path, params: Value) -> BufReader<UnixStream> {
    let s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut w = s.try_clone().unwrap();
    let req = json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/subscribe", "params": params });
    writeln!(w, "{req}").unwrap();
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.contains("\"subscribed\":true"), "{line}");
    r
}

fn call(socket: &Path, method: &str, params: Value) -> Value {
    let mut s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let req = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    writeln!(s, "{req}").unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap()
}

/// A root deleted under the daemon (a `git clean`, a re-checkout) is reported to requests
/// and subscribers; once a directory is back at its path, the daemon analyses it again.
#[test]
fn a_deleted_root_is_reported_and_followed_when_it_comes_back() {
    let proj = tempfile::tempdir().unwrap();
    let root = proj.path().join("ws");
    let make = |fp64: bool| {
        std::fs::create_dir_all(&root).unwrap();
        let literal = if fp64 { "0.1" } else { "0.1f" };
        std::fs::write(
            root.join("k.cpp"),
            format!(
                "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {{\n  \
                 q.single_task([=] {{ o[0] = o[1] * {literal}; }});\n}}\n"
            ),
        )
        .unwrap();
    };
    make(true);
    let d = daemon(&root);
    let mut sub = subscriber(&d.socket, json!({ "targets": "intel_gpu_dg1" }));
    assert_eq!(next_state(&mut sub)["params"]["diagnostics"], 1);

    std::fs::remove_dir_all(&root).unwrap();
    let gone = next_state(&mut sub);
    let gone = if gone["method"] == "sycl/publishDone" {
        // The file's removal may be seen before the root's.
        next_state(&mut sub)
    } else {
        gone
    };
    assert_eq!(gone["method"], "sycl/subscriptionError", "{gone}");
    assert_eq!(gone["params"]["code"], -32002, "{gone}");
    assert!(
        gone["params"]["message"]
            .as_str()
            .unwrap()
            .contains("no longer exists"),
        "{gone}"
    );
    let r = call(
        &d.socket,
        "sycl/check",
        json!({ "targets": "intel_gpu_dg1" }),
    );
    assert_eq!(r["error"]["code"], -32002, "{r}");

    // Back, with the double fixed: analysed anew, published, answered.
    make(false);
    let start = Instant::now();
    loop {
        let r = call(
            &d.socket,
            "sycl/check",
            json!({ "targets": "intel_gpu_dg1" }),
        );
        if r["result"]["stats"]["files"] == 1 {
            assert_eq!(r["result"]["diagnostics"], json!([]), "{r}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "never back: {r}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // And watched again: a save in the new directory is seen.
    let mut sub = subscriber(&d.socket, json!({ "targets": "intel_gpu_dg1" }));
    assert_eq!(next_state(&mut sub)["params"]["diagnostics"], 0);
    make(true);
    until(&mut sub, 1);
}

/// Reads states until one has `n` findings (a save may be seen half-written first).
fn until(sub: &mut BufReader<UnixStream>, n: u64) {
    let start = Instant::now();
    loop {
        let state = next_state(sub);
        if state["params"]["diagnostics"] == n {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "never {n}: {state}"
        );
    }
}

/// CMake rewrites compile_commands.json in place: while it does not parse, the daemon keeps
/// answering from the last analysis; once it parses, its new targets apply.
#[test]
fn a_half_written_compilation_database_keeps_the_last_analysis() {
    let proj = project();
    let d = daemon(proj.path());
    let db = proj.path().join("compile_commands.json");
    let good = std::fs::read_to_string(&db).unwrap();
    let count = |dir: &Path| -> usize {
        let out = run_in(dir, &["check", "--no-cache", "--format", "json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["diagnostics"].as_array().unwrap().len()
    };
    let both = count(proj.path());
    let mut sub = subscriber(&d.socket, json!({}));
    // dg1 and pvc (the database's).
    let first = next_state(&mut sub);
    assert_eq!(first["params"]["diagnostics"], both, "{first}");
    std::fs::write(&db, &good[..good.len() / 2]).unwrap();
    // Nothing is published for it, and requests are answered as before.
    std::thread::sleep(Duration::from_millis(600));
    let r = call(&d.socket, "sycl/check", json!({}));
    assert_eq!(
        r["result"]["diagnostics"].as_array().unwrap().len(),
        both,
        "{r}"
    );
    assert_eq!(
        r["result"]["targets"],
        json!(["intel_gpu_dg1", "intel_gpu_pvc"]),
        "{r}"
    );
    // Written out, for pvc alone (which has fp64): only the device_has mismatches remain.
    std::fs::write(
        &db,
        good.replace("intel_gpu_dg1,intel_gpu_pvc", "intel_gpu_pvc"),
    )
    .unwrap();
    let pvc = count(proj.path());
    assert!(pvc < both, "{pvc} {both}");
    until(&mut sub, pvc as u64);
    let r = call(&d.socket, "sycl/check", json!({}));
    assert_eq!(r["result"]["targets"], json!(["intel_gpu_pvc"]), "{r}");
}
