//! Times the phases of `check` on a directory: `cargo run --release --example time_phases DIR`.
//! With TIME_PHASES_REPEAT=N the analysis runs N more times (for profiling it alone).
use std::time::Instant;

use sycl_analyzer::analysis::{analyze, Settings};
use sycl_analyzer::devices::DeviceTable;

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: time_phases DIR"));
    let t = Instant::now();
    let files = sycl_analyzer::workspace::discover(&[dir]).unwrap();
    println!("discover: {:?} ({} files)", t.elapsed(), files.len());
    let t = Instant::now();
    let loaded = sycl_analyzer::workspace::load(&files, || {});
    println!("read+extract: {:?}", t.elapsed());
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
    };
    let repeat: usize = std::env::var("TIME_PHASES_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for _ in 0..=repeat {
        let t = Instant::now();
        let r = analyze(&loaded.files, &settings);
        println!(
            "analyze: {:?} ({} diagnostics)",
            t.elapsed(),
            r.diagnostics.len()
        );
    }
}
