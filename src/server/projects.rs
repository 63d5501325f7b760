//! The daemon's live projects: one [`Live`] per target list asked for, loaded by the first
//! request that needs it and kept current with the disk, so `sycl/checkFile` and
//! `sycl/kernelMatrix` answer from an incremental analysis instead of loading the workspace
//! each time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::project::live::Live;
use crate::watch::Change;

/// Live projects kept at once (each holds a workspace's facts): the least recently used goes.
const MAX_PROJECTS: usize = 4;

/// One live project, loaded on first use; `None` until then or after an invalidation.
pub type Slot = Arc<Mutex<Option<Live>>>;

pub struct Projects {
    /// By the request's target list (`None`: the project's own).
    slots: Mutex<Vec<(Option<String>, Slot, Instant)>>,
    /// Bumped whenever what the projects answer may have changed: subscribers wait on it.
    generation: tokio::sync::watch::Sender<u64>,
    /// The root (absolute), and whether it was deleted under the daemon.
    root: Option<(PathBuf, AtomicBool)>,
}

impl Default for Projects {
    fn default() -> Self {
        Self {
            slots: Mutex::default(),
            generation: tokio::sync::watch::channel(0).0,
            root: None,
        }
    }
}

impl std::fmt::Debug for Projects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Projects")
            .field("slots", &lock(&self.slots).len())
            .finish()
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking handler is answered as an error; the state it held stays usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Projects {
    /// Projects of the daemon whose working directory is `root`.
    pub fn at(root: PathBuf) -> Self {
        Self {
            root: Some((root, AtomicBool::new(false))),
            ..Self::default()
        }
    }

    /// The root, when it was deleted and is not back.
    pub fn gone(&self) -> Option<&std::path::Path> {
        self.root
            .as_ref()
            .filter(|(_, gone)| gone.load(Ordering::SeqCst))
            .map(|(r, _)| r.as_path())
    }

    /// Notices the root's deletion or its return (a directory made anew at its path). True
    /// when it came back: its new directory is the daemon's working directory, and the
    /// caller watches it again.
    fn root_state(&self) -> bool {
        let Some((root, gone)) = &self.root else {
            return false;
        };
        let exists = root.is_dir();
        let was_gone = gone.load(Ordering::SeqCst);
        // Unchanged: gone while it does not exist, or there while it does.
        if was_gone != exists {
            return false;
        }
        if exists {
            if let Err(e) = std::env::set_current_dir(root) {
                tracing::warn!(
                    "the root '{}' is back but cannot be entered: {e}",
                    root.display()
                );
                return false;
            }
            tracing::info!(
                "the root '{}' is back: its projects are loaded again",
                root.display()
            );
        } else {
            tracing::warn!(
                "the root '{}' was deleted; requests are refused until it is back (its parent is watched)",
                root.display()
            );
        }
        gone.store(!exists, Ordering::SeqCst);
        self.clear();
        exists
    }
    /// The slot for `targets`, made if needed (the least recently used one dropped past
    /// [`MAX_PROJECTS`]).
    pub fn slot(&self, targets: Option<&str>) -> Slot {
        let mut slots = lock(&self.slots);
        let now = Instant::now();
        if let Some(s) = slots.iter_mut().find(|s| s.0.as_deref() == targets) {
            s.2 = now;
            return s.1.clone();
        }
        if slots.len() >= MAX_PROJECTS {
            if let Some(oldest) = slots
                .iter()
                .enumerate()
                .min_by_key(|(_, s)| s.2)
                .map(|(i, _)| i)
            {
                slots.swap_remove(oldest);
            }
        }
        let slot = Slot::default();
        slots.push((targets.map(String::from), slot.clone(), now));
        slot
    }

    /// Forgets every loaded project (the device table or a compilation database changed):
    /// the next request loads again.
    pub fn clear(&self) {
        let slots = std::mem::take(&mut *lock(&self.slots));
        for (_, slot, _) in slots {
            *lock(&slot) = None;
        }
        self.bump();
    }

    /// A receiver told of every change of the projects' answers.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.generation.subscribe()
    }

    pub(super) fn bump(&self) {
        self.generation.send_modify(|g| *g += 1);
    }

    /// Takes in a batch of changes on disk. Blocking: called from the watcher's thread.
    /// Returns whether the root came back (to be watched again).
    pub fn changed(&self, change: &Change) -> bool {
        let root_event = match (change, &self.root) {
            (Change::Unknown, Some(_)) => true,
            (Change::Paths(paths), Some((root, _))) => paths.iter().any(|p| p == root),
            (_, None) => false,
        };
        if root_event || self.gone().is_some() {
            let back = self.root_state();
            if back || self.gone().is_some() {
                return back;
            }
        }
        let databases: Vec<&PathBuf> = match change {
            Change::Paths(paths) => paths.iter().filter(|p| is_database(p)).collect(),
            Change::Unknown => Vec::new(),
        };
        if matches!(change, Change::Unknown) {
            self.clear();
            return false;
        }
        if !databases.is_empty() {
            // CMake rewrites it in place: a half-written one is not a new project yet.
            if let Some(bad) = databases.iter().find(|d| !parses(d)) {
                tracing::warn!(
                    "'{}' does not parse (still being written?): answering from the last \
                     analysis until it does",
                    bad.display()
                );
                return false;
            }
            tracing::info!("compile_commands.json changed: projects are loaded again");
            self.clear();
            return false;
        }
        let slots: Vec<Slot> = lock(&self.slots).iter().map(|s| s.1.clone()).collect();
        for slot in slots {
            let mut live = lock(&slot);
            let Some(live) = live.as_mut() else { continue };
            let started = Instant::now();
            let n = match change {
                Change::Paths(paths) => live.changed_on_disk(paths),
                Change::Unknown => live.rescan(),
            };
            if n > 0 {
                tracing::debug!(files = n, elapsed = ?started.elapsed(), "changes taken in");
                self.bump();
            }
        }
        false
    }
}

/// A compilation database that can be read (missing counts: it was removed, not half-written).
fn parses(p: &std::path::Path) -> bool {
    match std::fs::read(p) {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
        Err(_) => true,
    }
}

fn is_database(p: &std::path::Path) -> bool {
    p.file_name().is_some_and(|n| n == "compile_commands.json")
}

/// The roots as absolute paths, as the watcher reports changes.
pub fn absolute_roots(roots: &[PathBuf]) -> Vec<PathBuf> {
    roots
        .iter()
        .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()))
        .collect()
}
