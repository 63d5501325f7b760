//! `sycl-analyzer check` through the real binary with headers outside the workspace: found
//! through the include directories of compile_commands.json or `--include-dir`, analysed,
//! cached and read again when they change; system and SYCL directories never read.
//! (Beside `check_cli.rs`, which is past a thousand lines.)

use std::path::{Path, PathBuf};

use assert_cmd::Command;

const KERNEL: &str = "#include <sycl/sycl.hpp>\n#include \"util.hpp\"\n\n\
    void run(sycl::queue &q, int *p) {\n  \
    q.single_task([=]() [[sycl::device_has()]] { p[0] = half_of(p[0]); });\n}\n";

const UTIL: &str = "#pragma once\ntemplate <class T> T half_of(T x) { return x * 0.5; }\n";

/// `top/ws/a.cpp` calling `half_of` and `top/lib/include/util.hpp` defining it.
fn layout() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let lib = dir.path().join("lib/include");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(ws.join("a.cpp"), KERNEL).unwrap();
    std::fs::write(lib.join("util.hpp"), UTIL).unwrap();
    (dir, ws, lib)
}

fn database(ws: &Path, flags: &str) {
    let db = serde_json::json!([{
        "directory": ws.display().to_string(),
        "file": "a.cpp",
        "command": format!("clang++ -fsycl {flags} -c a.cpp"),
    }]);
    std::fs::write(ws.join("compile_commands.json"), db.to_string()).unwrap();
}

/// `check WS --format json` with `extra`, its exit status and output.
fn check(ws: &Path, extra: &[&str], cache: Option<&Path>) -> (i32, serde_json::Value) {
    let mut cmd = Command::cargo_bin("sycl-analyzer").unwrap();
    cmd.args(["check", ws.to_str().unwrap(), "--format", "json"])
        .args(extra);
    match cache {
        Some(c) => cmd.env("XDG_CACHE_HOME", c),
        None => cmd.arg("--no-cache"),
    };
    let out = cmd.output().unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

/// The fp64 finding whose chain ends in `header`.
fn assert_found_in(v: &serde_json::Value, header: &Path) {
    let d = &v["diagnostics"];
    assert_eq!(d.as_array().unwrap().len(), 1, "{v:#}");
    assert_eq!(d[0]["code"], "aspect-mismatch", "{v:#}");
    assert_eq!(d[0]["aspect"], "fp64");
    let chain = d[0]["chain"].as_array().unwrap();
    assert_eq!(chain[0]["function"], "half_of<int>(int)", "{v:#}");
    let used = chain.last().unwrap();
    assert_eq!(used["file"], header.display().to_string(), "{v:#}");
    assert_eq!(
        (used["line"].as_u64(), used["column"].as_u64()),
        (Some(2), Some(48))
    );
}

#[test]
fn a_header_on_the_compile_commands_include_path_is_analysed() {
    let (_dir, ws, lib) = layout();
    database(&ws, "-I ../lib/include");
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 1);
    assert_found_in(&v, &lib.join("util.hpp"));
    assert_eq!(v["stats"]["files"], 2);
}

#[test]
fn include_dir_option_without_compile_commands() {
    let (_dir, ws, lib) = layout();
    let (code, v) = check(&ws, &["--include-dir", lib.to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert_found_in(&v, &lib.join("util.hpp"));
}

#[test]
fn without_the_include_directory_nothing_outside_is_read() {
    let (_dir, ws, _lib) = layout();
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
    assert_eq!(v["stats"]["files"], 1);
    // A directory that does not exist is no error.
    database(&ws, "-I ../nowhere -isystem /no/such/dir");
    let (code, v) = check(&ws, &[], None);
    assert_eq!((code, &v["stats"]["files"]), (0, &serde_json::json!(1)));
}

#[test]
fn a_warm_check_reads_an_edited_external_header_again() {
    let (dir, ws, lib) = layout();
    database(&ws, "-I../lib/include");
    let cache = dir.path().join("cache");
    let (code, v) = check(&ws, &[], Some(&cache));
    assert_eq!(code, 1);
    assert_found_in(&v, &lib.join("util.hpp"));
    std::fs::write(lib.join("util.hpp"), UTIL.replace("0.5", "2")).unwrap();
    let (code, v) = check(&ws, &[], Some(&cache));
    assert_eq!(code, 0, "a stale external header was served: {v:#}");
    std::fs::write(lib.join("util.hpp"), UTIL).unwrap();
    let (code, v) = check(&ws, &[], Some(&cache));
    assert_eq!(code, 1);
    assert_found_in(&v, &lib.join("util.hpp"));
}

#[test]
fn quote_and_angle_includes_search_as_the_driver_does() {
    let (dir, ws, lib) = layout();
    // -iquote holds the double version, -I a float one: "util.hpp" takes the first,
    // <util.hpp> skips -iquote.
    let quote = dir.path().join("quote");
    std::fs::create_dir_all(&quote).unwrap();
    std::fs::write(quote.join("util.hpp"), UTIL).unwrap();
    std::fs::write(lib.join("util.hpp"), UTIL.replace("0.5", "2")).unwrap();
    database(&ws, "-iquote ../quote -I ../lib/include");
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 1);
    assert_found_in(&v, &quote.join("util.hpp"));
    let angled = KERNEL.replace("\"util.hpp\"", "<util.hpp>");
    std::fs::write(ws.join("a.cpp"), angled).unwrap();
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 0, "{v:#}");
}

#[test]
fn sycl_and_system_directories_and_bad_headers_are_not_analysed() {
    let (dir, ws, lib) = layout();
    // A SYCL install on the include path: its headers are the model's, never read.
    let install = dir.path().join("dpcpp/include");
    std::fs::create_dir_all(install.join("sycl")).unwrap();
    std::fs::write(install.join("sycl/sycl.hpp"), UTIL).unwrap();
    std::fs::write(install.join("util.hpp"), UTIL).unwrap();
    database(&ws, &format!("-I {} -I ../lib/include", install.display()));
    std::fs::write(lib.join("util.hpp"), UTIL.replace("0.5", "2")).unwrap();
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 0, "{v:#}");
    // A binary header outside is skipped as a workspace file would be.
    database(&ws, "-I ../lib/include");
    std::fs::write(lib.join("util.hpp"), b"\0\x01binary").unwrap();
    let (code, v) = check(&ws, &[], None);
    assert_eq!(code, 0, "{v:#}");
    // A problem of the inputs, beside the findings.
    let skipped: Vec<&serde_json::Value> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "file-skipped")
        .collect();
    assert_eq!(skipped.len(), 1, "{v:#}");
    assert_eq!(
        skipped[0]["file"],
        lib.join("util.hpp").display().to_string()
    );
}
