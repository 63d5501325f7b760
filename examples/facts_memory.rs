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
    let loaded = sycl_analyzer::workspace::load(&files, || {});
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
            slack += func.name.capacity() - func.name.len();
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
    let base = LIVE.load(Relaxed);
    let analysis = sycl_analyzer::analysis::Analysis::new(loaded.files.clone());
    println!(
        "analysis: live heap {:.1} MiB",
        mib(LIVE.load(Relaxed) - base)
    );
    drop(analysis);
}
