//! `sycl-analyzer bench`: figures against tree-sitter's own parse speed, measured in the same
//! run. Not a test: it reports, it never fails on a number.

pub mod daemon;
pub mod load;
pub mod synth;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::devices::DeviceTable;
use crate::ide::AnalysisConfig;
use crate::{cache, project, workspace};

pub struct BenchArgs {
    pub dir: Option<PathBuf>,
    pub synthetic: Option<usize>,
    pub seed: u64,
    pub edits: usize,
    pub edit_file: Option<String>,
    pub queries: usize,
}

/// User + system CPU time of this process, and its peak RSS in KiB.
fn rusage() -> (Duration, u64) {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    (tv(u.ru_utime) + tv(u.ru_stime), u.ru_maxrss as u64)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A directory in the temp dir for what a bench run writes (a generated workspace, the index,
/// sockets, the servers' caches), removed when dropped: also when the run fails midway.
pub struct Scratch(PathBuf);

impl Scratch {
    /// `<temp dir>/<name>-<pid>`, empty.
    pub fn new(name: &str) -> Result<Scratch, String> {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        Ok(Scratch(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server the bench started, killed and reaped when dropped: one left running after a failed
/// run would go on writing into the scratch directory.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn run(args: &BenchArgs) -> Result<Value, String> {
    let scratch = Scratch::new("sycl-analyzer-bench")?;
    let root = match (&args.dir, args.synthetic) {
        (Some(d), _) => d.clone(),
        (None, lines) => {
            let lines = lines.unwrap_or(10_000);
            let dir = scratch
                .path()
                .join(format!("synthetic-{lines}-{}", args.seed));
            synth::generate(&dir, lines, args.seed).map_err(|e| e.to_string())?;
            dir
        }
    };
    let paths = workspace::discover(std::slice::from_ref(&root))?;
    let texts: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let lines: usize = texts.iter().map(|t| t.lines().count()).sum();

    // Raw parse: tree-sitter alone, one thread, the same texts.
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    for text in &texts {
        let _ = parser.parse(text, None);
    }
    let raw = t.elapsed();

    // Cold, as `check` runs: read, extract in parallel (facts packed), the analysis by parts;
    // no index.
    let table = DeviceTable::builtin();
    let config = AnalysisConfig::new(
        table.clone(),
        None,
        project::compile_env(None, table, &project::SyclFlags::default()),
    );
    let env = config.env.clone();
    let (cpu0, _) = rusage();
    let t = Instant::now();
    let analyse = |loaded: &mut workspace::Loaded| {
        project::host_of(config.clone(), loaded)
            .analysis()
            .findings()
    };
    let load = |index: &cache::Index| {
        let mode = workspace::LoadMode {
            pack: true,
            ..Default::default()
        };
        workspace::load_selected(&paths, index, mode, &env, || {}, |_| true)
    };
    let mut loaded = load(&cache::Index::default());
    let loading = t.elapsed();
    // As `check` does before the analysis, which lets go of the packed facts (not timed).
    let index_file = scratch.path().join("index.idx");
    loaded.save_index(&index_file).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let report = analyse(&mut loaded);
    let cold = loading + t.elapsed();
    let (cpu1, _) = rusage();
    let findings = report.diagnostics.len();
    let report_file = cache::report_path(&index_file);
    // As `check` keeps it, under what the findings depend on.
    let key = cache::report_key(&loaded.files, &loaded.hashes, &config.settings(), env.key());
    cache::save_report(&report_file, key, &report).map_err(|e| e.to_string())?;
    drop(loaded);

    // Warm, as `check` starts on an unchanged workspace: the index and the report read from
    // disk, every text read and hashed to know it is unchanged.
    let t = Instant::now();
    let index = cache::Index::load(&index_file);
    let loaded = load(&index);
    drop(index);
    let key = cache::report_key(&loaded.files, &loaded.hashes, &config.settings(), env.key());
    let warm_report = cache::load_report(&report_file, key)
        .ok_or("the warm run did not find the report the cold one saved")?;
    let warm = t.elapsed();
    // Warm after an edit: the index as above, then the whole analysis (any changed file
    // changes the report's key).
    let t = Instant::now();
    let index = cache::Index::load(&index_file);
    let mut loaded = load(&index);
    // As `check` lets go of the index once the files are loaded.
    drop(index);
    let analysed = analyse(&mut loaded);
    let warm_analysed = t.elapsed();
    let (_, rss_kib) = rusage();
    if warm_report.diagnostics != report.diagnostics || analysed.diagnostics != report.diagnostics {
        return Err("warm and cold runs disagree".into());
    }

    let targets = target_scaling(&paths)?;
    let (q1, q16) = query_latency(args.queries, scratch.path())?;
    let edits = edit_latency(
        &root,
        &paths,
        args.edits,
        args.edit_file.as_deref(),
        args.seed,
        &scratch.path().join("cache"),
    )?;

    Ok(json!({
        "workspace": root.display().to_string(),
        "files": paths.len(),
        "bytes": bytes,
        "lines": lines,
        "findings": findings,
        "raw_parse_ms": ms(raw),
        "cold_wall_ms": ms(cold),
        "cold_cpu_ms": ms(cpu1.saturating_sub(cpu0)),
        "cold_over_raw": cold.as_secs_f64() / raw.as_secs_f64().max(1e-9),
        "warm_wall_ms": ms(warm),
        "warm_over_cold": warm.as_secs_f64() / cold.as_secs_f64().max(1e-9),
        "warm_analysed_ms": ms(warm_analysed),
        "warm_analysed_over_cold": warm_analysed.as_secs_f64() / cold.as_secs_f64().max(1e-9),
        "peak_rss_mib": rss_kib as f64 / 1024.0,
        "targets": targets,
        "query_1_client": q1,
        "query_16_clients": q16,
        "edit": edits,
    }))
}

/// Starts a daemon on a private socket in this process and measures `sycl/aspectTraits`
/// round trips: one client, then 16 at once.
fn query_latency(queries: usize, scratch: &Path) -> Result<(Value, Value), String> {
    let socket = scratch.join("sock/d.sock");
    let (snapshot, _) = crate::server::Snapshot::load(vec![PathBuf::from(".")], Vec::new());
    let listener = crate::server::daemon::bind(&socket)?;
    let s2 = socket.clone();
    let server = std::thread::spawn(move || {
        crate::server::daemon::run(listener, &s2, snapshot, Default::default())
    });
    let start = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        if start.elapsed() > Duration::from_secs(10) {
            return Err("the bench daemon did not start".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let client = |n: usize| -> Result<Vec<Duration>, String> {
        let s = UnixStream::connect(&socket).map_err(|e| e.to_string())?;
        let mut w = s.try_clone().map_err(|e| e.to_string())?;
        let mut r = BufReader::new(s);
        let mut lat = Vec::with_capacity(n);
        let mut line = String::new();
        for i in 0..n {
            let req = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"sycl/aspectTraits\",\"params\":{{\"targets\":\"intel_gpu_pvc,nvidia_gpu_sm_80\",\"aspects\":[\"fp64\"]}}}}\n"
            );
            let t = Instant::now();
            w.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
            line.clear();
            r.read_line(&mut line).map_err(|e| e.to_string())?;
            lat.push(t.elapsed());
        }
        Ok(lat)
    };
    let mut one = client(queries)?;
    one.sort();
    let per = (queries / 16).max(1);
    let t = Instant::now();
    let mut all: Vec<Duration> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..16).map(|_| scope.spawn(|| client(per))).collect();
        hs.into_iter()
            .filter_map(|h| h.join().ok())
            .filter_map(Result::ok)
            .flatten()
            .collect()
    });
    let wall = t.elapsed();
    all.sort();
    let mut s = UnixStream::connect(&socket).map_err(|e| e.to_string())?;
    let _ = s.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"shutdown\"}\n");
    let _ = s.read(&mut [0u8; 64]);
    let _ = server.join();
    let summary = |lat: &[Duration], wall: Option<Duration>| {
        let total: Duration = lat.iter().sum();
        let qps = lat.len() as f64 / wall.unwrap_or(total).as_secs_f64().max(1e-9);
        json!({ "queries": lat.len(), "p50_us": us(percentile(lat, 0.5)), "p99_us": us(percentile(lat, 0.99)), "per_second": qps })
    };
    Ok((summary(&one, None), summary(&all, Some(wall))))
}

/// A memory figure of another process from /proc (VmRSS:, VmHWM:), in MiB; 0 if unknown.
pub fn status_mib(pid: u32, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn lsp_send(w: &mut impl Write, msg: &Value) -> Result<(), String> {
    let body = msg.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len()).map_err(|e| e.to_string())?;
    w.flush().map_err(|e| e.to_string())
}

/// A cold run for five targets against one: device code is analysed once per distinct device
/// compile, so a workspace without target conditionals should cost the same. Best of three runs
/// each, alternated, against the machine's noise.
fn target_scaling(paths: &[PathBuf]) -> Result<Value, String> {
    let table = DeviceTable::builtin();
    let one = crate::devices::parse_target_list("intel_gpu_dg1", table).targets;
    let five = crate::devices::parse_target_list(
        "intel_gpu_pvc,intel_gpu_dg1,nvidia_gpu_sm_80,amd_gpu_gfx90a,spir64_x86_64",
        table,
    )
    .targets;
    let run = |targets: &[crate::devices::ResolvedTarget]| {
        let env = project::compile_env(Some(targets), table, &project::SyclFlags::default());
        let config = AnalysisConfig::new(table.clone(), Some(targets.to_vec()), env);
        let t = Instant::now();
        let mut loaded =
            workspace::load_indexed(paths, &cache::Index::default(), false, &config.env, || {});
        let report = project::host_of(config, &mut loaded).analysis().findings();
        (t.elapsed(), report.stats.device_compiles)
    };
    let (mut t1, mut t5, mut compiles) = (Duration::MAX, Duration::MAX, 0);
    for _ in 0..3 {
        t1 = t1.min(run(&one).0);
        let (t, c) = run(&five);
        t5 = t5.min(t);
        compiles = c;
    }
    Ok(json!({
        "one_target_ms": ms(t1),
        "five_targets_ms": ms(t5),
        "five_over_one": t5.as_secs_f64() / t1.as_secs_f64().max(1e-9),
        "device_compiles": compiles,
    }))
}

/// Runs `sycl-analyzer lsp` on the workspace, opens up to 10 files and measures, over `edits`
/// random one-line edits, the time from `didChange` to the diagnostics of that version.
fn edit_latency(
    root: &Path,
    paths: &[PathBuf],
    edits: usize,
    only: Option<&str>,
    seed: u64,
    cache: &Path,
) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // A profiler around the server (`heaptrack`, `perf record -g --`): to see where its memory
    // or time goes under the bench's own load. Its figures of resident size are then the
    // profiler's.
    let mut command = match std::env::var("SYCL_ANALYZER_BENCH_WRAPPER")
        .ok()
        .and_then(|w| shlex::split(&w))
        .filter(|w| !w.is_empty())
    {
        Some(wrapper) => {
            let mut c = Command::new(&wrapper[0]);
            c.args(&wrapper[1..]).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    let mut child = Reaped(
        command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // The server's log, when one is asked for (to see where an edit's time goes).
            .stderr(if std::env::var_os(crate::logging::ENV).is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .env("XDG_CACHE_HOME", cache)
            .spawn()
            .map_err(|e| e.to_string())?,
    );
    let pid = child.0.id();
    let mut stdin = child.0.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.0.stdout.take().ok_or("no stdout")?);
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || loop {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; len];
        if stdout.read_exact(&mut body).is_err() {
            return;
        }
        if let Ok(v) = serde_json::from_slice(&body) {
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    let root_abs = std::path::absolute(root).map_err(|e| e.to_string())?;
    let uri_of = |p: &Path| {
        format!(
            "file://{}",
            std::path::absolute(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
        )
    };
    lsp_send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": null, "rootUri": format!("file://{}", root_abs.display()),
        "capabilities": { "window": { "workDoneProgress": true } } } }),
    )?;
    let wait = |pred: &dyn Fn(&Value) -> bool, limit: Duration| -> Result<Value, String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = rx
                .recv_timeout(left)
                .map_err(|_| "the language server did not answer in time".to_string())?;
            if pred(&m) {
                return Ok(m);
            }
        }
    };
    wait(&|m| m["id"] == 1, Duration::from_secs(60))?;
    lsp_send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    )?;
    // Measure the steady state: indexing (reported as progress) is over before the first edit.
    let create = wait(
        &|m| m["method"] == "window/workDoneProgress/create",
        Duration::from_secs(60),
    )?;
    lsp_send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": create["id"], "result": null }),
    )?;
    wait(
        &|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end",
        Duration::from_secs(600),
    )?;
    let mut rng = synth::Rng::new(seed);
    let open: Vec<(String, Vec<String>)> = paths
        .iter()
        .filter(|p| match only {
            Some(suffix) => p.to_string_lossy().ends_with(suffix),
            None => p.extension().is_some_and(|e| e == "cpp"),
        })
        .take(10)
        .filter_map(|p| {
            Some((
                uri_of(p),
                std::fs::read_to_string(p)
                    .ok()?
                    .lines()
                    .map(String::from)
                    .collect(),
            ))
        })
        .collect();
    if open.is_empty() {
        return Err("no .cpp file to edit".into());
    }
    for (uri, lines) in &open {
        lsp_send(
            &mut stdin,
            &json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": lines.join("\n") } } }),
        )?;
    }
    // Every open file answered once (in any order; each is answered once per version).
    let pending = std::cell::RefCell::new(
        open.iter()
            .map(|(u, _)| u.clone())
            .collect::<std::collections::HashSet<String>>(),
    );
    wait(
        &|m| {
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 1 {
                if let Some(u) = m["params"]["uri"].as_str() {
                    pending.borrow_mut().remove(u);
                }
            }
            pending.borrow().is_empty()
        },
        Duration::from_secs(300),
    )?;
    let mut open = open;
    let mut versions = vec![1i64; open.len()];
    // One insertion at (line, UTF-16 column), timed until the file's diagnostics of that version.
    let edit = |stdin: &mut std::process::ChildStdin,
                uri: &str,
                v: i64,
                (line, character): (usize, usize),
                text: &str|
     -> Result<Duration, String> {
        let t = Instant::now();
        let at = json!({ "line": line, "character": character });
        lsp_send(
            stdin,
            &json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": { "uri": uri, "version": v },
            "contentChanges": [{ "range": { "start": at, "end": at }, "text": text }] } }),
        )?;
        let uri = uri.to_string();
        wait(
            &move |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == v
            },
            Duration::from_secs(60),
        )?;
        Ok(t.elapsed())
    };
    let mut lat = Vec::with_capacity(edits);
    // Each edit's latency with where it was, to say which edits are slow (issue 19).
    let mut each: Vec<(Duration, usize, usize)> = Vec::with_capacity(edits);
    for _ in 0..edits {
        let f = rng.below(open.len() as u64) as usize;
        let l = rng.below(open[f].1.len() as u64) as usize;
        versions[f] += 1;
        let v = versions[f];
        // Append a space to a line: a real edit that keeps the code as it was.
        let end = open[f].1[l].chars().map(char::len_utf16).sum::<usize>();
        open[f].1[l].push(' ');
        let took = edit(&mut stdin, &open[f].0, v, (l, end), " ")?;
        lat.push(took);
        each.push((took, f, l));
    }
    // Interface-changing edits (a tenth as many): a new function declared at the top of a file
    // changes what the file declares, so the skeleton is updated, not only bodies.
    let mut interface = Vec::with_capacity(edits / 10);
    for n in 0..(edits / 10).max(1) {
        let f = rng.below(open.len() as u64) as usize;
        versions[f] += 1;
        let v = versions[f];
        let decl = format!("void bench_declared_{n}(double x);");
        open[f].1.insert(0, decl.clone());
        interface.push(edit(
            &mut stdin,
            &open[f].0,
            v,
            (0, 0),
            &format!("{decl}\n"),
        )?);
    }
    interface.sort();
    each.sort_by_key(|e| std::cmp::Reverse(e.0));
    let slowest: Vec<Value> = each
        .iter()
        .take(5)
        .map(|(d, f, l)| {
            let file = open[*f].0.rsplit('/').next().unwrap_or_default();
            let text: String = open[*f].1[*l].trim().chars().take(60).collect();
            json!({ "ms": ms(*d), "file": file, "line": l + 1, "text": text })
        })
        .collect();
    let rss = status_mib(pid, "VmHWM:");
    // Resident at the end, beside the peak: a transient peak (indexing, a relink) and the
    // steady state are different problems.
    let rss_now = status_mib(pid, "VmRSS:");
    // And after a pause in typing, when the server has given back what its bursts freed.
    std::thread::sleep(Duration::from_secs(3));
    let rss_idle = status_mib(pid, "VmRSS:");
    lsp_send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null }),
    )?;
    let _ = wait(&|m| m["id"] == 2, Duration::from_secs(10));
    lsp_send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "exit", "params": null }),
    )?;
    let _ = child.0.wait();
    lat.sort();
    Ok(
        json!({ "edits": lat.len(), "p50_ms": ms(percentile(&lat, 0.5)), "p99_ms": ms(percentile(&lat, 0.99)), "server_peak_rss_mib": rss, "server_rss_mib": rss_now, "server_idle_rss_mib": rss_idle, "slowest": slowest,
                "interface_edits": interface.len(), "interface_p50_ms": ms(percentile(&interface, 0.5)), "interface_p99_ms": ms(percentile(&interface, 0.99)) }),
    )
}

/// The human table.
pub fn table(v: &Value) -> String {
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    format!(
        "workspace      {}\nfiles          {}\nbytes          {}\nlines          {}\nfindings       {}\n\
         raw parse      {:.1} ms (tree-sitter only, 1 thread)\n\
         cold analysis  {:.1} ms wall, {:.1} ms CPU  = {:.2} x raw parse\n\
         warm start     {:.1} ms  = {:.3} x cold (unchanged files; {:.1} ms = {:.3} x with the analysis)\n\
         5 targets      {:.1} ms vs 1 target {:.1} ms = {:.2} x ({} device compiles)\n\
         peak RSS       {:.1} MiB (this process), {:.1} MiB (language server)\n\
         edit -> diags  p50 {:.2} ms, p99 {:.2} ms over {} edits\n\
         socket query   1 client: p50 {:.1} us, p99 {:.1} us; 16 clients: p50 {:.1} us, {:.0} queries/s\n",
        v["workspace"].as_str().unwrap_or(""),
        v["files"], v["bytes"], v["lines"], v["findings"],
        f("raw_parse_ms"),
        f("cold_wall_ms"), f("cold_cpu_ms"), f("cold_over_raw"),
        f("warm_wall_ms"), f("warm_over_cold"), f("warm_analysed_ms"), f("warm_analysed_over_cold"),
        v["targets"]["five_targets_ms"].as_f64().unwrap_or(0.0),
        v["targets"]["one_target_ms"].as_f64().unwrap_or(0.0),
        v["targets"]["five_over_one"].as_f64().unwrap_or(0.0),
        v["targets"]["device_compiles"],
        f("peak_rss_mib"), v["edit"]["server_peak_rss_mib"].as_f64().unwrap_or(0.0),
        v["edit"]["p50_ms"].as_f64().unwrap_or(0.0), v["edit"]["p99_ms"].as_f64().unwrap_or(0.0), v["edit"]["edits"],
        v["query_1_client"]["p50_us"].as_f64().unwrap_or(0.0), v["query_1_client"]["p99_us"].as_f64().unwrap_or(0.0),
        v["query_16_clients"]["p50_us"].as_f64().unwrap_or(0.0), v["query_16_clients"]["per_second"].as_f64().unwrap_or(0.0),
    )
}
