//! `targets`: every target `-fsycl-targets` takes, in text, JSON and Markdown, held to what the
//! other commands answer for the same names (query target, report).

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    Command::cargo_bin("sycl-analyzer").unwrap()
}

fn stdout(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

fn listing() -> Vec<Value> {
    let out = stdout(bin().args(["targets", "--format", "json"]));
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter().find(|r| r["name"] == name).unwrap()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

/// Every spelling the listing gives is valid for `query target` and resolves to its row.
#[test]
fn every_listed_spelling_is_a_valid_name_of_its_row() {
    let rows = listing();
    let mut spellings = Vec::new();
    let mut expected = Vec::new();
    for r in &rows {
        for s in strings(&r["spellings"]) {
            spellings.push(s.to_string());
            expected.push(r["name"].as_str().unwrap().to_string());
        }
    }
    assert!(spellings.len() > rows.len() + 50, "{}", spellings.len());
    let out = stdout(bin().args(["query", "target"]).args(&spellings));
    let answers: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(answers.len(), spellings.len());
    for ((a, s), name) in answers.iter().zip(&spellings).zip(&expected) {
        assert_eq!(a["valid"], true, "{s}: {a}");
        // A row's entry is the one `query target` says the name reads.
        assert_eq!(a["canonical"], name.as_str(), "{s}");
    }
}

/// The newest Intel GPU names of the driver table, with their aliases, AOT toolchain and what
/// their device-config entries leave out.
#[test]
fn newest_intel_names_are_listed_with_their_aliases_and_toolchain() {
    let rows = listing();
    for (name, aliases) in [
        ("intel_gpu_bmg_g31", vec!["intel_gpu_20_2_0"]),
        ("intel_gpu_wcl", vec!["intel_gpu_30_3_0"]),
        (
            "intel_gpu_nvl_s",
            vec!["intel_gpu_nvl_hx", "intel_gpu_nvl_ul", "intel_gpu_30_4_0"],
        ),
        ("intel_gpu_cri", vec!["intel_gpu_35_11_0"]),
        ("intel_gpu_dg2", vec![]),
    ] {
        let r = row(&rows, name);
        assert_eq!(strings(&r["aliases"]), aliases, "{name}");
        assert_eq!(r["aot"], true);
        let arch = name.strip_prefix("intel_gpu_").unwrap();
        assert_eq!(r["compiled_by"], format!("ocloc -device {arch}"));
        assert_eq!(r["in_driver"], true);
        assert_eq!(r["entry"], name);
    }
    let dg1 = row(&rows, "intel_gpu_dg1");
    assert!(strings(&dg1["lacks"]).contains(&"fp64"));
    assert!(!strings(&row(&rows, "intel_gpu_pvc")["lacks"]).contains(&"fp64"));
}

/// A name only the driver knows has no entry, guarantees nothing, and `report` treats it as
/// DPC++ does a target missing from the device config: no AOT filtering, so a kernel that
/// uses an aspect it lacks may fail at run time rather than be left out of an image.
#[test]
fn a_driver_only_target_guarantees_nothing_and_filters_nothing() {
    let rows = listing();
    let spirv = row(&rows, "spirv64");
    assert_eq!(spirv["entry"], Value::Null);
    assert_eq!(spirv["source"], Value::Null);
    assert_eq!(spirv["aspects"], serde_json::json!([]));
    assert_eq!(spirv["may_support_other_aspects"], true);
    assert_eq!(spirv["aot"], false);
    assert!(strings(&spirv["lacks"]).contains(&"fp64"));
    let cuda = row(&rows, "nvptx64-nvidia-cuda");
    assert_eq!(cuda["entry"], "nvidia_gpu_sm_75");
    assert_eq!(cuda["compiled_by"], "ptxas --gpu-name sm_75");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cpp"),
        "#include <sycl/sycl.hpp>\n\
         void run(sycl::queue& q, double* d) { q.single_task([=] { d[0] = d[1] * 2; }); }\n",
    )
    .unwrap();
    let out = stdout(bin().args(["report", dir.path().to_str().unwrap()]).args([
        "--targets",
        "spirv64,intel_gpu_dg1",
        "--format",
        "json",
        "--no-cache",
    ]));
    let v: Value = serde_json::from_str(&out).unwrap();
    let status = |t: &str| v["kernels"][0]["targets"][t]["status"].clone();
    assert_eq!(status("intel_gpu_dg1"), "not_in_image", "{v:#}");
    assert_eq!(status("spirv64"), "may_fail", "{v:#}");
    // Beside pvc, which has fp64, it still guarantees nothing (the design's rule for the
    // traits; DPC++'s driver would leave it out and answer true).
    let out = stdout(
        bin()
            .args(["query", "traits", "--targets", "spirv64,intel_gpu_pvc"])
            .args(["--aspect", "fp64"]),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["all_devices_have"]["fp64"], false);
    assert_eq!(v["any_device_has"]["fp64"], true);
}

#[test]
fn markdown_lists_every_target_once_under_its_family() {
    let md = stdout(bin().args(["targets", "--format", "markdown"]));
    let rows = listing();
    let table_rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(table_rows.len(), rows.len());
    for r in &rows {
        let name = r["name"].as_str().unwrap();
        let start = format!("| `{name}` |");
        assert_eq!(
            table_rows.iter().filter(|l| l.starts_with(&start)).count(),
            1,
            "{name}"
        );
    }
    let cri = table_rows
        .iter()
        .find(|l| l.starts_with("| `intel_gpu_cri` |"))
        .unwrap();
    assert!(
        cri.contains("`intel_gpu_35_11_0`") && cri.contains("ocloc -device cri"),
        "{cri}"
    );
    let spirv = table_rows
        .iter()
        .find(|l| l.starts_with("| `spirv64` |"))
        .unwrap();
    assert!(
        spirv.contains("**none**: driver only") && spirv.contains("| JIT |"),
        "{spirv}"
    );
    let intel = md.find("## Intel GPUs").unwrap();
    let nvidia = md.find("## NVIDIA GPUs").unwrap();
    let cri_at = md.find("| `intel_gpu_cri` |").unwrap();
    assert!(intel < cri_at && cri_at < nvidia);
    assert!(md.contains("Driver only (no device-config entry): `spirv64`, `amdgcn-amd-amdhsa`."));
}

/// Names select rows, in any spelling; an invalid one is refused as `--targets` names are.
#[test]
fn names_select_rows_and_a_bad_name_is_an_error() {
    let out = stdout(bin().args(["targets", "intel_gpu_12_60_7,amdgcn", "--format", "json"]));
    let v: Vec<Value> = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = v.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["intel_gpu_pvc", "amdgcn-amd-amdhsa"]);
    let out = bin()
        .args(["targets", "intel_gpu_bdw", "intel_gpu_bad"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("SYCL target is invalid: 'intel_gpu_bad'"),
        "{err}"
    );
}

/// A user entry joins the listing with its file; the text table ends by naming the targets
/// without an entry.
#[test]
fn user_entries_and_the_text_table() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("dev.yaml");
    std::fs::write(&cfg, "my_accel:\n  aspects: [accelerator, fp64]\n").unwrap();
    let out = stdout(bin().args([
        "--config",
        cfg.to_str().unwrap(),
        "targets",
        "--format",
        "json",
    ]));
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    let mine = row(&rows, "my_accel");
    assert_eq!(mine["in_driver"], false);
    assert_eq!(mine["aot"], Value::Null);
    assert!(!strings(&mine["lacks"]).contains(&"fp64"));
    assert_eq!(rows.len(), listing().len() + 1);
    let text = stdout(bin().arg("targets"));
    let last = text.lines().last().unwrap();
    assert_eq!(
        last,
        "No device-config entry (the driver's names only, every kernel in their images): spirv64, amdgcn-amd-amdhsa."
    );
    assert!(text.contains(&format!("{} targets;", listing().len())));
}
