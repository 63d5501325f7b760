//! Typing tests in the style of rust-analyzer's `hir-ty` tests: a small C++ source whose
//! marked expressions carry their expected type as an inline annotation,
//!
//! ```text
//! void f(float x, double d) {
//!   auto y = x * 2.0;
//! //         ^^^^^^^ double
//! }
//! ```
//!
//! The carets of a `//` line mark a byte range of the nearest code line above it (several
//! annotation lines may follow one code line). [`check_types`] runs the real pipeline on the
//! source (`syntax::extract`, `semantic::Decls`, `Index`, `type_function`) and compares the
//! type of each marked expression, rendered by `Ty`'s `Display` (`?` when unknown), with the
//! annotation.
//!
//! The typing keeps per-expression types private to `infer`, so the harness reads them through
//! a probe it can observe from here: the marked text `e` becomes `ty_probe_(e)`, a call of
//! `template <class TyProbeT> TyProbeT&& ty_probe_(TyProbeT&&)` appended to the source, and the
//! template argument the call binds to (`Typed::calls`) is the type of `e`. Deduction strips
//! references, which is the type of an expression in C++ (`*p` is an `int` lvalue, not an
//! `int&`). Each marker is probed in its own copy of the source, so one probe never changes
//! the type of another marked expression. Before that, the harness checks that the marked
//! range is exactly the span of one lowered expression of the unmodified source (or, for a
//! parenthesised range, that of its contents). Beware C++'s own ambiguity: `x * d;` is a
//! declaration to the parser; write `d = x * d;`.
//!
//! In a template, an expression is typed in the generic pattern (parameters stay `T`) and in
//! each concrete instance the source's non-template functions reach (transitively): the
//! actual type then reads `T; <double> double; <float> float` (the pattern's, then each
//! instance's with its arguments, sorted).

mod addresses;
mod aliases;
mod basics;
mod class_deduction;
mod classes;
mod instantiation;
mod library_kernels;
mod lookup;
mod member_types;
mod operators;
mod sycl;
mod templates;

use std::collections::BTreeSet;
use std::fmt::Write;

use super::{type_function, Decls, Index, Instance, Ty};
use crate::syntax::{extract, CallTarget, FileFacts};

const PROBE: &str = "ty_probe_";
const PROBE_PARAM: &str = "TyProbeT";

/// One annotation: the marked byte range and the expected type text.
#[derive(Debug)]
struct Marker {
    start: usize,
    end: usize,
    expected: String,
}

/// The annotations of a source: `//` lines whose first non-space characters after `//` are
/// carets, each marking the columns of its carets in the nearest non-annotation line above.
fn markers(src: &str) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut code_line: Option<usize> = None; // byte offset of the code line's start
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        let annotation = text.trim_start().strip_prefix("//").and_then(|rest| {
            let rest = rest.trim_start();
            rest.starts_with('^').then_some(())
        });
        match (annotation, code_line) {
            (Some(()), Some(code)) => {
                let first = text.find('^').expect("an annotation has a caret");
                let len = text[first..].chars().take_while(|&c| c == '^').count();
                let expected = text[first + len..].trim().to_string();
                assert!(
                    !expected.is_empty(),
                    "an annotation without a type at line {}",
                    line_of(src, offset)
                );
                out.push(Marker {
                    start: code + first,
                    end: code + first + len,
                    expected,
                });
            }
            (Some(()), None) => panic!("an annotation before any code line"),
            (None, _) => code_line = Some(offset),
        }
        offset += line.len();
    }
    out
}

fn line_of(src: &str, at: usize) -> usize {
    src[..at].matches('\n').count() + 1
}

fn col_of(src: &str, at: usize) -> usize {
    at - src[..at].rfind('\n').map_or(0, |n| n + 1) + 1
}

/// The source with its lines numbered, for failure messages.
fn numbered(src: &str) -> String {
    src.lines()
        .enumerate()
        .fold(String::new(), |mut s, (i, l)| {
            let _ = writeln!(s, "{:>4} | {l}", i + 1);
            s
        })
}

/// The rendering of a probe's type: `?` for what typing could not decide.
fn render(t: &Ty) -> String {
    match t {
        Ty::Param(p) if &**p == PROBE_PARAM => "?".to_string(),
        t => t.to_string(),
    }
}

/// Whether some function body of `facts` has an expression spanning exactly `start..end`, or,
/// for a parenthesised range (`(i, d)`), its contents (parentheses are no expression of their
/// own in the lowered body).
fn spans_an_expression(src: &str, facts: &FileFacts, start: usize, end: usize) -> bool {
    let exact = facts
        .functions
        .iter()
        .filter_map(|f| f.body.as_deref())
        .any(|b| {
            b.spans
                .iter()
                .any(|s| s.range().start == start && s.range().end == end)
        });
    exact || {
        let text = &src[start..end];
        text.starts_with('(') && text.ends_with(')') && end - start > 2 && {
            let inner = &text[1..text.len() - 1];
            let lead = inner.len() - inner.trim_start().len();
            let trail = inner.len() - inner.trim_end().len();
            spans_an_expression(src, facts, start + 1 + lead, end - 1 - trail)
        }
    }
}

/// The expression spans overlapping `start..end`, for a message about a range that is none.
fn near(src: &str, facts: &FileFacts, start: usize, end: usize) -> String {
    let mut seen = BTreeSet::new();
    for b in facts.functions.iter().filter_map(|f| f.body.as_deref()) {
        for s in &b.spans {
            let r = s.range();
            if r.start < end && start < r.end {
                seen.insert((r.start, r.end));
            }
        }
    }
    seen.iter()
        .map(|&(s, e)| format!("  {s}..{e} `{}`", &src[s..e]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The type of the probe call at `at` in every typing of the function that holds it: the
/// generic pattern first, then the concrete instances reached, as in the module comment.
fn probed(facts: &FileFacts, at: usize) -> Option<String> {
    let files = vec![facts];
    let sees = vec![vec![0u32]];
    let decls = Decls::new([facts]);
    let ix = Index::new(files, &sees, &decls);
    // Plain typings of every function, then the concrete instances they reach.
    let mut todo: Vec<Instance> = (0..facts.functions.len() as u32)
        .filter(|&i| facts.functions[i as usize].body.is_some())
        .map(|i| Instance::plain(0, i))
        .collect();
    let mut done: BTreeSet<Instance> = todo.iter().cloned().collect();
    let mut found: Vec<(Instance, Ty)> = Vec::new();
    while let Some(inst) = todo.pop() {
        let func = &facts.functions[inst.func as usize];
        let typed = type_function(&ix, &inst);
        for (call, binds) in func.calls.iter().zip(&typed.calls) {
            let Some(binds) = binds else { continue };
            let is_probe = matches!(&call.target, CallTarget::Named { name, .. } if name == PROBE);
            if is_probe && call.span.range().start == at {
                if let Some(t) = binds.first().and_then(|b| b.subst.first()) {
                    found.push((inst.clone(), t.clone()));
                }
                continue;
            }
            for b in binds {
                let callee = &facts.functions[b.func as usize];
                if b.file == 0 && callee.body.is_some() && b.is_concrete() && done.insert(b.clone())
                {
                    todo.push(b.clone());
                }
            }
        }
        // Instances a function's name used as a value makes (`f = run<double>;`).
        for b in typed.named.iter().flat_map(|(_, insts)| insts) {
            let callee = &facts.functions[b.func as usize];
            if b.file == 0 && callee.body.is_some() && b.is_concrete() && done.insert(b.clone()) {
                todo.push(b.clone());
            }
        }
    }
    found.sort_by_key(|(inst, _)| (!inst.subst.is_empty(), render_args(&inst.subst)));
    found.dedup();
    let mut parts = found.iter().map(|(inst, t)| {
        if inst.subst.is_empty() || !inst.is_concrete() {
            render(t)
        } else {
            format!("<{}> {}", render_args(&inst.subst), render(t))
        }
    });
    let first = parts.next()?;
    Some(parts.fold(first, |acc, p| format!("{acc}; {p}")))
}

fn render_args(args: &[Ty]) -> String {
    args.iter().map(render).collect::<Vec<_>>().join(", ")
}

/// Checks every annotation of `src` (see the module comment); panics listing each mismatch
/// with the source, the marked range and text, the expected and the actual type.
#[track_caller]
pub(super) fn check_types(src: &str) {
    let marks = markers(src);
    assert!(!marks.is_empty(), "no annotations in:\n{}", numbered(src));
    let facts = extract(src);
    assert_eq!(
        facts.syntax_errors,
        0,
        "the source does not parse:\n{}",
        numbered(src)
    );
    let mut failures = String::new();
    for m in &marks {
        let (line, col) = (line_of(src, m.start), col_of(src, m.start));
        let text = &src[m.start..m.end];
        let place = format!(
            "{line}:{col}..{line}:{} (bytes {}..{}) `{text}`",
            col + (m.end - m.start),
            m.start,
            m.end
        );
        if !spans_an_expression(src, &facts, m.start, m.end) {
            let _ = writeln!(
                failures,
                "{place}: no expression spans exactly this range; expressions there:\n{}",
                near(src, &facts, m.start, m.end)
            );
            continue;
        }
        let probe_src = format!(
            "{}{PROBE}({text}){}\ntemplate <class {PROBE_PARAM}> {PROBE_PARAM}&& {PROBE}({PROBE_PARAM}&& x);\n",
            &src[..m.start],
            &src[m.end..]
        );
        let probe_facts = extract(&probe_src);
        let actual = probed(&probe_facts, m.start)
            .unwrap_or_else(|| "(not typed: unevaluated or discarded)".to_string());
        if actual != m.expected {
            let _ = writeln!(
                failures,
                "{place}\n    expected: {}\n    actual:   {actual}",
                m.expected
            );
        }
    }
    if !failures.is_empty() {
        panic!(
            "typing mismatches:\n{failures}\nin the source:\n{}",
            numbered(src)
        );
    }
}

mod harness {
    use super::*;

    #[test]
    fn annotations_mark_the_columns_of_the_line_above() {
        let src = "int f(int a) {\n  return a + 1;\n//       ^ int\n//       ^^^^^ int\n}\n";
        let m = markers(src);
        assert_eq!(m.len(), 2);
        assert_eq!(&src[m[0].start..m[0].end], "a");
        assert_eq!(&src[m[1].start..m[1].end], "a + 1");
        assert_eq!(m[1].expected, "int");
    }

    #[test]
    #[should_panic(expected = "expected: float")]
    fn a_wrong_expectation_fails_with_both_types() {
        check_types(
            r#"
void f(double d) {
  d * 2;
//^^^^^ float
}
"#,
        );
    }

    #[test]
    #[should_panic(expected = "no expression spans exactly this range")]
    fn a_range_that_is_no_expression_fails() {
        check_types(
            r#"
void f(double d) {
  d * 2;
//^^^ double
}
"#,
        );
    }
}
