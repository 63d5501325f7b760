//! `sycl-analyzer bench --load N`: the real daemon, 16 clients sending N mixed queries in all,
//! every answer checked, the daemon's resident memory sampled throughout.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const CLIENTS: usize = 16;

/// The queries, in turn: (method, params, whether an error is the right answer).
fn queries(root: &Path) -> Vec<(&'static str, Value, bool)> {
    let file = root.join("src/main.cpp");
    vec![
        (
            "sycl/aspectTraits",
            json!({ "targets": "intel_gpu_pvc,nvidia_gpu_sm_80", "aspects": ["fp64", "fp16"] }),
            false,
        ),
        (
            "sycl/predefinedMacros",
            json!({ "targets": "intel_gpu_dg1,amd_gpu_gfx1200" }),
            false,
        ),
        (
            "sycl/targetInfo",
            json!({ "names": ["intel_gpu_12_60_7", "nvidia_gpu_sm80"] }),
            false,
        ),
        ("sycl/listAspects", json!({}), false),
        (
            "sycl/predefinedMacros",
            json!({ "targets": "intel_gpu_pcv" }),
            true,
        ),
        ("sycl/checkFile", json!({ "path": file }), false),
        ("sycl/checkFile", json!({ "path": "/etc/passwd" }), true),
        ("sycl/listTargets", json!({}), false),
    ]
}

pub fn run(total: usize) -> Result<Value, String> {
    // `sycl/checkFile` analyses the file's workspace: the bundled example, a real small one.
    let root = std::env::current_dir()
        .map_err(|e| e.to_string())?
        .join("examples/vector-math");
    if !root.is_dir() {
        return Err(format!(
            "run from the repository: {} is needed for sycl/checkFile",
            root.display()
        ));
    }
    let dir = super::Scratch::new("sycl-analyzer-load")?;
    let socket = dir.path().join("d.sock");
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let daemon = super::Reaped(
        Command::new(exe)
            .args(["daemon", "--socket"])
            .arg(&socket)
            .arg("--root")
            .arg(&root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?,
    );
    let pid = daemon.0.id();
    let start = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        if start.elapsed() > Duration::from_secs(10) {
            return Err("the daemon did not start".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let queries = queries(&root);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let per = total.div_ceil(CLIENTS);
    let t = Instant::now();
    let (errors, samples) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                samples.push((
                    done.load(Ordering::Relaxed),
                    super::status_mib(pid, "VmRSS:"),
                ));
                std::thread::sleep(Duration::from_millis(100));
            }
            samples
        });
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let (queries, socket, done) = (&queries, &socket, &done);
                scope.spawn(move || -> Result<Vec<String>, String> {
                    let s = UnixStream::connect(socket).map_err(|e| e.to_string())?;
                    let mut w = s.try_clone().map_err(|e| e.to_string())?;
                    let mut r = BufReader::new(s);
                    let mut wrong = Vec::new();
                    let mut line = String::new();
                    for i in 0..per {
                        // A whole-workspace check and the 100 KB target list are one query
                        // in 64 each; the rest are the lookups a build system makes.
                        let k = match (i + c) % 64 {
                            0 => 5,
                            32 => 7,
                            n => [0, 1, 2, 3, 4, 6][n % 6],
                        };
                        let (method, params, error) = &queries[k];
                        let req = json!({ "jsonrpc": "2.0", "id": i, "method": method, "params": params });
                        writeln!(w, "{req}").map_err(|e| e.to_string())?;
                        line.clear();
                        r.read_line(&mut line).map_err(|e| e.to_string())?;
                        let v: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
                        let ok = v["id"] == i && v.get("error").is_some() == *error;
                        if !ok && wrong.len() < 5 {
                            wrong.push(format!("{method}: {line}"));
                        }
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(wrong)
                })
            })
            .collect();
        let mut errors = Vec::new();
        for h in clients {
            match h.join() {
                Ok(Ok(w)) => errors.extend(w),
                Ok(Err(e)) => errors.push(e),
                Err(_) => errors.push("a client panicked".into()),
            }
        }
        stop.store(true, Ordering::Relaxed);
        (errors, sampler.join().unwrap_or_default())
    });
    let wall = t.elapsed();
    drop(daemon);
    // Memory after the first tenth (allocator and caches warmed up) against the end.
    let warm = samples
        .iter()
        .find(|(n, _)| *n >= total / 10)
        .map_or(0.0, |s| s.1);
    let last = samples.last().map_or(0.0, |s| s.1);
    let max = samples.iter().map(|s| s.1).fold(0.0, f64::max);
    Ok(json!({
        "clients": CLIENTS,
        "queries": per * CLIENTS,
        "wrong_answers": errors,
        "seconds": wall.as_secs_f64(),
        "per_second": (per * CLIENTS) as f64 / wall.as_secs_f64().max(1e-9),
        "daemon_rss_mib": { "after_first_tenth": warm, "end": last, "max": max },
    }))
}
