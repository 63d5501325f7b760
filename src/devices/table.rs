//! The device table: the embedded default with user config files applied on top.

use std::sync::{Arc, LazyLock};

use indexmap::IndexMap;

use super::config::{self, ConfigFile, DroppedEntry, TargetEntry, TargetInfo, BUILTIN_FILE};
use crate::diagnostics::Diagnostic;

const EMBEDDED: &str = include_str!("../../config/default-device-config.yaml");

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceTable {
    targets: IndexMap<String, TargetInfo>,
    /// The entries the config files left out for their errors, in file order.
    dropped: Vec<DroppedEntry>,
}

impl DeviceTable {
    /// The embedded default table (DPC++'s DeviceConfigFile.td).
    pub fn builtin() -> &'static DeviceTable {
        static TABLE: LazyLock<DeviceTable> = LazyLock::new(|| {
            let cfg = config::load(Arc::from(BUILTIN_FILE), EMBEDDED);
            assert!(
                cfg.diagnostics.is_empty(),
                "embedded default device config has problems: {:?}",
                cfg.diagnostics
            );
            let mut table = DeviceTable {
                targets: IndexMap::new(),
                dropped: Vec::new(),
            };
            table.apply(cfg.entries.as_deref().unwrap_or_default());
            table
        });
        &TABLE
    }

    /// Whether the default table's entry of `name` is one of DPC++'s empty placeholders: no
    /// aspect at all and no other possible (`amd_gpu_gfx1200`), so every kernel that uses an
    /// aspect is left out of its image, whatever its devices have.
    pub fn is_placeholder(name: &str) -> bool {
        Self::builtin()
            .get(name)
            .is_some_and(|i| i.aspects.is_empty() && !i.may_support_other_aspects)
    }

    /// The default table with the given files applied in order.
    pub fn with_overlays<'a>(files: impl IntoIterator<Item = &'a ConfigFile>) -> DeviceTable {
        let mut table = Self::builtin().clone();
        for file in files {
            table.apply(file.entries.as_deref().unwrap_or_default());
            table.dropped.extend(file.dropped.iter().cloned());
        }
        table
    }

    /// An entry adds a target or replaces the existing one whole.
    pub fn apply(&mut self, entries: &[TargetEntry]) {
        for e in entries {
            self.targets.insert(e.name.clone(), e.info.clone());
        }
    }

    /// A table without `name`: a device-config file can replace an entry, never remove one.
    #[cfg(test)]
    pub(crate) fn remove(&mut self, name: &str) {
        self.targets.shift_remove(name);
    }

    pub fn get(&self, name: &str) -> Option<&TargetInfo> {
        self.targets.get(name)
    }

    /// The last entry named `name` that a config file left out for its errors.
    pub fn dropped(&self, name: &str) -> Option<&DroppedEntry> {
        self.dropped.iter().rev().find(|d| d.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &TargetInfo)> {
        self.targets.iter().map(|(n, i)| (n.as_str(), i))
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// The user's config files as a long-running process sees them: each file keeps its last
/// usable entries, so saving a file with a syntax error does not drop its targets.
#[derive(Clone, Debug, Default)]
pub struct ConfigSet {
    files: IndexMap<Arc<str>, Loaded>,
}

#[derive(Clone, Debug)]
struct Loaded {
    latest: ConfigFile,
    in_force: Vec<TargetEntry>,
}

impl ConfigSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a new version of a file (added at the end of the order if new) and returns its
    /// diagnostics. A version that is not usable YAML leaves the previous entries in force.
    pub fn update(&mut self, file: Arc<str>, bytes: &[u8]) -> &[Diagnostic] {
        let latest = config::load_bytes(file.clone(), bytes);
        let slot = self.files.entry(file).or_insert_with(|| Loaded {
            latest: latest.clone(),
            in_force: Vec::new(),
        });
        if let Some(entries) = &latest.entries {
            slot.in_force = entries.clone();
        }
        slot.latest = latest;
        &slot.latest.diagnostics
    }

    /// The files loaded, in order.
    pub fn files(&self) -> impl Iterator<Item = &Arc<str>> {
        self.files.keys()
    }

    /// A file that cannot be read now (deleted, replaced, unreadable) keeps its last good
    /// entries in force until it is back or no longer configured; its old diagnostics, which
    /// point into a text that is gone, are dropped. Returns the message to show.
    pub fn unreadable(&mut self, file: &str, error: &std::io::Error) -> String {
        let kept = match self.files.get_mut(file) {
            Some(slot) => {
                slot.latest.diagnostics.clear();
                "its last good targets stay in force until it can be read again"
            }
            None => "its targets do not apply",
        };
        format!("cannot read '{file}': {error}; {kept}")
    }

    pub fn remove(&mut self, file: &str) -> bool {
        self.files.shift_remove(file).is_some()
    }

    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.values().flat_map(|l| &l.latest.diagnostics)
    }

    pub fn table(&self) -> DeviceTable {
        let mut table = DeviceTable::builtin().clone();
        for loaded in self.files.values() {
            table.apply(&loaded.in_force);
            table.dropped.extend(loaded.latest.dropped.iter().cloned());
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::aspects::registry;

    #[test]
    fn builtin_has_every_reference_target() {
        let t = DeviceTable::builtin();
        assert_eq!(t.len(), 101);
        let pvc = t.get("intel_gpu_pvc").unwrap();
        assert!(!pvc.may_support_other_aspects);
        assert_eq!(pvc.aot_toolchain.as_deref(), Some("ocloc"));
        assert_eq!(pvc.aot_toolchain_options.as_deref(), Some("-device pvc"));
        assert_eq!(t.get("nvidia_gpu_sm_80").unwrap().aot_toolchain, None);
    }

    #[test]
    fn placeholders_are_the_entries_without_any_aspect() {
        assert!(DeviceTable::is_placeholder("amd_gpu_gfx1200"));
        // Open to any aspect: JIT, not a placeholder.
        assert!(!DeviceTable::is_placeholder("spir64"));
        assert!(!DeviceTable::is_placeholder("amd_gpu_gfx90a"));
        assert!(!DeviceTable::is_placeholder("no_such_target"));
    }

    #[test]
    fn overlay_adds_and_replaces() {
        let cfg = config::load(
            Arc::from("u.yaml"),
            "intel_gpu_pvc:\n  aspects: [fp16]\nmy_dev:\n  aspects: [gpu]\n",
        );
        let t = DeviceTable::with_overlays([&cfg]);
        assert_eq!(t.len(), 102);
        let pvc = t.get("intel_gpu_pvc").unwrap();
        assert_eq!(registry().sorted_names(pvc.aspects), ["fp16"]);
        assert_eq!(&*pvc.source, "u.yaml");
        assert!(t.get("my_dev").is_some());
    }

    #[test]
    fn later_files_win() {
        let a = config::load(Arc::from("a.yaml"), "x:\n  aspects: [fp16]\n");
        let b = config::load(Arc::from("b.yaml"), "x:\n  aspects: [fp64]\n");
        let t = DeviceTable::with_overlays([&a, &b]);
        assert_eq!(
            registry().sorted_names(t.get("x").unwrap().aspects),
            ["fp64"]
        );
    }

    #[test]
    fn config_set_keeps_last_good_state_through_a_broken_save() {
        let mut set = ConfigSet::new();
        let f: Arc<str> = Arc::from("dev.yaml");
        assert!(set.update(f.clone(), b"x:\n  aspects: [fp16]\n").is_empty());
        assert!(set.table().get("x").is_some());
        let diags = set.update(f.clone(), b"x:\n  aspects: [fp16\n");
        assert_eq!(diags[0].code.as_str(), "yaml-syntax");
        assert!(set.table().get("x").is_some(), "broken save keeps entries");
        // A parseable file with a bad entry drops just that entry.
        set.update(f.clone(), b"x:\n  aspects: [nope]\ny:\n  aspects: []\n");
        let t = set.table();
        assert!(t.get("x").is_none());
        assert!(t.get("y").is_some());
        assert!(set.remove(&f));
        assert_eq!(set.table(), *DeviceTable::builtin());
    }
}
