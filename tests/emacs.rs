//! A third LSP client nobody here wrote: Emacs with eglot (Debian's emacs-nox and elpa-eglot), in
//! batch mode, configured by the eglot setup of editors/README.md as written (tests/emacs/e2e.el). It opens a kernel whose
//! helper computes in double, gets the aspect-mismatch warning through flymake, and hovers fp16.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

#[test]
fn eglot_shows_the_warning_through_flymake_and_hovers() {
    if Command::new("emacs").arg("--version").output().is_err() {
        if std::env::var_os("SYCL_ANALYZER_SKIP_EMACS").is_some() {
            return;
        }
        panic!("emacs is missing: apt-get install emacs-nox elpa-eglot (or set SYCL_ANALYZER_SKIP_EMACS=1)");
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // A repository, so eglot's project is the directory.
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap()
        .success());
    let source = root.join("kernel.cpp");
    std::fs::write(
        &source,
        "#include <sycl/sycl.hpp>\n\nfloat scale(float x) { return x * 0.5; }\n\nvoid run(sycl::queue &q, float *p) {\n  q.single_task([=]() [[sycl::device_has(sycl::aspect::fp16)]] { p[0] = scale(p[0]); });\n}\n",
    )
    .unwrap();

    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let driver = manifest.join("tests/emacs/e2e.el");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_sycl-analyzer"));
    let mut child = Command::new("emacs")
        .args(["--batch", "--no-init-file", "-l"])
        .arg(&driver)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("SYCL_EDITORS_README", manifest.join("editors/README.md"))
        .env("SYCL_FIXTURE", &source)
        .env("HOME", &root)
        .env("XDG_CACHE_HOME", root.join(".cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = common::wait_at_most(&mut child, Duration::from_secs(120));
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let result = |key: &str| -> String {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("RESULT {key} ")))
            .unwrap_or_else(|| panic!("no {key} from Emacs ({status}):\n{out}\n{err}"))
            .to_string()
    };
    assert!(status.success(), "Emacs failed ({status}):\n{out}\n{err}");
    assert_eq!(result("mode"), "c++-mode");
    assert_eq!(result("server"), "sycl-analyzer");
    let diagnostic = result("diagnostic");
    assert!(
        diagnostic.starts_with("sycl-analyzer [aspect-mismatch]: function 'lambda at ")
            && diagnostic
                .contains("uses aspect 'fp64' not listed in its 'sycl::device_has' attribute")
            && diagnostic.contains("line 6 type eglot-warning"),
        "{diagnostic}"
    );
    let hover = result("hover");
    assert!(
        hover.contains("sycl::aspect::fp16") && hover.contains("16-bit floating point"),
        "{hover}"
    );
    // The documented :initializationOptions reached the server.
    assert!(hover.contains("-fsycl-targets=intel_gpu_pvc"), "{hover}");
}
