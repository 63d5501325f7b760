//! The language server, started as the real binary and driven over stdio as an editor would.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use common::Client;

use serde_json::{json, Value};

const KERNEL: &str = "// é: a non-ASCII character before positions\n\
#include <sycl/sycl.hpp>\n\
void helper(float *p) { double d = p[0]; p[0] = d; }\n\
void run(sycl::queue &q, float *p) {\n\
  q.single_task([=]() [[sycl::device_has(sycl::aspect::fp16)]] { helper(p); });\n\
}\n";

fn workspace() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("k.cpp");
    std::fs::write(&file, KERNEL).unwrap();
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}", file.display());
    (dir, root_uri, uri)
}

fn session(encodings: Value, root_uri: &str) -> (Client, Value) {
    let mut c = Client::start();
    let init = c.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": root_uri,
            "capabilities": { "general": { "positionEncodings": encodings }, "window": { "workDoneProgress": true } },
            "initializationOptions": { "targets": ["intel_gpu_pvc"] }
        }),
    );
    c.notify("initialized", json!({}));
    (c, init)
}

/// A server on `root` with `targets`, initialized.
fn started(root: &std::path::Path, targets: &str) -> Client {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": format!("file://{}", root.display()), "capabilities": {},
                "initializationOptions": { "targets": targets } }),
    );
    c.notify("initialized", json!({}));
    c
}

/// A server with `targets` on a workspace of one file, `k.cpp` holding `text`, opened and
/// analysed once: the workspace, the client and the file's URI.
fn opened(text: &str, targets: &str) -> (tempfile::TempDir, Client, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("k.cpp"), text).unwrap();
    let uri = format!("file://{}/k.cpp", root.display());
    let mut c = started(&root, targets);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    (dir, c, uri)
}

fn shutdown(mut c: Client) {
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    c.notify("exit", Value::Null);
    let status = c.child.wait().unwrap();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn diagnostics_with_chain_then_ordered_edits_clear_them() {
    let (_dir, root_uri, uri) = workspace();
    let (mut c, init) = session(json!(["utf-16"]), &root_uri);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    // Indexing reports progress, then the finding is published with its chain.
    c.wait("progress end", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    });
    let d = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    let diag = &d["diagnostics"][0];
    assert_eq!(diag["code"], "aspect-mismatch");
    assert_eq!(diag["source"], "sycl-analyzer");
    assert_eq!(
        diag["range"]["start"],
        json!({ "line": 4, "character": 14 })
    );
    let related = diag["relatedInformation"].as_array().unwrap();
    assert_eq!(related.len(), 2);
    assert_eq!(
        related[0]["message"],
        "propagated from call to function 'helper(float*)'"
    );
    assert_eq!(
        related[1]["location"]["range"]["start"],
        json!({ "line": 2, "character": 31 })
    );
    assert_eq!(related[1]["message"], "uses 'double' here");

    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": KERNEL } }));
    let d = c.diagnostics_for(&uri, |p| p["version"] == 1);
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1);

    // Two edits that only make sense in order: delete `double`, then type `float` there.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [
            { "range": { "start": { "line": 2, "character": 24 }, "end": { "line": 2, "character": 30 } }, "text": "" }
        ] }),
    );
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [
            { "range": { "start": { "line": 2, "character": 24 }, "end": { "line": 2, "character": 24 } }, "text": "float" }
        ] }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 3);
    assert_eq!(d["diagnostics"], json!([]), "fixed code clears the warning");

    // Hover on `fp16` (line 4): its value and what the configured target says.
    let line = KERNEL.lines().nth(4).unwrap();
    let character = line.find("fp16").unwrap() + 1;
    let h = c.request("textDocument/hover", json!({ "textDocument": { "uri": uri }, "position": { "line": 4, "character": character } }));
    let text = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("`sycl::aspect::fp16` = 5"), "{text}");
    assert!(text.contains("intel_gpu_pvc"), "{text}");

    // The daemon's methods are served from the editor's state.
    let r = c.request(
        "sycl/predefinedMacros",
        json!({ "targets": "intel_gpu_dg1" }),
    );
    assert_eq!(r["result"]["macros"]["__SYCL_TARGET_INTEL_GPU_DG1__"], "1");
    let r = c.request("sycl/unknownThing", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    shutdown(c);
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let (_dir, root_uri, uri) = workspace();
    let (mut c, init) = session(json!(["utf-8", "utf-16"]), &root_uri);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    // Line 0 holds 'é' (2 bytes): an edit there is addressed in bytes.
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": KERNEL } }));
    let d = c.diagnostics_for(&uri, |p| p["version"] == 1);
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1);
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [
            { "range": { "start": { "line": 0, "character": 6 }, "end": { "line": 0, "character": 6 } }, "text": "ü" },
            { "range": { "start": { "line": 2, "character": 24 }, "end": { "line": 2, "character": 30 } }, "text": "float" }
        ] }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 2);
    assert_eq!(d["diagnostics"], json!([]));
    shutdown(c);
}

/// A oneMKL call on double data is published as any finding, and an edit of the call's
/// function body to float data (the graph unchanged) clears it.
#[test]
fn library_kernel_findings_are_published_and_follow_edits() {
    let text = "#include <oneapi/mkl.hpp>\n\
void scale(sycl::queue &q, std::int64_t n, double *x) {\n\
  oneapi::mkl::blas::column_major::scal(q, n, 2.0, x, 1);\n\
}\n";
    let (_dir, mut c, uri) = opened(text, "intel_gpu_dg1");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": text }] }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 2);
    let diag = &d["diagnostics"][0];
    assert_eq!(diag["code"], "library-kernel-unsupported-aspect", "{d}");
    assert_eq!(diag["severity"], 2);
    assert_eq!(diag["range"]["start"], json!({ "line": 2, "character": 0 }));
    assert!(diag["message"]
        .as_str()
        .unwrap()
        .contains("'oneapi::mkl::blas::column_major::scal' on 'double' data"));
    assert_eq!(
        diag["relatedInformation"][0]["message"],
        "'double' data passed here"
    );
    let fixed = text.replace("double *x", "float *x");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": fixed }] }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 3);
    assert_eq!(d["diagnostics"], json!([]));
    shutdown(c);
}

#[test]
fn a_closed_files_findings_are_placed_as_an_open_ones() {
    // A closed file's text is not kept: its positions come from the lines its facts keep.
    let text = KERNEL.replace("{ double d", "{ /* \u{1F600} \u{e9} */ double d");
    for enc in ["utf-16", "utf-8"] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("k.cpp"), &text).unwrap();
        let uri = format!("file://{}/k.cpp", root.display());
        let (mut c, init) = session(json!([enc]), &format!("file://{}", root.display()));
        assert_eq!(init["result"]["capabilities"]["positionEncoding"], enc);
        let closed = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
        c.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
        );
        let open = c.diagnostics_for(&uri, |p| p["version"] == 1);
        assert_eq!(closed["diagnostics"], open["diagnostics"], "{enc}");
        // The chain ends at the double variable, after the wide characters of line 2.
        let d = text.lines().nth(2).unwrap().find("d = p").unwrap();
        let col = match enc {
            "utf-8" => d,
            _ => text.lines().nth(2).unwrap()[..d].encode_utf16().count(),
        };
        let at = json!({ "line": 2, "character": col });
        assert!(
            closed["diagnostics"].to_string().contains(&at.to_string()),
            "{enc}: no position {at} in {closed}"
        );
        shutdown(c);
    }
}

#[test]
fn completion_code_actions_inlay_hints_and_config_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let text =
        format!("{KERNEL}constexpr bool has64 = sycl::any_device_has_v<sycl::aspect::fp64>;\n#if __SYCL_ALL_DEVICES_HAVE_fp16__\n#endif\n");
    std::fs::write(root.join("k.cpp"), &text).unwrap();
    let yaml = "intel_gpu_new:\n  aspects: [fp61]\n";
    std::fs::write(root.join("devices.yaml"), yaml).unwrap();
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}/k.cpp", root.display());
    let yaml_uri = format!("file://{}/devices.yaml", root.display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": root_uri, "capabilities": {},
                "initializationOptions": { "targets": "intel_gpu_dg1", "deviceConfig": ["devices.yaml"] } }),
    );
    c.notify("initialized", json!({}));
    // The config file's problem is published at its exact place.
    let y = c.diagnostics_for(&yaml_uri, |p| {
        !p["diagnostics"].as_array().unwrap().is_empty()
    });
    assert_eq!(y["diagnostics"][0]["code"], "unknown-aspect");
    assert_eq!(
        y["diagnostics"][0]["range"],
        json!({ "start": { "line": 1, "character": 12 }, "end": { "line": 1, "character": 16 } })
    );

    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 1);
    let mismatch = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "aspect-mismatch")
        .unwrap()
        .clone();
    // Quick fix: add the aspect to the list.
    let r = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": mismatch["range"], "context": { "diagnostics": [mismatch] } }),
    );
    let actions = r["result"].as_array().unwrap();
    let add = actions
        .iter()
        .find(|a| a["title"] == "Add 'fp64' to the device_has list")
        .expect("add-aspect action");
    let edit = &add["edit"]["changes"][&uri][0];
    assert_eq!(edit["newText"], ", sycl::aspect::fp64");
    let line4 = text.lines().nth(4).unwrap();
    let close = line4.find(")]]").unwrap();
    assert_eq!(
        edit["range"]["start"],
        json!({ "line": 4, "character": close })
    );

    // Completion after `aspect::`.
    let at = line4.find("aspect::").unwrap() + "aspect::".len();
    let r = c.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 4, "character": at } }),
    );
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"fp16") && labels.contains(&"atomic64"),
        "{labels:?}"
    );

    // Inlay hint: dg1 has no fp64.
    let r = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": uri }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } } }));
    let hints = r["result"].as_array().unwrap();
    assert_eq!(hints.len(), 1, "{r}");
    assert_eq!(hints[0]["label"], " = false");
    assert_eq!(hints[0]["position"]["line"], 6);

    // Hover on a macro, and on the decorated kernel (declared versus used).
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 7, "character": 8 } }),
    );
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        md.contains("`__SYCL_ALL_DEVICES_HAVE_fp16__`**: 1 when every device")
            && md.contains("`1`, predefined by -fsycl-targets=intel_gpu_dg1"),
        "{md}"
    );
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 4, "character": 15 } }),
    );
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        md.contains("declares (`device_has`): fp16") && md.contains("uses: fp64"),
        "{md}"
    );

    // YAML: replace the unknown aspect with a suggestion, after opening the file.
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": yaml_uri, "languageId": "yaml", "version": 1, "text": yaml } }));
    c.diagnostics_for(&yaml_uri, |p| p["version"] == 1);
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": yaml_uri }, "position": { "line": 0, "character": 3 } }),
    );
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("target `intel_gpu_new`"),
        "{h}"
    );
    let r = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": yaml_uri }, "range": { "start": { "line": 1, "character": 13 }, "end": { "line": 1, "character": 13 } }, "context": { "diagnostics": [] } }),
    );
    let titles: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Replace with 'fp16'"), "{titles:?}");
    // Fixing it in the editor clears the diagnostic and changes the table at once.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": yaml_uri, "version": 2 }, "contentChanges": [
            { "range": { "start": { "line": 1, "character": 12 }, "end": { "line": 1, "character": 16 } }, "text": "fp16" }
        ] }),
    );
    let y = c.diagnostics_for(&yaml_uri, |p| p["version"] == 2);
    assert_eq!(y["diagnostics"], json!([]));
    let r = c.request(
        "sycl/aspectTraits",
        json!({ "targets": "intel_gpu_new", "aspects": ["fp16"] }),
    );
    assert_eq!(r["result"]["all_devices_have"]["fp16"], true);
    shutdown(c);
}

#[test]
fn changes_on_disk_are_seen_for_closed_files_and_configs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("k.cpp"), KERNEL).unwrap();
    let cfg = root.join("conf/devices.yaml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp16]\n").unwrap();
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}/k.cpp", root.display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": root_uri, "capabilities": {},
                "initializationOptions": { "deviceConfig": ["conf/devices.yaml"] } }),
    );
    c.notify("initialized", json!({}));
    c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    // A closed source fixed on disk (by rename, as editors and git do).
    let tmp = root.join("k.cpp.tmp");
    std::fs::write(&tmp, KERNEL.replace("double d", "float d")).unwrap();
    std::fs::rename(&tmp, root.join("k.cpp")).unwrap();
    let d = c.diagnostics_for(&uri, |p| p["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(d["diagnostics"], json!([]));
    // The config changed on disk applies.
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp16, fp64]\n").unwrap();
    let start = std::time::Instant::now();
    loop {
        let r = c.request(
            "sycl/aspectTraits",
            json!({ "targets": "my_gpu", "aspects": ["fp64"] }),
        );
        if r["result"]["all_devices_have"]["fp64"] == true {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "config change not seen: {r}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    shutdown(c);
}

#[test]
fn listen_serves_the_editors_live_state_to_build_systems() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let yaml = "my_gpu:\n  aspects: [fp16]\n";
    std::fs::write(root.join("devices.yaml"), yaml).unwrap();
    let socket = root.join("s/lsp.sock");
    let mut c = Client::start_with(&["--listen", socket.to_str().unwrap()]);
    let root_uri = format!("file://{}", root.display());
    let yaml_uri = format!("file://{}/devices.yaml", root.display());
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": root_uri, "capabilities": {},
                "initializationOptions": { "deviceConfig": ["devices.yaml"] } }),
    );
    c.notify("initialized", json!({}));
    let ask = || {
        let s = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        let mut w = s.try_clone().unwrap();
        writeln!(w, "{}", json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/aspectTraits", "params": { "targets": "my_gpu", "aspects": ["fp64"] } })).unwrap();
        let mut line = String::new();
        BufReader::new(s).read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()["result"]["all_devices_have"]["fp64"].clone()
    };
    assert_eq!(ask(), false);
    // An unsaved edit in the editor is what the build system sees.
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": yaml_uri, "languageId": "yaml", "version": 1, "text": yaml } }));
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": yaml_uri, "version": 2 }, "contentChanges": [{ "text": "my_gpu:\n  aspects: [fp16, fp64]\n" }] }),
    );
    let start = std::time::Instant::now();
    while ask() != true {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the editor's change did not reach the socket"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    shutdown(c);
    assert!(!socket.exists(), "the socket is removed at exit");
}

/// A workspace with a kernel computing in double and a `compile_commands.json` (at `db_path`,
/// relative to the root) whose one entry is `entry` (`{dir}` is the root); a server on it,
/// initialized. Returns the client, the kernel's URI and the workspace.
fn session_with_compile_commands(
    db_path: &str,
    entry: &str,
    files: &[(&str, &str)],
) -> (Client, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("k.cpp"), "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n").unwrap();
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    let db = root.join(db_path);
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let entry = entry.replace("{dir}", &root.display().to_string());
    std::fs::write(db, format!("[{entry}]")).unwrap();
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": format!("file://{}", root.display()), "capabilities": {} }),
    );
    c.notify("initialized", json!({}));
    (c, format!("file://{}/k.cpp", root.display()), dir)
}

#[test]
fn targets_and_device_config_come_from_compile_commands() {
    let (mut c, uri, _dir) = session_with_compile_commands(
        "build/compile_commands.json",
        r#"{"directory": "{dir}", "file": "k.cpp", "arguments": ["icpx", "-fsycl", "-fsycl-targets=my_dev", "-fsycl-device-config-file=devs.yaml", "k.cpp"]}"#,
        &[("devs.yaml", "my_dev:\n  aspects: [gpu]\n")],
    );
    let d = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(d["diagnostics"][0]["code"], "target-unsupported-aspect");
    assert!(d["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("'my_dev'"));
    shutdown(c);
}

/// Editors send their whole settings section, unset entries as "" and []: VS Code does, on
/// initialize and on every change. They mean "not configured": compile_commands.json still
/// names the targets and the device config, and no file named "" (the root) is read.
#[test]
fn empty_settings_leave_discovery_to_compile_commands() {
    let (mut c, uri, _dir) = session_with_compile_commands(
        "build/compile_commands.json",
        r#"{"directory": "{dir}", "file": "k.cpp", "arguments": ["icpx", "-fsycl", "-fsycl-targets=my_dev", "-fsycl-device-config-file=devs.yaml", "k.cpp"]}"#,
        &[("devs.yaml", "my_dev:\n  aspects: [gpu]\n")],
    );
    c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "sycl-analyzer": {
            "server": { "path": "" }, "path": "", "targets": [], "deviceConfig": [""],
            "compileCommands": "", "deviceConfigGlob": "**/*device*config*.{yaml,yml}",
            "trace": { "server": "off" } } } }),
    );
    // A kernel edit makes a new analysis under the new settings.
    let text = "void run(sycl::queue &q, float *p) { q.single_task([=]() { double e = p[0]; p[0] = e; }); }\n";
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 7, "text": text } }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 7);
    assert_eq!(
        d["diagnostics"][0]["code"], "target-unsupported-aspect",
        "{d}"
    );
    assert!(d["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("'my_dev'"));
    let shown: Vec<&Value> = c
        .seen()
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert!(shown.is_empty(), "{shown:?}");
    shutdown(c);
}

/// Targets given in initializationOptions survive a `didChangeConfiguration` that does not name
/// them: eglot sends `{}` after initializing (the Emacs test found it).
#[test]
fn a_configuration_change_without_targets_keeps_the_initial_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let text = "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n";
    std::fs::write(root.join("k.cpp"), text).unwrap();
    let uri = format!("file://{}/k.cpp", root.display());
    let mut c = started(&root, "intel_gpu_dg1");
    for (version, settings) in [
        (1, json!({})),
        (2, json!(null)),
        (3, json!({ "sycl-analyzer": {} })),
    ] {
        c.notify(
            "workspace/didChangeConfiguration",
            json!({ "settings": settings }),
        );
        c.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": version, "text": text } }),
        );
        let d = c.diagnostics_for(&uri, |p| p["version"] == version);
        assert!(
            d["diagnostics"][0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("'intel_gpu_dg1'"),
            "{settings}: {d}"
        );
    }
    shutdown(c);
}

/// `--offload-arch` in the build's commands names the targets; a spelling the driver refuses is
/// shown with its text, and the targets it accepts are still analysed.
#[test]
fn offload_arch_in_compile_commands_and_the_drivers_errors() {
    let (mut c, uri, _dir) = session_with_compile_commands(
        "compile_commands.json",
        r#"{"directory": "{dir}", "file": "k.cpp", "command": "icpx -fsycl --offload-arch=dg1,pvcc -c k.cpp"}"#,
        &[],
    );
    let m = c.wait("the driver's error", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("SYCL target is invalid: 'pvcc'; did you mean"))
    });
    assert_eq!(m["params"]["type"], 1, "an error");
    let d = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(d["diagnostics"][0]["code"], "target-unsupported-aspect");
    assert!(d["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("'intel_gpu_dg1'"));
    shutdown(c);
}

/// A macro in `#if` shows its value in each device compile and where it comes from.
#[test]
fn hover_on_a_macro_shows_it_per_device_compile() {
    let m =
        "#include \"defs.h\"\n#ifdef __NVPTX__\n#endif\n#if REAL_IS_DOUBLE && UNKNOWN\n#endif\n";
    let (mut c, _uri, dir) = session_with_compile_commands(
        "compile_commands.json",
        r#"{"directory": "{dir}", "file": "m.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_pvc,nvidia_gpu_sm_80 -DREAL_IS_DOUBLE=1 -c m.cpp"}"#,
        &[
            ("m.cpp", m),
            (
                "defs.h",
                "#define UNKNOWN_TOO 2\n#define TWICE(x) ((x) * 2.0)\n",
            ),
        ],
    );
    let root = dir.path().canonicalize().unwrap();
    let uri = format!("file://{}/m.cpp", root.display());
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": m } }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    let mut hover = |line: u32, character: u32| -> String {
        let h = c.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        );
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let nvptx = hover(1, 10);
    assert!(
        nvptx.contains("- `intel_gpu_pvc`: not defined")
            && nvptx.contains(
                "- `nvidia_gpu_sm_80`: `1`, predefined by the nvidia_gpu_sm_80 device compile"
            ),
        "{nvptx}"
    );
    let real = hover(3, 6);
    assert!(
        real.contains("`1`, `-D` in the compile command") && !real.contains("- `"),
        "{real}"
    );
    // Undefined in an `#if` is an answer (0); a word that is no macro elsewhere is not.
    assert!(hover(3, 25).contains("not defined"));
    assert_eq!(hover(0, 2), "");
    shutdown(c);
}

#[test]
fn config_renamed_or_broken_on_disk_changes_published_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("k.cpp"), "void run(sycl::queue &q, float *p) { q.single_task([=]() { double d = p[0]; p[0] = d; }); }\n").unwrap();
    let cfg = root.join("devices.yaml");
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp64]\n").unwrap();
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}/k.cpp", root.display());
    let cfg_uri = format!("file://{}", cfg.display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": root_uri, "capabilities": {},
                "initializationOptions": { "targets": "my_gpu", "deviceConfig": "devices.yaml" } }),
    );
    c.notify("initialized", json!({}));
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": std::fs::read_to_string(root.join("k.cpp")).unwrap() } }));
    let d = c.diagnostics_for(&uri, |p| p["version"] == 1);
    assert_eq!(d["diagnostics"], json!([]), "my_gpu has fp64");
    // Saved by rename: my_gpu loses fp64, the kernel is flagged.
    let tmp = root.join("devices.yaml.new");
    std::fs::write(&tmp, "my_gpu:\n  aspects: [gpu]\n").unwrap();
    std::fs::rename(&tmp, &cfg).unwrap();
    let d = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(d["diagnostics"][0]["code"], "target-unsupported-aspect");
    // Broken on disk: the error is shown on the YAML file, the last good table stays.
    std::fs::write(&cfg, "my_gpu:\n  aspects: [fp64\n").unwrap();
    let y = c.diagnostics_for(&cfg_uri, |p| {
        !p["diagnostics"].as_array().unwrap().is_empty()
    });
    assert_eq!(y["diagnostics"][0]["code"], "yaml-syntax");
    let r = c.request(
        "sycl/aspectTraits",
        json!({ "targets": "my_gpu", "aspects": ["gpu", "fp64"] }),
    );
    assert_eq!(
        r["result"]["all_devices_have"],
        json!({ "gpu": true, "fp64": false })
    );
    shutdown(c);
}

#[test]
fn a_panicking_request_is_answered_and_the_server_goes_on() {
    let (_dir, root_uri, _uri) = workspace();
    let (mut c, _) = session(json!(["utf-16"]), &root_uri);
    let r = c.request("sycl/__panic", json!({}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let r = c.request("sycl/listAspects", json!({}));
    assert!(r["result"].is_array());
    shutdown(c);
}

/// Code the device compile skips: the host branch of `__SYCL_DEVICE_ONLY__` (line 5, with
/// non-ASCII characters), an `#if 0` group with an empty line (9-11) and an undefined macro's
/// group (14).
const INACTIVE: &str = "#include <sycl/sycl.hpp>\n\
int f() {\n\
#ifdef __SYCL_DEVICE_ONLY__\n\
return 1;\n\
#else\n\
return 2; // é😀 host\n\
#endif\n\
}\n\
#if 0\n\
int old() { return 0; }\n\
\n\
int older();\n\
#endif\n\
#ifdef SOME_UNDEFINED\n\
int nope();\n\
#endif\n";

/// Semantic tokens of inactive lines: `(line, length)`, decoded from LSP's relative form, all
/// checked to be `comment` with the `inactive` modifier.
fn inactive_tokens(result: &Value) -> Vec<(u64, u64)> {
    let data: Vec<u64> = result["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no token data: {result}"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let mut line = 0;
    data.chunks(5)
        .map(|t| {
            line += t[0];
            assert_eq!(
                (t[1], t[3], t[4]),
                (0, 0, 1),
                "a whole line, comment, inactive"
            );
            (line, t[2])
        })
        .collect()
}

fn inactive_workspace(text: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("inactive.cpp"), text).unwrap();
    (
        dir,
        format!("file://{}", root.display()),
        format!("file://{}/inactive.cpp", root.display()),
    )
}

#[test]
fn inactive_regions_as_semantic_tokens_and_clangds_notification() {
    let (_dir, root_uri, uri) = inactive_workspace(INACTIVE);
    let mut c = Client::start();
    let init = c.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": root_uri,
            "capabilities": {
                "general": { "positionEncodings": ["utf-16"] },
                "workspace": { "semanticTokens": { "refreshSupport": true } },
                "textDocument": { "inactiveRegionsCapabilities": { "inactiveRegions": true } }
            },
            "initializationOptions": { "targets": ["intel_gpu_pvc"] }
        }),
    );
    let provider = &init["result"]["capabilities"]["semanticTokensProvider"];
    assert_eq!(
        provider["legend"],
        json!({ "tokenTypes": ["comment"], "tokenModifiers": ["inactive"] })
    );
    assert_eq!(
        (&provider["full"], &provider["range"]),
        (&json!(true), &json!(true))
    );
    c.notify("initialized", json!({}));
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": INACTIVE } }));

    // Whole lines, the last one to its end in UTF-16 units ('é' is 1, '😀' 2).
    let n = c.wait("inactiveRegions of version 1", |m| {
        m["method"] == "textDocument/inactiveRegions" && m["params"]["textDocument"]["version"] == 1
    });
    let line = |l: u32, c0: u32, l1: u32, c1: u32| json!({ "start": { "line": l, "character": c0 }, "end": { "line": l1, "character": c1 } });
    assert_eq!(n["params"]["textDocument"]["uri"], uri.as_str());
    assert_eq!(
        n["params"]["regions"],
        json!([line(5, 0, 5, 21), line(9, 0, 11, 12), line(14, 0, 14, 11)])
    );
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    // The empty line 10 has no token.
    assert_eq!(
        inactive_tokens(&r["result"]),
        [(5, 21), (9, 23), (11, 12), (14, 11)]
    );
    let r = c.request(
        "textDocument/semanticTokens/range",
        json!({ "textDocument": { "uri": uri }, "range": line(8, 0, 12, 0) }),
    );
    assert_eq!(inactive_tokens(&r["result"]), [(9, 23), (11, 12)]);

    // `#if 0` becomes `#if 1`: a new notification, and the client is asked to fetch its
    // tokens again.
    let before = c.seen().len();
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [
            { "range": line(8, 4, 8, 5), "text": "1" }
        ] }),
    );
    let n = c.wait("inactiveRegions of version 2", |m| {
        m["method"] == "textDocument/inactiveRegions" && m["params"]["textDocument"]["version"] == 2
    });
    assert_eq!(
        n["params"]["regions"],
        json!([line(5, 0, 5, 21), line(14, 0, 14, 11)])
    );
    if !c.seen()[before..]
        .iter()
        .any(|m| m["method"] == "workspace/semanticTokens/refresh")
    {
        c.wait("semantic tokens refresh", |m| {
            m["method"] == "workspace/semanticTokens/refresh"
        });
    }
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(inactive_tokens(&r["result"]), [(5, 21), (14, 11)]);

    // Edited but not yet analysed: the last facts, clamped to the text (cut after line 6).
    let cut: String = INACTIVE.lines().take(6).map(|l| format!("{l}\n")).collect();
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": cut }] }),
    );
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    for (l, len) in inactive_tokens(&r["result"]) {
        let text = cut
            .lines()
            .nth(l as usize)
            .expect("a token on a line of the text");
        assert!(len as usize <= text.encode_utf16().count(), "line {l}");
    }

    // A new file asked for before its first analysis: empty, then a refresh brings its tokens.
    let new_uri = uri.replace("inactive.cpp", "new.cpp");
    let before = c.seen().len();
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": new_uri, "languageId": "cpp", "version": 1, "text": "#if 0\nint x;\n#endif\n" } }));
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": new_uri } }),
    );
    if inactive_tokens(&r["result"]).is_empty() {
        c.wait("semantic tokens refresh for the new file", |m| {
            m["method"] == "workspace/semanticTokens/refresh"
        });
        let r = c.request(
            "textDocument/semanticTokens/full",
            json!({ "textDocument": { "uri": new_uri } }),
        );
        assert_eq!(inactive_tokens(&r["result"]), [(1, 6)]);
    }
    assert!(
        c.seen()[before..]
            .iter()
            .any(|m| m["method"] == "textDocument/inactiveRegions"
                && m["params"]["textDocument"]["uri"] == new_uri.as_str())
            || {
                c.wait("inactiveRegions of the new file", |m| {
                    m["method"] == "textDocument/inactiveRegions"
                        && m["params"]["textDocument"]["uri"] == new_uri.as_str()
                });
                true
            }
    );
    shutdown(c);
}

/// Without the capability no `textDocument/inactiveRegions` is sent; `-D` of
/// compile_commands.json decides what is skipped; lengths in UTF-8 when negotiated.
#[test]
fn inactive_regions_follow_compile_commands_and_capabilities() {
    let text = "#ifdef FEATURE\nint on();\n#else\nint off(); // é😀\n#endif\n";
    let (mut c, _uri, dir) = session_with_compile_commands(
        "compile_commands.json",
        r#"{"directory": "{dir}", "file": "inactive.cpp", "arguments": ["icpx", "-fsycl", "-DFEATURE", "-c", "inactive.cpp"]}"#,
        &[("inactive.cpp", text)],
    );
    let uri = format!(
        "file://{}/inactive.cpp",
        dir.path().canonicalize().unwrap().display()
    );
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    // "int off(); // é😀": 16 chars, 'é' 1 UTF-16 unit and '😀' 2.
    assert_eq!(inactive_tokens(&r["result"]), [(3, 17)]);
    assert!(
        !c.seen()
            .iter()
            .any(|m| m["method"] == "textDocument/inactiveRegions"),
        "sent without the capability"
    );
    shutdown(c);

    let (_dir, root_uri, uri) = inactive_workspace(INACTIVE);
    let (mut c, _) = session(json!(["utf-8"]), &root_uri);
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": INACTIVE } }));
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    let r = c.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    // Line 5 in bytes: 'é' is 2, '😀' 4.
    assert_eq!(
        inactive_tokens(&r["result"]),
        [(5, 24), (9, 23), (11, 12), (14, 11)]
    );
    shutdown(c);
}

/// A kernel body kept in a file that is not C++ (`#include "kernel.sycl"` inside the lambda, as
/// HeCBench's Rodinia ports do) is analysed as part of the kernel, and stays so after edits.
#[test]
fn a_kernel_body_included_from_a_non_cpp_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let main = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, float* b) {\n  q.single_task([=] {\n    #include \"kernel.sycl\"\n  });\n}\n";
    std::fs::write(root.join("main.cpp"), main).unwrap();
    std::fs::write(root.join("kernel.sycl"), "double t = b[0];\nb[0] = t;\n").unwrap();
    let uri = format!("file://{}/main.cpp", root.display());
    let mut c = started(&root, "intel_gpu_dg1");
    let has_fp64 = |p: &Value| {
        p["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "target-unsupported-aspect")
    };
    c.diagnostics_for(&uri, has_fp64);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": main } }),
    );
    let edited = main.replace("float* b", "float* b ");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": edited }] }),
    );
    let d = c.diagnostics_for(&uri, |p| p["version"] == 2);
    assert!(has_fp64(&d), "{d}");
    shutdown(c);
}

/// The language server analyses one device compile per target, and again when the targets
/// change in the settings.
#[test]
fn per_target_device_compiles_in_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, float* b) {\n  q.single_task([=] {\n#ifdef __SYCL_TARGET_INTEL_GPU_DG1__\n    double t = b[0];\n    b[0] = t;\n#endif\n  });\n}\n";
    std::fs::write(root.join("k.cpp"), text).unwrap();
    let uri = format!("file://{}/k.cpp", root.display());
    let mut c = started(&root, "intel_gpu_pvc,intel_gpu_dg1");
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    let d = c.diagnostics_for(&uri, |p| {
        p["version"] == 1 && !p["diagnostics"].as_array().unwrap().is_empty()
    });
    let msg = d["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("target 'intel_gpu_dg1' has") && !msg.contains("pvc"),
        "{d}"
    );
    // Without dg1 no compile reads the double.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "sycl-analyzer": { "targets": "intel_gpu_pvc,nvidia_gpu_sm_80" } } }),
    );
    c.diagnostics_for(&uri, |p| p["diagnostics"].as_array().unwrap().is_empty());
    shutdown(c);
}

/// A header whose kernel computes in double when its includer defines `USE_DOUBLE` first.
const REAL_HEADER: &str = "#pragma once\n#include <sycl/sycl.hpp>\n#ifdef USE_DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\ninline void run(sycl::queue& q, real* b) {\n  q.single_task([=] { b[0] = b[0] * 2; });\n}\n";

/// A header is compiled with the macros its translation unit defines before including it: an
/// edit of those directives in the open source re-reads the header, a body edit changes nothing
/// else, and an edit of a spliced kernel body is seen by the kernel.
#[test]
fn edits_of_an_includer_reach_its_headers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("kern.h"), REAL_HEADER).unwrap();
    let main = "#include \"kern.h\"\nint main() { return 0; }\n";
    std::fs::write(root.join("main.cpp"), main).unwrap();
    let uri = format!("file://{}/main.cpp", root.display());
    let header = format!("file://{}/kern.h", root.display());
    let mut c = started(&root, "intel_gpu_dg1");
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": main } }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    // The header's findings are published while the waits look for them: no other waits.
    let edit = |c: &mut Client, version: i32, text: &str| {
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    };
    edit(&mut c, 2, &format!("#define USE_DOUBLE\n{main}"));
    let found = c.diagnostics_for(&header, |p| {
        !p["diagnostics"].as_array().unwrap().is_empty()
    });
    assert_eq!(found["diagnostics"][0]["code"], "target-unsupported-aspect");
    // A body edit keeps the header as it was compiled.
    edit(
        &mut c,
        3,
        &format!(
            "#define USE_DOUBLE\n{}",
            main.replace("return 0", "return 1")
        ),
    );
    edit(&mut c, 4, main);
    c.diagnostics_for(&header, |p| p["diagnostics"].as_array().unwrap().is_empty());
    shutdown(c);
}

/// A source opened after the header it includes was read is a new translation unit: the
/// header is read again in that unit's meaning (a `#define` before its `#include`), and its
/// kernels are reported as compiled there.
#[test]
fn a_new_unit_reads_its_headers_in_its_own_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("kern.h"), REAL_HEADER).unwrap();
    let a = "#include \"kern.h\"\nint main() { return 0; }\n";
    std::fs::write(root.join("a.cpp"), a).unwrap();
    let a_uri = format!("file://{}/a.cpp", root.display());
    let header = format!("file://{}/kern.h", root.display());
    let mut c = started(&root, "intel_gpu_dg1");
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": a_uri, "languageId": "cpp", "version": 1, "text": a } }),
    );
    c.diagnostics_for(&a_uri, |p| p["version"] == 1);
    let b = format!("#define USE_DOUBLE\n{a}");
    std::fs::write(root.join("b.cpp"), &b).unwrap();
    // The watcher reports the new file before the editor opens it (the order a slow machine
    // sees): the header must be read again on either path.
    std::thread::sleep(Duration::from_millis(1500));
    let b_uri = format!("file://{}/b.cpp", root.display());
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": b_uri, "languageId": "cpp", "version": 1, "text": b } }),
    );
    let found = c.diagnostics_for(&header, |p| {
        !p["diagnostics"].as_array().unwrap().is_empty()
    });
    let d = &found["diagnostics"][0];
    assert_eq!(d["code"], "target-unsupported-aspect");
    assert!(
        d["message"].as_str().unwrap().contains("b.cpp"),
        "made in b.cpp only: {d}"
    );
    shutdown(c);
}

/// An edit of a header's macros reaches the sources that include it, unsaved: each is
/// preprocessed again with the header's new text, and only while a directive changed or the
/// header is compiled inside one of their functions. Two includers, so the header's readers
/// are looked up, not only the one source edited.
#[test]
fn edits_of_a_header_reach_its_includers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let defs = "#pragma once\n#define REAL double\n";
    std::fs::write(root.join("defs.h"), defs).unwrap();
    let source = |name: &str| {
        format!(
            "#include <sycl/sycl.hpp>\n#include \"defs.h\"\nvoid {name}(sycl::queue& q, REAL* b) {{\n  q.single_task([=] {{ b[0] = b[0] * 2; }});\n}}\n"
        )
    };
    std::fs::write(root.join("a.cpp"), source("a")).unwrap();
    std::fs::write(root.join("b.cpp"), source("b")).unwrap();
    let (a, b) = (
        format!("file://{}/a.cpp", root.display()),
        format!("file://{}/b.cpp", root.display()),
    );
    let header = format!("file://{}/defs.h", root.display());
    let mut c = started(&root, "intel_gpu_dg1");
    let found = c.diagnostics_for_each(&[a.clone(), b.clone()]);
    for uri in [&a, &b] {
        assert_eq!(
            found[uri]["diagnostics"][0]["code"], "target-unsupported-aspect",
            "{uri}: {found:?}"
        );
    }
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": header, "languageId": "cpp", "version": 1, "text": defs } }),
    );
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": header, "version": 2 },
                "contentChanges": [{ "text": defs.replace("double", "float") }] }),
    );
    // Both cleared, in whatever order they come.
    let cleared = std::cell::RefCell::new(std::collections::HashSet::new());
    c.wait("both includers' findings cleared", |m| {
        let p = &m["params"];
        if m["method"] == "textDocument/publishDiagnostics"
            && p["diagnostics"].as_array().is_some_and(Vec::is_empty)
        {
            cleared
                .borrow_mut()
                .insert(p["uri"].as_str().unwrap_or("").to_string());
        }
        cleared.borrow().contains(&a) && cleared.borrow().contains(&b)
    });
    shutdown(c);
}

/// `sycl/kernelMatrix` in the editor answers from its live state: an unsaved edit counts.
#[test]
fn kernel_matrix_from_the_editors_state() {
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, double* d) {\n  q.single_task([=] { d[0] = d[1] * 2; });\n}\n";
    let (_dir, mut c, uri) = opened(text, "intel_gpu_dg1");
    let status = |c: &mut Client| {
        let r = c.request("sycl/kernelMatrix", json!({}));
        r["result"]["kernels"][0]["targets"]["intel_gpu_dg1"]["status"].clone()
    };
    assert_eq!(status(&mut c), "not_in_image");
    let edited = text.replace("double*", "float*");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": edited }] }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 2);
    assert_eq!(status(&mut c), "compatible");
    shutdown(c);
}

/// `sycl/checkFile` in the editor answers from its analysis, unsaved edits in (it used to
/// load the workspace from disk for each request).
#[test]
fn check_file_from_the_editors_state() {
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, double* d) {\n  q.single_task([=] { d[0] = d[1] * 2; });\n}\n";
    let (_dir, mut c, uri) = opened(text, "intel_gpu_dg1");
    let path = url::Url::parse(&uri).unwrap().to_file_path().unwrap();
    let codes = |c: &mut Client| -> Vec<String> {
        let r = c.request("sycl/checkFile", json!({ "path": path }));
        r["result"]["diagnostics"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(codes(&mut c), ["target-unsupported-aspect"]);
    let edited = text.replace("double*", "float*");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": edited }] }),
    );
    c.diagnostics_for(&uri, |p| p["version"] == 2);
    // Unsaved: the disk still has the double.
    assert!(std::fs::read_to_string(&path).unwrap().contains("double*"));
    assert_eq!(codes(&mut c), Vec::<String>::new());
    shutdown(c);
}

/// A code lens above each kernel: on how many targets it runs, and why not on the others.
#[test]
fn code_lenses_say_where_each_kernel_runs() {
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, double* d, float* f) {\n  q.single_task([=] { d[0] = d[1] * 2; });\n  q.single_task([=] { f[0] = 1; });\n}\n";
    let (_dir, mut c, uri) = opened(text, "intel_gpu_pvc,intel_gpu_dg1,spir64");
    let r = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let lenses = r["result"].as_array().expect("lenses");
    let titles: Vec<(u64, &str)> = lenses
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        titles,
        [
            (
                2,
                "runs on 1/3 targets — not in intel_gpu_dg1's image: fp64; may fail on spir64: fp64"
            ),
            (3, "runs on all 3 targets"),
        ],
        "{r}"
    );
    assert_eq!(
        lenses[0]["command"]["command"],
        "sycl-analyzer.showKernelMatrix"
    );
    shutdown(c);
}

/// A client that can refresh code lenses is asked to after each analysis.
#[test]
fn code_lenses_are_refreshed_after_an_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue& q, float* f) {\n  q.single_task([=] { f[0] = 1; });\n}\n";
    std::fs::write(root.join("k.cpp"), text).unwrap();
    let uri = format!("file://{}/k.cpp", root.display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": format!("file://{}", root.display()),
                "capabilities": { "workspace": { "codeLens": { "refreshSupport": true } } },
                "initializationOptions": { "targets": "intel_gpu_dg1" } }),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    c.wait("code lens refresh", |m| {
        m["method"] == "workspace/codeLens/refresh"
    });
    shutdown(c);
}

/// Log events reach the editor as `window/logMessage` at the level `$/setTrace` allows: a file
/// skipped at indexing (an info event) is sent under `messages`, not under `off`.
#[test]
fn log_events_go_to_the_editors_output_channel() {
    let run = |trace: &str| -> bool {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("k.cpp"), "void f() {}\n").unwrap();
        std::fs::write(root.join("blob.cpp"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
        let mut c = Client::start();
        c.request(
            "initialize",
            json!({ "processId": null, "rootUri": format!("file://{}", root.display()),
                    "capabilities": {}, "trace": trace }),
        );
        c.notify("initialized", json!({}));
        let uri = format!("file://{}/blob.cpp", root.display());
        // The skipped file's note is published after indexing; its log event came first.
        c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
        let logged = c.seen().iter().any(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.contains("skipped") && t.contains("blob.cpp"))
        });
        shutdown(c);
        logged
    };
    assert!(run("messages"), "an info event under 'messages'");
    assert!(!run("off"), "no info event under 'off'");
}

/// Edits inside one function of an open document re-extract that function alone: after a run
/// of them (lines added above later findings, a new use of `double`, a lambda), what is
/// published equals what a fresh extraction of the same text gives (the document closed and
/// opened again).
#[test]
fn edits_inside_functions_publish_what_a_fresh_extraction_does() {
    let mut text = String::from("#include <sycl/sycl.hpp>\n");
    for k in 0..6 {
        text += &format!(
            "void helper{k}(float *p) {{\n  float f = p[0];\n  p[0] = f;\n}}\n\
             void run{k}(sycl::queue &q, float *p) {{\n  \
             q.single_task([=]() [[sycl::device_has(sycl::aspect::fp16)]] {{ helper{k}(p); }});\n}}\n"
        );
    }
    let (_dir, mut c, uri) = opened(&text, "intel_gpu_pvc");
    // Line of `float f = p[0];` in helper0..helper5: 2 + 7k (0-based).
    let edits = [
        (2, "  double extra = 1.0;\n"),
        (9 + 1, "\n\n"),
        (16 + 3, "  int n = 0;\n"),
        (2, "  auto l = [](double x) { return x * 2.0; };\n"),
        (30 + 4, "  float g = f * 2.0f;\n"),
    ];
    let mut version = 1;
    for (line, insert) in edits {
        version += 1;
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [
                { "range": { "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } }, "text": insert }
            ] }),
        );
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        lines.insert(line, insert);
        text = lines.concat();
    }
    let edited = c.diagnostics_for(&uri, |p| p["version"] == version)["diagnostics"].clone();
    assert!(
        edited.as_array().is_some_and(|d| !d.is_empty()),
        "the double added to helper0 is found: {edited}"
    );
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    c.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 100, "text": text } }));
    let fresh = c.diagnostics_for(&uri, |p| p["version"] == 100)["diagnostics"].clone();
    assert_eq!(edited, fresh);
    shutdown(c);
}

/// `lsp --connect`: two editors as thin clients of one daemon get its findings (with the
/// chain as related information, positions from the file) and each change saved on disk.
#[test]
fn lsp_connect_makes_editors_share_the_daemons_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let kernel = root.join("k.cpp");
    let text = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {\n  q.single_task([=] { o[0] = o[1] * 0.1; });\n}\n";
    std::fs::write(&kernel, text).unwrap();
    let socket = dir.path().join("d.sock");
    let mut daemon = std::process::Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .args(["daemon", "--socket"])
        .arg(&socket)
        .arg("--root")
        .arg(&root)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "no daemon");
        std::thread::sleep(Duration::from_millis(20));
    }
    let uri = format!("file://{}", kernel.display());
    let editors: Vec<Client> = (0..2)
        .map(|_| {
            let mut c = Client::start_with(&[&format!("--connect={}", socket.display())]);
            c.request(
                "initialize",
                json!({ "processId": null, "rootUri": format!("file://{}", root.display()),
                        "capabilities": {}, "initializationOptions": { "targets": "intel_gpu_dg1" } }),
            );
            c.notify("initialized", json!({}));
            c
        })
        .collect();
    for mut c in editors {
        let d = c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
        let first = &d["diagnostics"][0];
        assert_eq!(first["code"], "target-unsupported-aspect", "{d}");
        assert_eq!(first["source"], "sycl-analyzer");
        // The lambda's introducer, line 3 (0-based 2), UTF-16 positions.
        assert_eq!(first["range"]["start"]["line"], 2, "{d}");
        let use_ = &first["relatedInformation"][0];
        assert_eq!(use_["location"]["uri"], uri.as_str(), "{d}");
        assert_eq!(
            use_["location"]["range"]["start"],
            json!({ "line": 2, "character": 36 }),
            "the double literal 0.1: {d}"
        );
        // Saved without the double: the daemon's change reaches the editor.
        std::fs::write(&kernel, text.replace("0.1", "0.1f")).unwrap();
        c.diagnostics_for(&uri, |p| p["diagnostics"] == json!([]));
        std::fs::write(&kernel, text).unwrap();
        c.diagnostics_for(&uri, |p| !p["diagnostics"].as_array().unwrap().is_empty());
        shutdown(c);
    }
    let _ = daemon.kill();
    let _ = daemon.wait();
}

/// A copy of `examples/vector-math`, whose `main.cpp` has findings whose chains pass through
/// its other files: the directory and `main.cpp`'s URI.
fn vector_math() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("vector-math");
    common::copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector-math"),
        &root,
    );
    let uri = format!("file://{}/src/main.cpp", root.display());
    (dir, root, uri)
}

/// Messages name kernels by their place relative to the workspace folder, as `check` does
/// there (`lambda at src/main.cpp:17:37`), not by an absolute path that an editor's problem
/// list cuts off; so do the answers served from the editor's state.
#[test]
fn kernels_are_named_relative_to_the_workspace_folder() {
    let (_dir, root, uri) = vector_math();
    let mut c = started(&root, "intel_gpu_dg1");
    let d = c.diagnostics_for(&uri, |p| p["diagnostics"].as_array().unwrap().len() >= 2);
    let all = d["diagnostics"].to_string();
    assert!(
        all.contains("function 'lambda at src/main.cpp:17:37' uses aspect 'fp64'"),
        "{all}"
    );
    assert!(
        all.contains("kernel 'lambda at src/main.cpp:17:37' uses aspect 'fp64'"),
        "{all}"
    );
    let absolute = root.display().to_string();
    for d in d["diagnostics"].as_array().unwrap() {
        let related = d["relatedInformation"].as_array().unwrap();
        for message in std::iter::once(d).chain(related).map(|m| &m["message"]) {
            assert!(!message.as_str().unwrap().contains(&absolute), "{message}");
        }
    }
    // Locations stay absolute URIs.
    assert!(
        all.contains(&format!("file://{absolute}/src/blend.hpp")),
        "{all}"
    );
    let m = c.request("sycl/kernelMatrix", json!({}));
    let names: Vec<&str> = m["result"]["kernels"]
        .as_array()
        .unwrap_or_else(|| panic!("{m}"))
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"lambda at src/main.cpp:17:37"), "{m}");
    shutdown(c);
}

/// A document opened while the workspace is being indexed gets its findings once, whole:
/// it used to get those an analysis of the document alone finds (the sub-group size, made in
/// the file), then the chains through the other files a moment later.
#[test]
fn the_first_publish_of_a_document_is_its_whole_set() {
    let (_dir, root, uri) = vector_math();
    // Files enough that indexing is still under way when the document is analysed.
    for i in 0..300 {
        std::fs::write(
            root.join(format!("src/filler{i}.cpp")),
            format!("float filler{i}(float x) {{ return x * {i}.5f + 1.0f; }}\n"),
        )
        .unwrap();
    }
    let text = std::fs::read_to_string(root.join("src/main.cpp")).unwrap();
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": format!("file://{}", root.display()),
                "capabilities": {}, "initializationOptions": { "targets": "intel_gpu_dg1,intel_gpu_pvc" } }),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": text } }),
    );
    let codes = |p: &Value| -> Vec<String> {
        let mut codes: Vec<String> = p["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect();
        codes.sort();
        codes
    };
    let first = codes(&c.diagnostics_for(&uri, |_| true));
    assert_eq!(
        first,
        [
            "aspect-mismatch",
            "target-unsupported-aspect",
            "target-unsupported-sub-group-size"
        ]
    );
    // Nothing else is sent for it until it changes.
    let r = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert!(r["result"].is_array(), "{r}");
    let later = c
        .seen()
        .iter()
        .filter(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        })
        .count();
    assert_eq!(later, 1, "{:?}", c.seen());
    shutdown(c);
}
