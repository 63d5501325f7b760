//! The device-config loader on arbitrary bytes: never panics, every diagnostic points inside
//! the text, and a config set keeps its last good entries whatever the next save holds.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sycl_analyzer::devices::{parse_target_list, predefined_macros, ConfigSet};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut set = ConfigSet::new();
    let first = set.update("a.yaml".into(), data).to_vec();
    for d in &first {
        assert!(d.range.start <= d.range.end, "{d:?}");
        assert!(
            d.range.end as usize <= text.len(),
            "{d:?} past {}",
            text.len()
        );
        assert!(d.pos.line >= 1 && d.pos.column >= 1, "{d:?}");
    }
    let table = set.table();
    // Every target the file defined answers the compiler's questions.
    let names: Vec<String> = table.iter().map(|(n, _)| n.to_string()).take(8).collect();
    let targets = parse_target_list(&names.join(","), &table).targets;
    let _ = predefined_macros(&targets, &table);
    // A later broken save keeps what was in force.
    set.update("a.yaml".into(), b"targets: [\n");
    assert_eq!(set.table().len(), table.len());
});
