//! Completion: aspect names in C++ attribute and trait argument lists, and target names, fields
//! and values in device-config YAML.

use crate::devices::{registry, DeviceTable};

/// What a completion offers, before any editor type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub insert: String,
    pub detail: String,
    pub kind: CompletionKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Aspect,
    Target,
    Field,
    Value,
}

fn aspect_items(qualify: bool) -> Vec<Completion> {
    registry()
        .iter()
        .filter(|(_, a)| a.deprecated.is_none())
        .map(|(_, a)| Completion {
            label: a.name.clone(),
            insert: if qualify {
                format!("sycl::aspect::{}", a.name)
            } else {
                a.name.clone()
            },
            detail: format!("sycl::aspect = {}", a.value),
            kind: CompletionKind::Aspect,
        })
        .collect()
}

/// Completions at `offset` of a C++ text: aspect names after `aspect::`, and qualified ones
/// inside `device_has(`, `uses_aspects(`, `any_device_has<`, `all_devices_have<`.
pub fn cpp_completions(text: &str, offset: usize) -> Vec<Completion> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let typed = before
        .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
        .trim_end();
    if typed.ends_with("aspect::") {
        return aspect_items(false);
    }
    let opener = [
        "device_has(",
        "uses_aspects(",
        "__uses_aspects__(",
        "requires(",
        "device_has<",
        "any_device_has<",
        "all_devices_have<",
        "any_device_has_v<",
        "all_devices_have_v<",
    ];
    let in_list = opener.iter().any(|o| {
        before.rfind(o).is_some_and(|at| {
            let rest = &before[at + o.len()..];
            !rest.contains(')') && !rest.contains('>')
        })
    });
    if in_list && (typed.ends_with('(') || typed.ends_with('<') || typed.ends_with(',')) {
        return aspect_items(true);
    }
    Vec::new()
}

/// Completions in a device-config YAML: target names as top-level keys, field names inside an
/// entry, aspect names in `aspects: [...]`, sizes in `sub-group-sizes: [...]`.
pub fn yaml_completions(text: &str, offset: usize, table: &DeviceTable) -> Vec<Completion> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let in_flow = |key: &str| {
        before.trim_start().starts_with(key) && before.contains('[') && !before.contains(']')
    };
    if in_flow("aspects")
        || before.trim_start().starts_with("- ")
            && previous_key(text, line_start) == Some("aspects")
    {
        return aspect_items(false);
    }
    if in_flow("sub-group-sizes") {
        return [4, 8, 16, 32, 64]
            .iter()
            .map(|n| Completion {
                label: n.to_string(),
                insert: n.to_string(),
                detail: "sub-group size".into(),
                kind: CompletionKind::Value,
            })
            .collect();
    }
    if before.contains(':') {
        return Vec::new();
    }
    if before.starts_with(char::is_whitespace) {
        return crate::devices::config::KEYS
            .iter()
            .map(|k| Completion {
                label: k.to_string(),
                insert: format!("{k}: "),
                detail: "device-config field".into(),
                kind: CompletionKind::Field,
            })
            .collect();
    }
    let mut names: Vec<&str> = table.iter().map(|(n, _)| n).collect();
    names.extend(
        crate::devices::names::driver_names()
            .intel_gpu_names()
            .map(|(n, _)| n),
    );
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|n| Completion {
            label: n.to_string(),
            insert: format!("{n}:"),
            detail: "target".into(),
            kind: CompletionKind::Target,
        })
        .collect()
}

/// The key of the closest less-indented `key:` line above `line_start`.
fn previous_key(text: &str, line_start: usize) -> Option<&str> {
    text[..line_start].lines().rev().find_map(|l| {
        let t = l.trim_start();
        (!t.starts_with('-') && !t.is_empty()).then(|| t.split(':').next().unwrap_or("").trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_contexts() {
        let t = "[[sycl::device_has(sycl::aspect::fp";
        let items = cpp_completions(t, t.len());
        assert!(items
            .iter()
            .any(|c| c.label == "fp16" && c.insert == "fp16"));
        assert!(
            items.iter().all(|c| c.label != "host"),
            "deprecated aspects are not offered"
        );
        let t = "[[sycl::device_has(";
        assert!(cpp_completions(t, t.len())
            .iter()
            .any(|c| c.insert == "sycl::aspect::gpu"));
        let t = "if constexpr (sycl::any_device_has_v<";
        assert!(!cpp_completions(t, t.len()).is_empty());
        assert!(cpp_completions("int x = ", 8).is_empty());
        let table = DeviceTable::builtin();
        let y = "intel_gpu_x:\n  aspects: [fp16, ";
        assert!(yaml_completions(y, y.len(), table)
            .iter()
            .any(|c| c.label == "atomic64"));
        let y = "intel_gpu_x:\n  ";
        assert!(yaml_completions(y, y.len(), table)
            .iter()
            .any(|c| c.insert == "sub-group-sizes: "));
        let y = "intel_gpu_x:\n  sub-group-sizes: [";
        assert!(yaml_completions(y, y.len(), table)
            .iter()
            .any(|c| c.label == "16"));
        let y = "intel_";
        assert!(yaml_completions(y, y.len(), table)
            .iter()
            .any(|c| c.label == "intel_gpu_pvc"));
    }

    fn cpp_at(fixture: &str) -> Vec<Completion> {
        let (text, offset) = crate::ide::cursor(fixture);
        cpp_completions(&text, offset)
    }

    fn yaml_at(fixture: &str) -> Vec<Completion> {
        let (text, offset) = crate::ide::cursor(fixture);
        yaml_completions(&text, offset, DeviceTable::builtin())
    }

    fn labels(items: &[Completion]) -> Vec<&str> {
        items.iter().map(|c| c.label.as_str()).collect()
    }

    #[test]
    fn cpp_completion_at_the_cursor() {
        // After `aspect::`, inside a closed list: bare names, every one an aspect.
        let items = cpp_at("[[sycl::device_has(sycl::aspect::$0)]] void f();");
        let fp64 = items.iter().find(|c| c.label == "fp64").unwrap();
        assert_eq!(fp64.insert, "fp64");
        assert_eq!(fp64.detail, "sycl::aspect = 6");
        assert_eq!(fp64.kind, CompletionKind::Aspect);
        assert!(items.iter().all(|c| c.kind == CompletionKind::Aspect));
        // After a comma of the list: qualified names.
        let items = cpp_at("[[sycl::device_has(sycl::aspect::gpu, $0)]] void f();");
        assert!(!items.is_empty());
        assert!(items
            .iter()
            .all(|c| c.insert == format!("sycl::aspect::{}", c.label)));
        // Typing a name after `<`: qualified too.
        let items = cpp_at("if constexpr (sycl::all_devices_have_v<fp$0");
        assert!(labels(&items).contains(&"fp16"), "{items:?}");
        assert!(items[0].insert.starts_with("sycl::aspect::"));
        // Past the list's end, or after a name without a comma: nothing.
        assert!(cpp_at("[[sycl::device_has(sycl::aspect::gpu) $0]] void f();").is_empty());
        assert!(cpp_at("x = any_device_has_v<sycl::aspect::gpu>, $0").is_empty());
        assert!(cpp_at("[[sycl::device_has(gpu $0)]]").is_empty());
        // Only the cursor's line counts.
        assert!(cpp_at("[[sycl::device_has(\n$0").is_empty());
    }

    #[test]
    fn yaml_completion_at_the_cursor() {
        // A block list under `aspects:`.
        let items = yaml_at("intel_gpu_x:\n  aspects:\n    - $0\n  sub-group-sizes: [16]\n");
        assert!(labels(&items).contains(&"atomic64"), "{items:?}");
        assert!(!labels(&items).contains(&"host"), "deprecated");
        // Sizes, exactly.
        let items = yaml_at("intel_gpu_x:\n  sub-group-sizes: [16, $0]\n");
        assert_eq!(labels(&items), ["4", "8", "16", "32", "64"]);
        assert!(items.iter().all(|c| c.kind == CompletionKind::Value));
        // A value of another field: nothing.
        assert!(yaml_at("intel_gpu_x:\n  aot-toolchain: $0\n").is_empty());
        // An indented line: the fields.
        let items = yaml_at("intel_gpu_x:\n  $0\n");
        assert!(items.iter().all(|c| c.kind == CompletionKind::Field));
        assert!(items.iter().any(|c| c.insert == "aspects: "), "{items:?}");
        // A line at the margin: target names, once each, sorted, inserted as keys.
        let items = yaml_at("intel_gpu_x:\n  aspects: []\n$0");
        let names = labels(&items);
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        let pvc = items.iter().find(|c| c.label == "intel_gpu_pvc").unwrap();
        assert_eq!(pvc.insert, "intel_gpu_pvc:");
        assert_eq!(pvc.kind, CompletionKind::Target);
    }
}
