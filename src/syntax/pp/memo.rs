//! Header readings remembered: what reading a header did to the macros, and every macro value
//! and `#pragma once` state it read to decide it. A later reading of the same header whose
//! macros agree on everything the first one read makes the same definitions, so they are
//! applied without reading it again. A translation unit that includes a large header set
//! (dpct's, 1 MB, in every oneAPI migration sample) reads it once per workspace, not once per
//! file; a language server keeps the memo across edits.

use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::macros::Macro;

/// A macro's value as read: `None` when it was not defined.
pub type Value = Option<Arc<Macro>>;

/// One reading of a header.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// Names looked up before the reading defined them, with what they were.
    pub reads: Vec<(Arc<str>, Value)>,
    /// Headers whose `#pragma once` state was asked, and that state.
    pub once_reads: Vec<(Arc<str>, bool)>,
    /// The definitions it left (`None`: `#undef`), in order of first write.
    pub writes: Vec<(Arc<str>, Value)>,
    pub once_added: Vec<Arc<str>>,
    pub deps: Vec<Arc<str>>,
    /// It looked up a macro that differs between device compiles.
    pub watched: bool,
    /// Names in `reads` and `writes`, for the recording itself.
    pub(super) read_names: FxHashSet<Arc<str>>,
    pub(super) written: FxHashMap<Arc<str>, usize>,
}

impl Recording {
    pub(super) fn read(&mut self, name: &str, value: impl FnOnce() -> Value) {
        if self.written.contains_key(name) || self.read_names.contains(name) {
            return;
        }
        let name: Arc<str> = Arc::from(name);
        self.read_names.insert(name.clone());
        self.reads.push((name, value()));
    }

    pub(super) fn write(&mut self, name: &Arc<str>, value: Value) {
        match self.written.get(name) {
            Some(&at) => self.writes[at].1 = value,
            None => {
                self.written.insert(name.clone(), self.writes.len());
                self.writes.push((name.clone(), value));
            }
        }
    }

    pub(super) fn once_read(&mut self, path: &Arc<str>, state: bool) {
        if !self.once_added.contains(path) && !self.once_reads.iter().any(|(p, _)| p == path) {
            self.once_reads.push((path.clone(), state));
        }
    }

    pub(super) fn once_add(&mut self, path: &Arc<str>) {
        if !self.once_added.contains(path) {
            self.once_added.push(path.clone());
        }
    }

    pub(super) fn dep(&mut self, path: &Arc<str>) {
        if !self.deps.contains(path) {
            self.deps.push(path.clone());
        }
    }
}

/// Two readings of one macro agree.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
        _ => false,
    }
}

/// Recordings by header (path, text and include directories), a few each.
#[derive(Default)]
pub struct HeaderMemo {
    map: Mutex<FxHashMap<u64, Vec<Arc<Recording>>>>,
}

/// Readings kept per header: a header read under many different macro states (a config
/// header included after varying `#define`s) is simply read again past these.
const PER_HEADER: usize = 8;

/// Header versions kept in all: a long editing session makes a new version per edit of a
/// header, and the old ones are never asked for again. Past this the memo starts over.
const VERSIONS: usize = 50_000;

impl HeaderMemo {
    /// A recording of header `key` that `agrees` accepts.
    pub fn find(&self, key: u64, agrees: impl Fn(&Recording) -> bool) -> Option<Arc<Recording>> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&key)?.iter().find(|r| agrees(r)).cloned()
    }

    pub fn keep(&self, key: u64, r: Recording) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= VERSIONS && !map.contains_key(&key) {
            map.clear();
        }
        let list = map.entry(key).or_default();
        if list.len() >= PER_HEADER {
            list.remove(0);
        }
        list.push(Arc::new(r));
    }
}
