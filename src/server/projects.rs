//! The daemon's live projects: one [`Live`] per target list asked for, loaded by the first
//! request that needs it and kept current with the disk, so `sycl/checkFile` and
//! `sycl/kernelMatrix` answer from an incremental analysis instead of loading the workspace
//! each time.

use std::path::PathBuf;
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
}

impl Default for Projects {
    fn default() -> Self {
        Self {
            slots: Mutex::default(),
            generation: tokio::sync::watch::channel(0).0,
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
    pub fn changed(&self, change: &Change) {
        let database = match change {
            Change::Paths(paths) => paths.iter().any(|p| is_database(p)),
            Change::Unknown => true,
        };
        if database {
            tracing::info!("compile_commands.json changed: projects are loaded again");
            return self.clear();
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
