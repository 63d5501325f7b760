//! Inlay hints: the value of each device trait (`any_device_has_v<aspect::fp64>` ` = false`)
//! under the configured targets.

use crate::devices::{registry, trait_sets, DeviceTable, ResolvedTarget};

/// `= true` / `= false` after each `any_device_has_v<aspect::X>`, `all_devices_have_v<...>`,
/// their `_t` forms and `any_device_has<...>::value`: (offset where the hint goes, label).
pub fn trait_hints(
    text: &str,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
) -> Vec<(usize, String)> {
    trait_hints_under(text, trait_sets(targets, table))
}

/// The hints under given trait values (AdaptiveCpp's are fixed: `devices::trait_sets_under`).
pub fn trait_hints_under(text: &str, sets: crate::devices::TraitSets) -> Vec<(usize, String)> {
    let reg = registry();
    let mut hints = Vec::new();
    for (trait_name, any) in [("any_device_has", true), ("all_devices_have", false)] {
        let mut from = 0;
        while let Some(at) = text[from..].find(trait_name).map(|p| p + from) {
            from = at + trait_name.len();
            if text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[from..];
            let suffix_len = ["_v<", "_t<", "<"]
                .iter()
                .find(|s| rest.starts_with(**s))
                .map(|s| s.len());
            let Some(open_len) = suffix_len else { continue };
            let Some(close) = rest.find('>') else {
                continue;
            };
            let arg = &rest[open_len..close];
            let Some(name) = arg.rsplit("::").next().map(str::trim) else {
                continue;
            };
            let Some(id) = reg.by_name(name) else {
                continue;
            };
            let mut end = from + close + 1;
            if open_len == 1 && text[end..].starts_with("::value") {
                end += "::value".len();
            }
            let value = if any {
                sets.any_device_has(id)
            } else {
                sets.all_devices_have(id)
            };
            hints.push((end, format!(" = {value}")));
        }
    }
    hints.sort();
    hints
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::parse_target_list;

    #[test]
    fn inlay_hints_for_trait_forms() {
        let table = DeviceTable::builtin();
        let l = parse_target_list("intel_gpu_dg1", table);
        let t = "a = sycl::any_device_has_v<sycl::aspect::fp64>; b = all_devices_have<aspect::fp16>::value; c = my_any_device_has_v<aspect::fp16>;";
        let hints = trait_hints(t, table, &l.targets);
        assert_eq!(hints.len(), 2, "{hints:?}");
        assert_eq!(
            &t[..hints[0].0],
            "a = sycl::any_device_has_v<sycl::aspect::fp64>"
        );
        assert_eq!(hints[0].1, " = false");
        assert!(t[..hints[1].0].ends_with("::value"));
        assert_eq!(hints[1].1, " = true");
    }
}
