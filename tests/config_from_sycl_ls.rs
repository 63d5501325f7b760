//! `config from-sycl-ls` through the real binary: transcripts of `sycl-ls --verbose` (in the
//! format `sycl/tools/sycl-ls/sycl-ls.cpp` prints, tests/fixtures/sycl-ls/) into device-config
//! YAML that `config check` accepts and `check --config` uses.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

fn bin() -> Command {
    Command::cargo_bin("sycl-analyzer").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sycl-ls")
        .join(name)
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().unwrap();
    Run {
        status: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A kernel that computes in `double`.
const KERNEL: &str = "#include <sycl/sycl.hpp>\n\
int main() {\n\
  sycl::queue q;\n\
  double *out = sycl::malloc_shared<double>(1, q);\n\
  q.single_task([=] { out[0] = 2.0 * out[0]; });\n\
  q.wait();\n\
}\n";

/// `check --config config --targets targets` on [`KERNEL`]: its exit status and findings.
fn check_kernel(dir: &Path, config: &Path, targets: &str) -> (i32, Vec<Value>) {
    std::fs::write(dir.join("k.cpp"), KERNEL).unwrap();
    let r = run(bin().current_dir(dir).args([
        "check",
        "--no-cache",
        "--format",
        "json",
        "--config",
        config.to_str().unwrap(),
        "--targets",
        targets,
        "k.cpp",
    ]));
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    (r.status, v["diagnostics"].as_array().unwrap().clone())
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// The aspects of the transcript's `Aspects` line at `line` (1-based).
fn transcript_aspects(name: &str, line: usize) -> Vec<String> {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let l = text.lines().nth(line - 1).unwrap();
    let (_, words) = l.split_once(':').unwrap();
    assert!(l.trim_start().starts_with("Aspects"), "{l}");
    words.split_whitespace().map(String::from).collect()
}

/// The table entry of `target` with `config` applied, from `targets --format json`.
fn table_entry(config: &Path, target: &str) -> Value {
    let r = run(bin().args([
        "--config",
        config.to_str().unwrap(),
        "targets",
        "--format",
        "json",
    ]));
    assert_eq!(r.status, 0, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == target)
        .unwrap_or_else(|| panic!("no {target}"))
        .clone()
}

fn names(v: &Value) -> Vec<String> {
    let mut n: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    n.sort();
    n
}

#[test]
fn a_level_zero_max_1100_is_intel_gpu_pvc() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("devices.yaml");
    let r = run(bin().args([
        "config",
        "from-sycl-ls",
        fixture("pvc-level-zero.txt").to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]));
    assert_eq!(r.status, 0, "{r:?}");
    assert_eq!(r.stdout, "", "the YAML goes to --output");
    assert_eq!(r.stderr, "", "{r:?}");
    let yaml = std::fs::read_to_string(&out).unwrap();
    // Two identical cards are one entry; the SPR CPU is its architecture's target.
    assert_eq!(yaml.matches("\nintel_gpu_pvc:\n").count(), 1, "{yaml}");
    assert!(yaml.contains(
        "# Intel(R) Data Center GPU Max 1100, level_zero, driver 1.6.31294+21 (line 11)\n\
         # Intel(R) Data Center GPU Max 1100, level_zero, driver 1.6.31294+21 (line 24)\n\
         intel_gpu_pvc:\n"
    ));
    assert!(yaml.contains("\nintel_cpu_spr:\n"), "{yaml}");

    let r = run(bin().args(["config", "check", out.to_str().unwrap()]));
    assert_eq!(r.status, 0, "{r:?}");
    assert!(r
        .stdout
        .ends_with("2 target(s) apply, 0 error(s), 0 warning(s)\n"));

    let pvc = table_entry(&out, "intel_gpu_pvc");
    let mut expected = transcript_aspects("pvc-level-zero.txt", 21);
    expected.sort();
    assert_eq!(names(&pvc["aspects"]), expected);
    assert_eq!(pvc["sub_group_sizes"], serde_json::json!([16, 32]));
    assert_eq!(pvc["may_support_other_aspects"], false);
    assert_eq!(pvc["aot_toolchain_options"], "-device pvc");
    assert_eq!(pvc["source"], out.to_str().unwrap());

    let (status, findings) = check_kernel(dir.path(), &out, "intel_gpu_pvc,intel_cpu_spr");
    assert_eq!((status, findings.len()), (0, 0), "{findings:?}");
}

#[test]
fn an_a100_through_cuda_is_nvidia_gpu_sm_80_from_standard_input() {
    let dir = TempDir::new().unwrap();
    let transcript = std::fs::read_to_string(fixture("a100-cuda.txt")).unwrap();
    for args in [
        &["config", "from-sycl-ls", "-"][..],
        &["config", "from-sycl-ls"],
    ] {
        let r = run(bin().args(args).write_stdin(transcript.clone()));
        assert_eq!(r.status, 0, "{r:?}");
        assert!(r.stdout.contains("# transcript: <stdin>\n"), "{r:?}");
        assert!(r.stdout.contains(
            "# NVIDIA A100-PCIE-40GB, cuda, driver CUDA 12.4 (line 9)\nnvidia_gpu_sm_80:\n"
        ));
        let yaml = dir.path().join("a100.yaml");
        std::fs::write(&yaml, &r.stdout).unwrap();
        let sm80 = table_entry(&yaml, "nvidia_gpu_sm_80");
        let mut expected = transcript_aspects("a100-cuda.txt", 19);
        expected.sort();
        assert_eq!(names(&sm80["aspects"]), expected);
        assert_eq!(sm80["sub_group_sizes"], serde_json::json!([32]));
        let (status, findings) = check_kernel(dir.path(), &yaml, "nvidia_gpu_sm_80");
        assert_eq!((status, findings.len()), (0, 0), "{findings:?}");
    }
}

#[test]
fn an_opencl_cpu_is_named_after_the_device() {
    let dir = TempDir::new().unwrap();
    let r = run(bin().args([
        "config",
        "from-sycl-ls",
        fixture("cpu-opencl.txt").to_str().unwrap(),
    ]));
    assert_eq!(r.status, 0, "{r:?}");
    assert!(
        r.stderr.contains(
            "cpu-opencl.txt:9:9: note[sycl-ls-target-name]: device 'AMD EPYC 9654 96-Core \
             Processor' (opencl, line 9) has architecture 'x86_64', which names no particular \
             device: its entry is named 'amd_epyc_9654_96_core_processor' after the device \
             (--targets amd_epyc_9654_96_core_processor)"
        ),
        "{r:?}"
    );
    assert!(r.stdout.contains("\namd_epyc_9654_96_core_processor:\n"));
    let yaml = dir.path().join("cpu.yaml");
    std::fs::write(&yaml, &r.stdout).unwrap();
    // The name is a target only with the generated config.
    let without = run(bin().args(["query", "target", "amd_epyc_9654_96_core_processor"]));
    assert_eq!(without.status, 1, "{without:?}");
    let (status, findings) = check_kernel(dir.path(), &yaml, "amd_epyc_9654_96_core_processor");
    assert_eq!((status, findings.len()), (0, 0), "{findings:?}");
}

#[test]
fn a_gpu_without_fp64_gets_the_finding_and_unknown_aspects_are_reported() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("desktop.yaml");
    let r = run(bin().args([
        "config",
        "from-sycl-ls",
        fixture("arc-desktop.txt").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    // The 2024 runtime's group aspects carry their names from before DPC++'s last ABI break:
    // read by their new names (notes), the one without a successor left out.
    assert_eq!(r.status, 0, "{r:?}");
    assert_eq!(
        r.stderr.matches("note[deprecated-aspect]").count(),
        12,
        "{r:?}"
    );
    assert!(!r.stderr.contains("error["), "{r:?}");
    assert!(r.stderr.contains(
        "arc-desktop.txt:21:618: note[deprecated-aspect]: 'ext_oneapi_ballot_group' is what DPC++ \
         releases before its last ABI break call 'ext_oneapi_fragment': written as \
         'ext_oneapi_fragment'\n"
    ));
    // The A770 through Level Zero and through OpenCL is one target.
    assert!(r.stderr.contains(
        "arc-desktop.txt:46:9: warning[sycl-ls-devices-differ]: device 'Intel(R) Arc(TM) A770 \
         Graphics' (level_zero, line 11) and device 'Intel(R) Arc(TM) A770 Graphics' (opencl, \
         line 46) are both target 'intel_gpu_acm_g10' but differ (aspects ext_intel_free_memory"
    ));
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(yaml.contains(
        "# Intel(R) Arc(TM) A770 Graphics, opencl, driver 24.22.29735.27 (line 46)\n\
         # left out, not reported by every device: ext_intel_free_memory, \
         ext_intel_memory_clock_rate, ext_intel_memory_bus_width, ext_intel_esimd, \
         ext_oneapi_limited_graph\n\
         intel_gpu_acm_g10:\n"
    ));
    assert!(!yaml.contains("unknown to sycl-analyzer"), "{yaml}");
    let acm = yaml.split("intel_gpu_acm_g10:\n").nth(1).unwrap();
    let aspects = acm.lines().next().unwrap();
    for new in [
        "ext_oneapi_fragment",
        "ext_oneapi_chunk",
        "ext_oneapi_tangle",
    ] {
        assert!(aspects.contains(new), "{aspects}");
    }
    assert!(
        yaml.contains("\ndevice_13th_gen_intel_core_i9_13900k:\n"),
        "{yaml}"
    );
    let r = run(bin().args(["config", "check", out.to_str().unwrap()]));
    assert_eq!(r.status, 0, "{r:?}");

    let (status, findings) = check_kernel(dir.path(), &out, "intel_gpu_acm_g10");
    assert_eq!(status, 1);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "target-unsupported-aspect");
    assert_eq!(findings[0]["aspect"], "fp64");
    assert_eq!(
        findings[0]["targets"],
        serde_json::json!(["intel_gpu_acm_g10"])
    );
    let (status, findings) = check_kernel(dir.path(), &out, "device_13th_gen_intel_core_i9_13900k");
    assert_eq!((status, findings.len()), (0, 0), "{findings:?}");
}

#[test]
fn malformed_and_truncated_transcripts_exit_2_and_write_nothing() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("never.yaml");
    let cases = [
        (
            "truncated.txt",
            "truncated.txt:29:9: error[sycl-ls-malformed]: the transcript is cut short: the device \
             of line 24 (platform [#1]) has no 'Aspects' line; pass the whole output of \
             `sycl-ls --verbose`\n",
        ),
        (
            "malformed.txt",
            "malformed.txt:20:9: error[sycl-ls-malformed]: unexpected line in the verbose listing: \
             'Num SubSubDevices   0' is no 'Key : value' field nor a 'Platform [#N]:' or \
             'Device [#N]:' header\n",
        ),
        (
            "not-verbose.txt",
            "not-verbose.txt:1:1: error[sycl-ls-malformed]: this is the output of `sycl-ls` \
             without `--verbose`, which lists no aspects: run `sycl-ls --verbose`\n",
        ),
    ];
    for (name, message) in cases {
        for output in [None, Some(&out)] {
            let mut cmd = bin();
            cmd.args(["config", "from-sycl-ls", fixture(name).to_str().unwrap()]);
            if let Some(o) = output {
                cmd.args(["--output", o.to_str().unwrap()]);
            }
            let r = run(&mut cmd);
            assert_eq!(r.status, 2, "{name}: {r:?}");
            assert_eq!(r.stdout, "", "{name}");
            assert!(r.stderr.ends_with(message), "{name}: {r:?}");
            assert!(!out.exists());
        }
    }
    let r = run(bin().args(["config", "from-sycl-ls", "-"]).write_stdin(""));
    assert_eq!(r.status, 2, "{r:?}");
    assert!(r
        .stderr
        .contains("<stdin>:1:1: error[sycl-ls-malformed]: the input is empty"));
    let r = run(bin().args(["config", "from-sycl-ls", "no-such-transcript.txt"]));
    assert_eq!(r.status, 2, "{r:?}");
    assert!(r
        .stderr
        .starts_with("error: cannot read 'no-such-transcript.txt'"));
}

#[test]
fn merge_appends_keeps_the_file_and_skips_defined_targets() {
    let dir = TempDir::new().unwrap();
    let mine = dir.path().join("lab.yaml");
    let original = "# Our lab's devices: this comment stays.\n\
                    intel_gpu_pvc:   # a deployment that must not rely on fp64\n  \
                      aspects: [ext_intel_esimd, fp16, atomic64]\n  \
                      sub-group-sizes: [16, 32]";
    std::fs::write(&mine, original).unwrap();
    let merge = |extra: &[&str]| {
        let mut cmd = bin();
        cmd.current_dir(dir.path()).args([
            "config",
            "from-sycl-ls",
            fixture("pvc-level-zero.txt").to_str().unwrap(),
            "--merge",
            "lab.yaml",
        ]);
        run(cmd.args(extra))
    };

    let r = merge(&[]);
    assert_eq!(r.status, 0, "{r:?}");
    assert_eq!(r.stdout, "");
    // Both PVC devices are the file's target: reported, the file's entry kept.
    assert_eq!(
        r.stderr.matches("warning[merge-existing-target]").count(),
        1,
        "{r:?}"
    );
    assert!(r.stderr.contains(
        "pvc-level-zero.txt:11:9: warning[merge-existing-target]: target 'intel_gpu_pvc' is \
         already defined in 'lab.yaml' (line 2): the file's entry is kept, this device's left out"
    ));
    let merged = std::fs::read_to_string(&mine).unwrap();
    assert!(
        merged.starts_with(&format!(
            "{original}\n\n# Added by `sycl-analyzer config from-sycl-ls` from "
        )),
        "{merged}"
    );
    assert_eq!(merged.matches("intel_gpu_pvc:").count(), 1);
    assert!(merged.contains(
        "# Intel(R) Xeon(R) Platinum 8480+, opencl, driver 2025.19.4.0.18_160000 (line 42)\n\
         intel_cpu_spr:\n"
    ));
    let pvc = table_entry(&mine, "intel_gpu_pvc");
    assert_eq!(
        names(&pvc["aspects"]),
        ["atomic64", "ext_intel_esimd", "fp16"]
    );
    assert_eq!(
        table_entry(&mine, "intel_cpu_spr")["source"],
        mine.to_str().unwrap()
    );

    // Again: nothing left to add, the file as it was.
    let r = merge(&[]);
    assert_eq!(r.status, 0, "{r:?}");
    assert_eq!(
        r.stderr.matches("warning[merge-existing-target]").count(),
        2
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), merged);

    // With --output the merged text goes there, the file untouched.
    std::fs::write(&mine, original).unwrap();
    let r = merge(&["--output", "merged.yaml"]);
    assert_eq!(r.status, 0, "{r:?}");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), original);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("merged.yaml")).unwrap(),
        merged
    );
}

#[test]
fn merge_refuses_files_it_cannot_extend() {
    let dir = TempDir::new().unwrap();
    let transcript = fixture("a100-cuda.txt");
    let cases = [
        (
            "flow.yaml",
            "{intel_gpu_pvc: {aspects: [fp16]}}\n",
            "would not keep target 'intel_gpu_pvc'",
        ),
        ("broken.yaml", "a: [\n", "cannot merge into"),
    ];
    for (name, text, message) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let r = run(bin().args([
            "config",
            "from-sycl-ls",
            transcript.to_str().unwrap(),
            "--merge",
            path.to_str().unwrap(),
        ]));
        assert_eq!(r.status, 2, "{name}: {r:?}");
        assert!(r.stderr.contains(message), "{name}: {r:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}");
    }
}
