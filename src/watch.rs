//! File watching for the long-running servers (notify, debounced).
//!
//! Config files are watched through their parent directory: editors save by writing a new file
//! and renaming it over the old one, which ends a watch on the file itself. Bursts of events
//! (a branch switch touching thousands of files) arrive as one coalesced batch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
}

impl Watcher {
    /// Watches `dir` recursively again (it was deleted and made anew: the old watch ended
    /// with the old directory).
    pub fn watch_tree(&mut self, dir: &Path) -> Result<(), String> {
        self.debouncer
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch '{}': {e}", dir.display()))
    }
}

/// How long a burst of events may last before it is delivered.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// What one batch of events says changed.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// These paths, sorted and deduplicated.
    Paths(Vec<PathBuf>),
    /// Events were lost (the kernel's event queue overflows when thousands of files change
    /// while the machine is busy): anything watched may have changed.
    Unknown,
}

impl Change {
    /// Might this config file (or source) have changed?
    pub fn touches(&self, file: &Path) -> bool {
        match self {
            Change::Paths(paths) => paths.iter().any(|c| same_file(c, file)),
            Change::Unknown => true,
        }
    }
}

/// Watches `files` (through their directories) and, recursively, `trees`; calls `on_change`
/// once per batch.
pub fn watch(
    files: &[PathBuf],
    trees: &[PathBuf],
    on_change: impl Fn(Change) + Send + 'static,
) -> Result<Watcher, String> {
    // Tests drive the recovery from lost events without overflowing the kernel's queue.
    let lose_all = std::env::var_os("SYCL_ANALYZER_TEST_LOSE_EVENTS").is_some();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        let events = match result {
            Ok(events) if !lose_all && !events.iter().any(|e| e.need_rescan()) => events,
            // An error of the backend may have cost events too.
            _ => return on_change(Change::Unknown),
        };
        let paths: BTreeSet<PathBuf> = events
            .into_iter()
            .filter(|e| may_change_contents(&e.event.kind))
            .flat_map(|e| e.event.paths)
            .collect();
        if !paths.is_empty() {
            on_change(Change::Paths(paths.into_iter().collect()));
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
    Ok(Watcher { debouncer })
}

/// Could this event mean a file's text or existence changed? inotify also reports every open
/// and read-only close: counted as changes, the server's own re-reading of the files it was
/// told about was an event again, and it re-parsed the workspace forever.
fn may_change_contents(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        // Permissions and times (`touch`): the text is the same.
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        _ => true,
    }
}

/// Does a changed path stand for this config file (by path, after making both absolute)?
pub fn same_file(changed: &Path, file: &Path) -> bool {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs(changed) == abs(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Reading a watched file is no change; writing it is, and only that path is reported.
    #[test]
    fn reads_are_not_changes_and_writes_are() {
        let dir = std::env::temp_dir().join(format!("sycl-watch-reads-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("k.cpp");
        std::fs::write(&file, "void f() {}\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&[], std::slice::from_ref(&dir), move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        for _ in 0..20 {
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "void f() {}\n");
        }
        let quiet = rx.recv_timeout(DEBOUNCE * 4);
        assert!(quiet.is_err(), "a read was reported: {quiet:?}");
        std::fs::write(&file, "void f() { double d = 1; }\n").unwrap();
        let change = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(change.touches(&file), "{change:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
