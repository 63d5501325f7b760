//! `bench`, run as CI runs it: what it writes in the temp dir (a generated workspace, the index,
//! the socket, the language server's cache) is gone when it ends, whether it succeeded or failed
//! midway.

use assert_cmd::Command;

/// What is left in a directory, by name.
fn left(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn bench(tmp: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(tmp)
        .env("TMPDIR", tmp)
        .env("XDG_CACHE_HOME", tmp.join("no-cache-here"))
        .args(["bench", "--quick", "--json"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn quick_bench_leaves_nothing_in_the_temp_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bench(tmp.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(figures["files"].as_u64().unwrap() > 0, "{figures}");
    assert!(figures["edit"]["edits"].as_u64().unwrap() > 0, "{figures}");
    assert_eq!(left(tmp.path()), Vec::<String>::new());
}

/// The edits come last: a run refused there has made the workspace, the index, the socket and
/// the language server's cache before.
#[test]
fn a_bench_failing_midway_leaves_nothing_either() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bench(tmp.path(), &["--edit-file", "no-such-file.cpp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no .cpp file to edit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(left(tmp.path()), Vec::<String>::new());
}

/// `bench --daemon` on a generated workspace removes it too.
#[test]
fn the_daemon_bench_leaves_nothing_either() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(tmp.path())
        .env("TMPDIR", tmp.path())
        .env("XDG_CACHE_HOME", tmp.path().join("no-cache-here"))
        .args(["bench", "--daemon", "5", "--synthetic", "2000"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(figures.is_object(), "{figures}");
    assert_eq!(left(tmp.path()), Vec::<String>::new());
}
