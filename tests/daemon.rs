//! The daemon, started as the real binary, driven over its Unix socket.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

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

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("sycl-analyzer")
}

fn wait_for(path: &Path) {
    let start = Instant::now();
    while UnixStream::connect(path).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "daemon did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start_with(dir: tempfile::TempDir, extra: &[&str]) -> Daemon {
    let socket = dir.path().join("run/d.sock");
    let child = Command::new(bin())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SYCL_ANALYZER_TEST_PANIC", "1")
        .args([
            "daemon",
            "--socket",
            socket.to_str().unwrap(),
            "--root",
            "examples",
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&socket);
    Daemon {
        child,
        socket,
        _dir: dir,
    }
}

fn start() -> Daemon {
    start_with(tempfile::tempdir().unwrap(), &[])
}

struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Conn {
    fn open(socket: &Path) -> Conn {
        let s = UnixStream::connect(socket).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        Conn {
            writer: s.try_clone().unwrap(),
            reader: BufReader::new(s),
        }
    }

    fn send_raw(&mut self, line: &[u8]) -> Value {
        self.writer.write_all(line).unwrap();
        self.writer.write_all(b"\n").unwrap();
        let mut out = String::new();
        self.reader.read_line(&mut out).unwrap();
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("bad reply {out:?}: {e}"))
    }

    /// Sends one message and reads one line, whatever its id.
    fn call_any(&mut self, msg: Value) -> Value {
        self.send_raw(msg.to_string().as_bytes())
    }

    fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        let req = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let reply = self.send_raw(req.to_string().as_bytes());
        assert_eq!(reply["id"], id);
        reply
    }
}

#[test]
fn every_method_answers_with_the_cli_shapes() {
    let d = start();
    let mut c = Conn::open(&d.socket);
    let r = c.call(
        1,
        "sycl/predefinedMacros",
        json!({ "targets": "intel_gpu_pvc,intel_gpu_12_60_7" }),
    );
    assert_eq!(r["result"]["targets"], json!(["intel_gpu_pvc"]));
    assert_eq!(r["result"]["macros"]["__SYCL_TARGET_INTEL_GPU_PVC__"], "1");
    let r = c.call(
        2,
        "sycl/predefinedMacros",
        json!({ "targets": ["amd_gpu_gfx1200"] }),
    );
    assert_eq!(
        r["result"]["macros"],
        json!({ "__SYCL_TARGET_AMD_GPU_GFX1200__": "1" })
    );
    let r = c.call(
        3,
        "sycl/aspectTraits",
        json!({ "targets": "intel_gpu_dg1", "aspects": ["fp64", "fp16"] }),
    );
    assert_eq!(
        r["result"]["any_device_has"],
        json!({ "fp64": false, "fp16": true })
    );
    let r = c.call(
        4,
        "sycl/targetInfo",
        json!({ "names": ["intel_gpu_9_0_9", "intel_gpu_bad"] }),
    );
    assert_eq!(r["result"][0]["canonical"], "intel_gpu_skl");
    assert_eq!(
        r["result"][1]["error"],
        "SYCL target is invalid: 'intel_gpu_bad'"
    );
    let r = c.call(5, "sycl/listTargets", json!({}));
    // The table's 101 entries and the driver's 3 generic triples without one.
    assert_eq!(r["result"].as_array().unwrap().len(), 104);
    let r = c.call(6, "sycl/listAspects", Value::Null);
    assert_eq!(r["result"].as_array().unwrap().len(), 101);
    let r = c.call(
        7,
        "sycl/checkFile",
        json!({ "path": "vector-math/src/device_lib.cpp", "targets": "intel_gpu_dg1" }),
    );
    let diags = r["result"]["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(
        codes,
        ["target-unsupported-aspect", "aspect-mismatch"],
        "{r}"
    );
    assert_eq!(diags[1]["chain"][1]["use"], "double literal 0.5");
}

#[test]
fn errors_keep_the_connection_usable() {
    let d = start();
    let mut c = Conn::open(&d.socket);
    let r = c.send_raw(b"{not json");
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    let r = c.call(1, "sycl/frobnicate", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    let r = c.call(2, "sycl/aspectTraits", json!({ "targets": 5 }));
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("'targets'"));
    let r = c.call(3, "sycl/targetInfo", json!({}));
    assert!(r["error"]["message"].as_str().unwrap().contains("'names'"));
    let r = c.call(
        4,
        "sycl/predefinedMacros",
        json!({ "targets": "intel_gpu_pcv" }),
    );
    assert_eq!(r["error"]["code"], -32001);
    assert_eq!(
        r["error"]["data"]["diagnostics"][0]["suggestions"][0],
        "intel_gpu_pvc"
    );
    let r = c.call(5, "sycl/checkFile", json!({ "path": "/etc/passwd" }));
    assert_eq!(r["error"]["code"], -32602);
    let r = c.call(6, "sycl/checkFile", json!({ "path": "../Cargo.toml" }));
    assert_eq!(
        r["error"]["code"], -32602,
        "a path leading out of the roots is refused"
    );
    let r = c.send_raw(b"[1, 2]");
    assert_eq!(r["error"]["code"], -32600);
    let r = c.send_raw(br#"{"jsonrpc": "1.0", "id": 9, "method": "sycl/listAspects"}"#);
    assert_eq!(r["error"]["code"], -32600);
    // A message over the cap is refused; the next one is served.
    let mut big = Vec::with_capacity(17 << 20);
    big.extend_from_slice(
        br#"{"jsonrpc": "2.0", "id": 10, "method": "sycl/listAspects", "params": {"pad": ""#,
    );
    big.resize(17 << 20, b'x');
    big.extend_from_slice(b"\"}}");
    let r = c.send_raw(&big);
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("limit"));
    let r = c.call(11, "sycl/listAspects", json!({}));
    assert!(r["result"].is_array());
    // A notification gets no answer: the next reply is for the next request.
    c.writer
        .write_all(br#"{"jsonrpc": "2.0", "method": "sycl/listAspects"}"#)
        .unwrap();
    c.writer.write_all(b"\n").unwrap();
    let r = c.call(12, "sycl/predefinedMacros", json!({}));
    assert_eq!(r["result"]["targets"], json!(["spir64"]));
    // Bytes that are not UTF-8 are a parse error, not the end of the connection.
    let r = c.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 13, \"method\": \"\xff\xfe\"}");
    assert_eq!(r["error"]["code"], -32700);
    assert!(r["error"]["message"].as_str().unwrap().contains("UTF-8"));
    // Bad params in a notification: no answer either.
    c.writer
        .write_all(b"{\"jsonrpc\": \"2.0\", \"method\": \"sycl/listAspects\", \"params\": 3}\n")
        .unwrap();
    let r = c.call(14, "sycl/listAspects", json!({}));
    assert_eq!(r["id"], 14);
}

#[test]
fn concurrent_clients() {
    let d = start();
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let socket = d.socket.clone();
            std::thread::spawn(move || {
                let mut c = Conn::open(&socket);
                for i in 0..50 {
                    let id = t * 1000 + i;
                    let r = c.call(
                        id,
                        "sycl/aspectTraits",
                        json!({ "targets": "intel_gpu_pvc", "aspects": ["fp64"] }),
                    );
                    assert_eq!(r["result"]["all_devices_have"]["fp64"], true);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn socket_is_private_and_single_and_survives_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("run/d.sock");
    let mut d = start_with(dir, &[]);
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(socket.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    // A second daemon is refused without claiming the socket; with `--exit-with-stdin` (and
    // its stdin closed at once) it must not remove the first one's socket either.
    for extra in [&[][..], &["--exit-with-stdin"][..]] {
        let second = Command::new(bin())
            .args(["daemon", "--socket", socket.to_str().unwrap()])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(
            stderr.contains("another daemon is already serving"),
            "{stderr}"
        );
        assert!(!stderr.contains("listening"), "{stderr}");
        assert!(socket.exists(), "{extra:?}");
        let mut c = Conn::open(&socket);
        assert!(c.call(1, "sycl/listAspects", json!({}))["result"].is_array());
    }
    // SIGKILL leaves the socket file behind; a new daemon replaces it.
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    assert!(socket.exists());
    let dir = std::mem::replace(&mut d._dir, tempfile::tempdir().unwrap());
    let d2 = start_with(dir, &[]);
    let mut c = Conn::open(&d2.socket);
    assert!(c.call(1, "sycl/listAspects", json!({}))["result"].is_array());
}

#[test]
fn shutdown_stops_and_removes_the_socket() {
    let mut d = start();
    let mut c = Conn::open(&d.socket);
    let r = c.call(1, "shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let status = d.child.wait().unwrap();
    assert!(status.success());
    assert!(!d.socket.exists());
}

#[test]
fn reload_config_after_atomic_rename_and_broken_save() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("devices.yaml");
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp16]\n").unwrap();
    let d = start_with(dir, &["--config", cfg.to_str().unwrap()]);
    let mut c = Conn::open(&d.socket);
    let traits = |c: &mut Conn, id| {
        c.call(
            id,
            "sycl/aspectTraits",
            json!({ "targets": "my_gpu", "aspects": ["fp16", "fp64"] }),
        )
    };
    assert_eq!(
        traits(&mut c, 1)["result"]["all_devices_have"],
        json!({ "fp16": true, "fp64": false })
    );
    // An editor saves by writing a temporary file and renaming it over the old one.
    let tmp = cfg.with_extension("tmp");
    std::fs::write(&tmp, "my_gpu:\n  aspects: [fp16, fp64]\n").unwrap();
    std::fs::rename(&tmp, &cfg).unwrap();
    let r = c.call(2, "sycl/reloadConfig", json!({}));
    assert_eq!(r["result"]["diagnostics"], json!([]));
    assert_eq!(
        traits(&mut c, 3)["result"]["all_devices_have"],
        json!({ "fp16": true, "fp64": true })
    );
    // A broken save keeps the last good entries and reports where it broke. The rename's own
    // reload by the watcher (debounced) is let through first: had it fired between the
    // truncation and the write below, it would have read an empty file, which is a valid file
    // without entries (seen under load in CI; a non-atomic save is racy for any reader).
    std::thread::sleep(sycl_analyzer::watch::DEBOUNCE * 3);
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp16, fp64\n").unwrap();
    let r = c.call(4, "sycl/reloadConfig", json!({}));
    assert_eq!(r["result"]["diagnostics"][0]["code"], "yaml-syntax");
    assert_eq!(r["result"]["diagnostics"][0]["line"], 3);
    assert_eq!(
        traits(&mut c, 5)["result"]["all_devices_have"]["fp64"],
        true
    );
    // Deleted (or replaced by something unreadable): the last good target stays, with a
    // message and without the old file's diagnostics; it comes back by itself when fixed.
    std::fs::remove_file(&cfg).unwrap();
    let r = c.call(6, "sycl/reloadConfig", json!({}));
    assert!(r["result"]["problems"][0]
        .as_str()
        .unwrap()
        .contains("last good targets stay in force"));
    assert_eq!(r["result"]["diagnostics"], json!([]));
    assert_eq!(
        traits(&mut c, 7)["result"]["all_devices_have"]["fp64"],
        true
    );
    std::fs::create_dir(&cfg).unwrap();
    let r = c.call(8, "sycl/reloadConfig", json!({}));
    assert!(r["result"]["problems"][0]
        .as_str()
        .unwrap()
        .contains("cannot read"));
    std::fs::remove_dir(&cfg).unwrap();
    std::fs::write(&cfg, "my_gpu:\n  aspects: [gpu]\n").unwrap();
    let r = c.call(9, "sycl/reloadConfig", json!({}));
    assert_eq!(r["result"]["problems"], json!([]));
    assert_eq!(
        traits(&mut c, 10)["result"]["all_devices_have"]["fp64"],
        false
    );
}

#[test]
fn query_connect_uses_the_daemon() {
    let d = start();
    let out = Command::new(bin())
        .args([
            "query",
            "macros",
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "cmake",
            &format!("--connect={}", d.socket.display()),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("__SYCL_TARGET_INTEL_GPU_DG1__=1;__SYCL_ANY_DEVICE_HAS_atomic64__=1;"),
        "{text}"
    );
    let out = Command::new(bin())
        .args([
            "query",
            "target",
            "intel_gpu_bad",
            &format!("--connect={}", d.socket.display()),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = Command::new(bin())
        .args(["query", "macros", "--connect=/nonexistent/d.sock"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect to the daemon"));
}

#[test]
fn config_changes_on_disk_apply_without_a_reload_request() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("conf/devices.yaml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp16]\n").unwrap();
    let d = start_with(dir, &["--config", cfg.to_str().unwrap()]);
    let mut c = Conn::open(&d.socket);
    let fp64 = |c: &mut Conn| {
        c.call(
            1,
            "sycl/aspectTraits",
            json!({ "targets": "my_gpu", "aspects": ["fp64"] }),
        )["result"]["all_devices_have"]["fp64"]
            .clone()
    };
    assert_eq!(fp64(&mut c), false);
    let tmp = cfg.with_extension("swp");
    std::fs::write(&tmp, "my_gpu:\n  aspects: [fp16, fp64]\n").unwrap();
    std::fs::rename(&tmp, &cfg).unwrap();
    let start = Instant::now();
    while fp64(&mut c) != true {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the change on disk was not picked up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_panicking_handler_is_an_error_not_a_crash() {
    let d = start();
    let mut c = Conn::open(&d.socket);
    let r = c.call(1, "sycl/__panic", json!({}));
    assert_eq!(r["error"]["code"], -32603);
    let r = c.call(2, "sycl/listAspects", json!({}));
    assert!(r["result"].is_array(), "the daemon goes on");
}

/// Reads until the daemon closes the connection; what it sent before is returned.
fn read_to_close(c: &mut Conn) -> String {
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut c.reader, &mut rest).expect("closed, not timed out");
    rest
}

/// A connection the daemon has taken in (answered a request on): slots freed by closed
/// connections come back as soon as the daemon has seen them close.
fn open_served(socket: &Path) -> Conn {
    let start = Instant::now();
    loop {
        let mut c = Conn::open(socket);
        let r = c.call_any(json!({ "jsonrpc": "2.0", "id": 0, "method": "sycl/listTargets" }));
        if r["result"].is_array() {
            return c;
        }
        assert_eq!(r["error"]["message"], "too many connections (limit 3)");
        assert!(start.elapsed() < Duration::from_secs(20), "no slot freed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn connection_cap_and_idle_timeout_free_their_slots() {
    let d = start_with(
        tempfile::tempdir().unwrap(),
        &["--max-connections", "3", "--idle-timeout", "2"],
    );
    let held: Vec<Conn> = (0..3).map(|_| open_served(&d.socket)).collect();
    let mut over = Conn::open(&d.socket);
    let rest = read_to_close(&mut over);
    let reply: Value = serde_json::from_str(rest.trim()).unwrap();
    assert_eq!(reply["error"]["message"], "too many connections (limit 3)");

    // A client trickling a line byte by byte gets no more time than a silent one.
    drop(held);
    let mut silent = open_served(&d.socket);
    let silent_since = Instant::now();
    let mut trickler = open_served(&d.socket);
    let trickle = std::thread::spawn(move || {
        for b in br#"{"jsonrpc":"2.0","id":1,"method":"sycl/listTargets"}"#
            .iter()
            .cycle()
        {
            if trickler.writer.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        read_to_close(&mut trickler)
    });
    assert_eq!(read_to_close(&mut silent), "");
    let waited = silent_since.elapsed();
    assert!(
        waited >= Duration::from_millis(1900) && waited < Duration::from_secs(15),
        "{waited:?}"
    );
    assert_eq!(trickle.join().unwrap(), "");

    // Closed connections gave their slots back: three clients at once are served again.
    let mut again: Vec<Conn> = (0..3).map(|_| open_served(&d.socket)).collect();
    for (i, c) in again.iter_mut().enumerate() {
        let r = c.call(
            i as i64,
            "sycl/targetInfo",
            json!({ "names": ["intel_gpu_12_60_7"] }),
        );
        assert_eq!(r["result"][0]["canonical"], "intel_gpu_pvc", "{r}");
    }
}

fn threads_of(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("Threads:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Eight clients per core asking for an analysis at once are all answered, but the analyses run
/// at most one per core: the blocking pool (whose idle threads live on for 10 s) grows by about
/// that (a thread just finishing is not always reused at once, hence the margin), not by one per
/// client.
#[test]
fn concurrent_analyses_are_bounded_by_the_cores() {
    let d = start();
    // One analysis first, so that pools started on first use (rayon's) are counted before.
    let r = Conn::open(&d.socket).call(
        99,
        "sycl/checkFile",
        json!({ "path": "vector-math/src/device_lib.cpp" }),
    );
    assert!(r["result"].is_object(), "{r}");
    let cores = std::thread::available_parallelism().unwrap().get();
    let n = 8 * cores;
    let before = threads_of(d.child.id());
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(n));
    let clients: Vec<_> = (0..n as i64)
        .map(|i| {
            let (socket, barrier) = (d.socket.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut c = Conn::open(&socket);
                barrier.wait();
                let r = c.call(
                    i,
                    "sycl/checkFile",
                    json!({ "path": "vector-math/src/device_lib.cpp", "targets": "intel_gpu_dg1" }),
                );
                assert_eq!(
                    r["result"]["diagnostics"].as_array().unwrap().len(),
                    2,
                    "{r}"
                );
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let grown = threads_of(d.child.id()) - before;
    // Unbounded, it grows by one per client (measured: 16 for 16); bounded, by 2-3 on 2 cores.
    assert!(
        grown < n / 2,
        "{grown} threads more for {n} clients on {cores} cores"
    );
}

/// Logs go to `--log-file` at the level `SYCL_ANALYZER_LOG` names: the start, each request at
/// `debug`; a filter that does not parse is said in the log and the default used.
#[test]
fn logs_follow_sycl_analyzer_log_into_the_log_file() {
    let run = |filter: &str| -> String {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("d.sock");
        let log = dir.path().join("d.log");
        let mut child = Command::new(bin())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("SYCL_ANALYZER_LOG", filter)
            .args(["daemon", "--root", "examples", "--socket"])
            .arg(&socket)
            .arg("--log-file")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for(&socket);
        let mut c = Conn::open(&socket);
        c.call(1, "sycl/listAspects", json!({}));
        c.call(2, "shutdown", json!(null));
        let _ = child.wait();
        std::fs::read_to_string(&log).unwrap()
    };
    let debug = run("debug");
    assert!(debug.contains("daemon listening"), "{debug}");
    assert!(debug.contains("request method=sycl/listAspects"), "{debug}");
    let quiet = run("warn");
    assert!(!quiet.contains("daemon listening"), "{quiet}");
    let bad = run("sycl_analyzer=loud");
    assert!(
        bad.contains("SYCL_ANALYZER_LOG=sycl_analyzer=loud"),
        "{bad}"
    );
    assert!(bad.contains("daemon listening"), "the default, info: {bad}");
}

/// `sycl/checkFile` reads the project as `check` does: compile_commands.json's targets when the
/// request names none, and each file's `-D` flags (before, the daemon ignored the database and
/// analysed for the implicit spir64 without the file's macros).
#[test]
fn check_file_reads_compile_commands_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let kernel = root.join("src/k.cpp");
    std::fs::write(
        &kernel,
        "#include <sycl/sycl.hpp>\n\
         void run(sycl::queue &q, float *out) {\n\
         \x20 q.single_task([=] {\n\
         #ifdef WIDE\n\
         \x20   double x = out[0];\n\
         \x20   out[0] = x * 2.0;\n\
         #endif\n\
         \x20 });\n\
         }\n",
    )
    .unwrap();
    let db = json!([{
        "directory": root.display().to_string(),
        "file": "src/k.cpp",
        "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -DWIDE -c src/k.cpp",
    }]);
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/compile_commands.json"), db.to_string()).unwrap();
    let (_daemon, socket) = serve_root(dir.path(), &root);
    let mut c = Conn::open(&socket);
    let r = c.call(1, "sycl/checkFile", json!({ "path": kernel }));
    let diags = r["result"]["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["target-unsupported-aspect"], "{r}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("'intel_gpu_dg1'"),
        "{r}"
    );
    // Targets named by the request still win over the database's.
    let r = c.call(
        2,
        "sycl/checkFile",
        json!({ "path": kernel, "targets": "spir64" }),
    );
    assert_eq!(r["result"]["diagnostics"], json!([]), "{r}");
    // The matrix too: the kernel is left out of dg1's image.
    let r = c.call(
        3,
        "sycl/kernelMatrix",
        json!({ "targets": "intel_gpu_dg1" }),
    );
    assert!(r["result"].to_string().contains("fp64"), "{r}");
}

/// An `acpp` database reaches the daemon as it reaches `check`: its targets, its passes' macros
/// and AdaptiveCpp's rules (no `device_has` read).
#[test]
fn check_file_reads_an_adaptivecpp_database() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(&root).unwrap();
    let kernel = root.join("k.cpp");
    std::fs::write(
        &kernel,
        "#include <sycl/sycl.hpp>\n\
         void run(sycl::queue &q, float *out) {\n\
         \x20 q.single_task([=]() [[sycl::device_has()]] {\n\
         #ifdef __SYCL_DEVICE_ONLY__\n\
         \x20   double x = out[0];\n\
         \x20   out[0] = x;\n\
         #endif\n\
         \x20 });\n\
         }\n",
    )
    .unwrap();
    let db = json!([{
        "directory": root.display().to_string(),
        "file": "k.cpp",
        "command": "acpp --acpp-targets=\"omp;hip:gfx1200\" -c k.cpp",
    }]);
    std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
    let (_daemon, socket) = serve_root(dir.path(), &root);
    let mut c = Conn::open(&socket);
    let r = c.call(1, "sycl/checkFile", json!({ "path": kernel }));
    let diags = r["result"]["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["target-unsupported-aspect"], "{r}");
    let message = diags[0]["message"].as_str().unwrap();
    assert!(
        message.contains("'amd_gpu_gfx1200'")
            && message.contains("AdaptiveCpp compiles it for that device all the same"),
        "{r}"
    );
}

/// The daemon keeps one live analysis: a source saved on disk changes the next answer (read
/// again for the request that names it, or by the watcher), a header change reaches the
/// sources that include it, and a new file joins the project.
#[test]
fn check_file_answers_from_a_live_analysis_that_follows_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(&root).unwrap();
    let kernel = root.join("k.cpp");
    let header = root.join("helpers.hpp");
    std::fs::write(
        &header,
        "inline float helper(float x) { return x * 2.0f; }\n",
    )
    .unwrap();
    std::fs::write(
        &kernel,
        "#include <sycl/sycl.hpp>\n#include \"helpers.hpp\"\n\
         void run(sycl::queue &q, float *out) {\n\
         \x20 q.single_task([=] { out[0] = helper(out[1]); });\n}\n",
    )
    .unwrap();
    let (_daemon, socket) = serve_root(dir.path(), &root);
    let mut c = Conn::open(&socket);
    let check = |c: &mut Conn, id: i64, path: &Path| -> Vec<String> {
        let r = c.call(
            id,
            "sycl/checkFile",
            json!({ "path": path, "targets": "intel_gpu_dg1" }),
        );
        r["result"]["diagnostics"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(check(&mut c, 1, &kernel), Vec::<String>::new());
    // The header changes: asked at once, before any watcher event could arrive.
    std::fs::write(
        &header,
        "inline float helper(float x) { return x * 0.1; }\n",
    )
    .unwrap();
    let found = check(&mut c, 2, &kernel);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("fp64"), "{found:?}");
    // Back again, then a new file that includes the header in fp64 form, found by the watcher.
    std::fs::write(
        &header,
        "inline float helper(float x) { return x * 2.0f; }\n",
    )
    .unwrap();
    assert_eq!(check(&mut c, 3, &kernel), Vec::<String>::new());
    let other = root.join("other.cpp");
    std::fs::write(
        &other,
        "#include <sycl/sycl.hpp>\nvoid go(sycl::queue &q, double *p) {\n\
         \x20 q.single_task([=] { p[0] = p[1] * 0.1; });\n}\n",
    )
    .unwrap();
    let start = Instant::now();
    let matrix = loop {
        let r = c.call(
            4,
            "sycl/kernelMatrix",
            json!({ "targets": "intel_gpu_dg1" }),
        );
        if r["result"].to_string().contains("other.cpp")
            || start.elapsed() > Duration::from_secs(10)
        {
            break r;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        matrix["result"].to_string().contains("other.cpp"),
        "{matrix}"
    );
    assert_eq!(check(&mut c, 5, &other).len(), 1);
}

/// `sycl/subscribe`: the current findings at once, per file, then a new notification when a
/// save changes them (full replacement: an empty list when a file's findings are gone);
/// a subscriber that stops reading does not stop the daemon from answering others.
#[test]
fn subscribers_get_the_findings_and_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(&root).unwrap();
    let kernel = root.join("k.cpp");
    let fp64 = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {\n  q.single_task([=] { o[0] = o[1] * 0.1; });\n}\n";
    std::fs::write(&kernel, fp64).unwrap();
    // A file whose findings never change: sent once, then never again.
    std::fs::write(root.join("other.cpp"), fp64.replace("run(", "other(")).unwrap();
    let (_daemon, socket) = serve_root(dir.path(), &root);
    // One that subscribes and never reads again.
    let mut idle = Conn::open(&socket);
    idle.writer
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sycl/subscribe\",\"params\":{\"targets\":\"intel_gpu_dg1\"}}\n")
        .unwrap();
    let mut c = Conn::open(&socket);
    let r = c.call(1, "sycl/subscribe", json!({ "targets": "intel_gpu_dg1" }));
    assert_eq!(r["result"]["subscribed"], true, "{r}");
    let read = |c: &mut Conn| -> Value {
        let mut line = String::new();
        c.reader.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let first = read(&mut c);
    assert_eq!(first["method"], "sycl/publishDiagnostics", "{first}");
    // Files in path order: `k.cpp`, then `other.cpp`.
    let second = read(&mut c);
    assert_eq!(second["params"]["path"], "other.cpp", "{second}");
    assert!(first["params"]["uri"]
        .as_str()
        .unwrap()
        .starts_with("file:///"));
    assert!(first["params"]["path"].as_str().unwrap().ends_with("k.cpp"));
    assert_eq!(
        first["params"]["diagnostics"].as_array().unwrap().len(),
        1,
        "{first}"
    );
    // The state is complete: the totals, and the root the paths are relative to.
    let done = read(&mut c);
    assert_eq!(done["method"], "sycl/publishDone", "{done}");
    assert_eq!(done["params"]["diagnostics"], 2, "{done}");
    assert_eq!(first["params"]["path"], "k.cpp", "relative to the root");
    assert_eq!(
        Path::new(done["params"]["root"].as_str().unwrap()),
        root.canonicalize().unwrap()
    );
    // A save that removes the double: an empty list for the file, from the watcher.
    std::fs::write(&kernel, fp64.replace("0.1", "0.1f")).unwrap();
    let next = read(&mut c);
    assert_eq!(next["method"], "sycl/publishDiagnostics", "{next}");
    assert_eq!(next["params"]["path"], "k.cpp", "{next}");
    assert_eq!(next["params"]["diagnostics"], json!([]), "{next}");
    // Nothing for `other.cpp`, whose findings are the same.
    let done = read(&mut c);
    assert_eq!(done["method"], "sycl/publishDone", "{done}");
    assert_eq!(done["params"]["diagnostics"], 1, "{done}");
    // Others are still answered.
    let mut other = Conn::open(&socket);
    let r = other.call(7, "sycl/listAspects", json!({}));
    assert!(r["result"].is_array());
    let r = c.call(2, "sycl/unsubscribe", json!({}));
    assert_eq!(r["result"]["subscribed"], false, "{r}");
}

/// A daemon over `root` with its socket under `dir`, killed however the test ends (an
/// `ACPP_TARGETS` of the test's environment would change what AdaptiveCpp databases mean).
fn serve_root(dir: &Path, root: &Path) -> (Daemon, PathBuf) {
    let socket = dir.join("run/d.sock");
    let child = Command::new(bin())
        .args(["daemon", "--socket", socket.to_str().unwrap(), "--root"])
        .arg(root)
        .env_remove("ACPP_TARGETS")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let daemon = Daemon {
        child,
        socket: socket.clone(),
        _dir: tempfile::tempdir().unwrap(),
    };
    wait_for(&socket);
    (daemon, socket)
}
