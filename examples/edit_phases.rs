//! What one edit of one file costs in extraction:
//! `cargo run --release --example edit_phases FILE [WORKSPACE]`.
//! Times, for a one-character edit in the middle of FILE: preprocessing, tree-sitter's parse from
//! scratch and incremental from the last tree, and the whole extraction both ways (parse, walk,
//! lowering); the difference is the walks over the tree. FILE is read alone (no headers: a
//! macro they define parses as an error, which can make the incremental parse look slow); with
//! WORKSPACE, the edit is also extracted as the language server does it, through its
//! translation unit with the workspace's headers and from the document's last tree.
use std::sync::Arc;
use std::time::{Duration, Instant};

use sycl_analyzer::syntax::{self, pp};

fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: edit_phases FILE");
    let text = std::fs::read_to_string(&path).unwrap();
    let mid = text.len() / 2;
    let at = (mid..text.len())
        .find(|&i| text.as_bytes()[i] == b'\n')
        .unwrap_or(mid);
    let edited = format!("{} {}", &text[..at], &text[at..]);
    let preprocess = |t: &str| {
        let mut macros = pp::Macros::default();
        pp::preprocess(t, &path, &mut macros, &pp::NoIncludes)
    };
    let pp_time = best(5, || {
        preprocess(&edited);
    });
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .unwrap();
    let raw = best(5, || {
        parser.parse(&edited, None).unwrap();
    });
    let old_tree = parser.parse(&text, None).unwrap();
    let edit = tree_sitter::InputEdit {
        start_byte: at,
        old_end_byte: at,
        new_end_byte: at + 1,
        start_position: tree_sitter::Point {
            row: text[..at].matches('\n').count(),
            column: 0,
        },
        old_end_position: tree_sitter::Point {
            row: text[..at].matches('\n').count(),
            column: 0,
        },
        new_end_position: tree_sitter::Point {
            row: text[..at].matches('\n').count(),
            column: 1,
        },
    };
    let reparse = best(5, || {
        let mut t = old_tree.clone();
        t.edit(&edit);
        parser.parse(&edited, Some(&t)).unwrap();
    });
    let fresh = best(5, || {
        syntax::extract_preprocessed(&edited, preprocess(&edited), None).unwrap();
    });
    let trees = syntax::Trees::default();
    let key: Arc<str> = Arc::from(path.as_str());
    trees.set_open([key.clone()]);
    // Each round extracts the original (from the last round's tree), then the edit from the
    // original's tree: only the second is timed.
    let incremental = (0..5)
        .map(|_| {
            syntax::extract_preprocessed_with(&text, preprocess(&text), None, Some((&trees, &key)))
                .unwrap();
            let pre = preprocess(&edited);
            let t = Instant::now();
            syntax::extract_preprocessed_with(&edited, pre, None, Some((&trees, &key))).unwrap();
            t.elapsed()
        })
        .min()
        .unwrap();
    println!(
        "{path}: {} bytes, {} lines",
        text.len(),
        text.lines().count()
    );
    println!("preprocess            {pp_time:?}");
    println!("raw parse (scratch)   {raw:?}");
    println!("raw parse (from tree) {reparse:?}");
    println!("extract (scratch)     {fresh:?}");
    println!("extract (incremental) {incremental:?}");
    if let Some(dir) = std::env::args().nth(2) {
        println!(
            "extract through the translation unit, incremental {:?}",
            in_workspace(&dir, &path, &text, &edited)
        );
        if let Some(n) = std::env::var("EDIT_PHASES_LINES")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            line_edits(&dir, &path, &text, n);
        }
    }
}

/// Paths and texts of a workspace's sources, and which one an edit is in.
type Workspace = (Vec<Arc<str>>, Vec<Option<Arc<str>>>, usize);

/// What `server_like` gives.
type ServerLike = (
    sycl_analyzer::workspace::CompileEnv,
    Vec<Arc<str>>,
    Vec<Option<Arc<str>>>,
    usize,
    Arc<syntax::Trees>,
);

/// The workspace as the language server holds it with `path` open: its compile environment,
/// sources, and the open document's tree store.
fn server_like(dir: &str, path: &str) -> ServerLike {
    let env = sycl_analyzer::project::compile_env(
        None,
        sycl_analyzer::devices::DeviceTable::builtin(),
        &Default::default(),
    );
    let (paths, texts, i) = workspace(dir, path);
    let trees = Arc::new(syntax::Trees::default());
    trees.set_open([paths[i].clone()]);
    (env, paths, texts, i, trees)
}

/// The workspace's sources and the index of `path` among them.
fn workspace(dir: &str, path: &str) -> Workspace {
    let files = sycl_analyzer::workspace::discover(&[dir.into()]).unwrap();
    let paths: Vec<Arc<str>> = files
        .iter()
        .map(|f| Arc::from(f.to_string_lossy().as_ref()))
        .collect();
    let texts: Vec<Option<Arc<str>>> = paths
        .iter()
        .map(|p| {
            std::fs::read(&**p)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into())
        })
        .collect();
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.into());
    let i = paths
        .iter()
        .position(|p| std::fs::canonicalize(&**p).is_ok_and(|c| c == canonical))
        .expect("FILE is not in WORKSPACE");
    (paths, texts, i)
}

/// EDIT_PHASES_LINES=N: N edits in a row as `bench` makes them (a space at the end of a
/// pseudo-random line), each extracted as the server does; how many were spliced, and the
/// times of both kinds, with the lines that were not spliced.
fn line_edits(dir: &str, path: &str, text: &str, n: usize) {
    let (env, paths, mut texts, i, trees) = server_like(dir, path);
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let (mut spliced, mut whole) = (Vec::new(), Vec::new());
    let mut at = 0;
    // EDIT_PHASES_VERIFY=1: each edit's facts are compared with a fresh extraction's.
    let verify = std::env::var_os("EDIT_PHASES_VERIFY").is_some();
    let mut differ = 0;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for e in 0..=n {
        if e > 0 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let l = (seed % lines.len() as u64) as usize;
            lines[l].push(' ');
            at = l;
            texts[i] = Some(Arc::from(lines.join("\n")));
        }
        let sources =
            sycl_analyzer::workspace::Sources::new(&env, paths.clone(), texts.clone(), None)
                .with_trees(trees.clone());
        let before = syntax::spliced();
        let start = Instant::now();
        let facts = sources.extract(i, None).unwrap();
        let took = start.elapsed();
        if e == 0 {
            continue;
        }
        if verify {
            let fresh =
                sycl_analyzer::workspace::Sources::new(&env, paths.clone(), texts.clone(), None)
                    .extract(i, None)
                    .unwrap();
            if fresh != facts {
                println!(
                    "DIFFERS after the edit at line {}: {}",
                    at + 1,
                    lines[at].trim()
                );
                differ += 1;
            }
        }
        if syntax::spliced() > before {
            spliced.push(took);
        } else {
            whole.push(took);
            if std::env::var_os("EDIT_PHASES_SHOW").is_some() {
                println!("whole {took:?} at line {}: {}", at + 1, lines[at].trim());
            }
        }
    }
    if verify {
        println!("{differ} edits differ from a fresh extraction");
    }
    for (name, mut v) in [("spliced", spliced), ("whole", whole)] {
        v.sort();
        if let (Some(first), Some(last)) = (v.first(), v.last()) {
            println!(
                "{name}: {} edits, min {first:?}, p50 {:?}, max {last:?}",
                v.len(),
                v[v.len() / 2]
            );
        }
    }
}

/// The edit's extraction as the language server makes it (best of five).
fn in_workspace(dir: &str, path: &str, text: &str, edited: &str) -> Duration {
    let (env, paths, mut texts, i, trees) = server_like(dir, path);
    (0..5)
        .map(|_| {
            let mut took = Duration::ZERO;
            for (k, t) in [text, edited].into_iter().enumerate() {
                texts[i] = Some(Arc::from(t));
                let sources = sycl_analyzer::workspace::Sources::new(
                    &env,
                    paths.clone(),
                    texts.clone(),
                    None,
                )
                .with_trees(trees.clone());
                let start = Instant::now();
                sources.extract(i, None).unwrap();
                if k == 1 {
                    took = start.elapsed();
                }
            }
            took
        })
        .min()
        .unwrap()
}
