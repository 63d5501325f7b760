//! `check FILE...` through the real binary: the named files are analysed with the project that
//! holds them (its compile_commands.json, the headers they include), and the findings located
//! in them are the ones `check .` gives there, under the same names.

use assert_cmd::Command;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/helpers.hpp"),
        "inline float helper(float x) { return x * 0.1; }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/main.cpp"),
        "#include <sycl/sycl.hpp>\n#include \"helpers.hpp\"\n\
         void run(sycl::queue &q, float *out) {\n\
         \x20 q.single_task([=]() [[sycl::device_has()]] { out[0] = helper(out[1]); });\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/other.cpp"),
        "#include <sycl/sycl.hpp>\nvoid go(sycl::queue &q, double *p) {\n\
         \x20 q.single_task([=] { p[0] = p[1] * 0.1; });\n}\n",
    )
    .unwrap();
    let db = serde_json::json!([{
        "directory": root.display().to_string(),
        "file": "src/main.cpp",
        "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp",
    }]);
    std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
    dir
}

fn findings(dir: &std::path::Path, args: &[&str]) -> Vec<(String, String)> {
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(dir)
        .args(["check", "--no-cache", "--format", "json"])
        .args(args)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_named_file_is_checked_with_its_project() {
    let dir = project();
    let all = findings(dir.path(), &["."]);
    let in_main: Vec<_> = all
        .iter()
        .filter(|(f, _)| f == "src/main.cpp")
        .cloned()
        .collect();
    // The database's target and the header's double: a mismatch and the AOT finding.
    assert_eq!(in_main.len(), 2, "{all:?}");
    assert!(all.iter().any(|(f, _)| f == "src/other.cpp"), "{all:?}");
    // Named alone (or with `./`), the same findings, the same names, and only that file's.
    assert_eq!(findings(dir.path(), &["src/main.cpp"]), in_main);
    assert_eq!(findings(dir.path(), &["./src/main.cpp"]), in_main);
}
