//! The wording of findings, through the real binary, where the wording is the point.

use assert_cmd::Command;

/// A kernel that declares fp64 but only computes in half is left out of dg1's image for what
/// it declares: the message says "declares", not "uses" (it uses no double).
#[test]
fn a_declared_but_unused_aspect_is_said_to_be_declared() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        "#include <sycl/sycl.hpp>\n\
         void run(sycl::queue &q, sycl::half *h) {\n\
         \x20 q.single_task([=]() [[sycl::device_has(sycl::aspect::fp64, sycl::aspect::fp16)]] {\n\
         \x20   h[0] = h[1] * h[2];\n\
         \x20 });\n\
         \x20 q.single_task([=]() [[sycl::device_has(sycl::aspect::fp64)]] { double d = h[0]; h[1] = d * 0.1; });\n\
         }\n",
    )
    .unwrap();
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "check",
            "--no-cache",
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "json",
            ".",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let messages: Vec<(u64, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "target-unsupported-aspect")
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(messages.len(), 2, "{json}");
    assert!(
        messages[0]
            .1
            .contains("declares aspect 'fp64' in 'sycl::device_has'"),
        "{messages:?}"
    );
    assert!(messages[1].1.contains("uses aspect 'fp64'"), "{messages:?}");
}
