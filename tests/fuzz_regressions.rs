//! Inputs on which a fuzz target once failed (fuzz/regressions/<target>/), replayed on every
//! test run through the same checks as the target.

use std::sync::Arc;

use sycl_analyzer::analysis::{analyze, Settings, SourceFile};
use sycl_analyzer::devices::{parse_target_list, DeviceTable};

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn cpp_extract_regressions() {
    let found = inputs("cpp_extract");
    assert!(!found.is_empty());
    for (name, data) in found {
        // A text whose attribute brackets close inside a multi-byte character once split it.
        let text = String::from_utf8_lossy(&data);
        let facts = sycl_analyzer::syntax::extract(&text);
        let table = DeviceTable::builtin();
        let targets = parse_target_list("spir64,intel_gpu_dg1", table).targets;
        let settings = Settings {
            table,
            targets: Some(&targets),
            image: Default::default(),
            units_elsewhere: false,
            implementation: Default::default(),
            names_from: None,
        };
        let files = vec![SourceFile {
            path: Arc::from("/fuzz/a.cpp"),
            facts: Arc::new(facts),
        }];
        for d in analyze(&files, &settings).diagnostics {
            assert!(d.range.end <= text.len(), "{name}: {d:?}");
        }
    }
}
