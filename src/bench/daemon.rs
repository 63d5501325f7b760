//! `bench --daemon N`: the daemon's live analysis, measured through its socket. The real
//! binary runs as a child on the workspace; the first `sycl/checkFile` loads the project, then
//! `N` requests on the workspace's sources measure the warm answer, and `N / 10` saves (a
//! comment appended to a source, then taken away) each followed by that file's request
//! measure how soon an answer reflects the disk. Every file is restored before returning.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{ms, percentile, status_mib};
use crate::workspace;

struct Daemon {
    child: Child,
    dir: PathBuf,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Files written by the bench, with their original bytes: put back when dropped, whatever
/// happened in between.
struct Restore(Vec<(PathBuf, Vec<u8>)>);

impl Drop for Restore {
    fn drop(&mut self) {
        for (p, bytes) in &self.0 {
            let _ = std::fs::write(p, bytes);
        }
    }
}

/// A function that uses `double`: appended to a source, it adds a finding for a target
/// without fp64, and taking it away removes it. No `#include`: a changed include list makes
/// the engine rebuild the call graph, which a typical save does not.
const PROBE: &str = "\nvoid sycl_analyzer_bench_probe(sycl::queue &q, double *p) {\n  q.single_task([=] { p[0] = p[1] * 0.1; });\n}\n";

/// Sets the read timeout of a connection (through any of its handles).
fn r_timeout(s: &UnixStream, t: Duration) -> Result<(), String> {
    s.set_read_timeout(Some(t)).map_err(|e| e.to_string())
}

pub fn run(
    root: &Path,
    requests: usize,
    targets: &str,
    seed: u64,
    soak: usize,
    new_names: bool,
) -> Result<Value, String> {
    let root = root.canonicalize().map_err(|e| e.to_string())?;
    let sources: Vec<PathBuf> = workspace::discover(std::slice::from_ref(&root))?
        .into_iter()
        .filter(|p| !crate::base::is_header(&p.display().to_string()))
        .collect();
    if sources.is_empty() {
        return Err(format!("no source file under '{}'", root.display()));
    }
    let dir =
        std::env::temp_dir().join(format!("sycl-analyzer-bench-daemon-{}", std::process::id()));
    let socket = dir.join("d.sock");
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let child = Command::new(exe)
        .args(["daemon", "--socket"])
        .arg(&socket)
        .arg("--root")
        .arg(&root)
        // Its index in the bench's own directory: every run starts cold, and a generated
        // workspace leaves nothing in the user's cache.
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // The daemon's log, when one is asked for (to see where a request's time goes).
        .stderr(if std::env::var_os(crate::logging::ENV).is_some() {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .spawn()
        .map_err(|e| e.to_string())?;
    let daemon = Daemon { child, dir };
    let started = Instant::now();
    let stream = loop {
        match UnixStream::connect(&socket) {
            Ok(s) => break s,
            Err(_) if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(e) => return Err(format!("the daemon did not start: {e}")),
        }
    };
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut id = 0;
    let mut check = |path: &Path| -> Result<(Duration, usize), String> {
        id += 1;
        let req = json!({ "jsonrpc": "2.0", "id": id, "method": "sycl/checkFile",
            "params": { "path": path, "targets": targets } });
        let t = Instant::now();
        writer
            .write_all(format!("{req}\n").as_bytes())
            .map_err(|e| e.to_string())?;
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let elapsed = t.elapsed();
        let reply: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        let found = reply["result"]["diagnostics"]
            .as_array()
            .ok_or_else(|| format!("checkFile failed: {reply}"))?
            .len();
        Ok((elapsed, found))
    };
    // A fixed walk over the sources, as the edit bench's.
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut pick = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        &sources[(state >> 33) as usize % sources.len()]
    };
    let (first, _) = check(pick())?;
    let mut warm = Vec::with_capacity(requests);
    for _ in 0..requests {
        warm.push(check(pick())?.0);
    }
    warm.sort();
    let changes = (requests / 10).max(2) & !1;
    let mut restore = Restore(Vec::new());
    let mut after_change = Vec::with_capacity(changes);
    for i in 0..changes {
        // Saved, then saved back: every change is a new text, and the last restores the file.
        let path = if i % 2 == 0 {
            let p = pick().clone();
            let bytes = std::fs::read(&p).map_err(|e| e.to_string())?;
            let mut edited = bytes.clone();
            edited.extend_from_slice(b"\n// sycl-analyzer bench: a save\n");
            std::fs::write(&p, &edited).map_err(|e| e.to_string())?;
            restore.0.push((p.clone(), bytes));
            p
        } else {
            let (p, bytes) = restore.0.pop().expect("pushed by the step before");
            std::fs::write(&p, &bytes).map_err(|e| e.to_string())?;
            p
        };
        after_change.push(check(&path)?.0);
    }
    after_change.sort();
    // Let the watcher's events of those saves arrive and be found unchanged.
    std::thread::sleep(Duration::from_millis(500));
    let pid = daemon.child.id();
    let rss_before_notify = status_mib(pid, "VmRSS:");

    // Change to notification: a subscriber, a save that adds a finding (then one that takes
    // it away), the time until the subscriber is told the new state is complete.
    let mut notified = Vec::new();
    let mut unseen = 0usize;
    {
        let sub = UnixStream::connect(&socket).map_err(|e| e.to_string())?;
        sub.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let mut w = sub.try_clone().map_err(|e| e.to_string())?;
        let mut r = BufReader::new(sub);
        let req = json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/subscribe",
            "params": { "targets": targets } });
        w.write_all(format!("{req}\n").as_bytes())
            .map_err(|e| e.to_string())?;
        // Whether the next state came (false: none within the timeout).
        let mut done = || -> Result<bool, String> {
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) => return Err("the daemon closed the subscription".into()),
                    Ok(_) if line.contains("\"sycl/publishDone\"") => return Ok(true),
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(false),
                    Err(e) => return Err(e.to_string()),
                }
            }
        };
        done()?;
        r_timeout(&w, Duration::from_secs(5))?;
        for _ in 0..(requests / 50).clamp(4, 40) {
            let p = pick().clone();
            let bytes = std::fs::read(&p).map_err(|e| e.to_string())?;
            restore.0.push((p.clone(), bytes.clone()));
            let mut probed = bytes.clone();
            probed.extend_from_slice(PROBE.as_bytes());
            for text in [&probed, &bytes] {
                let t = Instant::now();
                std::fs::write(&p, text).map_err(|e| e.to_string())?;
                // A file whose probe changes no finding (not compiled for the device, an
                // unbalanced `#if`) publishes nothing: counted, not waited for.
                if done()? {
                    notified.push(t.elapsed());
                } else {
                    unseen += 1;
                }
            }
            restore.0.pop();
        }
    }
    notified.sort();

    // The soak: many saves, each taken in and followed by fifty requests; memory after the
    // first thousand saves against the end, latency of the first thousand against the last.
    let mut soak_figures = Value::Null;
    if soak > 0 {
        let mut rss_1k = None;
        let (mut early, mut late) = (Vec::new(), Vec::new());
        let window = soak.min(1000);
        let started = Instant::now();
        let mut served = 0usize;
        for c in 0..soak {
            let path = if c % 2 == 0 {
                let p = pick().clone();
                let bytes = std::fs::read(&p).map_err(|e| e.to_string())?;
                let mut edited = bytes.clone();
                // A comment, or a function with a name never seen before (an interface
                // change, and a new name for the interner, which never frees).
                let added = if new_names {
                    format!("\nint sycl_analyzer_soak_{c}(int x) {{ return x + {c}; }}\n")
                } else {
                    format!("\n// soak {c}\n")
                };
                edited.extend_from_slice(added.as_bytes());
                std::fs::write(&p, &edited).map_err(|e| e.to_string())?;
                restore.0.push((p.clone(), bytes));
                p
            } else {
                let (p, bytes) = restore.0.pop().expect("pushed by the step before");
                std::fs::write(&p, &bytes).map_err(|e| e.to_string())?;
                p
            };
            check(&path)?;
            for _ in 0..50 {
                let t = check(pick())?.0;
                served += 1;
                if c < window {
                    early.push(t);
                } else if c >= soak - window {
                    late.push(t);
                }
            }
            if c + 1 == window {
                rss_1k = Some(status_mib(pid, "VmRSS:"));
            }
        }
        early.sort();
        late.sort();
        let rss_end = status_mib(pid, "VmRSS:");
        soak_figures = json!({
            "changes": soak,
            "saves_add_new_names": new_names,
            "requests": served + soak,
            "seconds": started.elapsed().as_secs_f64(),
            "rss_after_first_1k_changes_mib": rss_1k,
            "rss_end_mib": rss_end,
            "rss_growth": rss_1k.map(|r| rss_end / r),
            "first_1k_p50_ms": ms(percentile(&early, 0.5)),
            "first_1k_p99_ms": ms(percentile(&early, 0.99)),
            "last_1k_p50_ms": (!late.is_empty()).then(|| ms(percentile(&late, 0.5))),
            "last_1k_p99_ms": (!late.is_empty()).then(|| ms(percentile(&late, 0.99))),
        });
    }
    Ok(json!({
        "workspace": root.display().to_string(),
        "sources": sources.len(),
        "targets": targets,
        "first_check_ms": ms(first),
        "requests": warm.len(),
        "warm_p50_ms": ms(percentile(&warm, 0.5)),
        "warm_p99_ms": ms(percentile(&warm, 0.99)),
        "changes": after_change.len(),
        "after_change_p50_ms": ms(percentile(&after_change, 0.5)),
        "after_change_p99_ms": ms(percentile(&after_change, 0.99)),
        "change_to_notification": notified.len(),
        "changes_publishing_nothing": unseen,
        "change_to_notification_p50_ms": ms(percentile(&notified, 0.5)),
        "change_to_notification_p99_ms": ms(percentile(&notified, 0.99)),
        "daemon_rss_mib": rss_before_notify,
        "daemon_peak_rss_mib": status_mib(pid, "VmHWM:"),
        "soak": soak_figures,
    }))
}
