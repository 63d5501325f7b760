//! The HTML report in a real browser: headless Chromium (Debian's `chromium`, which `.ci/run`
//! installs) loads the page from a file, runs its script, and the test reads the DOM it leaves:
//! the table's cells, the summary, a filter set through the address (`#filter=...`), and no
//! console error. A screenshot is kept under `artifacts/` of cargo's target directory for CI.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> &'static str {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c).arg("--version").output().is_ok() {
            return c;
        }
    }
    panic!("no Chromium on this machine: install Debian's `chromium` (.ci/run does)");
}

/// Runs headless Chromium on `url` with `extra` arguments: (stdout, stderr).
fn browse(profile: &Path, url: &str, extra: &[&str]) -> (String, String) {
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `artifacts/` in cargo's real target directory (the one this test was built in: where
/// `CARGO_TARGET_DIR` or the config puts it, `target/` of the checkout by default), never the
/// source tree's `target/` when the build is elsewhere.
fn artifacts() -> PathBuf {
    // The binary is <target dir>/<profile>/sycl-analyzer (<target dir>/<triple>/<profile>/ with
    // --target, which keeps its artifacts beside that build).
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_sycl-analyzer"));
    let target = bin.parent().and_then(Path::parent).unwrap();
    let dir = target.join("artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_html_report_reads_right_in_a_browser() {
    let out = assert_cmd::Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "report",
            "examples/vector-math",
            "--targets",
            "intel_gpu_pvc,intel_gpu_dg1,spir64",
            "--format",
            "html",
            "--no-cache",
        ])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let page = String::from_utf8(out).unwrap();
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "the page loads nothing from the network"
    );
    let dir = artifacts();
    let file = dir.join("report.html");
    std::fs::write(&file, &page).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", file.display());

    let (dom, log) = browse(profile.path(), &url, &["--dump-dom"]);
    assert!(!log.contains(":CONSOLE"), "console output: {log}");
    assert!(dom.contains("5 of 5 shown"), "the script ran: {dom}");
    assert!(
        dom.contains("<b>intel_gpu_dg1</b>: 3 of 5 kernels run; 2 not in its image (2 use fp64)"),
        "{dom}"
    );
    // The kernel of main.cpp:17: dg1's image leaves it out (fp64), pvc runs it, spir64 may not.
    let row = dom
        .split("<tr>")
        .find(|r| r.contains("main.cpp:17:37"))
        .expect("the kernel's row");
    assert!(
        row.contains(r#"<td class="compatible" data-target="intel_gpu_pvc">runs"#),
        "{row}"
    );
    assert!(
        row.contains(r#"<td class="not_in_image" data-target="intel_gpu_dg1">not in image: fp64"#),
        "{row}"
    );
    assert!(
        row.contains(r#"<td class="may_fail" data-target="spir64">may fail: fp16, fp64"#),
        "{row}"
    );
    assert!(
        row.contains("uses 'double literal 0.5' here"),
        "the chain: {row}"
    );

    // A filter: only the sub-group kernel's row stays visible.
    let (dom, log) = browse(
        profile.path(),
        &format!("{url}#filter=main.cpp%3A28"),
        &["--dump-dom"],
    );
    assert!(!log.contains(":CONSOLE"), "console output: {log}");
    assert!(dom.contains("1 of 5 shown"), "{dom}");
    let hidden = dom
        .split("<tr")
        .filter(|r| r.contains("style=\"display: none;\""))
        .count();
    assert_eq!(hidden, 4, "{dom}");

    let shot = dir.join("report.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        profile.path(),
        &url,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1300,520",
        ],
    );
    assert!(
        std::fs::metadata(&shot)
            .map(|m| m.len() > 10_000)
            .unwrap_or(false),
        "a screenshot at {}",
        shot.display()
    );
}
