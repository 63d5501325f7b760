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

/// `:checkhealth sycl_analyzer` (editors/nvim/lua/sycl_analyzer/health.lua) on Neovim 0.7's
/// report API or 0.9+'s vim.health, in a headless Neovim (tests/nvim/health.lua).
#[test]
fn neovim_checkhealth() {
    let root = env!("CARGO_MANIFEST_DIR");
    if Command::new("nvim").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the Neovim test: install neovim"
        );
        eprintln!("SKIPPED neovim_checkhealth: nvim is not installed (apt-get install neovim)");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("timeout")
        .args([
            "60",
            "nvim",
            "--headless",
            "--clean",
            "-u",
            "tests/nvim/health.lua",
        ])
        .current_dir(root)
        .env("SYCL_ANALYZER_ROOT", root)
        .env(
            "SYCL_ANALYZER_BIN",
            assert_cmd::cargo::cargo_bin("sycl-analyzer"),
        )
        .env("XDG_CACHE_HOME", home.path())
        .env("XDG_STATE_HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let report: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("HEALTH "))
        .collect();
    let has =
        |level: &str, text: &str| report.iter().any(|l| l.contains(level) && l.contains(text));
    let all = report.join("\n");
    assert!(stdout.contains("attached: true"), "{stdout}");
    assert!(has("OK", "Neovim 0."), "{all}");
    assert!(has("OK", "binary: /"), "{all}");
    assert!(has("OK", "version: sycl-analyzer "), "{all}");
    assert!(all.contains("device table: DPC++ "), "{all}");
    assert!(has("OK", "target intel_gpu_pvc (intel_gpu_pvc)"), "{all}");
    assert!(
        has("ERROR", "SYCL target is invalid: 'intel_gpu_pvcc'"),
        "{all}"
    );
    assert!(all.contains("did you mean intel_gpu_pvc"), "{all}");
    assert!(
        has("OK", "compile_commands.json: ")
            && all.contains("examples/vector-math/compile_commands.json"),
        "{all}"
    );
    assert!(has("OK", "sycl-analyzer is attached to "), "{all}");
    assert!(all.contains("main.cpp (client "), "{all}");
}
