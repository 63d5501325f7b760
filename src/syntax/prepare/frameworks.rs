//! Test cases of frameworks whose macros the preprocessor did not see (Catch2, GoogleTest,
//! doctest headers outside the workspace). After preprocessing, a name at namespace scope is
//! no macro the compile defines, so `NAME(args) { body }` and `NAME(args)(more)({ body })` there
//! can only be a test case: a host function whose body calls, instantiates and launches. Its
//! head is rewritten in place into `NAME() {` (offsets kept), which tree-sitter-cpp reads as a
//! function definition, and recorded: the name the function gets and, for a typed test case
//! (`TEMPLATE_TEST_CASE`, `TYPED_TEST`...), its template parameters and the types that
//! instantiate it. `FOO(x);` changes nothing.

use rustc_hash::FxHashSet;

use super::{blank, matching, skip_ws, split_args};
use crate::syntax::ir::TParam;
use crate::text::TextRange;

/// A test case found: the function definition `prepare` left at `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestCase {
    /// Where the definition starts: the macro's name.
    pub at: usize,
    /// The function's name, unique in the file: `TEST_CASE_12`, gtest's `Suite_Name_Test`.
    pub name: String,
    /// The body's template parameters (`TestType`, `TypeParam`, a `_SIG` list's); none for a
    /// plain test case.
    pub tparams: Vec<TParam>,
    pub instances: Instances,
}

/// What instantiates a typed test case's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instances {
    /// The template arguments of each instance (`double`, `float, 1`), where they are written.
    Each(Vec<(String, TextRange)>),
    /// One instance per template argument of the class the type names (a `std::tuple<...>`,
    /// `::testing::Types<...>`, or an alias of one): known only once it is resolved.
    List(String, TextRange),
}

/// Words that may stand before `(` at namespace scope without being a macro.
const NOT_A_MACRO: [&str; 16] = [
    "static_assert",
    "decltype",
    "alignas",
    "__attribute__",
    "__declspec",
    "asm",
    "__asm__",
    "_Pragma",
    "__pragma",
    "operator",
    "requires",
    "noexcept",
    "typeof",
    "__typeof__",
    "if",
    "sizeof",
];

/// The state of one file's scan.
#[derive(Default)]
pub(super) struct Finder {
    pub(super) cases: Vec<TestCase>,
    /// `TYPED_TEST_SUITE(Suite, Types)`: the suite and its type list.
    suites: Vec<(String, String, TextRange)>,
    names: FxHashSet<String>,
    /// The last offset a line was counted to, and its line.
    line: (usize, usize),
}

impl Finder {
    /// A name at `src[i..end]`, at namespace scope where a declaration may start. When it heads
    /// a test case, rewrites the head in `out` and returns the offset of the body's `{`.
    pub(super) fn at(&mut self, src: &str, out: &mut [u8], i: usize, end: usize) -> Option<usize> {
        let bytes = src.as_bytes();
        let name = &src[i..end];
        if NOT_A_MACRO.contains(&name) {
            return None;
        }
        let mut groups = Vec::new();
        let mut j = skip_ws(bytes, end);
        while bytes.get(j) == Some(&b'(') {
            let close = matching(bytes, j, b'(', b')')?;
            groups.push((j, close));
            j = skip_ws(bytes, close + 1);
        }
        let &(last_open, last_close) = groups.last()?;
        if matches!(name, "TYPED_TEST_SUITE" | "TYPED_TEST_CASE") {
            let args = split_args(src, last_open + 1, last_close);
            if let [(suite, _), (list, r), ..] = args.as_slice() {
                self.suites.push((suite.clone(), list.clone(), *r));
            }
            return None;
        }
        let (body, args_group) = if bytes.get(j) == Some(&b'{') {
            (j, last_open..last_close)
        } else {
            // `NAME(args)({ body })`: the body is the last group, braces and all.
            let open = skip_ws(bytes, last_open + 1);
            let inner_end = bytes[..last_close].trim_ascii_end().len();
            let closes = bytes.get(open) == Some(&b'{')
                && matching(bytes, open, b'{', b'}') == Some(inner_end.checked_sub(1)?);
            if groups.len() < 2 || !closes {
                return None;
            }
            blank(out, last_close, last_close + 1);
            let semi = skip_ws(bytes, last_close + 1);
            if bytes.get(semi) == Some(&b';') {
                blank(out, semi, semi + 1);
            }
            let (o, c) = groups[groups.len() - 2];
            (open, o..c)
        };
        let args = split_args(src, args_group.start + 1, args_group.end);
        let line = self.line_of(bytes, i);
        let (tparams, instances) = self.typed(src, name, &args);
        let name = self.unique(name, &args, line);
        // `NAME(...)(...) {` becomes `NAME() {`.
        let from = groups[0].0 + 1;
        blank(out, from, body);
        if let Some(k) = (from..body).find(|&k| out[k] == b' ') {
            out[k] = b')';
        }
        self.cases.push(TestCase {
            at: i,
            name,
            tparams,
            instances,
        });
        Some(body)
    }

    fn line_of(&mut self, bytes: &[u8], at: usize) -> usize {
        let (from, line) = self.line;
        let line = line + bytes[from..at].iter().filter(|&&b| b == b'\n').count();
        self.line = (at, line);
        line + 1
    }

    /// gtest's class name for `TEST(Suite, Name)` and its kin, else `NAME_LINE`; made unique.
    fn unique(&mut self, name: &str, args: &[(String, TextRange)], line: usize) -> String {
        let ident = |s: &str| !s.is_empty() && s.bytes().all(super::is_ident);
        let base = match args {
            [(suite, _), (test, _)]
                if (name.ends_with("TEST")
                    || name.ends_with("TEST_F")
                    || name.ends_with("TEST_P"))
                    && ident(suite)
                    && ident(test) =>
            {
                format!("{suite}_{test}_Test")
            }
            _ => format!("{name}_{line}"),
        };
        let mut unique = base.clone();
        let mut n = 1;
        while !self.names.insert(unique.clone()) {
            n += 1;
            unique = format!("{base}_{n}");
        }
        unique
    }

    /// The template parameters and instances of a typed test case, by the macro's name
    /// (prefixed spellings included: `CATCH_TEMPLATE_TEST_CASE`, the SYCL-CTS's
    /// `DISABLED_FOR_TEMPLATE_TEST_CASE_SIG`).
    fn typed(
        &self,
        src: &str,
        name: &str,
        args: &[(String, TextRange)],
    ) -> (Vec<TParam>, Instances) {
        let none = (Vec::new(), Instances::Each(Vec::new()));
        let each = |from: usize| -> Vec<(String, TextRange)> {
            args.iter()
                .skip(from)
                .map(|(_, r)| text_of(src, unparen(src, *r)))
                .collect()
        };
        if name.ends_with("TEMPLATE_TEST_CASE_SIG") {
            // `((typename T, int N), T, N), (float, 1), ...`: the first list declares.
            let Some((_, sig)) = args.get(2) else {
                return none;
            };
            let Some((_, decl)) = split_args(src, unparen(src, *sig).start, unparen(src, *sig).end)
                .first()
                .cloned()
            else {
                return none;
            };
            let decl = unparen(src, decl);
            let params = split_args(src, decl.start, decl.end)
                .iter()
                .filter_map(|(p, _)| sig_param(p))
                .collect();
            (params, Instances::Each(each(3)))
        } else if name.ends_with("TEMPLATE_PRODUCT_TEST_CASE") {
            let (Some((_, tmpls)), Some((_, types))) = (args.get(2), args.get(3)) else {
                return none;
            };
            let list = |r: TextRange| {
                let r = unparen(src, r);
                split_args(src, r.start, r.end)
            };
            let mut out = Vec::new();
            for (tmpl, _) in list(*tmpls) {
                for (_, tr) in list(*types) {
                    let (t, at) = text_of(src, unparen(src, tr));
                    out.push((format!("{tmpl}<{t}>"), at));
                }
            }
            (vec![type_param("TestType")], Instances::Each(out))
        } else if name.ends_with("TEMPLATE_LIST_TEST_CASE") {
            let Some((_, list)) = args.get(2) else {
                return none;
            };
            let (t, at) = text_of(src, *list);
            (vec![type_param("TestType")], Instances::List(t, at))
        } else if name.ends_with("TEMPLATE_TEST_CASE") {
            (vec![type_param("TestType")], Instances::Each(each(2)))
        } else if name.ends_with("TEST_CASE_TEMPLATE") {
            // doctest: `TEST_CASE_TEMPLATE(name, T, types...)` names its parameter.
            let Some((param, _)) = args.get(1) else {
                return none;
            };
            (vec![type_param(param)], Instances::Each(each(2)))
        } else if name.ends_with("TYPED_TEST") {
            let list = args.first().and_then(|(suite, _)| {
                self.suites
                    .iter()
                    .rev()
                    .find(|(s, _, _)| s == suite)
                    .map(|(_, l, r)| Instances::List(l.clone(), *r))
            });
            (
                vec![type_param("TypeParam")],
                list.unwrap_or(Instances::Each(Vec::new())),
            )
        } else {
            none
        }
    }
}

fn type_param(name: &str) -> TParam {
    TParam {
        name: name.to_string(),
        is_type: true,
        default: None,
        pack: false,
        constraint: None,
    }
}

/// `typename T`, `class T`, `int N`, `sycl::aspect A`.
fn sig_param(p: &str) -> Option<TParam> {
    let name_at = p.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))? + 1;
    let (kind, name) = (p[..name_at].trim(), &p[name_at..]);
    (!name.is_empty() && !kind.is_empty()).then(|| TParam {
        is_type: kind.starts_with("typename") || kind.starts_with("class"),
        pack: kind.ends_with("..."),
        ..type_param(name)
    })
}

/// The range inside one pair of parentheses around `r`, else `r`.
fn unparen(src: &str, r: TextRange) -> TextRange {
    let bytes = src.as_bytes();
    if bytes.get(r.start) == Some(&b'(')
        && r.end > r.start + 1
        && matching(bytes, r.start, b'(', b')') == Some(r.end - 1)
    {
        TextRange::new(r.start + 1, r.end - 1)
    } else {
        r
    }
}

/// The text at `r` with its whitespace runs made single spaces (an argument list spread over
/// lines), and `r` itself.
fn text_of(src: &str, r: TextRange) -> (String, TextRange) {
    let t = src.get(r.start..r.end).unwrap_or_default();
    (t.split_whitespace().collect::<Vec<_>>().join(" "), r)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    #[test]
    fn heads_become_function_definitions_in_place() {
        let src = "TEST_CASE(\"a\", \"[x]\") { f(); }\nns_macro(x);\nDISABLED_FOR_TEST_CASE(X)(\"b\", \"[y]\")({ g(); });\nint h();\n";
        let p = prepare(src);
        assert_eq!(p.text.len(), src.len());
        assert_eq!(
            p.text,
            "TEST_CASE()           { f(); }\nns_macro(x);\nDISABLED_FOR_TEST_CASE()              { g(); }  \nint h();\n"
        );
        let names: Vec<&str> = p.test_cases.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["TEST_CASE_1", "DISABLED_FOR_TEST_CASE_3"]);
        assert_eq!(p.test_cases[1].at, src.find("DISABLED").unwrap());
    }

    #[test]
    fn only_at_namespace_scope_after_a_declaration() {
        for src in [
            "struct S { S(int x) { } };",
            "void f() { CHECK(x) { } }",
            "int a = b; FOO(x) BAR(y) { }",
            "x = FOO(y) { };",
        ] {
            assert!(prepare(src).test_cases.is_empty(), "{src}");
        }
        let p = prepare("namespace a::b { extern \"C\" { TEST(S, N) { } } }");
        assert_eq!(p.test_cases[0].name, "S_N_Test");
    }

    #[test]
    fn typed_test_cases_list_their_instances() {
        let p = prepare(
            "TEMPLATE_TEST_CASE_SIG(\"s\", \"\", ((typename T, int N), T, N), (float, 1), (double,\n 2)) {}\nTYPED_TEST_SUITE(S, L);\nTYPED_TEST(S, N) {}",
        );
        let sig = &p.test_cases[0];
        let params: Vec<(&str, bool)> = sig
            .tparams
            .iter()
            .map(|t| (t.name.as_str(), t.is_type))
            .collect();
        assert_eq!(params, [("T", true), ("N", false)]);
        let Instances::Each(each) = &sig.instances else {
            panic!("{sig:?}")
        };
        let args: Vec<&str> = each.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(args, ["float, 1", "double, 2"]);
        assert!(matches!(&p.test_cases[1].instances, Instances::List(l, _) if l == "L"));
        assert_eq!(p.test_cases[1].tparams[0].name, "TypeParam");
    }
}
