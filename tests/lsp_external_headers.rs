//! The language server with a header outside the workspace (compile_commands.json's `-I`, or
//! the `includeDirs` setting): analysed with the workspace, and watched on disk.
//! (Beside `lsp.rs`, which is past a thousand lines.)

mod common;

use common::Client;
use serde_json::{json, Value};

const KERNEL: &str = "#include <sycl/sycl.hpp>\n#include \"util.hpp\"\n\n\
    void run(sycl::queue &q, int *p) {\n  \
    q.single_task([=]() [[sycl::device_has()]] { p[0] = half_of(p[0]); });\n}\n";

const UTIL: &str = "#pragma once\ntemplate <class T> T half_of(T x) { return x * 0.5; }\n";

/// `top/ws/a.cpp` (the root), `top/lib/include/util.hpp`; a server on the root with
/// `options`, `a.cpp` opened and its first diagnostics with a finding received.
fn opened(db: bool, options: Value) -> (tempfile::TempDir, Client, String, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    let (ws, lib) = (top.join("ws"), top.join("lib/include"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(ws.join("a.cpp"), KERNEL).unwrap();
    std::fs::write(lib.join("util.hpp"), UTIL).unwrap();
    if db {
        let entry = json!([{ "directory": ws.display().to_string(), "file": "a.cpp",
                             "command": "clang++ -fsycl -I ../lib/include -c a.cpp" }]);
        std::fs::write(ws.join("compile_commands.json"), entry.to_string()).unwrap();
    }
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({ "processId": null, "rootUri": format!("file://{}", ws.display()),
                "capabilities": {}, "initializationOptions": options }),
    );
    c.notify("initialized", json!({}));
    let uri = format!("file://{}/a.cpp", ws.display());
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "cpp", "version": 1, "text": KERNEL } }),
    );
    (dir, c, uri, lib.join("util.hpp"))
}

fn findings(p: &Value) -> usize {
    p["diagnostics"].as_array().unwrap().len()
}

fn shutdown(mut c: Client) {
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    c.notify("exit", Value::Null);
    assert!(c.child.wait().unwrap().success());
}

/// Rewrites `path` by rename, as editors and git do.
fn rewrite(path: &std::path::Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn an_external_header_edited_on_disk_changes_the_open_files_diagnostics() {
    let (_dir, mut c, uri, util) = opened(true, json!({}));
    let found = c.diagnostics_for(&uri, |p| findings(p) == 1);
    let d = &found["diagnostics"][0];
    assert_eq!(d["code"], "aspect-mismatch", "{found}");
    let related = d["relatedInformation"].as_array().unwrap();
    let last = &related.last().unwrap()["location"]["uri"];
    assert_eq!(*last, format!("file://{}", util.display()), "{found}");
    rewrite(&util, &UTIL.replace("0.5", "2"));
    c.diagnostics_for(&uri, |p| findings(p) == 0);
    // Written in place this time.
    std::fs::write(&util, UTIL).unwrap();
    c.diagnostics_for(&uri, |p| findings(p) == 1);
    // Another file of that directory is none of the workspace's: a kernel there is not
    // analysed (the edit after it is, and is answered).
    let other = util.with_file_name("other.cpp");
    let kernel = "void k(sycl::queue &q, double *p) {\n  \
        q.single_task([=]() [[sycl::device_has()]] { p[0] = p[0] * 0.5; });\n}\n";
    std::fs::write(&other, kernel).unwrap();
    rewrite(&util, &UTIL.replace("0.5", "2"));
    c.diagnostics_for(&uri, |p| findings(p) == 0);
    rewrite(&util, UTIL);
    c.diagnostics_for(&uri, |p| findings(p) == 1);
    let other_uri = format!("file://{}", other.display());
    let published = c
        .seen()
        .iter()
        .any(|m| m["params"]["uri"] == other_uri.as_str());
    assert!(!published, "a file beside an external header was analysed");
    shutdown(c);
}

#[test]
fn the_include_dirs_setting_finds_headers_without_compile_commands() {
    let (dir, mut c, uri, _util) = opened(false, json!({}));
    c.diagnostics_for(&uri, |p| p["version"] == 1);
    let lib = dir.path().canonicalize().unwrap().join("lib/include");
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "sycl-analyzer": { "includeDirs": [lib.display().to_string()] } } }),
    );
    c.diagnostics_for(&uri, |p| findings(p) == 1);
    shutdown(c);
}
