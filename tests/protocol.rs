//! Runs every example of protocol.md against the real binary: the documented interface is the
//! one that exists.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;

struct Example {
    line: usize,
    args: Vec<String>,
    status: i32,
    lang: String,
    expected: String,
}

fn examples() -> Vec<Example> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("protocol.md")).unwrap();
    // Fenced blocks as (line, language, body).
    let mut blocks = Vec::new();
    let mut lines = doc.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let body: Vec<&str> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| !l.starts_with("```"))
                .collect();
            blocks.push((n + 1, lang.to_string(), body.join("\n")));
        }
    }
    let mut out = Vec::new();
    for pair in blocks.windows(2) {
        let (line, lang, body) = &pair[0];
        if lang != "console" {
            continue;
        }
        let mut body_lines = body.lines();
        let command = body_lines.next().unwrap();
        let args = command.strip_prefix("$ sycl-analyzer ").unwrap_or_else(|| {
            panic!("protocol.md:{line}: a console block starts with '$ sycl-analyzer'")
        });
        let status = body_lines
            .find_map(|l| l.strip_prefix("# exit status: "))
            .map_or(0, |s| s.parse().unwrap());
        let (_, next_lang, next_body) = &pair[1];
        assert!(
            next_lang == "json" || next_lang == "text",
            "protocol.md:{line}: the block after a command holds its output"
        );
        out.push(Example {
            line: *line,
            args: args.split_whitespace().map(String::from).collect(),
            status,
            lang: next_lang.clone(),
            expected: next_body.clone(),
        });
    }
    out
}

#[test]
fn every_protocol_example_matches_the_binary() {
    let examples = examples();
    assert!(
        examples.len() >= 10,
        "found only {} examples",
        examples.len()
    );
    for ex in examples {
        let output = Command::cargo_bin("sycl-analyzer")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(&ex.args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            output.status.code(),
            Some(ex.status),
            "protocol.md:{}: exit status of {:?}",
            ex.line,
            ex.args
        );
        if ex.lang == "json" {
            let expected: serde_json::Value = serde_json::from_str(&ex.expected)
                .unwrap_or_else(|e| panic!("protocol.md:{}: bad JSON: {e}", ex.line));
            let actual: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            // Compared as pretty text, so key order (the macro order) counts too.
            assert_eq!(
                serde_json::to_string_pretty(&actual).unwrap(),
                serde_json::to_string_pretty(&expected).unwrap(),
                "protocol.md:{}: output of {:?}",
                ex.line,
                ex.args
            );
        } else {
            assert_eq!(
                stdout.trim_end(),
                ex.expected,
                "protocol.md:{}: output of {:?}",
                ex.line,
                ex.args
            );
        }
    }
}

/// `(line, request, expected answer)` of every `jsonrpc` block.
fn rpc_examples() -> Vec<(usize, String, serde_json::Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("protocol.md")).unwrap();
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending: Option<(usize, String)> = None;
    let mut answer = String::new();
    let mut flush = |pending: &mut Option<(usize, String)>, answer: &mut String| {
        if let Some((line, req)) = pending.take() {
            let expected = serde_json::from_str(answer)
                .unwrap_or_else(|e| panic!("protocol.md:{line}: bad answer JSON: {e}"));
            out.push((line, req, expected));
        }
        answer.clear();
    };
    for (n, line) in doc.lines().enumerate() {
        if line == "```jsonrpc" {
            in_block = true;
        } else if in_block && line == "```" {
            flush(&mut pending, &mut answer);
            in_block = false;
        } else if in_block {
            if let Some(req) = line.strip_prefix("--> ") {
                flush(&mut pending, &mut answer);
                pending = Some((n + 1, req.to_string()));
            } else if let Some(a) = line.strip_prefix("<-- ") {
                answer.push_str(a);
            } else {
                answer.push_str(line);
            }
            answer.push('\n');
        }
    }
    out
}

#[test]
fn every_daemon_example_matches_a_real_daemon() {
    let examples = rpc_examples();
    assert!(
        examples.len() >= 8,
        "found only {} JSON-RPC examples",
        examples.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("d.sock");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "daemon",
            "--root",
            "examples",
            "--socket",
            socket.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let stream = loop {
        match UnixStream::connect(&socket) {
            Ok(s) => break s,
            Err(_) if start.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("daemon did not start: {e}"),
        }
    };
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut failures = Vec::new();
    for (line, request, expected) in examples {
        writeln!(writer, "{request}").unwrap();
        let mut answer = String::new();
        reader.read_line(&mut answer).unwrap();
        // The root the daemon names is this checkout's: the text names a stand-in.
        let here = Path::new(env!("CARGO_MANIFEST_DIR"))
            .canonicalize()
            .unwrap()
            .display()
            .to_string();
        let answer = answer.replace(&here, "/path/to/sycl-analyzer");
        let actual: serde_json::Value = serde_json::from_str(&answer).unwrap();
        if actual != expected {
            failures.push(format!(
                "protocol.md:{line}: {request}\n  expected {expected}\n  got      {actual}"
            ));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The language server's example: a ```` ```cpp NAME ```` block is a file opened in the server,
/// each ```` ```json WHAT ```` block after it what the server answers (`ROOT` is the workspace).
#[test]
fn the_language_server_example_matches_the_server() {
    use serde_json::{json, Value};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("protocol.md")).unwrap();
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .collect();
            blocks.push((info.to_string(), body.join("\n")));
        }
    }
    let (name, text) = blocks
        .iter()
        .find_map(|(info, body)| Some((info.strip_prefix("cpp ")?, format!("{body}\n"))))
        .expect("protocol.md has a cpp block for the language server");
    let expected = |what: &str| -> Value {
        let body = blocks
            .iter()
            .find(|(info, _)| info.strip_prefix("json ") == Some(what))
            .unwrap_or_else(|| panic!("protocol.md has no `json {what}` block"));
        serde_json::from_str(&body.1).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    std::fs::write(ws.join(name), &text).unwrap();
    let uri = format!("file://{}/{name}", ws.display());
    let mut c = common::Client::start();
    let init = c.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": format!("file://{}", ws.display()),
            "capabilities": {
                "textDocument": { "inactiveRegionsCapabilities": { "inactiveRegions": true } }
            },
            "initializationOptions": { "targets": "intel_gpu_pvc" }
        }),
    );
    assert_eq!(
        init["result"]["capabilities"]["semanticTokensProvider"],
        expected("initialize: capabilities.semanticTokensProvider")
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    let n = c.wait("textDocument/inactiveRegions", |m| {
        m["method"] == "textDocument/inactiveRegions"
    });
    let documented = expected("textDocument/inactiveRegions")
        .to_string()
        .replace("file://ROOT", &format!("file://{}", ws.display()));
    assert_eq!(
        n["params"],
        serde_json::from_str::<Value>(&documented).unwrap()
    );
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(r["result"], expected("textDocument/semanticTokens/full"));
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = c.child.wait();
}

/// protocol.md's table of codes is what the binary knows of each code (SARIF rules and the
/// editors' descriptions come from the same text).
#[test]
fn the_table_of_codes_is_the_binarys() {
    use sycl_analyzer::diagnostics::Code;
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol.md")).unwrap();
    let rows: Vec<(String, String, String)> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.strip_prefix("| `")?.splitn(3, " | ").collect();
            let code = cells.first()?.strip_suffix('`')?;
            let (severity, meaning) = (cells.get(1)?, cells.get(2)?.strip_suffix(" |")?);
            Some((code.into(), severity.to_string(), meaning.into()))
        })
        .filter(|(code, _, _)| Code::ALL.iter().any(|c| c.as_str() == code))
        .collect();
    let expected: Vec<(String, String, String)> = Code::ALL
        .iter()
        .map(|c| {
            (
                c.as_str().into(),
                c.severity().as_str().into(),
                c.meaning().into(),
            )
        })
        .collect();
    assert_eq!(rows, expected);
}
