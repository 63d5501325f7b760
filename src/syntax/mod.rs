//! The C++ front end: source text in, [`FileFacts`] out. Parsing never fails: tree-sitter
//! recovers from errors and the extractor reads around them. Knows nothing of devices beyond
//! aspect names, nor of any protocol.

mod extract;
pub mod facts;
pub mod ir;
mod literal;
mod lower;
mod name;
pub mod pp;
pub mod prepare;
mod splice;
mod tree;
pub use splice::spliced;

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// Defined beside the text positions; named here too, as every fact carries one.
pub use crate::text::Span;
pub use facts::*;
pub use ir::*;
pub use name::Name;
pub use tree::{Positions, Starts};

/// File extensions read as C++.
pub const CPP_EXTENSIONS: [&str; 11] = [
    "cpp", "cc", "cxx", "c++", "hpp", "h", "hh", "hxx", "inl", "ipp", "tpp",
];

thread_local! {
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new({
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_cpp::LANGUAGE.into())
            .expect("tree-sitter-cpp matches the tree-sitter version");
        p
    });
}

/// What the preprocessor starts a file from.
pub struct Context<'a> {
    pub path: &'a str,
    pub macros: pp::Macros,
    pub includes: &'a dyn pp::Includes,
}

impl Context<'_> {
    /// A file on its own: no macros but its own, no headers.
    pub fn alone() -> Context<'static> {
        Context {
            path: "",
            macros: pp::Macros::default(),
            includes: &pp::NoIncludes,
        }
    }
}

/// Extracts the facts of one C++ text.
pub fn extract(text: &str) -> FileFacts {
    extract_within(text, None).unwrap_or_default()
}

/// How long one file may take to parse before it is given up: tree-sitter is linear on real
/// code, so only a pathological file gets there (a legitimate 8 MB file takes about 3 s here).
/// `SYCL_ANALYZER_PARSE_BUDGET_MS` overrides it.
pub fn parse_budget() -> Duration {
    std::env::var("SYCL_ANALYZER_PARSE_BUDGET_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(20), Duration::from_millis)
}

/// Like [`extract`], giving up with the reason when parsing takes longer than `budget`.
pub fn extract_within(text: &str, budget: Option<Duration>) -> Result<FileFacts, String> {
    extract_in(text, Context::alone(), budget)
}

/// Extracts the facts of the code the compiler would compile: preprocessed from `cx`.
pub fn extract_in(
    text: &str,
    mut cx: Context,
    budget: Option<Duration>,
) -> Result<FileFacts, String> {
    let pre = pp::preprocess(text, cx.path, &mut cx.macros, cx.includes);
    let mut facts = extract_preprocessed(text, pre, budget)?;
    facts.preprocessor.target_dependent = cx.macros.read_watched();
    Ok(facts)
}

/// The last syntax tree of each open document, so that an edit re-parses incrementally:
/// tree-sitter reuses every subtree the edit did not touch. The edit is found by comparing the
/// parsed texts (preprocessed and prepared, not the document's) by common prefix and suffix, so
/// it is right whatever the preprocessor did with the document's change.
#[derive(Default)]
pub struct Trees {
    inner: Mutex<TreesInner>,
}

#[derive(Default)]
struct TreesInner {
    /// The documents whose trees are kept (the open ones); others are parsed from scratch.
    open: FxHashSet<Arc<str>>,
    trees: FxHashMap<Arc<str>, Kept>,
}

/// An open document's last parse: the parsed text, its tree, and what its extraction left.
struct Kept {
    text: String,
    tree: tree_sitter::Tree,
    last: Option<splice::Last>,
    /// Parsed with keyword casts capitalised (`Prepared::parse_text`): the edit between two
    /// texts is not the edit between the bytes parsed, so the tree is not reused.
    masked: bool,
}

impl Trees {
    /// Keeps trees for these documents only, dropping those of documents closed since.
    pub fn set_open(&self, open: impl IntoIterator<Item = Arc<str>>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.open = open.into_iter().collect();
        let TreesInner { open, trees } = &mut *inner;
        trees.retain(|path, _| open.contains(path));
    }

    /// The kept tree of `path`, taken out (a parse that fails leaves none), if it is open.
    fn take(&self, path: &str) -> Option<Option<Kept>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.open.contains(path).then(|| inner.trees.remove(path))
    }

    fn put(&self, path: &Arc<str>, kept: Kept) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.open.contains(path) {
            inner.trees.insert(path.clone(), kept);
        }
    }

    /// How many trees are kept.
    pub fn len(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.trees.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The edit that turns `old` into `new`: the span between their common prefix and suffix.
fn input_edit(old: &str, new: &str) -> tree_sitter::InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let point = |text: &[u8], at: usize| {
        let before = &text[..at];
        let row = before.iter().filter(|&&c| c == b'\n').count();
        let column = at
            - before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
        tree_sitter::Point { row, column }
    };
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position: point(a, prefix),
        old_end_position: point(a, a.len() - suffix),
        new_end_position: point(b, b.len() - suffix),
    }
}

/// Extracts the facts of `text` (a file's real text) compiled as `pre`.
pub fn extract_preprocessed(
    text: &str,
    pre: pp::Preprocessed,
    budget: Option<Duration>,
) -> Result<FileFacts, String> {
    extract_preprocessed_with(text, pre, budget, None)
}

/// Like [`extract_preprocessed`], re-parsing from the tree `trees` keeps for `path`, and
/// keeping the new one there, when `path` is an open document.
pub fn extract_preprocessed_with(
    text: &str,
    pre: pp::Preprocessed,
    budget: Option<Duration>,
    trees: Option<(&Trees, &Arc<str>)>,
) -> Result<FileFacts, String> {
    let prepared = prepare::prepare(&pre.text);
    let positions = Positions { map: &pre.map };
    let start = Instant::now();
    let parse_text = prepared.parse_text();
    let bytes: &[u8] = &parse_text;
    let masked = !prepared.keyword_casts.is_empty();
    let kept = trees
        .and_then(|(t, path)| t.take(path))
        .flatten()
        .filter(|k| !k.masked && !masked);
    // The edit, and the document as it was before it, for re-extracting one function.
    let mut before = None;
    let old_tree = kept.map(|k| {
        let mut tree = k.tree.clone();
        if k.text != prepared.text {
            let edit = input_edit(&k.text, &prepared.text);
            tree.edit(&edit);
            before = Some((k, edit));
        }
        tree
    });
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        let mut input = |at: usize, _: tree_sitter::Point| bytes.get(at..).unwrap_or_default();
        let mut over = |_: &tree_sitter::ParseState| {
            if budget.is_some_and(|b| start.elapsed() > b) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut over);
        match parser.parse_with_options(&mut input, old_tree.as_ref(), Some(options)) {
            Some(tree) => {
                let spliced = before.as_ref().and_then(|(k, edit)| {
                    let last = k.last.as_ref()?;
                    splice::splice(last, (&k.text, &k.tree), edit, &tree, &prepared, &pre.map)
                });
                tracing::trace!(
                    spliced = spliced.is_some(),
                    kept = before.is_some(),
                    elapsed = ?start.elapsed(),
                    "extraction"
                );
                let (mut facts, starts) = spliced.unwrap_or_else(|| {
                    let (mut facts, starts) =
                        extract::Extractor::run(&prepared, &positions, tree.root_node());
                    lower::attach(
                        &prepared.text,
                        &positions,
                        &starts,
                        tree.root_node(),
                        &mut facts,
                    );
                    (facts, starts)
                });
                if let Some((t, path)) = trees {
                    facts.shrink_to_fit();
                    let last = splice::Last {
                        facts: facts.clone(),
                        starts,
                        map: pre.map.clone(),
                    };
                    t.put(
                        path,
                        Kept {
                            text: prepared.text.clone(),
                            tree: tree.clone(),
                            last: Some(last),
                            masked,
                        },
                    );
                }
                facts.preprocessor = PpFacts {
                    inactive: pre.inactive,
                    expansions: pre
                        .expansions
                        .into_iter()
                        .map(|e| (e.range, e.name.to_string()))
                        .collect(),
                    errors: pre.errors,
                    deps: pre.deps.iter().map(|d| d.to_string()).collect(),
                    spliced: pre.spliced.iter().map(|d| d.to_string()).collect(),
                    directives: pre.directives,
                    ..PpFacts::default()
                };
                facts.lines = crate::text::Lines::new(text);
                facts.shrink_to_fit();
                Ok(facts)
            }
            None => {
                parser.reset();
                Err(format!(
                    "skipped: parsing took over the {} ms budget for one file",
                    budget.unwrap_or_default().as_millis()
                ))
            }
        }
    })
}

pub use extract::{aspect_ref, normalize};

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_with(text: &str, trees: Option<(&Trees, &Arc<str>)>) -> FileFacts {
        let mut cx = Context::alone();
        let pre = pp::preprocess(text, cx.path, &mut cx.macros, cx.includes);
        extract_preprocessed_with(text, pre, None, trees).unwrap()
    }

    /// Re-parsing an open document from its last tree gives the facts of a parse from scratch,
    /// edit after edit: random insertions and deletions, many of which break the syntax or
    /// open and close `#if` groups and comments.
    #[test]
    fn incremental_reparse_equals_a_fresh_parse() {
        let trees = Trees::default();
        let path: Arc<str> = Arc::from("/w/main.cpp");
        trees.set_open([path.clone()]);
        let mut text = include_str!("../../examples/vector-math/src/main.cpp").to_string();
        let snippets = [
            "double ",
            "0.5",
            "{",
            "}",
            ";",
            "\n",
            "#if 0\n",
            "#endif\n",
            "x",
            "/*",
            "*/",
            "\"",
            "sycl::half h = 1;",
            "[[sycl::device_has(sycl::aspect::fp64)]]",
            "#define D double\n",
            "D d;",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n.max(1)
        };
        assert_eq!(
            facts_with(&text, Some((&trees, &path))),
            facts_with(&text, None)
        );
        for step in 0..150 {
            let mut at = next(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + next(9)).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.replace_range(at..end, snippets[next(snippets.len())]);
            let incremental = facts_with(&text, Some((&trees, &path)));
            assert_eq!(trees.len(), 1, "the tree is kept");
            assert!(
                incremental == facts_with(&text, None),
                "step {step}:\n{text}"
            );
        }
        trees.set_open([]);
        assert!(trees.is_empty(), "a closed document's tree is dropped");
    }

    /// A seeded generator of indices below `n` (the same edits every run).
    fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n.max(1)
        }
    }

    /// Edits inside one function re-extract that function alone and splice it in: the facts
    /// equal a fresh extraction's edit after edit (spans after it moved, lambda indices
    /// renumbered, attributes and macros kept), and most edits take that path.
    #[test]
    fn spliced_extraction_equals_a_fresh_one() {
        let trees = Trees::default();
        let path: Arc<str> = Arc::from("/w/splice.cpp");
        trees.set_open([path.clone()]);
        let mut text = String::from(
            "#include <sycl/sycl.hpp>\n#define TWICE(x) ((x) * 2.0)\nusing real = double;\n",
        );
        text += include_str!("../../examples/vector-math/src/main.cpp");
        for k in 0..12 {
            // Every other function holds a local union (a class of the function).
            let local = if k % 2 == 0 {
                "union { double d; long l; } v; "
            } else {
                ""
            };
            text += &format!(
                "[[sycl::device_has(sycl::aspect::fp64)]] double f{k}(double x, sycl::half h) {{\n  {local}\
                 auto l = [&](int i) {{ return x * i + TWICE(h); }};\n  real r = l({k});\n  \
                 if (x > 1.5) r += 0.5;\n  return r;\n}}\n"
            );
        }
        // Edits that keep the syntax: a statement, a literal, a lambda, a macro use, spaces,
        // and removals of what was added.
        let snippets = [
            " ",
            "union { double d; long l; } u; ",
            "struct P { float a; }; P p{1.0f}; ",
            "double q = x * 3.0; ",
            "r = TWICE(r); ",
            "auto m = [=](float y) { return y * 2.0f; }; ",
            "float w = 1.0f; ",
            "\n\n",
        ];
        let mut next = seeded(0x5911ce);
        facts_with(&text, Some((&trees, &path)));
        let before = splice::spliced();
        let mut added: Vec<(usize, usize)> = Vec::new();
        for step in 0..120 {
            // Insert after a `;` inside a function body, or take back an earlier insertion.
            if step % 4 == 3 && !added.is_empty() {
                let (at, len) = added.remove(next(added.len()));
                text.replace_range(at..at + len, "");
                for a in &mut added {
                    if a.0 > at {
                        a.0 -= len;
                    }
                }
            } else {
                let semis: Vec<usize> = text.match_indices("; ").map(|(i, _)| i + 2).collect();
                let at = semis[next(semis.len())];
                let snippet = snippets[next(snippets.len())];
                text.insert_str(at, snippet);
                for a in &mut added {
                    if a.0 >= at {
                        a.0 += snippet.len();
                    }
                }
                added.push((at, snippet.len()));
            }
            let incremental = facts_with(&text, Some((&trees, &path)));
            assert!(
                incremental == facts_with(&text, None),
                "step {step}:\n{text}"
            );
        }
        let spliced = splice::spliced() - before;
        assert!(spliced >= 40, "only {spliced} of 120 edits were spliced");
    }

    /// Edits anywhere (between items, in comments, in variables' initializers, namespaces,
    /// templates, classes; many break the syntax for a while) give a fresh extraction's facts,
    /// whether they are spliced or not; and those between or inside items are spliced.
    #[test]
    fn edits_anywhere_give_a_fresh_extraction() {
        let trees = Trees::default();
        let path: Arc<str> = Arc::from("/w/anywhere.cpp");
        trees.set_open([path.clone()]);
        let mut text = String::from(
            "#include <sycl/sycl.hpp>\n#define HEX(a, b) a##.##b\n// a comment\n\
             static const double table[][2] = {\n  {HEX(1, 5), 2.0},\n  {3.0, HEX(4, 25)}\n};\n\
             double proto(double x);\n/* a block\n comment */\n\
             namespace ns {\nint counter = 0;\nfloat g(float v) { return v * 2.0f; }\n\
             template <typename T> T twice(T t) { auto l = [=] { return t + t; }; return l(); }\n}\n\
             template <typename T> constexpr T pi = T(3.14159);\n\
             struct S {\n  double m;\n  double get() const { return m * 1.5; }\n};\n",
        );
        for k in 0..6 {
            text += &format!(
                "double f{k}(double x) {{\n  sycl::half h = {k};\n  double t = table[{k} % 2][0];\n  \
                 return ns::twice(x) + t + h;\n}}\n\n"
            );
        }
        let snippets = [
            " ",
            "\n",
            "\n\n",
            "x",
            "//",
            "/*",
            "*/",
            "{",
            "}",
            ";",
            "1.0",
            "double d = 2.0; ",
            "int v2 = 3;\n",
            "[](){}",
            "HEX(7, 5)",
        ];
        let mut next = seeded(0xa11e0);
        facts_with(&text, Some((&trees, &path)));
        let before = splice::spliced();
        // Edits that change what an item declares, each taken back: a variable in a
        // namespace, one in a table's initializer's place, a new function and a comment
        // between items.
        for (after, insert) in [
            ("int counter = 0;\n", "int extra = 1;\n"),
            ("{3.0, HEX(4, 25)}\n", ", {5.0, 6.0}"),
            ("double proto(double x);\n", "double proto2(float y);\n"),
            ("};\n", "// between\n"),
            ("struct S {\n", "  float n;\n"),
        ] {
            let at = text.find(after).unwrap() + after.len();
            text.insert_str(at, insert);
            for t in [text.clone(), text.replacen(insert, "", 1)] {
                let incremental = facts_with(&t, Some((&trees, &path)));
                assert!(incremental == facts_with(&t, None), "{insert:?}:\n{t}");
            }
            text = text.replacen(insert, "", 1);
        }
        // A snippet put anywhere (often breaking the syntax) is taken back at the next step;
        // spaces at the ends of lines, the usual edit, stay.
        let mut pending: Option<(usize, usize)> = None;
        for step in 0..200 {
            if let Some((at, len)) = pending.take() {
                text.replace_range(at..at + len, "");
            } else if step % 3 == 0 {
                let mut at = next(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let snippet = snippets[next(snippets.len())];
                text.insert_str(at, snippet);
                pending = Some((at, snippet.len()));
            } else {
                let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
                text.insert(ends[next(ends.len())], ' ');
            }
            let incremental = facts_with(&text, Some((&trees, &path)));
            assert!(
                incremental == facts_with(&text, None),
                "step {step}:\n{text}"
            );
        }
        let spliced = splice::spliced() - before;
        assert!(spliced >= 90, "only {spliced} of 210 edits were spliced");
    }

    #[test]
    fn the_edit_spans_what_differs() {
        let e = input_edit("ab\ncdef\ngh", "ab\ncXYf\ngh");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 6, 6));
        assert_eq!((e.start_position.row, e.start_position.column), (1, 1));
        let e = input_edit("aaa", "aaaa");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 3, 4));
        let e = input_edit("abc", "");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (0, 3, 0));
    }

    /// On a thread with the 2 MiB stack of worker threads.
    fn on_small_stack(text: String) -> FileFacts {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || extract(&text))
            .unwrap()
            .join()
            .expect("no stack overflow")
    }

    #[test]
    fn pathological_nesting_does_not_overflow_the_stack() {
        let n = 10_000;
        let parens = format!(
            "void f() {{ double x = {}1.0{}; }}",
            "(".repeat(n),
            ")".repeat(n)
        );
        let braces = format!("void g() {}{}", "{".repeat(n), "}".repeat(n));
        // Nested template arguments are slow for tree-sitter (~1 s for 10 000): fewer here.
        let templates = format!("using T = {}int{};", "A<".repeat(1000), ">".repeat(1000));
        let sum = format!(
            "void h() {{ double s = {}; }}",
            vec!["1.0"; 1000].join(" + ")
        );
        // Whatever tree-sitter recovers from these, reading it must not crash.
        for text in [parens, braces, templates] {
            on_small_stack(text);
        }
        let deep = format!(
            "void f() {{ double x = {}1{}; }}",
            "(".repeat(400),
            ")".repeat(400)
        );
        assert_eq!(on_small_stack(deep).functions[0].name, "f");
        // A long sum is deep but real: read whole, as a short one is.
        let short = format!("void h() {{ double s = {}; }}", ["1.0"; 10].join(" + "));
        let literals = |t: String| on_small_stack(t).functions[0].literals.len();
        assert_eq!(literals(sum), literals(short) + 990);
    }

    #[test]
    fn a_parse_over_budget_is_given_up_and_the_parser_still_works() {
        let big = "int f(int x) { return x + 1; }\n".repeat(20_000);
        let r = extract_within(&big, Some(Duration::from_nanos(1)));
        assert!(r.unwrap_err().contains("budget"));
        assert_eq!(extract("void g() {}").functions.len(), 1);
    }
}
