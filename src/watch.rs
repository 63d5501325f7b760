//! File watching for the long-running servers (notify, debounced).
//!
//! Config files are watched through their parent directory: editors save by writing a new file
//! and renaming it over the old one, which ends a watch on the file itself. Bursts of events
//! (a branch switch touching thousands of files) arrive as one coalesced batch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
}

/// How long a burst of events may last before it is delivered.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Watches `files` (through their directories) and, recursively, `trees`; calls `on_change`
/// with the changed paths of each batch, sorted and deduplicated.
pub fn watch(
    files: &[PathBuf],
    trees: &[PathBuf],
    on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
) -> Result<Watcher, String> {
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        if let Ok(events) = result {
            let paths: BTreeSet<PathBuf> = events.into_iter().flat_map(|e| e.event.paths).collect();
            if !paths.is_empty() {
                on_change(paths.into_iter().collect());
            }
        }
    })
    .map_err(|e| format!("cannot watch files: {e}"))?;
    let mut dirs: BTreeSet<PathBuf> = files
        .iter()
        .filter_map(|f| {
            let abs = std::path::absolute(f).ok()?;
            abs.parent().map(Path::to_path_buf)
        })
        .collect();
    dirs.retain(|d| !trees.iter().any(|t| d.starts_with(t)));
    for d in dirs.iter().filter(|d| d.is_dir()) {
        debouncer
            .watch(d, RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch '{}': {e}", d.display()))?;
    }
    for t in trees.iter().filter(|t| t.is_dir()) {
        debouncer
            .watch(t, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch '{}': {e}", t.display()))?;
    }
    Ok(Watcher {
        _debouncer: debouncer,
    })
}

/// Does a changed path stand for this config file (by path, after making both absolute)?
pub fn same_file(changed: &Path, file: &Path) -> bool {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs(changed) == abs(file)
}
