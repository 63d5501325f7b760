//! The incremental analysis must answer exactly what a full analysis of the same files answers.
//! Random edits (body-only and interface-changing) are applied one after another to a workspace
//! made of the fixtures, the bundled example and a synthetic project; after each, the updated
//! analysis is compared with one built from scratch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sycl_analyzer::analysis::{analyze, Engine, Settings, SourceFile, Update};
use sycl_analyzer::bench::synth::{self, Rng};
use sycl_analyzer::devices::{parse_target_list, DeviceTable};
use sycl_analyzer::syntax;

fn workspace() -> (tempfile::TempDir, Vec<(PathBuf, String)>) {
    let dir = tempfile::tempdir().unwrap();
    synth::generate(dir.path(), 3000, 7).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths = sycl_analyzer::workspace::discover(&[
        dir.path().to_path_buf(),
        root.join("tests/fixtures"),
        root.join("examples/vector-math"),
    ])
    .unwrap();
    let files = paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    (dir, files)
}

/// One random line edit; about half of them keep the file's interface.
fn edit(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    if lines.is_empty() {
        return "void f() { double d = 1.0; }".into();
    }
    let l = rng.below(lines.len() as u64) as usize;
    match rng.below(8) {
        0 => lines[l].push(' '),
        1 => {
            lines.remove(l);
        }
        2 => lines.insert(l, lines[l].clone()),
        3 => lines.insert(l, "double d_ins = 2.0;".into()),
        4 => lines[l] = lines[l].replace("float", "double"),
        5 => lines[l] = lines[l].replace("double", "float"),
        6 => {
            // Call a name that appears in the file, from wherever the line is.
            let words: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| w.len() > 3 && !w.starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            let w = words[rng.below(words.len() as u64) as usize];
            lines.insert(l, format!("{w}(1);"));
        }
        _ => lines[l].insert_str(0, "  "),
    }
    lines.join("\n")
}

#[test]
fn incremental_updates_equal_full_analysis() {
    let (_dir, mut texts) = workspace();
    let table = DeviceTable::builtin();
    // The checks' settings change now and then too: the cached findings must follow.
    let aot = parse_target_list("intel_gpu_dg1,nvidia_gpu_sm_80", table).targets;
    let plain = parse_target_list("spir64,intel_gpu_pvc", table).targets;
    let mut files: Vec<SourceFile> = texts
        .iter()
        .map(|(p, t)| SourceFile {
            path: Arc::from(p.display().to_string()),
            facts: Arc::new(syntax::extract(t)),
        })
        .collect();
    let mut analysis = Engine::new(files.clone());
    let mut rng = Rng::new(11);
    let (mut bodies, mut derived, mut relinked, mut full) = (0, 0, 0, 0);
    let mut counts = std::collections::BTreeSet::new();
    for step in 0..500 {
        let i = rng.below(files.len() as u64) as usize;
        texts[i].1 = edit(&texts[i].1, &mut rng);
        files[i].facts = Arc::new(syntax::extract(&texts[i].1));
        let settings = Settings {
            table,
            targets: match step / 50 % 3 {
                0 => Some(&aot),
                1 => Some(&plain),
                _ => None,
            },
            image: Default::default(),
            units_elsewhere: false,
            implementation: Default::default(),
            names_from: None,
        };
        match analysis.update(files.clone()) {
            Update::Bodies { derived: false, .. } => bodies += 1,
            Update::Bodies { derived: true, .. } => derived += 1,
            Update::Relinked { .. } => relinked += 1,
            Update::Full => full += 1,
            Update::Unchanged => panic!("step {step}: a changed file was not seen"),
        }
        let got = analysis.report(&settings);
        let want = analyze(&files, &settings);
        if got.diagnostics != want.diagnostics {
            let line = |d: &sycl_analyzer::diagnostics::Diagnostic| {
                format!(
                    "{}:{}: {} {}",
                    d.file,
                    d.pos.line,
                    d.code.as_str(),
                    d.message
                )
            };
            let only = |a: &[sycl_analyzer::diagnostics::Diagnostic],
                        b: &[sycl_analyzer::diagnostics::Diagnostic]| {
                a.iter()
                    .filter(|d| !b.contains(d))
                    .map(line)
                    .collect::<Vec<_>>()
                    .join("\n  ")
            };
            panic!(
                "step {step}: diagnostics after editing {}\nonly incremental:\n  {}\nonly full:\n  {}",
                texts[i].0.display(),
                only(&got.diagnostics, &want.diagnostics),
                only(&want.diagnostics, &got.diagnostics)
            );
        }
        assert_eq!(got.summaries, want.summaries, "step {step}: summaries");
        assert_eq!(got.stats, want.stats, "step {step}: stats");
        counts.insert(want.diagnostics.len());
    }
    eprintln!("bodies {bodies}, derived {derived}, relinked {relinked}, full {full}");
    // Every path must have been exercised for the comparison to mean anything.
    assert!(
        bodies > 50 && derived > 20 && relinked > 20 && full > 5,
        "bodies {bodies}, derived {derived}, relinked {relinked}, full {full}"
    );
    assert!(
        counts.len() > 5,
        "the edits changed the findings: {counts:?}"
    );
    assert_eq!(analysis.update(files.clone()), Update::Unchanged);
}

/// Body-only edits of a header change what other files' code computes: a template's instances
/// and the callers of an `auto` function are typed from the edited bodies, so they must be
/// typed again though their own files did not change.
#[test]
fn body_edits_retype_instances_and_auto_callers_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("util.hpp");
    let kernel = dir.path().join("k.cpp");
    let util = |touch: &str, widen: &str| {
        format!(
            "#pragma once\n#include <sycl/sycl.hpp>\n\
             template <class T> void touch(T *p) {{ {touch} }}\n\
             inline auto widen(float x) {{ return {widen}; }}\n"
        )
    };
    std::fs::write(&header, util("T *q = p; (void)q;", "x")).unwrap();
    std::fs::write(
        &kernel,
        "#include \"util.hpp\"\n\
         void run(sycl::queue &q, double *d, float *f) {\n\
           q.single_task([=]() [[sycl::device_has()]] { touch(d); });\n\
           q.single_task([=]() [[sycl::device_has()]] {\n\
             auto w = widen(f[0]);\n\
             f[1] = w * w;\n\
           });\n\
         }\n",
    )
    .unwrap();
    let load = |p: &Path| SourceFile {
        path: Arc::from(p.display().to_string()),
        facts: Arc::new(syntax::extract(&std::fs::read_to_string(p).unwrap())),
    };
    let mut files = vec![load(&header), load(&kernel)];
    let table = DeviceTable::builtin();
    let settings = Settings {
        table,
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let mut analysis = Engine::new(files.clone());
    assert!(analysis.report(&settings).diagnostics.is_empty());
    let fp64 = |r: &sycl_analyzer::analysis::Report| {
        r.diagnostics
            .iter()
            .filter(|d| d.aspect.as_deref() == Some("fp64"))
            .count()
    };
    for (step, (touch, widen)) in [
        ("p[0] = 0;", "x"),
        ("p[0] = 0;", "(double)x"),
        ("T *q = p; (void)q;", "(double)x"),
        ("T *q = p; (void)q;", "x"),
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::write(&header, util(touch, widen)).unwrap();
        let before = files[1].facts.clone();
        files[0] = load(&header);
        assert!(
            matches!(analysis.update(files.clone()), Update::Bodies { .. }),
            "step {step}: the header's interface is unchanged"
        );
        assert!(Arc::ptr_eq(&before, &files[1].facts));
        let got = analysis.report(&settings);
        let want = analyze(&files, &settings);
        assert_eq!(got.diagnostics, want.diagnostics, "step {step}");
        // The kernels warn exactly while the header makes them compute with doubles.
        let expect = usize::from(touch.contains("p[0]")) + usize::from(widen.contains("double"));
        assert_eq!(fp64(&got), expect, "step {step}: {:?}", got.diagnostics);
    }
}

/// Extracts every file as `targets`' device compiles see them.
fn extract_for(texts: &[(PathBuf, String)], targets: &str) -> Vec<SourceFile> {
    let table = DeviceTable::builtin();
    let targets = parse_target_list(targets, table).targets;
    let env = sycl_analyzer::project::compile_env(Some(&targets), table, &Default::default());
    let paths: Vec<Arc<str>> = texts
        .iter()
        .map(|(p, _)| Arc::from(p.display().to_string()))
        .collect();
    let sources = sycl_analyzer::workspace::Sources::new(
        &env,
        paths.clone(),
        texts
            .iter()
            .map(|(_, t)| Some(Arc::from(t.as_str())))
            .collect(),
        None,
    );
    (0..texts.len())
        .map(|i| SourceFile {
            path: paths[i].clone(),
            facts: Arc::new(sources.extract(i, None).unwrap_or_default()),
        })
        .collect()
}

/// (file, line, code, aspect, target) of every finding, the targets it holds for spelled out.
fn per_target(
    report: &sycl_analyzer::analysis::Report,
    all: &[&str],
) -> std::collections::BTreeSet<(String, u32, String, String, String)> {
    let mut out = std::collections::BTreeSet::new();
    for d in &report.diagnostics {
        let targets: Vec<String> = if d.targets.is_empty() {
            all.iter().map(|t| t.to_string()).collect()
        } else {
            d.targets.clone()
        };
        for t in targets {
            out.insert((
                d.file.to_string(),
                d.pos.line,
                format!("{:?}", d.code),
                d.aspect.clone().unwrap_or_default(),
                t,
            ));
        }
    }
    out
}

/// One device compile per target: the findings for several targets at once, each naming the
/// targets it holds for, are those of each target analysed alone. Random edits put code under
/// per-target conditionals (and take it out); the incremental analysis follows.
#[test]
fn findings_for_several_targets_are_those_of_each_target_alone() {
    let dir = tempfile::tempdir().unwrap();
    synth::generate(dir.path(), 1500, 3).unwrap();
    let paths = sycl_analyzer::workspace::discover(&[dir.path().to_path_buf()]).unwrap();
    let mut texts: Vec<(PathBuf, String)> = paths
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect();
    let all = ["intel_gpu_pvc", "intel_gpu_dg1", "nvidia_gpu_sm_80"];
    let list = all.join(",");
    let table = DeviceTable::builtin();
    let targets = parse_target_list(&list, table).targets;
    let guards = [
        "__NVPTX__",
        "__SYCL_TARGET_INTEL_GPU_DG1__",
        "__SYCL_TARGET_INTEL_GPU_PVC__",
        "__SPIR__",
    ];
    let mut rng = Rng::new(5);
    let mut analysis = Engine::new(extract_for(&texts, &list));
    let mut varied = 0;
    for step in 0..24 {
        let i = rng.below(texts.len() as u64) as usize;
        let mut lines: Vec<String> = texts[i].1.lines().map(String::from).collect();
        let l = rng.below(lines.len() as u64) as usize;
        match rng.below(3) {
            // Under a per-target conditional: that line (a double in it, often) is compiled for
            // some targets only; the `#else` branch for the others.
            0 | 1 => {
                let g = guards[rng.below(guards.len() as u64) as usize];
                let line = lines[l].replace("float", "double");
                lines[l] = format!("#ifdef {g}\n{line}\n#else\n{}\n#endif", lines[l]);
            }
            _ => lines[l] = lines[l].replace("float", "double"),
        }
        texts[i].1 = lines.join("\n");
        let files = extract_for(&texts, &list);
        varied = varied.max(
            files
                .iter()
                .filter(|f| !f.facts.preprocessor.variants.is_empty())
                .count(),
        );
        let settings = Settings {
            table,
            targets: Some(&targets),
            image: Default::default(),
            units_elsewhere: false,
            implementation: Default::default(),
            names_from: None,
        };
        analysis.update(files.clone());
        let got = analysis.report(&settings);
        let want = analyze(&files, &settings);
        assert_eq!(
            got.diagnostics, want.diagnostics,
            "step {step}: incremental"
        );
        let mut alone = std::collections::BTreeSet::new();
        for t in all {
            let one = parse_target_list(t, table).targets;
            let r = analyze(
                &extract_for(&texts, t),
                &Settings {
                    table,
                    targets: Some(&one),
                    image: Default::default(),
                    units_elsewhere: false,
                    implementation: Default::default(),
                    names_from: None,
                },
            );
            alone.extend(per_target(&r, &[t]));
        }
        assert_eq!(per_target(&want, &all), alone, "step {step}");
    }
    assert!(varied > 3, "the edits made per-target variants: {varied}");
}

/// A header the translation units compile with different macros (`-D` flags, a `#define` before
/// the include): the findings of the whole are those of each unit analysed alone with the
/// header, and the incremental analysis follows random changes of each unit's macros.
#[test]
fn each_translation_unit_sees_its_own_meaning_of_a_header() {
    use sycl_analyzer::workspace::{CompileEnv, FileFlags, Sources};
    let header = "#pragma once\n#include <sycl/sycl.hpp>\n#ifdef M1\ntypedef double r1;\n#else\ntypedef float r1;\n#endif\n#if defined(M2) && !defined(M3)\n#define R2 double\n#else\n#define R2 float\n#endif\ntemplate <typename T> void k1(sycl::queue& q, T* p) { q.single_task([=] { r1 x = p[0]; p[0] = x; }); }\ntemplate <typename T> void k2(sycl::queue& q, T* p) { q.single_task([=] { R2 x = p[0]; p[0] = x; }); }\ninline r1 twice(r1 x) { return x * 2; }\n";
    // A second header, which some units include: a change of that keeps the unit groups but
    // not which units compile which file.
    let extra = "#pragma once\n#include <sycl/sycl.hpp>\ninline void extra(sycl::queue& q, float* p) { q.single_task([=] { p[0] = p[0] * 0.5; }); }\n";
    let unit = |k: usize, defines: &str, more: bool| {
        let more = if more { "#include \"extra.hpp\"\n" } else { "" };
        format!("{defines}#include \"common.hpp\"\n{more}void run{k}(sycl::queue& q, float* p) {{\n  k1(q, p);\n  k2(q, p);\n  q.single_task([=]() [[sycl::device_has()]] {{ p[0] = twice(p[0]); }});\n}}\n")
    };
    let table = DeviceTable::builtin();
    let targets = parse_target_list("intel_gpu_dg1", table).targets;
    let settings = Settings {
        table,
        targets: Some(&targets),
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    // Per unit: its `#define`d macros and its `-D` ones.
    type Units = Vec<(Vec<&'static str>, Vec<&'static str>)>;
    let extract = |units: &Units, more: &[bool], only: Option<usize>| -> Vec<SourceFile> {
        let mut texts = vec![
            ("w/common.hpp".to_string(), header.to_string()),
            ("w/extra.hpp".to_string(), extra.to_string()),
        ];
        let mut flags = Vec::new();
        for (k, (defined, flagged)) in units.iter().enumerate() {
            if only.is_some_and(|o| o != k) {
                continue;
            }
            let defines: String = defined.iter().map(|m| format!("#define {m}\n")).collect();
            let path = format!("w/u{k}.cpp");
            let macros = flagged.iter().map(|m| (m.to_string(), Some("1".into())));
            flags.push((
                PathBuf::from(&path),
                FileFlags {
                    macros: macros.collect(),
                    ..FileFlags::default()
                },
            ));
            texts.push((path, unit(k, &defines, more[k])));
        }
        let env = CompileEnv::for_targets(Some(&targets), table, flags);
        let paths: Vec<Arc<str>> = texts.iter().map(|t| Arc::from(t.0.as_str())).collect();
        let sources = Sources::new(
            &env,
            paths.clone(),
            texts
                .iter()
                .map(|t| Some(Arc::from(t.1.as_str())))
                .collect(),
            None,
        );
        (0..texts.len())
            .map(|i| SourceFile {
                path: paths[i].clone(),
                facts: Arc::new(sources.extract(i, None).unwrap()),
            })
            .collect()
    };
    let found =
        |r: &sycl_analyzer::analysis::Report| -> std::collections::BTreeSet<(String, u32, String)> {
            r.diagnostics
                .iter()
                .map(|d| (d.file.to_string(), d.pos.line, format!("{:?}", d.code)))
                .collect()
        };
    let macros = ["M1", "M2", "M3"];
    let mut rng = Rng::new(11);
    let mut units: Units = vec![(Vec::new(), Vec::new()); 4];
    let mut more = vec![false; units.len()];
    let mut analysis = Engine::new(extract(&units, &more, None));
    // A unit with its own meaning of the header (another unit group), then one without,
    // starts including another header: which units compile which file must follow, though the
    // groups stay.
    units[0].0.push("M1");
    for k in [0, 1] {
        let files = extract(&units, &more, None);
        analysis.update(files.clone());
        let before = analysis.report(&settings);
        assert_eq!(before.diagnostics, analyze(&files, &settings).diagnostics);
        more[k] = true;
        let files = extract(&units, &more, None);
        analysis.update(files.clone());
        let got = analysis.report(&settings);
        assert_eq!(
            got.diagnostics,
            analyze(&files, &settings).diagnostics,
            "u{k}"
        );
        assert!(
            got.diagnostics.iter().any(|d| &*d.file == "w/extra.hpp"),
            "u{k}: {:#?}",
            got.diagnostics
        );
        more[k] = false;
    }
    units[0].0.clear();
    analysis.update(extract(&units, &more, None));
    let mut varied = 0;
    for step in 0..30 {
        if step % 3 == 2 {
            let k = rng.below(units.len() as u64) as usize;
            more[k] = !more[k];
            let files = extract(&units, &more, None);
            analysis.update(files.clone());
            let got = analysis.report(&settings);
            let want = analyze(&files, &settings);
            assert_eq!(
                got.diagnostics, want.diagnostics,
                "step {step}: an include changed"
            );
            continue;
        }
        let k = rng.below(units.len() as u64) as usize;
        let m = macros[rng.below(macros.len() as u64) as usize];
        let list = match rng.below(2) {
            0 => &mut units[k].0,
            _ => &mut units[k].1,
        };
        match list.iter().position(|x| *x == m) {
            Some(at) => {
                list.remove(at);
            }
            None => list.push(m),
        }
        let files = extract(&units, &more, None);
        varied = varied.max(files[0].facts.preprocessor.variants.len());
        analysis.update(files.clone());
        let got = analysis.report(&settings);
        let want = analyze(&files, &settings);
        assert_eq!(
            got.diagnostics, want.diagnostics,
            "step {step}: incremental"
        );
        let mut alone = std::collections::BTreeSet::new();
        for k in 0..units.len() {
            alone.extend(found(&analyze(&extract(&units, &more, Some(k)), &settings)));
        }
        assert_eq!(found(&want), alone, "step {step}: {units:?}");
    }
    assert!(
        varied >= 2,
        "the header had several meanings at once: {varied}"
    );
}
