//! Fixture tests: real SYCL C++ under tests/fixtures with the expected findings written inline.
//!
//! A fixture is a `.cpp` file, or a directory analysed as one workspace. On the line where a
//! finding must be reported, a comment says what:
//!
//! ```text
//! [[sycl::device_has(aspect::fp64)]] void func1(int a) {  // expect: aspect-mismatch fp16 via func2(int) > func3(int) > Struct1
//! ```
//!
//! `expect: CODE [ASPECT] [via STEP > STEP > USE] [when UNIT,UNIT]`; `via` lists the callees of
//! the chain and ends with the use; `when` the translation units the message says the finding
//! is made in (a header they compile differently). Several `// expect:` may share a line. A line `// fixture-targets: LIST` sets `--targets`; a line
//! `// fixture-flags: FLAGS` gives compile flags as a compile command would (`-O0`,
//! `-fsycl-fp64-conv-emu`; without it, the driver's default: optimised device code); a line
//! `// fixture-compiler: PATH` the compiler the command runs (`clang++` without it), whose path
//! may name a DPC++ release (`.../compiler/2023.2.1/linux/bin/icpx`). Every finding must be
//! expected and every expectation found; a fixture without expectations must stay silent.
//!
//! A fixture directory holding a `compile_commands.json` (its `directory` relative to the
//! crate's root) is checked by `sycl-analyzer check` as a project is: preprocessed with each
//! file's flags, headers as their translation units include them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sycl_analyzer::analysis::{analyze, ImageRule, Settings, SourceFile};
use sycl_analyzer::devices::{driver, parse_target_list, DeviceTable};
use sycl_analyzer::syntax::extract;

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Finding {
    file: String,
    line: u32,
    code: String,
    aspect: Option<String>,
    chain: Option<Vec<String>>,
}

fn fixture_files(path: &Path) -> Vec<PathBuf> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| sycl_analyzer::workspace::is_cpp(p))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    }
}

/// What a fixture's header lines set.
#[derive(Default)]
struct Header {
    targets: Option<String>,
    flags: Option<String>,
    compiler: Option<String>,
}

/// The file names of the translation units a message says it is made in (`(when compiled in
/// 'dir/a.cpp', 'dir/c.cpp')`).
fn units_named(message: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once("(when compiled in ") else {
        return Vec::new();
    };
    let list = rest.split(')').next().unwrap_or_default();
    list.split(", ")
        .map(|u| {
            u.trim_matches('\'')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The expected findings, each with the units it must say it is made in (`when a.cpp,c.cpp`
/// after the aspect or chain: none, it must name none).
fn expectations(name: &str, text: &str) -> (Vec<(Finding, Vec<String>)>, Header) {
    let mut out = Vec::new();
    let mut header = Header::default();
    for (i, line) in text.lines().enumerate() {
        if let Some(t) = line.split("// fixture-targets:").nth(1) {
            header.targets = Some(t.trim().to_string());
        }
        if let Some(t) = line.split("// fixture-flags:").nth(1) {
            header.flags = Some(t.trim().to_string());
        }
        if let Some(t) = line.split("// fixture-compiler:").nth(1) {
            header.compiler = Some(t.trim().to_string());
        }
        for spec in line.split("// expect:").skip(1) {
            let (spec, when) = match spec.split_once(" when ") {
                Some((s, w)) => (s, w.trim().split(',').map(String::from).collect()),
                None => (spec, Vec::new()),
            };
            let (head, via) = match spec.split_once(" via ") {
                Some((h, v)) => (
                    h,
                    Some(v.split(" > ").map(|s| s.trim().to_string()).collect()),
                ),
                None => (spec, None),
            };
            let mut words = head.split_whitespace();
            let finding = Finding {
                file: name.to_string(),
                line: i as u32 + 1,
                code: words.next().expect("a code after 'expect:'").to_string(),
                aspect: words.next().map(String::from),
                chain: via,
            };
            out.push((finding, when));
        }
    }
    (out, header)
}

/// What `sycl-analyzer check DIR` reports: each finding with its chain's functions and uses,
/// and its message.
fn checked_project(dir: &Path) -> Vec<(Finding, Vec<String>, String)> {
    let out = assert_cmd::Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "check",
            dir.to_str().unwrap(),
            "--format",
            "json",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = |v: &serde_json::Value| v.as_str().map(String::from);
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = text(&d["file"]).unwrap_or_default();
            let chain = d["chain"].as_array().map_or(Vec::new(), |c| {
                c.iter()
                    .map(|s| text(&s["function"]).or(text(&s["use"])).unwrap_or_default())
                    .collect()
            });
            let finding = Finding {
                file: file.rsplit('/').next().unwrap_or_default().to_string(),
                line: d["line"].as_u64().unwrap_or(0) as u32,
                code: text(&d["code"]).unwrap_or_default(),
                aspect: text(&d["aspect"]),
                chain: None,
            };
            (finding, chain, text(&d["message"]).unwrap_or_default())
        })
        .collect()
}

/// What the library reports on a fixture's files, each extracted alone.
fn analysed_alone(
    files: &[PathBuf],
    targets: Option<String>,
    flags: Option<String>,
    compiler: Option<String>,
    path: &Path,
) -> Vec<(Finding, Vec<String>, String)> {
    let mut sources = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        sources.push(SourceFile {
            path: Arc::from(name.as_str()),
            facts: Arc::new(extract(&text)),
        });
    }
    let table = DeviceTable::builtin();
    let list = targets.map(|t| parse_target_list(&t, table));
    if let Some(l) = &list {
        assert!(
            l.invalid.is_empty(),
            "{}: invalid fixture-targets",
            path.display()
        );
    }
    let mut command = vec![
        compiler.unwrap_or_else(|| "clang++".to_string()),
        "-fsycl".to_string(),
    ];
    command.extend(flags.iter().flat_map(|f| driver::split_command(f)));
    let compile = driver::parse(&command, Path::new("."), table);
    let report = analyze(
        &sources,
        &Settings {
            table,
            targets: list.as_ref().map(|l| l.targets.as_slice()),
            image: ImageRule {
                optimised: compile.device_optimised,
                fp64_conv_emu: compile.fp64_conv_emu,
                typed_pointers: compile.release.is_some_and(|r| r.typed_pointers()),
            },
            units_elsewhere: false,
            implementation: Default::default(),
            names_from: None,
        },
    );
    report
        .diagnostics
        .iter()
        .map(|d| {
            let chain: Vec<String> = d
                .chain
                .iter()
                .map(|s| {
                    s.function
                        .clone()
                        .or_else(|| s.use_.clone())
                        .unwrap_or_default()
                })
                .collect();
            let finding = Finding {
                file: d.file.to_string(),
                line: d.pos.line,
                code: d.code.as_str().to_string(),
                aspect: d.aspect.clone(),
                chain: None,
            };
            (finding, chain, d.message.clone())
        })
        .collect()
}

fn run_fixture(path: &Path) -> Result<(), String> {
    let files = fixture_files(path);
    let mut expected = Vec::new();
    let mut targets = None;
    let mut flags = None;
    let mut compiler = None;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let (e, h) = expectations(&name, &text);
        expected.extend(e);
        targets = targets.or(h.targets);
        flags = flags.or(h.flags);
        compiler = compiler.or(h.compiler);
    }
    let actual = if path.join("compile_commands.json").is_file() {
        checked_project(path)
    } else {
        analysed_alone(&files, targets, flags, compiler, path)
    };
    let mut problems = Vec::new();
    let mut unmatched: Vec<&(Finding, Vec<String>, String)> = actual.iter().collect();
    for (e, when) in &expected {
        let pos = unmatched.iter().position(|(a, _, _)| {
            a.file == e.file
                && a.line == e.line
                && a.code == e.code
                && (e.aspect.is_none() || a.aspect == e.aspect)
        });
        match pos {
            Some(i) => {
                let (_, chain, message) = unmatched.remove(i);
                if units_named(message) != *when {
                    problems.push(format!(
                        "{}:{}: {} made when compiled in {:?}, expected {:?}: {message}",
                        e.file,
                        e.line,
                        e.code,
                        units_named(message),
                        when
                    ));
                }
                if let Some(want) = &e.chain {
                    if want != chain {
                        problems.push(format!(
                            "{}:{}: {} chain is {:?}, expected {:?}",
                            e.file, e.line, e.code, chain, want
                        ));
                    }
                }
            }
            None => problems.push(format!(
                "{}:{}: expected {} {} was not reported",
                e.file,
                e.line,
                e.code,
                e.aspect.as_deref().unwrap_or("")
            )),
        }
    }
    for (a, chain, message) in unmatched {
        problems.push(format!(
            "{}:{}: unexpected {} {}: {} (chain {:?})",
            a.file,
            a.line,
            a.code,
            a.aspect.as_deref().unwrap_or(""),
            message,
            chain
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n  {}", path.display(), problems.join("\n  ")))
    }
}

#[test]
fn every_fixture_reports_exactly_what_it_expects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    assert!(entries.len() >= 20, "only {} fixtures", entries.len());
    let failures: Vec<String> = entries
        .iter()
        .filter_map(|p| run_fixture(p).err())
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
