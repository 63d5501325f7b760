//! Times the phases of `check` on a directory: `cargo run --release --example time_phases DIR`.
//! With TIME_PHASES_REPEAT=N the analysis runs N more times (for profiling it alone); with
//! TIME_PHASES_EDITS=N, N body-only edits (a file re-extracted) go through the incremental path.
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
    println!("read+extract: {:?} (RSS {})", t.elapsed(), rss());
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
            "analyze: {:?} ({} diagnostics, RSS {}, peak {})",
            t.elapsed(),
            r.diagnostics.len(),
            rss(),
            sycl_analyzer::bench::status_mib(std::process::id(), "VmHWM")
        );
    }
    let edits: usize = std::env::var("TIME_PHASES_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if edits > 0 {
        let mut files = loaded.files.clone();
        let mut analysis = sycl_analyzer::analysis::Analysis::new(files.clone());
        let (mut update, mut report) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        for e in 0..edits {
            let i = e * 7919 % files.len();
            let text = std::fs::read_to_string(&*files[i].path).unwrap_or_default();
            files[i].facts = std::sync::Arc::new(sycl_analyzer::syntax::extract(&text));
            let t = Instant::now();
            analysis.update(files.clone());
            update += t.elapsed();
            let t = Instant::now();
            let _ = analysis.report_for(&settings, |_| false);
            report += t.elapsed();
        }
        println!(
            "per edit: update {:?}, report {:?}",
            update / edits as u32,
            report / edits as u32
        );
    }
}

/// Resident memory now, MiB.
fn rss() -> f64 {
    sycl_analyzer::bench::status_mib(std::process::id(), "VmRSS")
}
