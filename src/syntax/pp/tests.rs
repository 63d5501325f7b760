use std::sync::Arc;

use super::*;
use crate::text::TextRange;

struct Files(Vec<(&'static str, &'static str)>);

impl Includes for Files {
    fn resolve(&self, _: &str, spelled: &str, _: bool) -> Option<Arc<Source>> {
        self.0
            .iter()
            .find(|(p, _)| *p == spelled)
            .map(|(p, t)| Arc::new(Source::new(Arc::from(*p), Arc::from(*t))))
    }
}

fn base(defs: &[(&str, &str)]) -> Macros {
    let defs: Vec<(String, Option<String>, Origin)> = defs
        .iter()
        .map(|(n, v)| (n.to_string(), Some(v.to_string()), Origin::CommandLine))
        .collect();
    Macros::new(Arc::new(Macros::table(&defs)))
}

fn pp(src: &str, defs: &[(&str, &str)]) -> Preprocessed {
    preprocess(src, "t.cpp", &mut base(defs), &NoIncludes)
}

/// The text without whitespace, for comparing expansions.
fn compact(s: &str) -> String {
    s.split_whitespace().collect()
}

/// The preprocessed text with runs of whitespace squeezed, for comparing.
fn squeezed(p: &Preprocessed) -> String {
    p.text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn conditionals_choose_the_compiled_group() {
    let src = "#ifdef USE_SP\ntypedef float real;\n#else\ntypedef double real;\n#endif\n";
    assert_eq!(squeezed(&pp(src, &[])), "typedef double real;");
    assert_eq!(
        squeezed(&pp(src, &[("USE_SP", "1")])),
        "typedef float real;"
    );
    let src = "#if A > 2 && defined(B)\na\n#elif A == 2 || !defined B\nb\n#else\nc\n#endif\n";
    assert_eq!(squeezed(&pp(src, &[("A", "3"), ("B", "")])), "a");
    assert_eq!(squeezed(&pp(src, &[("A", "2"), ("B", "")])), "b");
    assert_eq!(squeezed(&pp(src, &[("A", "1"), ("B", "")])), "c");
    assert_eq!(squeezed(&pp(src, &[])), "b");
}

#[test]
fn offsets_and_lines_stay_outside_expansions() {
    let src = "#if 0\nint a;\n#endif\nint b;\n";
    let p = pp(src, &[]);
    assert_eq!(p.text.len(), src.len());
    assert_eq!(p.text.find("int b"), src.find("int b"));
    assert_eq!(p.inactive, [TextRange::new(6, 13)]);
    assert!(p.map.is_identity());
}

#[test]
fn object_and_function_like_macros_expand_and_map_back() {
    let src = "#define P double\n#define SQ(x) ((x) * (x))\nP f(P a) { return SQ(a + 1); }\n";
    let p = pp(src, &[]);
    assert_eq!(
        compact(&p.text),
        compact("double f(double a) { return ((a + 1) * (a + 1)); }")
    );
    // The second `double` maps to the second `P`, the product to the whole `SQ(a + 1)`.
    let second = p.text.rfind("double").unwrap();
    let r = p.map.to_source(TextRange::new(second, second + 6));
    assert_eq!(&src[r.start..r.end], "P");
    assert_eq!(r.start, src.find("P a").unwrap());
    let star = p.text.find('*').unwrap();
    let r = p.map.to_source(TextRange::new(star, star + 1));
    assert_eq!(&src[r.start..r.end], "SQ(a + 1)");
    // Text after an expansion maps by the shift.
    let ret = p.text.find("return").unwrap();
    let r = p.map.to_source(TextRange::new(ret, ret + 6));
    assert_eq!(&src[r.start..r.end], "return");
    assert_eq!(p.expansions.len(), 3);
    assert_eq!(&*p.expansions[2].name, "SQ");
}

#[test]
fn stringize_paste_variadics_and_recursion() {
    let src = "#define S(x) #x\n#define CAT(a, b) a##b\n#define V(fmt, ...) f(fmt, ##__VA_ARGS__)\n#define O(...) g(0 __VA_OPT__(,) __VA_ARGS__)\n#define foo foo + 1\n#define F(x) G\n#define G(y) y * 2\nS(a \"b\") CAT(x, 1) V(1) V(1, 2, 3) O() O(4) foo F(0)(5)\n";
    let p = pp(src, &[]);
    let want = r#""a \"b\"" x1 f(1) f(1, 2, 3) g(0) g(0, 4) foo + 1 5 * 2"#;
    assert_eq!(compact(&p.text), compact(want));
    // The stringized literal keeps its inner space.
    assert!(p.text.contains(r#""a \"b\"""#));
}

#[test]
fn a_function_like_name_without_arguments_stays() {
    let p = pp("#define min(a, b) a\nint x = std::min;\n", &[]);
    assert!(p.text.contains("std::min;"));
    assert!(p.expansions.is_empty());
}

#[test]
fn headers_bring_their_macros_and_guards_work() {
    let files = Files(vec![
        (
            "types.h",
            "#ifndef TYPES_H\n#define TYPES_H\n#include \"inner.h\"\n#define Real REAL_T\n#endif\n",
        ),
        ("inner.h", "#pragma once\n#define REAL_T double\n"),
    ]);
    let src = "#include \"types.h\"\n#include \"types.h\"\n#include <sycl/sycl.hpp>\nReal x;\n";
    let p = preprocess(src, "a.cpp", &mut base(&[]), &files);
    assert!(p.text.contains("double x;"));
    assert!(p.text.contains("#include \"types.h\""));
    assert_eq!(p.deps.len(), 2);
    let r = p.map.to_source(TextRange::new(
        p.text.find("double").unwrap(),
        p.text.find(" x;").unwrap(),
    ));
    assert_eq!(&src[r.start..r.end], "Real");
}

#[test]
fn has_include_answers_for_workspace_and_system_headers() {
    let files = Files(vec![("here.h", "")]);
    let src = "#if __has_include(\"here.h\") && __has_include(<sycl/sycl.hpp>) && !__has_include(\"gone.h\") && !__has_builtin(__builtin_foo)\nyes\n#endif\n";
    let p = preprocess(src, "a.cpp", &mut base(&[]), &files);
    assert_eq!(squeezed(&p), "yes");
    // Reached through a macro (oneDPL's `#define HAVE_SYCL (__has_include(<sycl/sycl.hpp>))`).
    let src = "#define HAVE_SYCL (__has_include(<sycl/sycl.hpp>))\n#define HAVE(h) __has_include(h)\n#if HAVE_SYCL && HAVE(\"here.h\") && !HAVE(\"gone.h\")\nyes\n#endif\n";
    let p = preprocess(src, "a.cpp", &mut base(&[]), &files);
    assert_eq!(squeezed(&p), "yes");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
}

#[test]
fn errors_are_reported_and_the_group_is_skipped() {
    let p = pp("#if 1 +\na\n#endif\n#if 1.5\nb\n#endif\n#if 1/0\nc\n#endif\n#if 0 && 1/0\nd\n#endif\n#endif\n#if 1\n", &[]);
    assert_eq!(squeezed(&p), "");
    let messages: Vec<&str> = p.errors.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(messages.len(), 5, "{messages:?}");
    assert!(messages[1].contains("floating"));
    assert!(messages[2].contains("division by zero"));
    assert!(messages[3].contains("#endif without #if"));
    assert!(messages[4].contains("unterminated"));
}

#[test]
fn arithmetic_follows_the_c_rules() {
    for (cond, want) in [
        ("-1 < 0", true),
        ("-1 < 0u", false),
        ("0x10 == 16 && 010 == 8 && 0b11 == 3 && 1'000 == 1000", true),
        ("(1 ? -1 : 0u) > 0", true),
        ("'A' == 65 && '\\n' == 10", true),
        ("UNKNOWN == 0 && true && !false", true),
        ("(2 || 1/0) && (0 && 1/0) == 0", true),
        (
            "1 << 3 == 8 && -8 >> 1 == -4 && 7 % 4 == 3 && -7 / 2 == -3",
            true,
        ),
        ("18446744073709551615 == -1", true),
        ("(1, 0)", false),
    ] {
        let p = pp(&format!("#if {cond}\nyes\n#endif\n"), &[]);
        assert_eq!(p.text.contains("yes"), want, "{cond}: {:?}", p.errors);
        assert!(p.errors.is_empty(), "{cond}: {:?}", p.errors);
    }
}

#[test]
fn directives_in_comments_and_strings_are_not_directives() {
    let src = "/*\n#define X 1\n*/\nconst char* s = \"\\\n#define Y 1\";\n#if defined(X) || defined(Y)\nbad\n#endif\n";
    assert!(!pp(src, &[]).text.contains("bad"));
}

#[test]
fn macros_at_a_point_of_an_includer() {
    let src = Source::new(
        Arc::from("main.cpp"),
        Arc::from("#define Real double\n#include \"k.h\"\n#undef Real\n"),
    );
    let mut m = base(&[]);
    macros_at(
        &src,
        src.text.find("#include").unwrap(),
        &mut m,
        &NoIncludes,
    );
    assert_eq!(m.get("Real").unwrap().replacement(), "double");
}

#[test]
fn runaway_expansions_stop() {
    let mut src = String::from("#define A0 x x\n");
    for k in 1..40 {
        src.push_str(&format!("#define A{k} A{} A{}\n", k - 1, k - 1));
    }
    src.push_str("A39\n");
    let p = pp(&src, &[]);
    assert!(p.text.len() < 1 << 21);
    assert!(p.errors.iter().any(|(_, m)| m.contains("too large")));
}

#[test]
fn an_include_inside_a_function_is_compiled_there() {
    let files = Files(vec![
        (
            "constants.h",
            "#pragma once\n#define SCALE 2\nconst double k = SCALE * 0.5;\n",
        ),
        ("decls.h", "#define TOP 1\nint top();\n"),
    ]);
    let src = "#include \"decls.h\"\nvoid f(float* p) {\n  #include \"constants.h\"\n  p[0] = k * TOP;\n}\n";
    let out = preprocess(src, "t.cpp", &mut base(&[]), &files);
    // At namespace scope the include stays for the parser (its header is a file of its own).
    assert!(out.text.starts_with("#include \"decls.h\""), "{}", out.text);
    let at = out.text.find("const double k = 2 * 0.5;").expect("spliced");
    let inc = src.find("#include \"constants.h\"").unwrap();
    let mapped = out.map.to_source(TextRange::new(at + 6, at + 12));
    assert_eq!(
        mapped.start, inc,
        "a use in the header points at the include"
    );
    assert!(out.text.contains("p[0] = k * 1;"), "{}", out.text);
    assert_eq!(out.deps.len(), 2);
    assert!(out
        .expansions
        .iter()
        .any(|e| &*e.name == "#include \"constants.h\""));
}

#[test]
fn line_in_code_is_the_line_number() {
    let p = pp("int a;\nint b = __LINE__;\n", &[]);
    assert_eq!(squeezed(&p), "int a; int b = 2;");
}

#[test]
fn comma_paste_keeps_the_comma_unless_the_variable_arguments_are_left_out() {
    let src = "#define F(a, ...) f(a, ## __VA_ARGS__)\n#define G(...) g(0, ## __VA_ARGS__)\nF(1) F(1,) F(1, F(2)) F(1, x, y) G()\n";
    // `F(1,)` passes empty variable arguments: the comma stays (GCC and clang). With
    // arguments nothing is pasted, and they go in unexpanded (`F` inside stays).
    assert_eq!(
        compact(&pp(src, &[]).text),
        compact("f(1) f(1,) f(1, F(2)) f(1, x, y) g(0)")
    );
}

#[test]
fn stringized_variable_arguments_keep_the_spacing_around_commas() {
    let src = "#define S(...) #__VA_ARGS__\nS(1 ,2 , 3) S(a,b)\n";
    let p = pp(src, &[]);
    assert!(p.text.contains(r#""1 ,2 , 3" "a,b""#), "{}", p.text);
}

#[test]
fn va_opt_looks_at_the_expanded_variable_arguments() {
    let src = "#define E\n#define F(...) f(0 __VA_OPT__(, 1))\nF() F(E) F(x)\n";
    assert_eq!(compact(&pp(src, &[]).text), compact("f(0) f(0) f(0, 1)"));
}

#[test]
fn alternative_operator_spellings_in_if() {
    let src = "#if A and not B or (A bitand 2) not_eq 0\nyes\n#else\nno\n#endif\n";
    assert_eq!(squeezed(&pp(src, &[("A", "1")])), "yes");
    assert_eq!(squeezed(&pp(src, &[("A", "1"), ("B", "1")])), "no");
}

/// Headers through a memo, as a workspace reads them.
struct Remembered(Files, memo::HeaderMemo);

impl Includes for Remembered {
    fn resolve(&self, from: &str, spelled: &str, angled: bool) -> Option<Arc<Source>> {
        self.0.resolve(from, spelled, angled)
    }
    fn memo(&self, header: &Source) -> Option<(&memo::HeaderMemo, u64)> {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        header.path.hash(&mut h);
        Some((&self.1, h.finish()))
    }
}

#[test]
fn a_remembered_header_reading_is_replayed_only_where_it_read_the_same() {
    let files = Remembered(
        Files(vec![
            (
                "cfg.h",
                "#ifndef CFG_H\n#define CFG_H\n#include \"once.h\"\n#ifdef USE_DOUBLE\n#define REAL double\n#else\n#define REAL float\n#endif\n#undef TMP\n#endif\n",
            ),
            ("once.h", "#pragma once\n#define ONCE_COUNT (ONCE_COUNT + 1)\n"),
        ]),
        memo::HeaderMemo::default(),
    );
    let run = |src: &str, defs: &[(&str, &str)]| -> Macros {
        let mut m = base(defs);
        m.define(
            Arc::from("TMP"),
            parse_define("TMP 1", Origin::CommandLine).unwrap().1,
        );
        preprocess(src, "t.cpp", &mut m, &files);
        m
    };
    let value = |m: &Macros, n: &str| m.get(n).map(|m| m.replacement());
    let src = "#include \"cfg.h\"\n";
    for _ in 0..2 {
        let a = run(src, &[("USE_DOUBLE", "1")]);
        assert_eq!(value(&a, "REAL").as_deref(), Some("double"));
        assert_eq!(value(&a, "TMP"), None, "the header's #undef replays");
        assert!(a.get("ONCE_COUNT").is_some());
        let b = run(src, &[]);
        assert_eq!(value(&b, "REAL").as_deref(), Some("float"));
    }
    // Included again in the same file: the guard holds, nothing changes.
    let c = run("#include \"cfg.h\"\n#undef REAL\n#include \"cfg.h\"\n", &[]);
    assert_eq!(value(&c, "REAL"), None);
    // `once.h` already read before `cfg.h`: the remembered reading (which read it) does not
    // apply; its own #pragma once state decides.
    let d = run(
        "#include \"once.h\"\n#undef ONCE_COUNT\n#include \"cfg.h\"\n",
        &[],
    );
    assert_eq!(value(&d, "ONCE_COUNT"), None);
    assert_eq!(value(&d, "REAL").as_deref(), Some("float"));
}

#[test]
fn directives_inside_macro_arguments_are_applied_and_the_use_expanded() {
    // Catch2's `TEST_CASE("...", TYPES...) { ... }` with `#if` lines among the arguments:
    // GCC and clang apply the directives while collecting the arguments.
    let src = "#define ON 1\n#define LIST(a, b) a; b;\nLIST(int x,\n#if ON\n  float y\n#else\n  double y\n#endif\n) int z;\n";
    let p = pp(src, &[]);
    assert_eq!(squeezed(&p), "int x; float y; int z;");
    // Text of an argument maps to itself; the body's (`;`) to the use, from its name to its
    // closing parenthesis.
    let y = p.text.find("float").unwrap();
    let r = p.map.to_source(TextRange::new(y, y + 7));
    assert_eq!(&src[r.start..r.end], "float y");
    let semi = p.text.find(';').unwrap();
    let r = p.map.to_source(TextRange::new(semi, semi + 1));
    assert_eq!(r.start, src.find("LIST(int").unwrap());
    assert_eq!(r.end, src.find(" int z").unwrap());
    let z = p.text.find("int z").unwrap();
    let r = p.map.to_source(TextRange::new(z, z + 5));
    assert_eq!(&src[r.start..r.end], "int z");
    // The skipped group is still skipped code.
    let dbl = src.find("  double").unwrap();
    assert!(p.inactive.iter().any(|r| r.start <= dbl && dbl < r.end));
    // A variadic body with a directive first, as in `RUN(name, #if ... #endif code)`.
    let src = "#define RUN(N, ...) void N() { __VA_ARGS__ }\nRUN(f,\n#ifdef NOPE\n  int a;\n#endif\n  double b = 2.0;\n)\nint after;\n";
    let p = pp(src, &[]);
    assert_eq!(squeezed(&p), "void f() { double b = 2.0; } int after;");
    // Never closed: the text stays as written, the directives blanked.
    let src = "#define F(a) a\nF(1,\n#if 1\n2\n#endif\n";
    let p = pp(src, &[]);
    assert_eq!(squeezed(&p), "F(1, 2");
    assert_eq!(p.text.len(), src.len());
}

#[test]
fn argument_text_maps_to_itself_and_body_text_to_the_use() {
    let src = "#define TWICE(a, b) a; b\n#define ATTR [[nodiscard]]\nTWICE(f([=] { x * 2; }),\n      g(y));\nATTR int h();\n";
    let p = pp(src, &[]);
    // Arguments are copied as written; the body's `[[` stays one attribute opener.
    assert!(p.text.contains("f([=] { x * 2; })"), "{}", p.text);
    assert!(p.text.contains("[[nodiscard]]"), "{}", p.text);
    let map = |needle: &str| {
        let at = p.text.find(needle).unwrap();
        p.map.to_source(TextRange::new(at, at + needle.len()))
    };
    for own in ["[=]", "x * 2", "g(y)"] {
        let r = map(own);
        assert_eq!(&src[r.start..r.end], own);
    }
    // The body's `;` maps to the use; a range from an argument into the body is the use.
    let used = TextRange::new(src.find("TWICE(f").unwrap(), src.find(";\nATTR").unwrap());
    let semi = p.text.find("; g").unwrap();
    assert_eq!(p.map.to_source(TextRange::new(semi, semi + 1)), used);
    assert_eq!(map("f([=] { x * 2; });"), used);
    // Text after the expansion keeps its place.
    let r = map("int h");
    assert_eq!(&src[r.start..r.end], "int h");
}
