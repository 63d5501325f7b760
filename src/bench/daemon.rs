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

pub fn run(root: &Path, requests: usize, targets: &str, seed: u64) -> Result<Value, String> {
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
        "daemon_rss_mib": status_mib(pid, "VmRSS:"),
        "daemon_peak_rss_mib": status_mib(pid, "VmHWM:"),
    }))
}
