//! Where the memory of a loaded workspace goes: `cargo run --release --example facts_memory DIR`.
//! Counts live heap bytes (a counting allocator) after reading and extracting every file, and
//! what the facts hold.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Relaxed);
        BLOCKS.fetch_add(1, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        BLOCKS.fetch_sub(1, Relaxed);
        System.dealloc(p, l)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn mib(b: usize) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: facts_memory DIR"));
    let files = sycl_analyzer::workspace::discover(&[dir]).unwrap();
    let base = LIVE.load(Relaxed);
    let env = sycl_analyzer::project::compile_env(
        None,
        sycl_analyzer::devices::DeviceTable::builtin(),
        &Default::default(),
    );
    let loaded = sycl_analyzer::workspace::load(&files, &env, || {});
    let texts: usize = loaded.texts.iter().map(|t| t.capacity()).sum();
    let live = LIVE.load(Relaxed) - base;
    println!(
        "{} files: live heap {:.1} MiB in {} blocks; texts {:.1} MiB; facts and the rest {:.1} MiB",
        loaded.files.len(),
        mib(live),
        BLOCKS.load(Relaxed),
        mib(texts),
        mib(live - texts)
    );
    let (mut fns, mut types, mut calls, mut lits, mut params, mut scopes, mut classes) =
        (0, 0, 0, 0, 0, 0, 0);
    for f in &loaded.files {
        classes += f.facts.classes.len();
        for func in &f.facts.functions {
            fns += 1;
            types += func.types.len();
            calls += func.calls.len();
            lits += func.literals.len();
            params += func.params.len();
            scopes += func.scope.len();
        }
    }
    println!(
        "functions {fns}, classes {classes}, type mentions {types}, calls {calls}, double literals {lits}, params {params}, scope parts {scopes}"
    );
    use std::mem::size_of;
    use sycl_analyzer::syntax::{Call, Function, TypeMention};
    let (mut fn_bytes, mut call_bytes, mut type_bytes, mut slack) = (0, 0, 0, 0);
    for f in &loaded.files {
        let fs = &f.facts.functions;
        fn_bytes += fs.capacity() * size_of::<Function>();
        slack += (fs.capacity() - fs.len()) * size_of::<Function>();
        for func in fs {
            call_bytes += func.calls.capacity() * size_of::<Call>();
            type_bytes += func.types.capacity() * size_of::<TypeMention>();
            slack += (func.calls.capacity() - func.calls.len()) * size_of::<Call>();
            slack += (func.types.capacity() - func.types.len()) * size_of::<TypeMention>();
        }
    }
    println!(
        "Function {} B each, {:.1} MiB; Call {} B, {:.1} MiB; TypeMention {} B, {:.1} MiB; unused capacity of those vecs {:.1} MiB",
        size_of::<Function>(),
        mib(fn_bytes),
        size_of::<Call>(),
        mib(call_bytes),
        size_of::<TypeMention>(),
        mib(type_bytes),
        mib(slack)
    );
    // Lowered bodies: the arena, spans, locals and statements, with the heap their names use.
    use sycl_analyzer::syntax::{Expr, LocalVar, Span, Stmt};
    let (mut exprs, mut expr_heap, mut span_bytes, mut local_bytes, mut stmt_bytes, mut bodies) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    for f in &loaded.files {
        for b in f
            .facts
            .functions
            .iter()
            .filter_map(|func| func.body.as_deref())
        {
            bodies += 1;
            exprs += b.exprs.len();
            span_bytes += b.spans.capacity() * size_of::<Span>();
            stmt_bytes += b.stmts.capacity() * size_of::<Stmt>();
            local_bytes += b.locals.capacity() * size_of::<LocalVar>();
            // Names are interned (counted once, below); operand and template-argument lists
            // are runs of two side tables per body.
            expr_heap += b.exprs.capacity() * size_of::<Expr>()
                + b.lists.capacity() * 4
                + b.targs.capacity() * size_of::<sycl_analyzer::syntax::Name>();
        }
    }
    println!(
        "bodies {bodies}, expressions {exprs} ({} B each): exprs with their heap {:.1} MiB, spans {:.1} MiB, locals {:.1} MiB, statements {:.1} MiB",
        size_of::<Expr>(),
        mib(expr_heap),
        mib(span_bytes),
        mib(local_bytes),
        mib(stmt_bytes)
    );
    let (names, name_bytes) = sycl_analyzer::syntax::Name::interned();
    println!(
        "interned names: {names} strings, {:.1} MiB of text",
        mib(name_bytes)
    );
    // What the preprocessor's record of each file holds: macro uses (a range and a name each),
    // skipped regions, the files read.
    let (mut expansions, mut pp_bytes) = (0usize, 0usize);
    for f in &loaded.files {
        let pp = &f.facts.preprocessor;
        expansions += pp.expansions.len();
        pp_bytes += pp.expansions.capacity()
            * size_of::<(sycl_analyzer::text::TextRange, String)>()
            + pp.expansions
                .iter()
                .map(|(_, n)| n.capacity())
                .sum::<usize>()
            + pp.inactive.capacity() * size_of::<sycl_analyzer::text::TextRange>()
            + pp.deps.iter().map(|d| d.capacity() + 24).sum::<usize>();
    }
    println!(
        "preprocessor records: {expansions} macro uses, {:.1} MiB with skipped regions and deps",
        mib(pp_bytes)
    );
    let base = LIVE.load(Relaxed);
    let analysis = sycl_analyzer::analysis::Engine::new(loaded.files.clone());
    println!(
        "analysis: live heap {:.1} MiB",
        mib(LIVE.load(Relaxed) - base)
    );
    drop(analysis);
}
