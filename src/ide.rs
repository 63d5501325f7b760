//! Editor features as domain data (no LSP types): what to show on hover.

use crate::devices::{registry, trait_sets, AspectId, DeviceTable, ResolvedTarget};
use crate::text::TextRange;

/// The identifier around `offset`, with its range.
pub fn word_at(text: &str, offset: usize) -> Option<(TextRange, &str)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| ident(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !ident(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (end > start).then(|| (TextRange::new(start, end), &text[start..end]))
}

/// Is the word at `range` written as an aspect: after `aspect::`, or in a YAML file?
fn names_an_aspect(text: &str, range: TextRange, yaml: bool) -> bool {
    yaml || text[..range.start].trim_end().ends_with("aspect::")
}

/// Hover text for an aspect name: its enum value, deprecation, and what the configured targets
/// say of it.
pub fn aspect_hover(
    text: &str,
    offset: usize,
    yaml: bool,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
) -> Option<(TextRange, String)> {
    let (range, word) = word_at(text, offset)?;
    let reg = registry();
    let id = reg.by_name(word)?;
    if !names_an_aspect(text, range, yaml) {
        return None;
    }
    Some((range, describe(id, table, targets)))
}

fn describe(id: AspectId, table: &DeviceTable, targets: &[ResolvedTarget]) -> String {
    let reg = registry();
    let info = reg.get(id);
    let mut s = format!(
        "**aspect `{}`** — `sycl::aspect::{}` = {}\n",
        info.name, info.name, info.value
    );
    if let Some(why) = &info.deprecated {
        s.push_str(&format!("\n*Deprecated*: {why}\n"));
    }
    let (with, without): (Vec<&ResolvedTarget>, Vec<&ResolvedTarget>) =
        targets.iter().partition(|t| {
            t.entry
                .as_deref()
                .and_then(|e| table.get(e))
                .is_some_and(|i| i.aspects.contains(id))
        });
    let names = |v: &[&ResolvedTarget]| {
        v.iter()
            .map(|t| format!("`{}`", t.canonical))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let list = targets
        .iter()
        .map(|t| t.canonical.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let support = match (with.is_empty(), without.is_empty()) {
        (false, true) => "every device of every target has it".to_string(),
        (true, _) => "no target guarantees it".to_string(),
        (false, false) => format!(
            "guaranteed on {} only, not on {}",
            names(&with),
            names(&without)
        ),
    };
    let sets = trait_sets(targets, table);
    s.push_str(&format!(
        "\nUnder `-fsycl-targets={list}`: {support}.\n\n`any_device_has_v<aspect::{n}>` = {}, `all_devices_have_v<aspect::{n}>` = {}\n",
        sets.any_device_has(id),
        sets.all_devices_have(id),
        n = info.name,
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::parse_target_list;

    #[test]
    fn words_and_aspect_contexts() {
        let text = "[[sycl::device_has(sycl::aspect::fp64)]] void f(int gpu);";
        let at = text.find("fp64").unwrap() + 2;
        assert_eq!(word_at(text, at).map(|w| w.1), Some("fp64"));
        let table = DeviceTable::builtin();
        let l = parse_target_list("intel_gpu_pvc,intel_gpu_dg1", table);
        let (range, hover) = aspect_hover(text, at, false, table, &l.targets).unwrap();
        assert_eq!(&text[range.start..range.end], "fp64");
        assert!(hover.contains("= 6"), "{hover}");
        assert!(
            hover.contains("guaranteed on `intel_gpu_pvc` only, not on `intel_gpu_dg1`"),
            "{hover}"
        );
        assert!(
            hover.contains("`any_device_has_v<aspect::fp64>` = true"),
            "{hover}"
        );
        // A parameter named gpu is not an aspect.
        assert!(aspect_hover(text, text.find("gpu)").unwrap(), false, table, &l.targets).is_none());
        // In YAML every aspect name is one.
        assert!(aspect_hover("aspects: [gpu, host]", 11, true, table, &l.targets).is_some());
        let (_, h) = aspect_hover("aspects: [gpu, host]", 16, true, table, &l.targets).unwrap();
        assert!(h.contains("Deprecated"), "{h}");
    }
}
