//! Editor features as domain data (no LSP types): what to show on hover.

pub mod host;
pub mod inactive;

pub use host::{Analysis, AnalysisConfig, AnalysisHost, Change};

use crate::analysis::FunctionSummary;
use crate::devices::{
    predefined_macros, registry, trait_sets, AspectId, DeviceTable, ResolvedTarget,
};
use crate::syntax::pp::{MacroAt, Origin};
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
    if let Some(d) = &info.description {
        s.push_str(&format!("\n{d}\n"));
    }
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
            hover.contains("64-bit floating point (double) in kernels."),
            "{hover}"
        );
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

/// What a predefined SYCL macro means, when it is one.
fn macro_meaning(word: &str, table: &DeviceTable) -> Option<String> {
    Some(if word == "__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__" {
        "defined when some target may have devices with any aspect (no entry, or `may_support_other_aspects`); then every `any_device_has<A>` is true".to_string()
    } else if let Some(a) = word
        .strip_prefix("__SYCL_ANY_DEVICE_HAS_")
        .and_then(|r| r.strip_suffix("__"))
    {
        registry().by_name(a)?;
        format!("1 when some device of some target may have aspect `{a}` (and `__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__` is not defined)")
    } else if let Some(a) = word
        .strip_prefix("__SYCL_ALL_DEVICES_HAVE_")
        .and_then(|r| r.strip_suffix("__"))
    {
        registry().by_name(a)?;
        format!("1 when every device of every target has aspect `{a}`")
    } else if word.starts_with("__SYCL_TARGET_") && word.ends_with("__") {
        let names = crate::devices::names::driver_names();
        let target = names
            .all_spellings()
            .chain(table.iter().map(|(n, _)| n))
            .filter_map(|n| crate::devices::resolve(n, table).ok())
            .find(|t| t.macro_name.as_deref() == Some(word))?;
        format!(
            "defined in the device compile of `{}` only",
            target.canonical
        )
    } else {
        return None;
    })
}

/// Hover text for a predefined macro: what defines it and its value for the configured targets.
pub fn macro_hover(word: &str, table: &DeviceTable, targets: &[ResolvedTarget]) -> Option<String> {
    let meaning = macro_meaning(word, table)?;
    let list = targets
        .iter()
        .map(|t| t.canonical.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let defined = predefined_macros(targets, table)
        .into_iter()
        .any(|(n, _)| n == word);
    Some(format!(
        "**`{word}`**: {meaning}.

Under `-fsycl-targets={list}`: **{}**
",
        u8::from(defined)
    ))
}

/// Hover text for a macro as the device compiles see it at a place: its value per compile
/// and where it comes from. `None` for a name no compile defines, unless `conditional` (the
/// name is read by an `#if`, where being undefined is an answer: 0).
pub fn macro_value_hover(
    name: &str,
    per_compile: &[MacroAt],
    conditional: bool,
    table: &DeviceTable,
) -> Option<String> {
    if !conditional && per_compile.iter().all(|m| m.definition.is_none()) {
        return None;
    }
    let mut out = format!("**`{name}`**");
    if let Some(meaning) = macro_meaning(name, table) {
        out.push_str(&format!(": {meaning}."));
    }
    out.push_str("\n\n");
    let one = |m: &MacroAt| -> String {
        match &m.definition {
            None => "not defined".to_string(),
            Some(d) => {
                let from = match &d.origin {
                    Origin::Predefined(why) => format!("predefined by {why}"),
                    Origin::CommandLine => "`-D` in the compile command".to_string(),
                    Origin::File { path, line } => format!("`#define` at {path}:{line}"),
                };
                let value = if d.replacement.is_empty() {
                    "(empty)".to_string()
                } else {
                    format!("`{}`", d.replacement)
                };
                if d.signature == name {
                    format!("{value}, {from}")
                } else {
                    format!("`{}` = {value}, {from}", d.signature)
                }
            }
        }
    };
    match per_compile {
        [only] if only.targets.is_empty() || per_compile.len() == 1 => {
            out.push_str(&one(only));
            out.push('\n');
        }
        _ => {
            for m in per_compile {
                let names: Vec<String> = m.targets.iter().map(|t| format!("`{t}`")).collect();
                out.push_str(&format!("- {}: {}\n", names.join(", "), one(m)));
            }
        }
    }
    Some(out)
}

/// Hover text for a target name (a YAML key, or a name in a target list).
pub fn target_hover(name: &str, table: &DeviceTable) -> Option<String> {
    let t = crate::devices::resolve(name, table).ok()?;
    let mut s = format!("**target `{}`**", t.canonical);
    if t.canonical != name {
        s.push_str(&format!(" (`{name}` is an alias)"));
    }
    s.push_str(&format!(
        "

macro: {}
",
        t.macro_name
            .as_deref()
            .map_or("none".to_string(), |m| format!("`{m}`"))
    ));
    match t.entry.as_deref().and_then(|e| table.get(e)) {
        Some(info) => {
            let reg = registry();
            s.push_str(&format!(
                "
aspects every device has ({}): {}

devices may have other aspects: {}

sub-group sizes: {}
",
                info.aspects.len(),
                reg.sorted_names(info.aspects).join(", "),
                info.may_support_other_aspects,
                info.sub_group_sizes
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if let (Some(tc), Some(o)) = (&info.aot_toolchain, &info.aot_toolchain_options) {
                s.push_str(&format!(
                    "
AOT: `{tc} {o}`
"
                ));
            }
            s.push_str(&format!(
                "
from: {}
",
                info.source
            ));
        }
        None => s.push_str(
            "
no device-table entry: any aspect is possible, none is guaranteed
",
        ),
    }
    Some(s)
}

/// Hover text for a top-level key of a device-config YAML: the target as it now stands, or why
/// it is not in the table.
pub fn yaml_key_hover(text: &str, range: TextRange, table: &DeviceTable) -> Option<String> {
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let is_key = range.start == line_start && text[range.end..].trim_start().starts_with(':');
    if !is_key {
        return None;
    }
    let name = &text[range.start..range.end];
    Some(target_hover(name, table).unwrap_or_else(|| {
        format!("**target `{name}`**\n\nnot in the device table: its entry has errors (see the diagnostics)\n")
    }))
}

/// Hover text for a kernel or decorated function: declared versus used aspects.
pub fn function_hover(f: &FunctionSummary) -> String {
    let reg = registry();
    let used = reg.sorted_names(f.used);
    let mut s = format!(
        "**{}** `{}`
",
        if f.kernel { "kernel" } else { "function" },
        f.name
    );
    match &f.declared {
        Some(d) => s.push_str(&format!(
            "
declares (`device_has`): {}
",
            if d.is_empty() {
                "nothing".into()
            } else {
                d.join(", ")
            }
        )),
        None => s.push_str(
            "
declares no aspects
",
        ),
    }
    s.push_str(&format!(
        "
uses: {}
",
        if used.is_empty() {
            "no optional feature".into()
        } else {
            used.join(", ")
        }
    ));
    s
}

// ---- completion ------------------------------------------------------------------------------

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

// ---- inlay hints -------------------------------------------------------------------------------

/// `= true` / `= false` after each `any_device_has_v<aspect::X>`, `all_devices_have_v<...>`,
/// their `_t` forms and `any_device_has<...>::value`: (offset where the hint goes, label).
pub fn trait_hints(
    text: &str,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
) -> Vec<(usize, String)> {
    let sets = trait_sets(targets, table);
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

// ---- code actions ------------------------------------------------------------------------------

/// An edit to one file: replace `range` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: String,
    pub range: TextRange,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
}

/// The edit that adds `aspect` to the `device_has` list nearest before `at` (the attribute sits
/// before or on the decorated function's line).
pub fn add_aspect(text: &str, file: &str, at: usize, aspect: &str) -> Option<Fix> {
    let window_start = text[..at.min(text.len())]
        .char_indices()
        .rev()
        .filter(|(_, c)| *c == '\n')
        .nth(3)
        .map_or(0, |(i, _)| i);
    let line_end = text[at.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| at + i);
    let window = &text[window_start..line_end];
    let (open_at, close) = ["device_has(", "device_has<", "requires("]
        .iter()
        .filter_map(|o| {
            window
                .rfind(o)
                .map(|p| (p + o.len(), if o.ends_with('<') { '>' } else { ')' }))
        })
        .max_by_key(|(p, _)| *p)?;
    let mut list_start = window_start + open_at;
    // The old spelling wraps the list: `requires(has(...))`.
    let after = &text[list_start..];
    if let Some(rest) = after.trim_start().strip_prefix("has(") {
        list_start += after.len() - rest.len();
    }
    let close_at = list_start + text[list_start..].find(close)?;
    let qualified = format!("sycl::aspect::{aspect}");
    let insert = if text[list_start..close_at].trim().is_empty() {
        qualified
    } else {
        format!(", {qualified}")
    };
    Some(Fix {
        title: format!("Add '{aspect}' to the device_has list"),
        edits: vec![Edit {
            file: file.into(),
            range: TextRange::empty(close_at),
            text: insert,
        }],
    })
}

/// The edit that makes the double literal at `range` a float literal.
pub fn float_suffix(text: &str, file: &str, range: TextRange) -> Option<Fix> {
    let lit = text.get(range.start..range.end)?;
    if lit.ends_with(['l', 'L']) {
        return None;
    }
    Some(Fix {
        title: format!("Write {lit}f: a float literal keeps the arithmetic in float"),
        edits: vec![Edit {
            file: file.into(),
            range: TextRange::empty(range.end),
            text: "f".into(),
        }],
    })
}

#[cfg(test)]
mod feature_tests {
    use super::*;
    use crate::devices::parse_target_list;

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

    #[test]
    fn macro_target_and_function_hovers() {
        let table = DeviceTable::builtin();
        let l = parse_target_list("intel_gpu_pvc", table);
        let h = macro_hover("__SYCL_ALL_DEVICES_HAVE_fp64__", table, &l.targets).unwrap();
        assert!(h.ends_with("**1**\n"), "{h}");
        let h = macro_hover("__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__", table, &l.targets).unwrap();
        assert!(h.ends_with("**0**\n"), "{h}");
        let h = macro_hover("__SYCL_TARGET_INTEL_GPU_ADL_S__", table, &l.targets).unwrap();
        assert!(
            h.contains("device compile of `intel_gpu_adl_s` only"),
            "{h}"
        );
        assert!(macro_hover("__SYCL_ALL_DEVICES_HAVE_nope__", table, &l.targets).is_none());
        let h = target_hover("intel_gpu_12_60_7", table).unwrap();
        assert!(
            h.contains("`intel_gpu_12_60_7` is an alias") && h.contains("sub-group sizes: 16, 32"),
            "{h}"
        );
        assert!(h.contains("AOT: `ocloc -device pvc`"), "{h}");
        let f = FunctionSummary {
            file: "a.cpp".into(),
            name_span: Default::default(),
            name: "f()".into(),
            kernel: false,
            declared: Some(vec!["gpu".into()]),
            used: [registry().by_name("fp64").unwrap()].into_iter().collect(),
        };
        let h = function_hover(&f);
        assert!(
            h.contains("declares (`device_has`): gpu") && h.contains("uses: fp64"),
            "{h}"
        );
    }

    #[test]
    fn fixes() {
        let t = "[[sycl::device_has(sycl::aspect::gpu)]] void f() {}";
        let fix = add_aspect(t, "a.cpp", t.find("f()").unwrap(), "fp64").unwrap();
        let e = &fix.edits[0];
        let mut out = t.to_string();
        out.replace_range(e.range.start..e.range.end, &e.text);
        assert_eq!(
            out,
            "[[sycl::device_has(sycl::aspect::gpu, sycl::aspect::fp64)]] void f() {}"
        );
        let t = "q.single_task([=]() [[sycl::device_has()]] { });";
        let fix = add_aspect(t, "a.cpp", t.find("[=]").unwrap(), "fp16").unwrap();
        let mut out = t.to_string();
        out.replace_range(
            fix.edits[0].range.start..fix.edits[0].range.end,
            &fix.edits[0].text,
        );
        assert!(out.contains("device_has(sycl::aspect::fp16)"), "{out}");
        let t = "[[sycl::requires(has(aspect::gpu))]] void f();";
        let fix = add_aspect(t, "a.cpp", t.find("f()").unwrap(), "fp64").unwrap();
        let mut out = t.to_string();
        out.replace_range(
            fix.edits[0].range.start..fix.edits[0].range.end,
            &fix.edits[0].text,
        );
        assert_eq!(
            out,
            "[[sycl::requires(has(aspect::gpu, sycl::aspect::fp64))]] void f();"
        );
        let t = "x * 0.5;";
        let r = TextRange::new(4, 7);
        assert_eq!(
            float_suffix(t, "a.cpp", r).unwrap().edits[0].range,
            TextRange::empty(7)
        );
    }
}

/// The line a code lens shows above a kernel: on how many targets it runs, and why not on the
/// others (`runs on 2/3 targets — not in intel_gpu_dg1's image: fp64`).
pub fn kernel_lens(row: &crate::analysis::matrix::Row) -> String {
    use crate::analysis::matrix::Status;
    let n = row.cells.len();
    let runs = row
        .cells
        .iter()
        .filter(|c| c.status == Status::Compatible)
        .count();
    if runs == n {
        return format!("runs on all {n} targets");
    }
    let parts: Vec<String> = row
        .cells
        .iter()
        .filter_map(|c| match c.status {
            Status::Compatible => None,
            Status::NotInImage => Some(format!("not in {}'s image: {}", c.target, c.why())),
            Status::MayFail => Some(format!("may fail on {}: {}", c.target, c.why())),
            Status::NotCompiled => Some(format!("not compiled for {}", c.target)),
        })
        .collect();
    format!("runs on {runs}/{n} targets — {}", parts.join("; "))
}
