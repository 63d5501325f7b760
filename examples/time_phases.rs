//! Times the phases of `check` on a directory: `cargo run --release --example time_phases DIR`.
//! With TIME_PHASES_REPEAT=N the analysis runs N more times (for profiling it alone); with
//! TIME_PHASES_EDITS=N, N body-only edits (a file re-extracted) go through the incremental path;
//! with TIME_PHASES_INTERFACE=1 each edit also declares a new function at the top of the file;
//! with TIME_PHASES_FILE=SUFFIX every edit adds a space to a line of that one file.
use std::time::Instant;

use sycl_analyzer::analysis::{analyze, Settings};
use sycl_analyzer::devices::DeviceTable;

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: time_phases DIR"));
    let t = Instant::now();
    let files = sycl_analyzer::workspace::discover(&[dir]).unwrap();
    println!("discover: {:?} ({} files)", t.elapsed(), files.len());
    let t = Instant::now();
    let env = sycl_analyzer::project::compile_env(
        None,
        sycl_analyzer::devices::DeviceTable::builtin(),
        &Default::default(),
    );
    let loaded = sycl_analyzer::workspace::load(&files, &env, || {});
    println!("read+extract: {:?} (RSS {})", t.elapsed(), rss());
    let settings = Settings {
        table: DeviceTable::builtin(),
        targets: None,
        image: Default::default(),
        units_elsewhere: false,
        implementation: Default::default(),
        names_from: None,
    };
    // TIME_PHASES_WARM=1: the warm start's parts (the index saved, then read back).
    if std::env::var_os("TIME_PHASES_WARM").is_some() {
        let idx = std::env::temp_dir().join(format!("time-phases-{}.idx", std::process::id()));
        loaded.save_index(&idx).unwrap();
        let t = Instant::now();
        let index = sycl_analyzer::cache::Index::load(&idx);
        println!("warm: index read {:?}", t.elapsed());
        let t = Instant::now();
        let again = sycl_analyzer::workspace::load_indexed(&files, &index, false, &env, || {});
        println!("warm: texts read, hashed, facts taken {:?}", t.elapsed());
        let t = Instant::now();
        analyze(&again.files, &settings);
        println!("warm: analysis {:?}", t.elapsed());
        let _ = std::fs::remove_file(&idx);
    }
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
    let interface = std::env::var_os("TIME_PHASES_INTERFACE").is_some();
    if edits > 0 {
        let mut files = loaded.files.clone();
        // Edits are extracted as the language server does: preprocessed through their
        // translation unit with the workspace's headers (a bare `syntax::extract` loses the
        // headers spliced into bodies, which made edits look like include changes).
        let mut paths: Vec<std::sync::Arc<str>> = files.iter().map(|f| f.path.clone()).collect();
        let mut texts: Vec<Option<std::sync::Arc<str>>> = paths
            .iter()
            .map(|p| {
                std::fs::read(&**p)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into())
            })
            .collect();
        for (p, t) in &loaded.fragments {
            paths.push(p.clone());
            texts.push(Some(t.clone()));
        }
        let mut analysis = sycl_analyzer::analysis::Engine::new(files.clone());
        // As the language server does: ten open documents get summaries (for hovers).
        let open: std::collections::HashSet<String> = files
            .iter()
            .step_by((files.len() / 10).max(1))
            .map(|f| f.path.to_string())
            .collect();
        let mut per: Vec<[std::time::Duration; 3]> = Vec::new();
        // TIME_PHASES_FILE=SUFFIX: every edit is in that file, a space added on a line of it.
        let only = std::env::var("TIME_PHASES_FILE").ok().map(|s| {
            files
                .iter()
                .position(|f| f.path.ends_with(&s))
                .expect("TIME_PHASES_FILE names no file")
        });
        for e in 0..edits {
            let i = only.unwrap_or(e * 7919 % files.len());
            let mut text =
                String::from_utf8_lossy(&std::fs::read(&*files[i].path).unwrap_or_default())
                    .into_owned();
            if only.is_some() {
                let lines: Vec<usize> = text.match_indices('\n').map(|(k, _)| k).collect();
                if let Some(&at) = lines.get(e * 7919 % lines.len().max(1)) {
                    text.insert(at, ' ');
                }
            }
            if interface {
                text.insert_str(0, &format!("void time_phases_added_{e}(int);\n"));
            }
            texts[i] = Some(std::sync::Arc::from(text.as_str()));
            let sources =
                sycl_analyzer::workspace::Sources::new(&env, paths.clone(), texts.clone(), None);
            let t = Instant::now();
            let facts = sources.extract(i, None).unwrap_or_default();
            let extract = t.elapsed();
            files[i].facts = std::sync::Arc::new(facts);
            let t = Instant::now();
            let how = analysis.update(files.clone());
            let update = t.elapsed();
            if (interface && e < 5) || update.as_millis() > 60 {
                println!("{}: {how:?} in {update:?}", files[i].path);
            }
            let t = Instant::now();
            let _ = analysis.report_for(&settings, |f| open.contains(f));
            per.push([extract, update, t.elapsed()]);
        }
        for (k, name) in ["extract", "update", "report"].iter().enumerate() {
            let mut v: Vec<_> = per.iter().map(|p| p[k]).collect();
            v.sort();
            println!(
                "per edit {name}: p50 {:?}, p99 {:?}, max {:?}",
                v[v.len() / 2],
                v[(v.len() * 99 / 100).min(v.len() - 1)],
                v[v.len() - 1]
            );
        }
    }
}

/// Resident memory now, MiB.
fn rss() -> f64 {
    sycl_analyzer::bench::status_mib(std::process::id(), "VmRSS")
}
