//! The Neovim plugin in a real headless Neovim: diagnostics with their chain, hover, a fix
//! that clears them, code lenses and the kernel matrix, inactive code greyed out
//! (tests/nvim/e2e.lua). Skipped with a message where Neovim is not installed;
//! under CI it must run.

use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn neovim_end_to_end() {
    let root = env!("CARGO_MANIFEST_DIR");
    if Command::new("nvim").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the Neovim test: install neovim"
        );
        eprintln!("SKIPPED neovim_end_to_end: nvim is not installed (apt-get install neovim)");
        return;
    }
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "-u", "tests/nvim/e2e.lua"])
        .current_dir(root)
        .env("SYCL_ANALYZER_ROOT", root)
        .env(
            "SYCL_ANALYZER_BIN",
            assert_cmd::cargo::cargo_bin("sycl-analyzer"),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("nvim did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        status.success(),
        "nvim exited {status:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let all = format!("{stdout}{stderr}");
    for step in [
        "diagnostic with its chain",
        "hover on an aspect",
        "the fix clears the diagnostic",
        ":SyclMacros",
        "code lens and the kernel matrix",
        "inactive code is greyed out",
    ] {
        assert!(all.contains(step), "missing step {step:?}:\n{all}");
    }
}
