//! The real binary: exit codes, compiler-style diagnostics, every output format, broken inputs.

use std::io::Write;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::NamedTempFile;

fn bin() -> Command {
    Command::cargo_bin("sycl-analyzer").unwrap()
}

fn yaml_file(content: &[u8]) -> NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(content).unwrap();
    f
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap()
}

/// Runs a command that must succeed and returns its JSON answer.
fn json_of(cmd: &mut Command) -> serde_json::Value {
    json(&cmd.assert().success().get_output().stdout)
}

#[test]
fn query_macros_for_two_targets() {
    let v = json_of(bin().args([
        "query",
        "macros",
        "--targets",
        "intel_gpu_pvc,nvidia_gpu_sm_80",
    ]));
    assert_eq!(
        v["targets"],
        serde_json::json!(["intel_gpu_pvc", "nvidia_gpu_sm_80"])
    );
    assert_eq!(v["macros"]["__SYCL_TARGET_NVIDIA_GPU_SM_80__"], "1");
    assert_eq!(v["macros"]["__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__"], "1");
    assert_eq!(v["macros"]["__SYCL_ALL_DEVICES_HAVE_fp64__"], "1");
    assert!(v["macros"]
        .get("__SYCL_ALL_DEVICES_HAVE_ext_intel_esimd__")
        .is_none());
}

/// `--targets` takes every spelling `-fsycl-targets=` takes: a partial triple like `nvptx64`
/// was refused. A bare NVIDIA triple is compiled for the driver's default architecture, and
/// has its macros (sycl-device-traits-macros-nvptx.cpp, CHECK-SYCL-NVPTX-NVIDIA-CUDA-DEFAULT-
/// TRIPLE: ANY_ASPECT, no ANY_DEVICE_HAS_<a>, some ALL_DEVICES_HAVE_<a>).
#[test]
fn query_macros_for_a_partial_nvptx_triple() {
    let v = json_of(bin().args(["query", "macros", "--targets", "nvptx64"]));
    assert_eq!(v["targets"], serde_json::json!(["nvptx64-nvidia-cuda"]));
    let m = v["macros"].as_object().unwrap();
    assert_eq!(m["__SYCL_TARGET_NVIDIA_GPU_SM_75__"], "1");
    assert_eq!(m["__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__"], "1");
    assert!(!m
        .keys()
        .any(|k| k.starts_with("__SYCL_ANY_DEVICE_HAS_")
            && k != "__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__"));
    assert_eq!(m["__SYCL_ALL_DEVICES_HAVE_fp64__"], "1");
    let from_flags = json_of(bin().args([
        "query",
        "macros",
        "--flags",
        "-fsycl -fsycl-targets=nvptx64",
    ]));
    assert_eq!(from_flags["macros"], v["macros"]);
    for spelling in ["nvptx64-nvidia-cuda", "nvptx64-unknown-unknown"] {
        let w = json_of(bin().args(["query", "macros", "--targets", spelling]));
        assert_eq!(w["macros"], v["macros"], "{spelling}");
    }
}

/// `-Xs "-device NAME"`: the spir64_gen compile gets no `__SYCL_TARGET_*__` macro and the
/// traits of the spir64_gen entry (CHECK_TOOLS_MIX); a name of no device is a note on stderr.
#[test]
fn query_macros_for_an_ocloc_device() {
    let v = json_of(bin().args([
        "query",
        "macros",
        "--flags",
        r#"-fsycl -fsycl-targets=spir64_gen -Xsycl-target-backend=spir64_gen "-device dg1""#,
    ]));
    assert_eq!(v["targets"], serde_json::json!(["spir64_gen:dg1"]));
    assert_eq!(
        v["macros"],
        serde_json::json!({"__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__": "1"})
    );
    bin()
        .args([
            "query",
            "macros",
            "--flags",
            r#"-fsycl -fsycl-targets=spir64_gen -Xs "-device acm-g10,xe-hpg""#,
            "--format",
            "flags",
        ])
        .assert()
        .code(0)
        .stdout(
            predicate::str::starts_with("-D__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__=1")
                .and(predicate::str::contains("__SYCL_TARGET_").not()),
        )
        .stderr(predicate::str::contains(
            "note[unbound-device]: ocloc device 'xe-hpg' (-device) names no device",
        ));
}

/// A build system with a command line rather than a target list: the same answer as the list
/// the driver makes of it; what the driver refuses is refused with its text.
#[test]
fn query_macros_from_a_command_line() {
    let from_flags = json_of(bin().args([
        "query",
        "macros",
        "--flags",
        r#"icpx -fsycl --offload-arch=pvc -fsycl-targets=nvptx64 -Xsycl-target-backend=nvptx64-nvidia-cuda --cuda-gpu-arch=sm_80 -DX=1"#,
    ]));
    let from_list = json_of(bin().args([
        "query",
        "macros",
        "--targets",
        "nvidia_gpu_sm_80,intel_gpu_pvc",
    ]));
    assert_eq!(from_flags["macros"], from_list["macros"]);
    assert_eq!(from_flags["macros"]["__SYCL_TARGET_INTEL_GPU_PVC__"], "1");
    bin()
        .args([
            "query",
            "macros",
            "--flags",
            "-fsycl --offload-arch=pvcc",
            "--format",
            "flags",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--flags:1:1: error[invalid-target]: SYCL target is invalid: 'pvcc'; did you mean",
        ));
    bin()
        .args([
            "query",
            "macros",
            "--flags",
            "-fsycl",
            "--targets",
            "spir64",
        ])
        .assert()
        .code(2);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    bin().assert().code(2);
    bin()
        .args(["query", "macros", "--format", "xml"])
        .assert()
        .code(2);
    bin().args(["frobnicate"]).assert().code(2);
    bin()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("query"));
}

#[test]
fn unreadable_config_is_an_io_error() {
    bin()
        .args(["--config", "/nonexistent/dev.yaml", "targets"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read '/nonexistent/dev.yaml'",
        ));
    bin()
        .args(["config", "check", "/nonexistent/dev.yaml"])
        .assert()
        .code(2);
}

#[test]
fn invalid_target_is_reported_compiler_style_with_its_column() {
    bin()
        .args(["query", "macros", "--targets", "spir64,intel_gpu_pvcc", "--format", "flags"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--targets:1:8: error[invalid-target]: SYCL target is invalid: 'intel_gpu_pvcc'; did you mean",
        ));
}

#[test]
fn query_target_text_and_exit_codes() {
    bin()
        .args(["query", "target", "intel_gpu_rpl_s,amd_gpu_gfx90a", "--format", "text"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "intel_gpu_rpl_s: valid, alias of intel_gpu_adl_s, macro __SYCL_TARGET_INTEL_GPU_ADL_S__",
        ))
        .stdout(predicate::str::contains("amd_gpu_gfx90a: valid, macro __SYCL_TARGET_AMD_GPU_GFX90A__"));
    bin()
        .args(["query", "target", "Intel_gpu_pvc", "--format", "text"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "Intel_gpu_pvc: SYCL target is invalid: 'Intel_gpu_pvc' (did you mean intel_gpu_pvc",
        ));
}

#[test]
fn user_config_adds_and_overrides_targets_from_any_position() {
    let f = yaml_file(b"intel_gpu_pvc:\n  aspects: [fp16]\nmy_accel:\n  aspects: [accelerator]\n");
    let path = f.path().to_str().unwrap();
    let v = json_of(bin().args([
        "query",
        "traits",
        "--targets",
        "intel_gpu_pvc,my_accel",
        "--config",
        path,
    ]));
    assert_eq!(
        v["any_device_has"]["fp64"], false,
        "pvc override drops fp64"
    );
    assert_eq!(v["any_device_has"]["accelerator"], true);
    assert_eq!(v["all_devices_have"]["fp16"], false);
    // The user target shows in the table with its source.
    let table = json_of(bin().args(["--config", path, "targets", "--format", "json"]));
    let mine = table
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "my_accel")
        .unwrap();
    assert_eq!(mine["source"], path);
    assert_eq!(mine["kind"], "configured");
    // 101 built-in entries, the user's, and the 3 generic triples the driver knows without
    // an entry of their own (spirv64, nvptx64-nvidia-cuda, amdgcn-amd-amdhsa).
    assert_eq!(table.as_array().unwrap().len(), 105);
}

/// A broken config is no answer from the embedded table in its place (the user meant their
/// entry): the command stops with exit 2 and says why; `config check` reports it as findings.
#[test]
fn broken_config_stops_the_command_with_exit_2() {
    let f = yaml_file(b"intel_gpu_pvc:\n  aspects: [fp16\n");
    bin()
        .args(["--config", f.path().to_str().unwrap(), "query", "traits"])
        .args(["--targets", "intel_gpu_pvc", "--aspect", "fp64"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(":3:1: error[yaml-syntax]: invalid YAML").and(
                predicate::str::contains("have errors: nothing was answered"),
            ),
        )
        .stdout("");
    bin()
        .args(["--config", f.path().to_str().unwrap(), "targets"])
        .assert()
        .code(2);
    bin()
        .args(["config", "check", f.path().to_str().unwrap()])
        .assert()
        .code(1);
}

/// Each broken input with the exact position of its diagnostic.
#[test]
fn config_check_positions_for_broken_inputs() {
    let cases: &[(&[u8], &str, [u64; 4])] = &[
        (b"t:\n  aspects: [fp16\n", "yaml-syntax", [3, 1, 3, 1]),
        (b"t:\n  aspects: 7\n", "wrong-type", [2, 12, 2, 13]),
        (
            b"t:\n  aspects: [fp16, fp6]\n",
            "unknown-aspect",
            [2, 19, 2, 22],
        ),
        (b"t:\n  aspects: [999]\n", "unknown-aspect", [2, 13, 2, 16]),
        (
            b"t:\n  aspects: []\n  aot_toolchain: ocloc\n",
            "unknown-key",
            [3, 3, 3, 16],
        ),
        (
            b"t:\n  aspects: []\nt:\n  aspects: []\n",
            "duplicate-target",
            [3, 1, 3, 2],
        ),
        (
            b"t:\n  aspects: []\n  sub-group-sizes: [-8]\n",
            "invalid-sub-group-size",
            [3, 21, 3, 23],
        ),
        (b"", "empty-config", [1, 1, 1, 1]),
        (
            b"\x7fELF\x02\x01\x01\x00\xff\xfe",
            "invalid-utf8",
            [1, 9, 1, 10],
        ),
        (b"\x00\x00\x00", "yaml-syntax", [1, 1, 1, 2]),
    ];
    for (content, code, [line, column, end_line, end_column]) in cases {
        let f = yaml_file(content);
        let out = bin()
            .args([
                "config",
                "check",
                "--format",
                "json",
                f.path().to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let v = json(&out.stdout);
        let d = &v["diagnostics"][0];
        assert_eq!(d["code"], *code, "{content:?}: {v}");
        assert_eq!(
            [&d["line"], &d["column"], &d["end_line"], &d["end_column"]],
            [line, column, end_line, end_column],
            "{content:?}: {v}"
        );
        let is_error = d["severity"] == "error";
        assert_eq!(
            out.status.code(),
            Some(if is_error { 1 } else { 0 }),
            "{content:?}"
        );
    }
}

#[test]
fn config_check_text_prints_summary_and_compiler_style_diagnostics() {
    let f = yaml_file(b"good:\n  aspects: [gpu]\nbad:\n  aspects: [gpuu]\n");
    let path = f.path().to_str().unwrap();
    bin()
        .args(["config", "check", path])
        .assert()
        .code(1)
        .stdout(format!(
            "{path}: 1 target(s) apply, 1 error(s), 0 warning(s)\n"
        ))
        .stderr(predicate::str::contains(format!(
            "{path}:4:13: error[unknown-aspect]: unknown aspect 'gpuu'; did you mean 'gpu'?"
        )));
}

#[test]
fn unknown_aspect_filter_is_reported() {
    bin()
        .args(["query", "traits", "--aspect", "fp16", "--aspect", "atomic46"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--aspect:1:6: error[unknown-aspect]: unknown aspect 'atomic46'; did you mean 'atomic64'?",
        ));
}

#[test]
fn traits_text_table() {
    bin()
        .args(["query", "traits", "--targets", "spir64", "--aspect", "fp64", "--format", "text"])
        .assert()
        .success()
        .stdout("-fsycl-targets=spir64\nASPECT  any_device_has  all_devices_have\nfp64    true            false\n");
}

#[test]
fn header_output_compiles_as_c() {
    let out = bin()
        .args([
            "query",
            "macros",
            "--targets",
            "intel_gpu_acm_g10",
            "--format",
            "header",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let header = String::from_utf8(out).unwrap();
    assert!(header.contains("#define __SYCL_TARGET_INTEL_GPU_ACM_G10__ 1\n"));
    assert!(header.contains("#define __SYCL_ALL_DEVICES_HAVE_fp16__ 1\n"));
    assert!(!header.contains("fp64"), "acm_g10 has no fp64");
    if std::process::Command::new("cc")
        .arg("--version")
        .output()
        .is_ok()
    {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.h"), &header).unwrap();
        std::fs::write(
            dir.path().join("t.c"),
            "#include \"m.h\"\n#if !__SYCL_TARGET_INTEL_GPU_ACM_G10__ || defined(__SYCL_ALL_DEVICES_HAVE_fp64__)\n#error wrong\n#endif\nint main(void){return 0;}\n",
        )
        .unwrap();
        let status = std::process::Command::new("cc")
            .current_dir(dir.path())
            .args(["-fsyntax-only", "t.c"])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

#[test]
fn aspects_and_targets_listings() {
    let v = json_of(bin().args(["aspects", "--format", "json"]));
    assert_eq!(v.as_array().unwrap().len(), 101);
    let host = v
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "host")
        .unwrap();
    assert_eq!(host["deprecated"], true);
    assert_eq!(host["value"], 0);
    bin()
        .arg("targets")
        .assert()
        .success()
        .stdout(predicate::str::contains("intel_gpu_pvc"))
        .stdout(predicate::str::contains("104 targets"));
}

#[test]
fn closed_stdout_does_not_panic() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .args(["targets", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn config_check_also_checks_config_option_files() {
    bin()
        .args([
            "--config",
            "config/examples/my-devices.yaml",
            "config",
            "check",
        ])
        .arg("config/examples/broken.yaml")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(1)
        .stdout(
            "config/examples/my-devices.yaml: 2 target(s) apply, 0 error(s), 0 warning(s)\n\
             config/examples/broken.yaml: 1 target(s) apply, 2 error(s), 2 warning(s)\n",
        );
}

/// `acpp` commands (AdaptiveCpp): the devices of `--acpp-targets`, the macros of every pass
/// and each pass's own: `__SYCL_DEVICE_ONLY__` only in the CUDA / HIP device passes,
/// `__SYCL_SINGLE_SOURCE__` only in the host pass that `generic` makes a unified one.
#[test]
fn query_macros_for_an_adaptivecpp_command() {
    let acpp = |line: &str| {
        let mut c = bin();
        for v in ["ACPP_TARGETS", "HIPSYCL_TARGETS", "OPENSYCL_TARGETS"] {
            c.env_remove(v);
        }
        c.args(["query", "macros", "--flags", line]);
        c
    };
    let v = json_of(&mut acpp(
        r#"acpp --acpp-targets="omp;cuda:sm_80;hip:gfx90a;generic" -O2 -c a.cpp"#,
    ));
    assert_eq!(v["implementation"], "AdaptiveCpp");
    let devices: Vec<(&str, &str)> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["acpp"].as_str().unwrap(), t["target"].as_str().unwrap()))
        .collect();
    assert_eq!(
        devices,
        [
            ("omp", "x86_64"),
            ("cuda:sm_80", "nvidia_gpu_sm_80"),
            ("hip:gfx90a", "amd_gpu_gfx90a"),
            ("generic", "spir64")
        ]
    );
    let m = &v["macros"];
    for n in [
        "__ACPP__",
        "__ADAPTIVECPP__",
        "__ACPP_ENABLE_OMPHOST_TARGET__",
        "__ACPP_ENABLE_CUDA_TARGET__",
        "__ACPP_ENABLE_HIP_TARGET__",
        "__ACPP_ENABLE_LLVM_SSCP_TARGET__",
    ] {
        assert_eq!(m[n], "1", "{n}");
    }
    assert_eq!(m["SYCL_LANGUAGE_VERSION"], "202003");
    let names: Vec<&String> = m.as_object().unwrap().keys().collect();
    assert!(
        names.iter().all(|n| !n.starts_with("__SYCL_TARGET_")
            && !n.starts_with("__SYCL_ANY_DEVICE_HAS")
            && !n.starts_with("__SYCL_ALL_DEVICES_HAVE")
            && *n != "__SYCL_DEVICE_ONLY__"),
        "{names:?}"
    );
    let passes = v["passes"].as_array().unwrap();
    let pass = |name: &str| passes.iter().find(|p| p["pass"] == name).unwrap();
    let host = pass("host pass");
    assert_eq!(host["targets"], serde_json::json!(["x86_64"]));
    assert_eq!(host["macros"]["__SYCL_SINGLE_SOURCE__"], "1");
    assert!(host["macros"].get("__SYCL_DEVICE_ONLY__").is_none());
    assert_eq!(host["macros"]["__acpp_if_target_host(...)"], "__VA_ARGS__");
    let sscp = pass("host pass, as its device code (SSCP, nvc++) sees it");
    assert_eq!(sscp["targets"], serde_json::json!(["spir64"]));
    assert_eq!(
        sscp["macros"]["__acpp_if_target_device(...)"],
        "__VA_ARGS__"
    );
    let sm80 = pass("cuda:sm_80 device pass");
    assert_eq!(sm80["macros"]["__CUDA_ARCH__"], "800");
    assert_eq!(sm80["macros"]["__SYCL_DEVICE_ONLY__"], "1");
    assert!(sm80["macros"].get("__SYCL_SINGLE_SOURCE__").is_none());
    assert_eq!(
        pass("hip:gfx90a device pass")["macros"]["__HIP_DEVICE_COMPILE__"],
        "1"
    );
    // The older spelling, and the environment when the command names no targets.
    let v = json_of(&mut acpp("syclcc --hipsycl-targets=omp -c a.cpp"));
    assert_eq!(v["targets"][0]["target"], "x86_64");
    let v = json_of(acpp("acpp -c a.cpp").env("HIPSYCL_TARGETS", "hip:gfx1100"));
    assert_eq!(v["targets"][0]["target"], "amd_gpu_gfx1100");
    // Without either, a typical installation's default flow: generic.
    let v = json_of(&mut acpp("acpp -c a.cpp"));
    assert_eq!(v["acpp_targets"], "generic");
    // One list for the other formats: the macros of every pass.
    acpp("acpp --acpp-targets=omp -c a.cpp")
        .args(["--format", "flags"])
        .assert()
        .success()
        .stdout(predicate::str::contains("-D__ACPP__=1 -D__ADAPTIVECPP__=1"))
        .stdout(predicate::str::contains("SYCL_DEVICE_ONLY").not());
}

/// What `acpp` refuses is refused with its reason and did-you-mean: unknown flows and
/// architectures, an empty list, separators that make an empty or unknown item, archs where a
/// flow takes none or none where it needs them.
#[test]
fn bad_adaptivecpp_targets_are_refused() {
    let refused = |spec: &str, wanted: &str| {
        let mut c = bin();
        c.env_remove("ACPP_TARGETS");
        c.args([
            "query",
            "macros",
            "--format",
            "flags",
            "--flags",
            &format!("acpp --acpp-targets={spec} -c a.cpp"),
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(wanted));
    };
    refused(
        "cdua:sm_80",
        "unknown AdaptiveCpp compilation flow 'cdua' (Unknown backend); did you mean 'cuda'?",
    );
    refused(
        "cuda:sm_999",
        "unknown CUDA GPU architecture 'sm_999' for AdaptiveCpp flow 'cuda'; did you mean",
    );
    refused(
        "hip:gfx9000",
        "unknown AMD GPU architecture 'gfx9000' for AdaptiveCpp flow 'hip'; did you mean",
    );
    refused("''", "empty AdaptiveCpp target");
    refused("'omp;;generic'", "empty AdaptiveCpp target");
    refused("'omp;'", "empty AdaptiveCpp target");
    refused(
        "omp,cuda:sm_80",
        "unknown AdaptiveCpp compilation flow 'omp,cuda'",
    );
    refused(
        "cuda:sm_80:sm_90",
        "unknown CUDA GPU architecture 'sm_80:sm_90'",
    );
    refused("cuda:", "empty architecture in AdaptiveCpp target 'cuda:'");
    refused("cuda", "AdaptiveCpp flow 'cuda' needs architectures");
    refused(
        "generic:sm_80",
        "AdaptiveCpp flow 'generic' takes no architecture",
    );
    refused(
        "'cuda.integrated-multipass:sm_80;hip.integrated-multipass:gfx90a'",
        "are incompatible",
    );
}
