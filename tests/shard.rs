//! `check --shard K/N --facts-out FILE` then `check --facts FILE...`: a CI fan-out whose merged
//! results equal one unsharded run (JSON and SARIF), which never trusts facts of a file changed
//! since its shard ran, and which refuses what it cannot use.

mod common;
use common::copy_dir;

use std::path::Path;

use assert_cmd::Command;

/// A copy of the example with more files, so that shards differ: the example's sources plus
/// generated kernels calling its helpers.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector-math"),
        dir.path(),
    );
    for i in 0..12 {
        let aspect = ["fp16", "fp64", "atomic64"][i % 3];
        std::fs::write(
            dir.path().join(format!("src/extra{i}.cpp")),
            format!(
                "#include <sycl/sycl.hpp>\n#include \"blend.hpp\"\nvoid run{i}(sycl::queue &q, float *p) {{\n  q.single_task([=]() [[sycl::device_has(sycl::aspect::{aspect})]] {{ p[{i}] = blend(p[0], p[1]){}; }});\n}}\n",
                " + 1.0f".repeat(i)
            ),
        )
        .unwrap();
    }
    dir
}

fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .arg("check")
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs N shards then the merge; returns the merge's (status, stdout) and the shards' file counts.
fn sharded(dir: &Path, n: usize, format: &str) -> ((i32, String), Vec<usize>) {
    let mut facts = Vec::new();
    let mut counts = Vec::new();
    for k in 1..=n {
        let out = format!("shard{k}of{n}.facts");
        let (status, stdout, stderr) = check(
            dir,
            &[
                "--no-cache",
                "--shard",
                &format!("{k}/{n}"),
                "--facts-out",
                &out,
                ".",
            ],
        );
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.is_empty(), "a shard reports nothing: {stdout}");
        let count: usize = stderr
            .split("facts of ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("{stderr}"));
        counts.push(count);
        facts.push(out);
    }
    let mut args = vec!["--no-cache", "--format", format];
    for f in &facts {
        args.extend(["--facts", f.as_str()]);
    }
    args.push(".");
    let (status, stdout, stderr) = check(dir, &args);
    assert!(stderr.is_empty(), "{stderr}");
    ((status, stdout), counts)
}

#[test]
fn merged_shards_equal_one_run() {
    let ws = workspace();
    let dir = ws.path();
    let files = 3 + 12; // main.cpp, device_lib.cpp, blend.hpp and the extra kernels
    for format in ["json", "sarif"] {
        let (status, whole, _) = check(dir, &["--no-cache", "--format", format, "."]);
        assert_eq!(status, 1, "the example has findings");
        for n in [1, 2, 3, 5] {
            let ((s, merged), counts) = sharded(dir, n, format);
            assert_eq!(s, status);
            assert!(
                merged == whole,
                "{n} shards, {format}:\n{merged}\n---\n{whole}"
            );
            // Each file in exactly one shard, and the shards about even.
            assert_eq!(counts.iter().sum::<usize>(), files, "{counts:?}");
            assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
        }
    }
}

#[test]
fn a_file_changed_after_its_shard_is_parsed_again() {
    let ws = workspace();
    let dir = ws.path();
    let ((_, before), _) = sharded(dir, 2, "json");
    // The double literal the chains end at becomes a float: every fp64 finding goes.
    let blend = dir.join("src/blend.hpp");
    let text = std::fs::read_to_string(&blend).unwrap();
    assert!(text.contains("a * 0.5 "), "{text}");
    std::fs::write(&blend, text.replace("a * 0.5 ", "a * 0.5f ")).unwrap();
    let (_, fresh, _) = check(dir, &["--no-cache", "--format", "json", "."]);
    let (status, merged, stderr) = check(
        dir,
        &[
            "--no-cache",
            "--format",
            "json",
            "--facts",
            "shard1of2.facts",
            "--facts",
            "shard2of2.facts",
            ".",
        ],
    );
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(merged, fresh);
    // blend()'s double was every aspect-mismatch: they are gone, as a fresh run says.
    assert_ne!(merged, before);
    assert!(
        before.contains("aspect-mismatch") && !merged.contains("aspect-mismatch"),
        "status {status}: {merged}"
    );
}

#[test]
fn what_cannot_be_used_is_refused() {
    let ws = workspace();
    let dir = ws.path();
    for (args, says) in [
        (
            vec!["--shard", "3/2", "--facts-out", "x.facts"],
            "K must be between 1 and N",
        ),
        (
            vec!["--shard", "0/2", "--facts-out", "x.facts"],
            "K must be between 1 and N",
        ),
        (
            vec!["--shard", "two", "--facts-out", "x.facts"],
            "expected K/N",
        ),
        (vec!["--shard", "1/2"], "--facts-out"),
        (
            vec!["--facts", "missing.facts"],
            "cannot read 'missing.facts'",
        ),
        (vec!["--facts", "src/main.cpp"], "is not a facts file"),
    ] {
        let (status, _, stderr) = check(dir, &args);
        assert_eq!(status, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
