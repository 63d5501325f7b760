//! C++ fact extraction and the analysis on arbitrary text: never panics, never overflows the
//! stack, and every span and diagnostic lies inside the text.
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use sycl_analyzer::analysis::{analyze, Settings, SourceFile};
use sycl_analyzer::devices::{parse_target_list, DeviceTable};
use sycl_analyzer::syntax::{extract, Span};

fn inside(s: &Span, len: usize) {
    assert!(
        s.start <= s.end && s.end as usize <= len,
        "{s:?} past {len}"
    );
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let facts = extract(&text);
    for f in &facts.functions {
        inside(&f.name_span, text.len());
        inside(&f.span, text.len());
        for c in &f.calls {
            inside(&c.span, text.len());
        }
        for t in &f.types {
            inside(&t.span, text.len());
        }
    }
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
        assert!(d.range.end as usize <= text.len(), "{d:?}");
    }
});
