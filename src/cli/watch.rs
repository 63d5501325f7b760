//! `sycl-analyzer watch [PATH]`: the terminal client of the daemon's subscriptions, as
//! `tsc --watch` is for TypeScript. It prints the findings, then the findings of each file
//! whose findings change as files are saved. With `--connect` it subscribes to a running
//! daemon (one analysis shared with editors and builds); without, it starts a daemon of its
//! own for the project that holds PATH, which ends with it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::output::{self, Reporter};
use super::EXIT_INVALID;
use crate::diagnostics::{Diagnostic, Severity};

pub struct WatchArgs {
    pub path: PathBuf,
    pub targets: Option<String>,
    /// A running daemon's socket; `None`: start one.
    pub connect: Option<PathBuf>,
    /// `--config` files, passed to a daemon started here.
    pub configs: Vec<PathBuf>,
    pub color: bool,
}

/// How long a daemon started here may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(30);

pub fn run(args: &WatchArgs) -> Result<i32, String> {
    let target = args
        .path
        .canonicalize()
        .map_err(|e| format!("cannot read '{}': {e}", args.path.display()))?;
    // Kept until the end: dropping it closes the own daemon's standard input, ending it.
    let mut own: Option<Child> = None;
    let socket = match &args.connect {
        Some(s) => s.clone(),
        None => {
            let (child, socket) = start_daemon(&target, &args.configs)?;
            own = Some(child);
            socket
        }
    };
    let result = follow(&socket, &target, args);
    if let Some(mut child) = own {
        drop(child.stdin.take());
        let _ = child.wait();
    }
    result
}

/// The root of the project that holds `target`, as `check FILE` finds it: the one of the
/// compilation database found upward from it (`watch src/` watches the project `src/` is
/// part of), else a directory itself, else a file's directory.
fn root_for(target: &Path) -> PathBuf {
    let paths = [target.to_path_buf()];
    match crate::project::database_candidates(&paths)
        .into_iter()
        .next()
    {
        Some(db) => super::check::project_root(&paths, &db),
        None if target.is_dir() => target.to_path_buf(),
        None => target
            .parent()
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
    }
}

fn start_daemon(target: &Path, configs: &[PathBuf]) -> Result<(Child, PathBuf), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let socket =
        std::env::temp_dir().join(format!("sycl-analyzer-watch-{}.sock", std::process::id()));
    let mut command = Command::new(exe);
    command
        .arg("daemon")
        .arg("--root")
        .arg(root_for(target))
        .arg("--socket")
        .arg(&socket)
        .arg("--exit-with-stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::null());
    for c in configs {
        command.arg("--config").arg(crate::workspace::absolute(c));
    }
    if std::env::var_os("SYCL_ANALYZER_LOG").is_none() {
        command.env("SYCL_ANALYZER_LOG", "warn");
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start a daemon: {e}"))?;
    let started = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the daemon started for watching exited ({status})"));
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            return Err("the daemon started for watching did not listen within 30 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((child, socket))
}

/// Subscribes and prints until the daemon goes away.
fn follow(socket: &Path, target: &Path, args: &WatchArgs) -> Result<i32, String> {
    let stream = UnixStream::connect(socket).map_err(|e| {
        format!(
            "cannot connect to the daemon at '{}': {e} (start one with `sycl-analyzer daemon`, \
             or leave out --connect)",
            socket.display()
        )
    })?;
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let mut params = json!({ "paths": [target.display().to_string()] });
    if let Some(t) = &args.targets {
        params["targets"] = json!(t);
    }
    let request =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/subscribe", "params": params });
    writeln!(writer, "{request}").map_err(|e| format!("cannot send to the daemon: {e}"))?;
    let mut state = Watched::default();
    eprintln!("watching {} (Ctrl-C to stop)", args.path.display());
    for line in BufReader::new(stream).lines() {
        let line = line.map_err(|e| format!("the connection to the daemon failed: {e}"))?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(e) = message.get("error") {
            eprintln!(
                "error: {}",
                e["message"].as_str().unwrap_or("the daemon refused")
            );
            return Ok(EXIT_INVALID);
        }
        let params = &message["params"];
        match message["method"].as_str() {
            Some("sycl/publishDiagnostics") => {
                let file = params["path"].as_str().unwrap_or_default().to_string();
                let found: Vec<Diagnostic> =
                    serde_json::from_value(params["diagnostics"].clone()).unwrap_or_default();
                state.changed.push(file.clone());
                state.files.insert(file, found);
            }
            Some("sycl/publishDone") => {
                let root = PathBuf::from(params["root"].as_str().unwrap_or("."));
                state.print(&root, args.color);
            }
            Some("sycl/subscriptionError") => {
                eprintln!("error: {}", params["message"].as_str().unwrap_or_default());
            }
            _ => {}
        }
    }
    Err("the daemon closed the connection".into())
}

#[derive(Default)]
struct Watched {
    /// The findings of every file, as last published.
    files: BTreeMap<String, Vec<Diagnostic>>,
    /// The files published since the last print.
    changed: Vec<String>,
    printed: bool,
}

impl Watched {
    /// Prints the files that changed (all, the first time) and a summary line. Files are
    /// named as the daemon names them, relative to its root (as `check FILE` names them),
    /// since so are the kernels its messages name.
    fn print(&mut self, root: &Path, color: bool) {
        let mut reporter = Reporter::new(color);
        let mut shown: Vec<Diagnostic> = Vec::new();
        let mut cleared = Vec::new();
        let mut changed = std::mem::take(&mut self.changed);
        changed.sort();
        changed.dedup();
        let mut texts = crate::workspace::SourceTexts::under(root);
        for file in &changed {
            let found = self.files.get(file).cloned().unwrap_or_default();
            if found.is_empty() {
                self.files.remove(file);
                cleared.push(file.clone());
            }
            for mut d in found {
                d.locate(&mut |f| texts.get(f));
                shown.push(d);
            }
        }
        for (name, text) in texts.read() {
            reporter.add_source(name, text);
        }
        let clock = clock();
        if self.printed {
            output::out(&format!("\n[{clock}] files changed\n"));
        }
        reporter.report_to_stdout(&shown);
        for name in cleared {
            output::out(&format!("{name}: no findings now\n"));
        }
        let all = || self.files.values().flatten();
        let count = |s: Severity| all().filter(|d| d.severity == s).count();
        output::out(&format!(
            "[{clock}] {} error(s), {} warning(s), {} note(s) in {} file(s); watching for changes\n",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Note),
            self.files.values().filter(|f| !f.is_empty()).count(),
        ));
        self.printed = true;
    }
}

/// The local time of day, `HH:MM:SS`.
fn clock() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as libc::time_t;
    // SAFETY: localtime_r writes only the struct it is given.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&now, &mut tm);
        tm
    };
    format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
}
