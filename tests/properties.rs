//! Invariants of the trait-macro algorithm over random target lists and random user entries.

use std::sync::Arc;

use proptest::prelude::*;
use sycl_analyzer::devices::config;
use sycl_analyzer::devices::{
    parse_target_list, predefined_macros, registry, trait_sets, DeviceTable,
};

/// Every valid spelling: table entries, aliases and generic triples.
fn spellings() -> Vec<String> {
    let mut names: Vec<String> = DeviceTable::builtin()
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    names.extend(
        [
            "intel_gpu_12_60_7",
            "intel_gpu_rpl_s",
            "nvptx64-nvidia-cuda",
            "amdgcn-amd-amdhsa",
            "spir64_gen-unknown-unknown",
        ]
        .map(String::from),
    );
    names
}

fn list() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(prop::sample::select(spellings()), 1..6)
}

/// A user table where some targets are overridden by random aspect sets.
fn user_table() -> impl Strategy<Value = DeviceTable> {
    let names: Vec<String> = registry().names().map(String::from).collect();
    prop::collection::vec(
        (
            prop::sample::select(spellings()),
            prop::collection::vec(prop::sample::select(names), 0..12),
            any::<bool>(),
        ),
        0..4,
    )
    .prop_map(|entries| {
        let mut yaml = String::new();
        for (i, (target, aspects, may)) in entries.into_iter().enumerate() {
            let mut unique = aspects;
            unique.sort();
            unique.dedup();
            // Some entries replace known targets, some add new ones.
            let name = if i % 2 == 0 {
                target
            } else {
                format!("user_dev_{i}")
            };
            yaml.push_str(&format!(
                "{name}:\n  aspects: [{}]\n  may_support_other_aspects: {may}\n",
                unique.join(", ")
            ));
        }
        let cfg = config::load(Arc::from("prop.yaml"), &yaml);
        DeviceTable::with_overlays([&cfg])
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn adding_a_target_never_grows_all_nor_shrinks_any(table in user_table(), ts in list(), extra in prop::sample::select(spellings())) {
        let base = parse_target_list(&ts.join(","), &table);
        let more = parse_target_list(&format!("{},{extra}", ts.join(",")), &table);
        let a = trait_sets(&base.targets, &table);
        let b = trait_sets(&more.targets, &table);
        prop_assert!(b.all.is_subset(a.all));
        prop_assert!(a.any.is_subset(b.any));
        prop_assert!(!a.any_aspect || b.any_aspect);
    }

    #[test]
    fn all_is_within_any_unless_any_aspect(table in user_table(), ts in list()) {
        let l = parse_target_list(&ts.join(","), &table);
        let s = trait_sets(&l.targets, &table);
        prop_assert!(s.any_aspect || s.all.is_subset(s.any));
        for (id, _) in registry().iter() {
            prop_assert!(!s.all_devices_have(id) || s.any_device_has(id));
        }
    }

    #[test]
    fn order_and_duplicates_do_not_change_trait_macros(table in user_table(), ts in list(), seed in any::<u64>()) {
        let l = parse_target_list(&ts.join(","), &table);
        let mut shuffled = ts.clone();
        shuffled.extend(ts.iter().take(2).cloned());
        let n = shuffled.len();
        shuffled.rotate_left((seed as usize) % n);
        shuffled.reverse();
        let l2 = parse_target_list(&shuffled.join(","), &table);
        let traits = |m: Vec<(String, String)>| -> Vec<String> {
            let mut v: Vec<String> = m.into_iter().map(|(n, _)| n).collect();
            v.sort();
            v
        };
        prop_assert_eq!(traits(predefined_macros(&l.targets, &table)), traits(predefined_macros(&l2.targets, &table)));
    }

    #[test]
    fn any_aspect_excludes_individual_any_macros(table in user_table(), ts in list()) {
        let l = parse_target_list(&ts.join(","), &table);
        let m = predefined_macros(&l.targets, &table);
        let has_any_aspect = m.iter().any(|(n, _)| n == "__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__");
        let individual = m.iter().filter(|(n, _)| n.starts_with("__SYCL_ANY_DEVICE_HAS_") && n != "__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__").count();
        prop_assert!(!(has_any_aspect && individual > 0));
        prop_assert!(m.iter().all(|(_, v)| v == "1"));
    }

    #[test]
    fn loader_reports_in_bounds_on_yaml_like_text(text in "[a-z_0-9:\\[\\]{},&*!|>'\" \n#é-]{0,200}") {
        let cfg = config::load(Arc::from("fuzz.yaml"), &text);
        for d in &cfg.diagnostics {
            prop_assert!(d.range.start <= d.range.end && d.range.end <= text.len());
            prop_assert!(text.is_char_boundary(d.range.start) && text.is_char_boundary(d.range.end));
        }
        if cfg.entries.is_none() {
            prop_assert!(cfg.has_errors());
        }
    }

    #[test]
    fn loader_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let cfg = config::load_bytes(Arc::from("fuzz.yaml"), &bytes);
        for d in &cfg.diagnostics {
            prop_assert!(d.range.start <= d.range.end && d.range.end <= bytes.len());
            prop_assert!(d.pos.line >= 1 && d.pos.column >= 1);
        }
    }
}
