//! `check` analyses a workspace in independent parts (`analysis::parts`), from outlines and
//! facts decoded a part at a time: its report must be the one of the whole workspace at once.

use std::path::Path;
use std::sync::Arc;

use sycl_analyzer::analysis::{analyze, analyze_parts, parts, Report, Settings, SourceFile};
use sycl_analyzer::devices::{self, DeviceTable};
use sycl_analyzer::syntax::{self, PackedFacts};

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: Arc::from(path),
        facts: Arc::new(syntax::extract(text)),
    }
}

/// The report of `files` by parts, as `check` makes it: outlines, and facts packed.
fn by_parts(files: &[SourceFile], settings: &Settings) -> Report {
    let packed: Vec<PackedFacts> = files.iter().map(|f| PackedFacts::pack(&f.facts)).collect();
    let outlines: Vec<SourceFile> = files
        .iter()
        .map(|f| SourceFile {
            path: f.path.clone(),
            facts: Arc::new(f.facts.outline()),
        })
        .collect();
    analyze_parts(&outlines, |i| Arc::new(packed[i].unpack()), settings)
}

fn assert_same(whole: &Report, parted: &Report) {
    assert_eq!(whole.stats, parted.stats);
    assert_eq!(whole.diagnostics, parted.diagnostics);
    assert_eq!(whole.summaries, parted.summaries);
}

fn each_settings(table: &DeviceTable, check: impl Fn(&Settings)) {
    check(&Settings {
        table,
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    });
    let targets = devices::parse_target_list("intel_gpu_dg1,nvidia_gpu_sm_80", table).targets;
    check(&Settings {
        table,
        targets: Some(&targets),
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    });
}

/// Programs side by side, as in a repository of samples: each its own copy of a helper header
/// that declares a function defined nowhere; a library declared in one place and defined in
/// another; an include that names two equally near headers.
fn samples() -> Vec<SourceFile> {
    let helper = "#pragma once\nvoid log_value(double v);\ntemplate <typename T> T twice(T x) { return x + x; }\n";
    let kernel = |name: &str, ty: &str| {
        format!(
            "#include \"util.h\"\n#include <sycl/sycl.hpp>\n\
             [[sycl::device_has()]] void work_{name}({ty} *p) {{ p[0] = twice(p[0]); }}\n\
             void run_{name}(sycl::queue &q, {ty} *p) {{ q.single_task([=] {{ work_{name}(p); }}); }}\n"
        )
    };
    vec![
        file("samples/a/main.cpp", &kernel("a", "double")),
        file("samples/a/util.h", helper),
        file("samples/b/main.cpp", &kernel("b", "float")),
        file("samples/b/util.h", helper),
        file("lib/api.h", "SYCL_EXTERNAL void scale(double *p);\n"),
        file(
            "lib/impl/impl.cpp",
            "SYCL_EXTERNAL void scale(double *p) { p[0] *= 2.0; }\n",
        ),
        file(
            "user/main.cpp",
            "#include \"../lib/api.h\"\n#include <sycl/sycl.hpp>\n\
             void go(sycl::queue &q, double *p) { q.single_task([=] { scale(p); }); }\n",
        ),
        file(
            "amb/p/main.cpp",
            "#include \"common.h\"\nvoid k(sycl::queue &q, float *p) { q.single_task([=] { p[0] = helper(p[0]); }); }\n",
        ),
        file("amb/x/common.h", "inline double helper(double v) { return v; }\n"),
        file("amb/y/common.h", "inline double helper(double v) { return v * 2; }\n"),
    ]
}

#[test]
fn programs_with_copies_of_a_header_are_separate_parts() {
    let files = samples();
    let parts = parts(&files);
    let part_of = |path: &str| {
        let i = files.iter().position(|f| &*f.path == path).unwrap();
        parts.iter().position(|p| p.contains(&i)).unwrap()
    };
    assert_eq!(part_of("samples/a/main.cpp"), part_of("samples/a/util.h"));
    assert_ne!(
        part_of("samples/a/main.cpp"),
        part_of("samples/b/main.cpp"),
        "a declaration defined nowhere does not link two programs: {parts:?}"
    );
    assert_eq!(
        part_of("user/main.cpp"),
        part_of("lib/impl/impl.cpp"),
        "the one definition of a declared function links its users to it"
    );
    assert_ne!(
        part_of("amb/p/main.cpp"),
        part_of("amb/x/common.h"),
        "an include found in two equally near places is neither"
    );
    assert_ne!(part_of("amb/x/common.h"), part_of("amb/y/common.h"));
}

#[test]
fn the_report_by_parts_is_the_whole_report() {
    let table = DeviceTable::builtin();
    let files = samples();
    each_settings(table, |settings| {
        let whole = analyze(&files, settings);
        assert!(
            whole
                .diagnostics
                .iter()
                .any(|d| d.aspect.as_deref() == Some("fp64")),
            "the samples have findings to compare: {:?}",
            whole.diagnostics
        );
        assert_same(&whole, &by_parts(&files, settings));
    });
}

/// Every fixture of the test suite as one workspace, and a synthetic one: the same report.
#[test]
fn fixtures_and_a_synthetic_workspace_by_parts() {
    let table = DeviceTable::builtin();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dir = tempfile::tempdir().unwrap();
    sycl_analyzer::bench::synth::generate(dir.path(), 20_000, 3).unwrap();
    for ws in [root.as_path(), dir.path()] {
        let paths = sycl_analyzer::workspace::discover(&[ws.to_path_buf()]).unwrap();
        let env = sycl_analyzer::project::compile_env(None, table, &Default::default());
        let loaded = sycl_analyzer::workspace::load(&paths, &env, || {});
        assert!(loaded.files.len() > 10, "{}", ws.display());
        each_settings(table, |settings| {
            let whole = analyze(&loaded.files, settings);
            assert_same(&whole, &by_parts(&loaded.files, settings));
        });
    }
}

/// Two programs, each with device code only one target's compile sees (one function for one,
/// two for the other): the whole counts its largest compile's functions, and so must the
/// parts, which are analysed apart.
#[test]
fn functions_by_parts_are_counted_per_compile() {
    let table = DeviceTable::builtin();
    let targets = devices::parse_target_list("intel_gpu_dg1,nvidia_gpu_sm_80", table).targets;
    let dir = tempfile::tempdir().unwrap();
    let program = |name: &str, guard: &str, extra: usize| {
        let extras: String = (0..extra)
            .map(|i| format!("void only_{name}_{i}(float *p) {{ p[{i}] = 1.0f; }}\n"))
            .collect();
        let calls: String = (0..extra)
            .map(|i| format!("only_{name}_{i}(p); "))
            .collect();
        format!(
            "#include <sycl/sycl.hpp>\n#if defined({guard})\n{extras}\
             #define EXTRA(p) {calls}\n#else\n#define EXTRA(p)\n#endif\n\
             void run_{name}(sycl::queue &q, float *p) {{ q.single_task([=] {{ EXTRA(p) p[0] = 0; }}); }}\n"
        )
    };
    for (name, guard, extra) in [
        ("a", "__SYCL_TARGET_INTEL_GPU_DG1__", 1),
        ("b", "__SYCL_TARGET_NVIDIA_GPU_SM_80__", 2),
    ] {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("main.cpp"), program(name, guard, extra)).unwrap();
    }
    let paths = sycl_analyzer::workspace::discover(&[dir.path().to_path_buf()]).unwrap();
    let env = sycl_analyzer::project::compile_env(Some(&targets), table, &Default::default());
    let loaded = sycl_analyzer::workspace::load(&paths, &env, || {});
    assert_eq!(parts(&loaded.files).len(), 2);
    let settings = Settings {
        table,
        targets: Some(&targets),
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    let whole = analyze(&loaded.files, &settings);
    assert_eq!(whole.stats.device_compiles, 2, "{:?}", whole.stats);
    let parted = by_parts(&loaded.files, &settings);
    assert_same(&whole, &parted);
    // The compile that sees two extra functions, not one extra of each.
    let alone = |name: &str| {
        let files: Vec<SourceFile> = loaded
            .files
            .iter()
            .filter(|f| f.path.contains(&format!("/{name}/")))
            .cloned()
            .collect();
        analyze(&files, &settings).stats.functions
    };
    assert_eq!(whole.stats.functions, alone("a") + alone("b") - 1);
}
