//! The documented GitHub code-scanning workflow (examples/ci/github-code-scanning.yml): its
//! check step, run as written by bash with the built binary on PATH, from the top of a checkout
//! of the example project, writes the SARIF file the upload step names, with results whose
//! artifact URIs resolve inside the checkout, and the step succeeds although there are findings.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};
use std::process::Command;

use saphyr::{LoadableYamlNode, Yaml};

/// A step's string field; saphyr's indexing panics on a missing key.
fn field<'a>(step: &'a Yaml<'a>, key: &str) -> Option<&'a str> {
    step.as_mapping()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .and_then(|(_, v)| v.as_str())
}

fn step<'a>(steps: &'a [Yaml<'a>], pred: impl Fn(&Yaml) -> bool) -> &'a Yaml<'a> {
    steps
        .iter()
        .find(|s| pred(s))
        .expect("the workflow has the step")
}

#[test]
fn code_scanning_workflow_check_step_writes_what_the_upload_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("examples/ci/github-code-scanning.yml")).unwrap();
    let docs = Yaml::load_from_str(&text).expect("the workflow is YAML");
    let wf = &docs[0];
    assert_eq!(
        wf["permissions"]["security-events"].as_str(),
        Some("write"),
        "upload-sarif needs security-events: write"
    );
    let jobs = wf["jobs"].as_mapping().expect("jobs");
    let (_, job) = jobs.iter().next().expect("one job");
    let steps = job["steps"].as_vec().expect("steps");
    let check = step(steps, |s| {
        field(s, "run").is_some_and(|r| r.contains("sycl-analyzer check"))
    });
    let upload = step(steps, |s| {
        field(s, "uses").is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
    });
    let sarif_file = upload["with"]["sarif_file"].as_str().expect("sarif_file");
    let run = field(check, "run").unwrap();

    let checkout = tempfile::tempdir().unwrap();
    copy_dir(&root.join("examples/vector-math"), checkout.path());
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_sycl-analyzer"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // GitHub runs `run:` steps with `bash -e {0}`.
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", run])
        .current_dir(checkout.path())
        .env("PATH", &path)
        .env("XDG_CACHE_HOME", checkout.path().join(".cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the check step failed on findings: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(checkout.path().join(sarif_file)).unwrap())
            .expect("the step writes SARIF to the file the upload reads");
    let run = &sarif["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["ruleId"] == "aspect-mismatch"),
        "{sarif:#}"
    );
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        for field in ["shortDescription", "fullDescription", "help"] {
            assert!(
                rule[field]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "code scanning requires {field} on {rule}"
            );
        }
    }
    // Code scanning resolves relative URIs against the checkout to show the code.
    let mut uris = Vec::new();
    for r in results {
        for loc in r["locations"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["relatedLocations"].as_array().into_iter().flatten())
        {
            uris.push(
                loc["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert!(uris.iter().any(|u| u == "src/blend.hpp"), "{uris:?}");
    for uri in &uris {
        assert!(
            !uri.starts_with("./") && checkout.path().join(uri).is_file(),
            "{uri} does not resolve inside the checkout"
        );
    }

    // A wrong input (here a compile database entry without `directory`) fails the step instead
    // of uploading an empty, green result; the SARIF still says why.
    std::fs::write(
        checkout.path().join("compile_commands.json"),
        r#"[{"file": "src/main.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp"}]"#,
    )
    .unwrap();
    let command = field(check, "run").unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", command])
        .current_dir(checkout.path())
        .env("PATH", &path)
        .env("XDG_CACHE_HOME", checkout.path().join(".cache"))
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "the check step passed on a broken input"
    );
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(checkout.path().join(sarif_file)).unwrap()).unwrap();
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{sarif:#}");
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["descriptor"]["id"],
        "invalid-compile-database"
    );
}

/// The README's Make snippet, run by GNU Make with the built binary on PATH: the macros of the
/// targets in CXXFLAGS, and an unset target variable a failed build, not the implicit spir64's.
#[test]
fn readme_make_snippet_fails_on_an_empty_target_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("```make\n")
        .expect("the README has a make block")
        + "```make\n".len();
    let snippet = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        format!("{snippet}\nall:\n\t@echo $(CXXFLAGS)\n"),
    )
    .unwrap();
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_sycl-analyzer"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let make = |targets: &str| {
        Command::new("make")
            .args(["-s", &format!("SYCL_TARGETS={targets}")])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .expect("GNU Make runs")
    };
    let out = make("intel_gpu_pvc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("-D__SYCL_TARGET_INTEL_GPU_PVC__"),
        "{stdout}"
    );
    let out = make("");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "an empty target list built: {stderr}"
    );
    assert!(stderr.contains("empty-targets"), "{stderr}");
}
