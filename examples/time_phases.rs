//! Times the phases of `check` on a directory: `cargo run --release --example time_phases DIR`.
use std::time::Instant;
fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: time_phases DIR"));
    let t = Instant::now();
    let files = sycl_analyzer::workspace::discover(&[dir]).unwrap();
    println!("discover: {:?} ({} files)", t.elapsed(), files.len());
    let t = Instant::now();
    let loaded = sycl_analyzer::workspace::load(&files, || {});
    println!("read+extract: {:?}", t.elapsed());
    let t = Instant::now();
    let table = sycl_analyzer::devices::DeviceTable::builtin();
    let r = sycl_analyzer::analysis::analyze(
        &loaded.files,
        &sycl_analyzer::analysis::Settings {
            table,
            targets: None,
        },
    );
    println!(
        "analyze: {:?} ({} diagnostics)",
        t.elapsed(),
        r.diagnostics.len()
    );
}
