//! Interface-changing edits relink the call graph instead of rebuilding it: only the nodes whose
//! bodies may bind differently are typed again, and the findings are those of a fresh analysis.

use std::path::Path;
use std::sync::Arc;

use sycl_analyzer::analysis::{analyze, Engine, Report, Settings, SourceFile, Update};
use sycl_analyzer::devices::DeviceTable;
use sycl_analyzer::syntax;

fn file(path: &Path, text: &str) -> SourceFile {
    SourceFile {
        path: Arc::from(path.display().to_string()),
        facts: Arc::new(syntax::extract(text)),
    }
}

fn fp64(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.aspect.as_deref() == Some("fp64"))
        .map(|d| d.function.clone().unwrap_or_default())
        .collect()
}

/// A function added to a file of the synthetic workspace is an interface change: the update
/// relinks, re-reads a few nodes out of thousands, and equals a fresh analysis.
#[test]
fn a_new_function_relinks_a_few_nodes() {
    let dir = tempfile::tempdir().unwrap();
    sycl_analyzer::bench::synth::generate(dir.path(), 20_000, 3).unwrap();
    let paths = sycl_analyzer::workspace::discover(&[dir.path().to_path_buf()]).unwrap();
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut files: Vec<SourceFile> = paths.iter().zip(&texts).map(|(p, t)| file(p, t)).collect();
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let mut analysis = Engine::new(files.clone());
    let total = analysis.report(&settings).stats.functions;
    let i = paths
        .iter()
        .position(|p| p.extension().is_some_and(|e| e == "cpp"))
        .unwrap();
    let text = format!("void added_here(double *p) {{ p[0] = 1.0; }}\n{}", texts[i]);
    files[i] = file(&paths[i], &text);
    match analysis.update(files.clone()) {
        Update::Relinked { files: 1, nodes } => assert!(
            nodes * 20 < total,
            "{nodes} of {total} functions collected again"
        ),
        other => panic!("expected a relink, got {other:?}"),
    }
    let got = analysis.report(&settings);
    let want = analyze(&files, &settings);
    assert_eq!(got.diagnostics, want.diagnostics);
    assert_eq!(got.summaries, want.summaries);
}

/// One update can hold a body-only change of a header and an interface change elsewhere: a
/// kernel whose typing read the header's `auto` function must be typed again though its own
/// file and every file it sees kept their interfaces.
#[test]
fn a_relink_retypes_what_read_a_changed_body() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("util.hpp");
    let kernel = dir.path().join("k.cpp");
    let other = dir.path().join("other.cpp");
    let util =
        |widen: &str| format!("#pragma once\ninline auto widen(float x) {{ return {widen}; }}\n");
    let k = "#include \"util.hpp\"\n\
             void run(sycl::queue &q, float *f) {\n\
               q.single_task([=]() [[sycl::device_has()]] {\n\
                 auto w = widen(f[0]);\n\
                 f[1] = w * w;\n\
               });\n\
             }\n";
    let mut files = vec![
        file(&other, "void one() {}\n"),
        file(&header, &util("x")),
        file(&kernel, k),
    ];
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let mut analysis = Engine::new(files.clone());
    assert!(fp64(&analysis.report(&settings)).is_empty());
    files[0] = file(&other, "void one() {}\nvoid two() {}\n");
    files[1] = file(&header, &util("(double)x"));
    assert!(matches!(
        analysis.update(files.clone()),
        Update::Relinked { files: 2, .. }
    ));
    let got = analysis.report(&settings);
    assert_eq!(got.diagnostics, analyze(&files, &settings).diagnostics);
    assert_eq!(fp64(&got).len(), 1, "{:?}", got.diagnostics);
}

/// A definition added in another translation unit joins the declaration a kernel calls: the
/// kernel (in a file that does not see the definition) must now reach its `double`.
#[test]
fn a_definition_added_elsewhere_joins_the_declaration_called() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("fill.hpp");
    let kernel = dir.path().join("k.cpp");
    let def = dir.path().join("fill.cpp");
    let k = "#include \"fill.hpp\"\n\
             void run(sycl::queue &q, double *d) {\n\
               q.single_task([=]() [[sycl::device_has()]] { fill(d); });\n\
             }\n";
    let mut files = vec![
        file(&def, "#include \"fill.hpp\"\nvoid unrelated() {}\n"),
        file(
            &header,
            "#pragma once\nSYCL_EXTERNAL void fill(double *p);\n",
        ),
        file(&kernel, k),
    ];
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let mut analysis = Engine::new(files.clone());
    assert!(fp64(&analysis.report(&settings)).is_empty());
    for (step, text) in [
        "#include \"fill.hpp\"\nvoid unrelated() {}\nvoid fill(double *p) { p[0] = 2.0; }\n",
        "#include \"fill.hpp\"\nvoid fill(float *p) { p[0] = 2.0f; }\n",
        "#include \"fill.hpp\"\nvoid fill(double *p) { p[0] = 2.0; }\n",
    ]
    .into_iter()
    .enumerate()
    {
        files[0] = file(&def, text);
        assert!(
            matches!(analysis.update(files.clone()), Update::Relinked { .. }),
            "step {step}"
        );
        let got = analysis.report(&settings);
        assert_eq!(
            got.diagnostics,
            analyze(&files, &settings).diagnostics,
            "step {step}"
        );
        let want = usize::from(text.contains("double"));
        assert_eq!(fp64(&got).len(), want, "step {step}: {:?}", got.diagnostics);
    }
}

/// A line added above a tagged alias moves the alias's spans, not what it means: the edit still
/// relinks (it rebuilt the whole analysis when any alias of the workspace carried aspects), and
/// the finding through the alias stays.
#[test]
fn a_line_above_a_tagged_alias_relinks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cpp");
    let body = "using half_t [[__sycl_detail__::__uses_aspects__(sycl::aspect::fp16)]] = short;\n\
                void run(sycl::queue &q, half_t *h) {\n\
                  q.single_task([=]() [[sycl::device_has()]] { half_t x = h[0]; h[1] = x; });\n\
                }\n";
    let mut files = vec![file(&path, body)];
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let mut analysis = Engine::new(files.clone());
    let fp16 = |r: &Report| {
        r.diagnostics
            .iter()
            .filter(|d| d.aspect.as_deref() == Some("fp16"))
            .count()
    };
    assert_eq!(fp16(&analysis.report(&settings)), 1);
    files[0] = file(&path, &format!("void added(int);\n{body}"));
    let how = analysis.update(files.clone());
    assert!(matches!(how, Update::Relinked { .. }), "{how:?}");
    let got = analysis.report(&settings);
    assert_eq!(got.diagnostics, analyze(&files, &settings).diagnostics);
    assert_eq!(fp16(&got), 1, "{:?}", got.diagnostics);
}
