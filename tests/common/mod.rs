//! An LSP client over the real binary's stdio, shared by the language-server tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    seen: Vec<Value>,
    pub timeout: Duration,
}

impl Client {
    pub fn start() -> Client {
        Self::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Client {
        Self::start_with_env(extra, &[])
    }

    pub fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Client {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
            .env("SYCL_ANALYZER_TEST_PANIC", "1")
            .envs(env.iter().copied())
            .arg("lsp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, incoming) = channel();
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
                    len = v.parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            stdout.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        Client {
            child,
            stdin,
            incoming,
            next_id: 1,
            seen: Vec::new(),
            timeout: Duration::from_secs(30),
        }
    }

    pub fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Waits for a message matching `pred`, answering the server's own requests on the way.
    pub fn wait(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let msg = self
                .incoming
                .recv_timeout(self.timeout)
                .unwrap_or_else(|_| {
                    panic!("timed out waiting for {what}; last seen: {:?}", self.seen)
                });
            self.seen.push(msg.clone());
            if pred(&msg) {
                return msg;
            }
            if msg.get("method").is_some() && msg.get("id").is_some() {
                let id = msg["id"].clone();
                self.send(json!({ "jsonrpc": "2.0", "id": id, "result": null }));
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait(method, |m| m["id"] == id && m.get("method").is_none())
    }

    pub fn diagnostics_for(&mut self, uri: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let uri = uri.to_string();
        let what = format!("publishDiagnostics for {uri}");
        self.wait(&what, move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && pred(&m["params"])
        })["params"]
            .clone()
    }

    /// Every message received so far, in order (those `wait` matched included).
    pub fn seen(&self) -> &[Value] {
        &self.seen
    }

    /// The first publication for each of `uris`, in whatever order they come.
    pub fn diagnostics_for_each(
        &mut self,
        uris: &[String],
    ) -> std::collections::HashMap<String, Value> {
        let got = std::cell::RefCell::new(std::collections::HashMap::new());
        self.wait("publishDiagnostics for each file", |m| {
            if m["method"] == "textDocument/publishDiagnostics" {
                let u = m["params"]["uri"].as_str().unwrap_or("").to_string();
                if uris.contains(&u) {
                    got.borrow_mut()
                        .entry(u)
                        .or_insert_with(|| m["params"].clone());
                }
            }
            got.borrow().len() == uris.len()
        });
        got.into_inner()
    }
}

/// Copies a directory tree (a fixture project into a test's temporary directory).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Waits for `child` at most `limit`, killing it then; its exit status.
pub fn wait_at_most(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            return child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
