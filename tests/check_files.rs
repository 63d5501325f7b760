//! `check FILE...` through the real binary: the named files are analysed with the project that
//! holds them (its compile_commands.json, the headers they include), and the findings located
//! in them are the ones `check .` gives there, under the same names. `report FILE` and a
//! private `watch PATH` name files and kernels the same way, from wherever they run.

use assert_cmd::Command;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path());
    dir
}

fn write_project(root: &std::path::Path) {
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
}

fn findings(dir: &std::path::Path, args: &[&str]) -> Vec<(String, String)> {
    check_json(dir, args)["diagnostics"]
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

/// `check --format json ARGS` run in `dir`, which finds something.
fn check_json(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
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
    serde_json::from_slice(&out).unwrap()
}

/// Every file a JSON answer names (findings, their chains, kernels) and every message.
fn names_and_messages(json: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for d in json["diagnostics"].as_array().unwrap() {
        out.push(d["file"].as_str().unwrap().to_string());
        out.push(d["message"].as_str().unwrap().to_string());
        for step in d["chain"].as_array().into_iter().flatten() {
            out.push(step["file"].as_str().unwrap().to_string());
        }
    }
    for k in json["kernels"].as_array().unwrap() {
        out.push(k["name"].as_str().unwrap().to_string());
        out.push(k["file"].as_str().unwrap().to_string());
    }
    out
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
    // From below the root, as cargo does: still named relative to the project root.
    assert_eq!(findings(&dir.path().join("src"), &["main.cpp"]), in_main);
}

/// Run from above the project root (`check proj/src/main.cpp`), the files and the kernels
/// their messages name are still named relative to the root: as `check .` names them there,
/// not relative to the current directory. `report` names them the same way.
#[test]
fn a_named_file_from_above_its_project_is_named_from_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let above = dir.path();
    let root = above.join("proj");
    write_project(&root);
    let at_root = check_json(&root, &["src/main.cpp"]);
    let from_above = check_json(above, &["proj/src/main.cpp"]);
    let names = names_and_messages(&at_root);
    assert!(
        names
            .iter()
            .any(|n| n.contains("'lambda at src/main.cpp:4:")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n == "src/helpers.hpp"), "{names:?}");
    assert_eq!(names_and_messages(&from_above), names);
    assert!(!from_above.to_string().contains("proj/"), "{from_above}");
    // And from a directory beside the root, named by a relative path that leaves it.
    std::fs::create_dir(above.join("elsewhere")).unwrap();
    let beside = check_json(&above.join("elsewhere"), &["../proj/src/main.cpp"]);
    assert_eq!(names_and_messages(&beside), names);

    let report = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(above)
        .args([
            "report",
            "--no-cache",
            "--format",
            "json",
            "proj/src/main.cpp",
        ])
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(0), "{report:?}");
    let json: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 1, "{json}");
    assert_eq!(kernels[0]["file"], "src/main.cpp");
    assert!(
        kernels[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("lambda at src/main.cpp:4:"),
        "{json}"
    );
    // The page says which file it is about as it names it.
    let page = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(above)
        .args([
            "report",
            "--no-cache",
            "--format",
            "html",
            "proj/src/main.cpp",
        ])
        .output()
        .unwrap();
    let page = String::from_utf8(page.stdout).unwrap();
    assert!(page.contains("Kernels × targets: src/main.cpp<"), "{page}");
}

/// The first state a private `watch PATH` (a daemon of its own) prints, run in `dir`.
fn watched(dir: &std::path::Path, path: &str) -> String {
    use std::io::BufRead;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sycl-analyzer"))
        .current_dir(dir)
        .args(["watch", path])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut printed = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !printed.contains("watching for changes") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => printed.push_str(&(line + "\n")),
            Err(_) => break,
        }
    }
    // Its daemon ends when its standard input, held by watch, closes.
    let _ = child.kill();
    let _ = child.wait();
    assert!(printed.contains("watching for changes"), "{printed}");
    printed
}

/// A private `watch` names files and kernels alike, relative to the root of the project that
/// holds its path (a directory's project too, found upward as `check FILE` finds it), from
/// wherever it runs: `watch src/` used to name kernels relative to `src/`, its daemon's root,
/// and files relative to the current directory.
#[test]
fn watch_names_files_and_kernels_from_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let above = dir.path();
    let root = above.join("proj");
    write_project(&root);
    for (cwd, path) in [
        (root.clone(), "src/"),
        (root.join("src"), "."),
        (above.to_path_buf(), "proj/src"),
    ] {
        let printed = watched(&cwd, path);
        assert!(
            printed.contains("kernel 'lambda at src/main.cpp:4:"),
            "from {}: {printed}",
            cwd.display()
        );
        assert!(printed.contains("┌─ src/main.cpp:4:"), "{printed}");
        assert!(printed.contains("┌─ src/helpers.hpp:1:"), "{printed}");
        // With the source lines, read from the root whatever the current directory.
        assert!(printed.contains("return x * 0.1;"), "{printed}");
        assert!(!printed.contains("proj/"), "{printed}");
        assert!(!printed.contains("at main.cpp"), "{printed}");
    }
}

/// `report FILE` shows the kernels of the file, analysed with its project; an HTML page
/// written with `--output` links to the sources relative to where it is, so the links work
/// when the page and the sources are moved together (a CI artifact, a shared directory).
#[test]
fn report_of_a_file_and_its_relative_links() {
    let dir = project();
    let report = |args: &[&str]| -> String {
        let out = Command::cargo_bin("sycl-analyzer")
            .unwrap()
            .current_dir(dir.path())
            .args(["report", "--no-cache"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let one = report(&["src/main.cpp", "--format", "json"]);
    let all = report(&["--format", "json"]);
    let files = |json: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["file"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(files(&one), ["src/main.cpp"], "{one}");
    assert_eq!(files(&all), ["src/main.cpp", "src/other.cpp"], "{all}");
    // The main.cpp kernel reaches the header's double: that needs the project's include.
    assert!(one.contains("fp64"), "{one}");

    std::fs::create_dir_all(dir.path().join("out/pages")).unwrap();
    report(&["--format", "html", "-o", "out/pages/report.html"]);
    let page = std::fs::read_to_string(dir.path().join("out/pages/report.html")).unwrap();
    let hrefs: Vec<&str> = page
        .split("href=\"")
        .skip(1)
        .map(|h| &h[..h.find('"').unwrap()])
        .collect();
    assert!(hrefs.len() >= 3, "{page}");
    for href in hrefs {
        assert!(href.starts_with("../../src/"), "{href}");
        let (path, line) = href.split_once("#L").unwrap();
        assert!(line.parse::<u32>().is_ok(), "{href}");
        assert!(dir.path().join("out/pages").join(path).is_file(), "{href}");
    }
}
