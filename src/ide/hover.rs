//! Hover: what to show for the word under the cursor (an aspect, a kernel or decorated function,
//! a predefined macro, a target, a device-config key, a macro as each device compile sees it),
//! and the order in which those answers are tried (`hover`).

use crate::analysis::FunctionSummary;
use crate::devices::{predefined_macros, registry, AspectId, DeviceTable, ResolvedTarget};
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
    aspect_hover_under(
        text,
        offset,
        yaml,
        table,
        targets,
        crate::devices::Implementation::Dpcpp,
    )
}

/// [`aspect_hover`] under an implementation's trait rules.
pub fn aspect_hover_under(
    text: &str,
    offset: usize,
    yaml: bool,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
    implementation: crate::devices::Implementation,
) -> Option<(TextRange, String)> {
    let (range, word) = word_at(text, offset)?;
    let reg = registry();
    let id = reg.by_name(word)?;
    if !names_an_aspect(text, range, yaml) {
        return None;
    }
    Some((range, describe(id, table, targets, implementation)))
}

fn describe(
    id: AspectId,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
    implementation: crate::devices::Implementation,
) -> String {
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
    let sets = crate::devices::trait_sets_under(implementation, targets, table);
    let (under, fixed) = match implementation {
        crate::devices::Implementation::Dpcpp => (format!("`-fsycl-targets={list}`"), ""),
        crate::devices::Implementation::AdaptiveCpp => (
            format!("AdaptiveCpp's targets (`{list}`)"),
            " (AdaptiveCpp's fixed values, whatever the targets)",
        ),
    };
    s.push_str(&format!(
        "\nUnder {under}: {support}.\n\n`any_device_has_v<aspect::{n}>` = {}, `all_devices_have_v<aspect::{n}>` = {}{fixed}\n",
        sets.any_device_has(id),
        sets.all_devices_have(id),
        n = info.name,
    ));
    s
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
    } else if let Some(m) = crate::devices::acpp::macro_meaning(word) {
        m.to_string()
    } else {
        return None;
    })
}

/// Hover text for a predefined macro: what defines it and its value for the configured targets.
/// An AdaptiveCpp macro has its meaning only: whether a pass defines it is the per-compile
/// answer's ([`macro_value_hover`]).
pub fn macro_hover(word: &str, table: &DeviceTable, targets: &[ResolvedTarget]) -> Option<String> {
    if let Some(meaning) = crate::devices::acpp::macro_meaning(word) {
        return Some(format!("**`{word}`**: {meaning}.\n"));
    }
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

/// Whether `offset` is on an `#if`-family line, where a macro's being undefined matters.
pub fn in_conditional(text: &str, offset: usize) -> bool {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |n| n + 1);
    let line = text[start..].trim_start();
    let Some(rest) = line.strip_prefix('#') else {
        return false;
    };
    let directive: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    matches!(
        directive.as_str(),
        "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef"
    )
}

// ---- the order of the answers ------------------------------------------------------------------

/// A hover's answer: the range it is about and its Markdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverText {
    pub range: TextRange,
    pub markdown: String,
}

/// Where the cursor is, and what a hover there draws on.
pub struct HoverQuery<'a> {
    pub text: &'a str,
    pub offset: usize,
    /// The document's path; `None` when it is not a file.
    pub file: Option<&'a str>,
    /// A device-config YAML, not C++.
    pub yaml: bool,
    pub table: &'a DeviceTable,
    pub targets: &'a [ResolvedTarget],
    /// Whose trait values the aspect hover gives (AdaptiveCpp's are fixed).
    pub implementation: crate::devices::Implementation,
    /// The kernels and decorated functions of the latest analysis.
    pub functions: &'a [FunctionSummary],
}

/// What `hover` decided.
#[derive(Debug, PartialEq, Eq)]
pub enum HoverAnswer {
    /// The answer, or that there is nothing to show.
    Ready(Option<HoverText>),
    /// A word of a C++ file: the answer is what the device compiles make of it as a macro there
    /// (preprocessing, expensive: the caller does it where it may block), then `MacroValue::answer`.
    MacroValue(MacroValue),
}

/// A word whose value as a macro per device compile decides the hover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroValue {
    pub range: TextRange,
    pub word: String,
    /// The word is on an `#if`-family line, where being undefined is an answer.
    pub conditional: bool,
    /// The answer when no compile defines the word (and it is not on an `#if` line).
    pub fallback: Option<String>,
}

impl MacroValue {
    /// The hover, from the word's definition in each device compile (`None` when the file is
    /// none of the compiles').
    pub fn answer(self, per_compile: Option<&[MacroAt]>, table: &DeviceTable) -> Option<HoverText> {
        let markdown = per_compile
            .and_then(|per| macro_value_hover(&self.word, per, self.conditional, table))
            .or(self.fallback)?;
        Some(HoverText {
            range: self.range,
            markdown,
        })
    }
}

/// The hover at a place, its answers tried in order: an aspect name; the kernel or decorated
/// function whose name the cursor is on; then, for the word under the cursor, a predefined
/// macro's meaning or (in YAML) a top-level key's target, which in a C++ file only stand in
/// for the word's value per device compile (`HoverAnswer::MacroValue`).
pub fn hover(q: &HoverQuery<'_>) -> HoverAnswer {
    let found = aspect_hover_under(
        q.text,
        q.offset,
        q.yaml,
        q.table,
        q.targets,
        q.implementation,
    )
    .or_else(|| {
        function_at(q.functions, q.file, q.offset).map(|f| (f.name_span.range, function_hover(f)))
    });
    if let Some((range, markdown)) = found {
        return HoverAnswer::Ready(Some(HoverText { range, markdown }));
    }
    let Some((range, word)) = word_at(q.text, q.offset) else {
        return HoverAnswer::Ready(None);
    };
    let fallback = macro_hover(word, q.table, q.targets).or_else(|| {
        q.yaml
            .then(|| yaml_key_hover(q.text, range, q.table))
            .flatten()
    });
    if q.file.is_none() || q.yaml {
        return HoverAnswer::Ready(fallback.map(|markdown| HoverText { range, markdown }));
    }
    HoverAnswer::MacroValue(MacroValue {
        range,
        word: word.to_string(),
        conditional: in_conditional(q.text, q.offset),
        fallback,
    })
}

/// The function of `file` whose name (or lambda introducer) spans `offset`.
pub fn function_at<'a>(
    functions: &'a [FunctionSummary],
    file: Option<&str>,
    offset: usize,
) -> Option<&'a FunctionSummary> {
    functions.iter().find(|f| {
        Some(&*f.file) == file
            && f.name_span.range.start <= offset
            && offset <= f.name_span.range.end
    })
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

    /// The hover at the fixture's `$0` in `file` (`None`: no file), with `functions` and the
    /// targets `intel_gpu_pvc,intel_gpu_dg1`.
    fn hover_at(
        fixture: &str,
        file: Option<&str>,
        yaml: bool,
        functions: &[FunctionSummary],
    ) -> (String, HoverAnswer) {
        let (text, offset) = crate::ide::cursor(fixture);
        let table = DeviceTable::builtin();
        let l = parse_target_list("intel_gpu_pvc,intel_gpu_dg1", table);
        let answer = hover(&HoverQuery {
            text: &text,
            offset,
            file,
            yaml,
            table,
            targets: &l.targets,
            implementation: crate::devices::Implementation::Dpcpp,
            functions,
        });
        (text, answer)
    }

    /// A function of `file` whose name spans `name` in `text`.
    fn function(file: &str, text: &str, name: &str, kernel: bool) -> FunctionSummary {
        let start = text.find(name).unwrap();
        FunctionSummary {
            file: file.into(),
            name_span: crate::syntax::facts::Located {
                range: TextRange::new(start, start + name.len()),
                ..Default::default()
            },
            name: name.into(),
            kernel,
            declared: Some(vec!["fp64".into()]),
            used: [registry().by_name("fp64").unwrap()].into_iter().collect(),
        }
    }

    fn ready(answer: HoverAnswer) -> HoverText {
        match answer {
            HoverAnswer::Ready(Some(h)) => h,
            other => panic!("not a ready hover: {other:?}"),
        }
    }

    #[test]
    fn hover_an_aspect_name_first() {
        let fixture = "[[sycl::device_has(sycl::aspect::fp$064)]] void k();";
        let (text, _) = crate::ide::cursor(fixture);
        // A function whose span takes in the aspect too: the aspect is answered first.
        let mut f = function("a.cpp", &text, "k", true);
        f.name_span.range = TextRange::new(0, text.len());
        let (text, answer) = hover_at(fixture, Some("a.cpp"), false, &[f]);
        let h = ready(answer);
        assert_eq!(&text[h.range.start..h.range.end], "fp64");
        assert!(
            h.markdown.starts_with("**aspect `fp64`**"),
            "{}",
            h.markdown
        );
    }

    #[test]
    fn hover_a_function_name_before_the_macro_value() {
        let fixture = "[[sycl::device_has(sycl::aspect::fp64)]] void ke$0rnel_fn();";
        let (text, _) = crate::ide::cursor(fixture);
        let f = function("a.cpp", &text, "kernel_fn", false);
        let (text, answer) = hover_at(fixture, Some("a.cpp"), false, std::slice::from_ref(&f));
        let h = ready(answer);
        assert_eq!(&text[h.range.start..h.range.end], "kernel_fn");
        assert_eq!(h.markdown, function_hover(&f));
        // A function of another file is not the one under the cursor: the word is a macro to
        // look up per compile.
        let (_, answer) = hover_at(fixture, Some("b.cpp"), false, std::slice::from_ref(&f));
        assert!(
            matches!(&answer, HoverAnswer::MacroValue(m) if m.word == "kernel_fn" && m.fallback.is_none()),
            "{answer:?}"
        );
    }

    #[test]
    fn hover_a_macro_per_compile_with_its_meaning_as_fallback() {
        let fixture = "int x = __SYCL_ALL_DEVICES_HAVE_fp$064__;";
        let (text, answer) = hover_at(fixture, Some("a.cpp"), false, &[]);
        let HoverAnswer::MacroValue(m) = answer else {
            panic!("{answer:?}")
        };
        assert_eq!(&text[m.range.start..m.range.end], m.word);
        assert_eq!(m.word, "__SYCL_ALL_DEVICES_HAVE_fp64__");
        assert!(!m.conditional);
        let table = DeviceTable::builtin();
        let l = parse_target_list("intel_gpu_pvc,intel_gpu_dg1", table);
        let meaning = macro_hover(&m.word, table, &l.targets).unwrap();
        assert_eq!(m.fallback.as_deref(), Some(meaning.as_str()));
        // No compile has the file, or none defines the word: its meaning.
        assert_eq!(m.clone().answer(None, table).unwrap().markdown, meaning);
        let undefined = [MacroAt {
            targets: vec![],
            definition: None,
        }];
        assert_eq!(
            m.clone().answer(Some(&undefined), table).unwrap().markdown,
            meaning
        );
        // A compile defining it: its value there.
        let defined = [MacroAt {
            targets: vec![],
            definition: Some(crate::syntax::pp::MacroDef {
                signature: m.word.clone(),
                replacement: "1".into(),
                origin: Origin::CommandLine,
            }),
        }];
        let h = m.answer(Some(&defined), table).unwrap();
        assert!(
            h.markdown.contains("`1`, `-D` in the compile command"),
            "{}",
            h.markdown
        );
        // Without a file the meaning is the answer at once.
        let h = ready(hover_at(fixture, None, false, &[]).1);
        assert_eq!(h.markdown, meaning);
        // A word that is nothing: no answer without a file.
        assert_eq!(
            hover_at("int co$0unt;", None, false, &[]).1,
            HoverAnswer::Ready(None)
        );
        assert_eq!(
            hover_at("a + $0 b", Some("a.cpp"), false, &[]).1,
            HoverAnswer::Ready(None)
        );
    }

    #[test]
    fn hover_on_an_if_line_answers_undefined() {
        let table = DeviceTable::builtin();
        let fixture = "#if MY_FL$0AG\n#endif\n";
        let (_, answer) = hover_at(fixture, Some("a.cpp"), false, &[]);
        let HoverAnswer::MacroValue(m) = answer else {
            panic!("{answer:?}")
        };
        assert!(m.conditional);
        let undefined = [MacroAt {
            targets: vec![],
            definition: None,
        }];
        let h = m.clone().answer(Some(&undefined), table).unwrap();
        assert_eq!(h.markdown, "**`MY_FLAG`**\n\nnot defined\n");
        // Off an `#if` line an undefined name has no hover.
        let (_, answer) = hover_at("int y = MY_FL$0AG;", Some("a.cpp"), false, &[]);
        let HoverAnswer::MacroValue(m) = answer else {
            panic!("{answer:?}")
        };
        assert!(!m.conditional);
        assert_eq!(m.clone().answer(Some(&undefined), table), None);
    }

    #[test]
    fn conditional_lines() {
        for (fixture, expected) in [
            ("#if A$0\n", true),
            ("  #  ifdef A$0\n", true),
            ("#ifndef A$0\n", true),
            ("#elif A$0\n", true),
            ("#elifdef A$0\n", true),
            ("#elifndef A$0\n", true),
            ("#define A$0 1\n", false),
            ("#include A$0\n", false),
            ("int x = A$0;\n", false),
            ("#if A\nint x = B$0;\n", false),
            ("int x;\n#if B$0\n", true),
        ] {
            let (text, offset) = crate::ide::cursor(fixture);
            assert_eq!(in_conditional(&text, offset), expected, "{fixture:?}");
        }
    }

    #[test]
    fn hover_in_yaml() {
        // Every aspect name is one in YAML.
        let h = ready(
            hover_at(
                "intel_gpu_x:\n  aspects: [fp$016]\n",
                Some("d.yaml"),
                true,
                &[],
            )
            .1,
        );
        assert!(
            h.markdown.starts_with("**aspect `fp16`**"),
            "{}",
            h.markdown
        );
        // A top-level key: its target, at once (no compile reads YAML).
        let (text, answer) = hover_at(
            "intel_gpu_p$0vc:\n  aspects: []\n",
            Some("d.yaml"),
            true,
            &[],
        );
        let h = ready(answer);
        assert_eq!(&text[h.range.start..h.range.end], "intel_gpu_pvc");
        assert!(
            h.markdown.starts_with("**target `intel_gpu_pvc`**"),
            "{}",
            h.markdown
        );
        // A field name is no key of the file.
        assert_eq!(
            hover_at("intel_gpu_x:\n  aspe$0cts: []\n", Some("d.yaml"), true, &[]).1,
            HoverAnswer::Ready(None)
        );
    }

    /// An AdaptiveCpp project's passes answer a hover on its macros: `__SYCL_DEVICE_ONLY__`
    /// in the CUDA device pass only, `__SYCL_SINGLE_SOURCE__` in the host pass of `generic`,
    /// each with where it comes from and, for AdaptiveCpp's own names, what it means.
    #[test]
    fn hover_an_adaptivecpp_macro_per_pass() {
        use crate::workspace::{CompileEnv, Sources};
        use std::sync::Arc;
        let table = DeviceTable::builtin();
        let spec = crate::devices::acpp::parse_spec("omp;cuda:sm_80;generic", table).unwrap();
        let env = CompileEnv::new(crate::devices::acpp::device_compiles(&spec), Vec::new());
        let text = "#if __SYCL_DEVICE_ONLY__\n#endif\n";
        let sources = Sources::new(
            &env,
            vec![Arc::from("k.cpp")],
            vec![Some(Arc::from(text))],
            None,
        );
        let hover = |name: &str| {
            let per = sources.macro_at(0, 1, name);
            macro_value_hover(name, &per, true, table).unwrap()
        };
        let h = hover("__SYCL_DEVICE_ONLY__");
        assert!(
            h.contains("`1`, predefined by the cuda:sm_80 device pass"),
            "{h}"
        );
        assert!(h.contains("not defined"), "{h}");
        let h = hover("__SYCL_SINGLE_SOURCE__");
        assert!(h.contains("unified host-device pass"), "{h}");
        assert!(h.contains("`1`, predefined by the host pass"), "{h}");
        let h = hover("__acpp_if_target_device");
        assert!(
            h.contains("`__acpp_if_target_device(...)` = `__VA_ARGS__`, predefined by the cuda:sm_80 device pass"),
            "{h}"
        );
        let h = hover("__ACPP_ENABLE_CUDA_TARGET__");
        assert!(
            h.starts_with("**`__ACPP_ENABLE_CUDA_TARGET__`**: defined by AdaptiveCpp"),
            "{h}"
        );
        assert!(
            h.contains("predefined by --acpp-targets=omp;cuda:sm_80;generic"),
            "{h}"
        );
        // Its meaning without a compile.
        let l = parse_target_list("spir64", table);
        assert_eq!(
            macro_hover("__ACPP__", table, &l.targets).as_deref(),
            Some("**`__ACPP__`**: defined when compiling with AdaptiveCpp (`acpp`).\n")
        );
    }

    /// Under AdaptiveCpp the traits are its fixed values, not the targets' (`aspect.hpp`).
    #[test]
    fn hover_an_aspect_under_adaptivecpp() {
        let table = DeviceTable::builtin();
        let l = parse_target_list("amd_gpu_gfx1200", table);
        let text = "sycl::any_device_has_v<sycl::aspect::fp64>";
        let at = text.find("fp64").unwrap();
        let (_, dpcpp) = aspect_hover(text, at, false, table, &l.targets).unwrap();
        assert!(
            dpcpp.contains("`any_device_has_v<aspect::fp64>` = false"),
            "{dpcpp}"
        );
        let (_, acpp) = aspect_hover_under(
            text,
            at,
            false,
            table,
            &l.targets,
            crate::devices::Implementation::AdaptiveCpp,
        )
        .unwrap();
        assert!(
            acpp.contains("`any_device_has_v<aspect::fp64>` = true, `all_devices_have_v<aspect::fp64>` = false (AdaptiveCpp's fixed values"),
            "{acpp}"
        );
        assert!(
            acpp.contains("Under AdaptiveCpp's targets (`amd_gpu_gfx1200`)"),
            "{acpp}"
        );
        let hints =
            crate::ide::inlay_hints::trait_hints_under(text, crate::devices::acpp::trait_sets());
        assert_eq!(hints.len(), 1);
        assert!(hints[0].1.contains("true"), "{hints:?}");
    }
}
