//! Fixes (code actions) as byte-range edits: add an aspect to a `device_has` list, make a double
//! literal a float one.

use crate::text::TextRange;

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
mod tests {
    use super::*;

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

    /// The text with the fix's edits made (one file, edits not overlapping).
    fn apply(text: &str, fix: &Fix) -> String {
        let mut out = text.to_string();
        let mut edits: Vec<&Edit> = fix.edits.iter().collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
        for e in edits {
            out.replace_range(e.range.start..e.range.end, &e.text);
        }
        out
    }

    /// `add_aspect` with `at` the fixture's `$0`; the fixed text.
    fn add_at(fixture: &str, aspect: &str) -> Option<String> {
        let (text, at) = crate::ide::cursor(fixture);
        let fix = add_aspect(&text, "a.cpp", at, aspect)?;
        assert_eq!(fix.title, format!("Add '{aspect}' to the device_has list"));
        assert!(fix.edits.iter().all(|e| e.file == "a.cpp"));
        Some(apply(&text, &fix))
    }

    #[test]
    fn add_aspect_at_the_cursor() {
        // The attribute on the line above.
        assert_eq!(
            add_at("[[sycl::device_has()]]\nvoid $0f() {}", "fp64").as_deref(),
            Some("[[sycl::device_has(sycl::aspect::fp64)]]\nvoid f() {}")
        );
        // The nearest list before the cursor, not an earlier function's.
        assert_eq!(
            add_at(
                "[[sycl::device_has(sycl::aspect::gpu)]] void f();\n[[sycl::device_has(sycl::aspect::cpu)]] void $0g();",
                "fp16"
            )
            .as_deref(),
            Some("[[sycl::device_has(sycl::aspect::gpu)]] void f();\n[[sycl::device_has(sycl::aspect::cpu, sycl::aspect::fp16)]] void g();")
        );
        // The property's template form ends at `>`.
        assert_eq!(
            add_at(
                "auto p = properties{device_has<sycl::aspect::gpu>};\nq.single_task(p, [=]$0() {});",
                "fp64"
            )
            .as_deref(),
            Some("auto p = properties{device_has<sycl::aspect::gpu, sycl::aspect::fp64>};\nq.single_task(p, [=]() {});")
        );
        // No list, or one more than four lines above: no fix.
        assert_eq!(add_at("void $0f() {}", "fp64"), None);
        assert_eq!(
            add_at("[[sycl::device_has()]]\n\n\n\n\nvoid $0f() {}", "fp64"),
            None
        );
    }

    #[test]
    fn float_suffix_on_a_literal() {
        let text = "float y = x * 0.5;";
        let at = text.find("0.5").unwrap();
        let fix = float_suffix(text, "k.cpp", TextRange::new(at, at + 3)).unwrap();
        assert_eq!(
            fix.title,
            "Write 0.5f: a float literal keeps the arithmetic in float"
        );
        assert_eq!(fix.edits[0].file, "k.cpp");
        assert_eq!(apply(text, &fix), "float y = x * 0.5f;");
        // A long double stays one.
        let text = "y = x * 0.5L;";
        let at = text.find("0.5L").unwrap();
        assert_eq!(
            float_suffix(text, "k.cpp", TextRange::new(at, at + 4)),
            None
        );
        // A range out of the text: none.
        assert_eq!(float_suffix(text, "k.cpp", TextRange::new(10, 40)), None);
    }
}
