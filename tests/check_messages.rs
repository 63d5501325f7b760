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

fn check_text(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(dir)
        .arg("check")
        .arg("--no-cache")
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Where each text stands in `out`, in the order given; fails on one missing.
fn positions(out: &str, texts: &[&str]) -> Vec<usize> {
    texts
        .iter()
        .map(|t| out.find(t).unwrap_or_else(|| panic!("no {t:?} in:\n{out}")))
        .collect()
}

/// The kernel is at the bottom of the file and its chain climbs it (`scale` above the
/// kernel, `widen` above `scale`): the snippets follow the calls, not the lines.
#[test]
fn a_chain_climbing_one_file_is_printed_in_call_order() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = check_text(root, &["tests/fixtures/chain_climbing_one_file.cpp"]);
    let at = positions(
        &out,
        &[
            "chain_climbing_one_file.cpp:16:17\n",
            "16 │   q.single_task",
            "propagated from call to function 'scale(float)'",
            "chain_climbing_one_file.cpp:12:10\n",
            "propagated from call to function 'widen(float)'",
            "chain_climbing_one_file.cpp:7:10\n",
            " 7 │   double d = x;",
            "uses 'double' here",
        ],
    );
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}\n{out}");
}

/// The README's example output is what the command prints (its first lines, the command
/// aside, appear as written).
#[test]
fn the_readme_example_output_is_printed_as_shown() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = "$ sycl-analyzer check examples/vector-math\n";
    let start = readme.find(command).expect("the README shows the command") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let out = check_text(root, &["examples/vector-math"]);
    assert!(out.contains(shown), "README:\n{shown}\nprinted:\n{out}");
}

/// A kernel computing in double, in a fresh directory.
fn double_kernel() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        "#include <sycl/sycl.hpp>\n\
         void run(sycl::queue &q, double *d) {\n\
         \x20 q.single_task([=]() { d[0] = d[1] * d[2]; });\n\
         }\n",
    )
    .unwrap();
    dir
}

/// The messages of the findings of `code` in `check --format json`'s answer.
fn json_messages(dir: &std::path::Path, args: &[&str], code: &str) -> Vec<String> {
    let out = check_text(dir, &[args, &["--format", "json", "."]].concat());
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

/// DPC++'s entry of `amd_gpu_gfx1200` is an empty placeholder: the finding says so, and the
/// `--config` entry it points to does make it go.
#[test]
fn a_placeholder_target_is_said_to_be_one() {
    let dir = double_kernel();
    let messages = json_messages(
        dir.path(),
        &["--targets", "amd_gpu_gfx1200,intel_gpu_dg1"],
        "target-unsupported-aspect",
    );
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].ends_with(
            "errc::kernel_not_supported; DPC++'s default device table has only an empty \
             placeholder for 'amd_gpu_gfx1200' (no aspect at all), not what its devices have: a \
             --config entry that lists their aspects fixes this"
        ),
        "{messages:?}"
    );
    // dg1 really lacks fp64: no note for it.
    assert!(!messages[0].contains("placeholder for 'intel_gpu_dg1'"));

    std::fs::write(
        dir.path().join("devices.yaml"),
        "amd_gpu_gfx1200:\n  aspects: [gpu, fp16, fp64]\n",
    )
    .unwrap();
    let messages = json_messages(
        dir.path(),
        &["--targets", "amd_gpu_gfx1200", "--config", "devices.yaml"],
        "target-unsupported-aspect",
    );
    assert!(messages.is_empty(), "{messages:?}");

    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .args([
            "query",
            "target",
            "amd_gpu_gfx1200,amd_gpu_gfx90a",
            "--format",
            "text",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with(
            "0 aspects (an empty placeholder in DPC++'s default table, not what its devices \
             have: a --config entry can list them)"
        ),
        "{text}"
    );
    assert!(!lines[1].contains("placeholder"), "{text}");
}

/// A user entry dropped for an unknown aspect, then named as a target: the error says the
/// entry was dropped (where), not "did you mean" other targets. The command line refuses a
/// broken config file outright; a daemon goes on with the file's other entries.
#[test]
fn a_target_whose_entry_was_dropped_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let config = root.join("devices.yaml");
    std::fs::write(
        &config,
        "# ours\nintel_gpu_aml_x:\n  aspects: [fp16, fp46]\n",
    )
    .unwrap();
    let socket = root.join("d.sock");
    let mut daemon = std::process::Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .args(["daemon", "--socket", socket.to_str().unwrap(), "--root"])
        .arg(&root)
        .arg("--config")
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(start.elapsed().as_secs() < 20, "daemon did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .args(["query", "macros", "--targets", "intel_gpu_aml_x"])
        .arg(format!("--connect={}", socket.display()))
        .output()
        .unwrap();
    let _ = daemon.kill();
    let _ = daemon.wait();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let d = &json["diagnostics"][0];
    assert_eq!(d["code"], "invalid-target", "{json}");
    assert_eq!(
        d["message"],
        format!(
            "SYCL target is invalid: 'intel_gpu_aml_x': the entry 'intel_gpu_aml_x' of {}:2 \
             was dropped for its errors (reported on that file)",
            config.display()
        ),
        "{json}"
    );
    assert!(d.get("suggestions").is_none(), "{json}");
}

/// A struct used for a float member is a use of fp64 when it holds a double: the use says
/// which field, through nested members, bases and template arguments; its `use` stays the
/// type.
#[test]
fn a_struct_use_names_the_field_that_needs_the_aspect() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = check_text(
        root,
        &[
            "--targets",
            "intel_gpu_dg1",
            "--format",
            "json",
            "tests/fixtures/members_say_which_field.cpp",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let uses: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let last = d["chain"].as_array().unwrap().last().unwrap();
            (
                last["use"].as_str().unwrap().to_string(),
                last["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        (
            "Params",
            "uses 'Params' here: it holds field 'scale' of type 'double'",
        ),
        (
            "Outer",
            "uses 'Outer' here: it holds field 'inner' of type 'Params', which holds field \
             'scale' of type 'double'",
        ),
        (
            "Derived",
            "uses 'Derived' here: it derives from 'Base', which holds field 'weight' of type \
             'double'",
        ),
        (
            "Box<Params>",
            "uses 'Box<Params>' here: it holds field 'value' of type 'Params', which holds \
             field 'scale' of type 'double'",
        ),
        // The type's name says it.
        ("sycl::vec<double, 2>", "uses 'sycl::vec<double, 2>' here"),
        (
            "std::pair<int, Params>",
            "uses 'std::pair<int, Params>' here: it holds its template argument 'Params', \
             which holds field 'scale' of type 'double'",
        ),
    ];
    assert_eq!(
        uses,
        expected.map(|(u, m)| (u.to_string(), m.to_string())),
        "{json:#}"
    );
}
