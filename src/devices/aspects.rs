//! The aspect registry (embedded `config/aspects.yaml`) and compact aspect sets.
//!
//! Names are the identity of an aspect: DPC++ renumbered the enum across releases, and the driver
//! macros and traits use names. Numbers are kept for display and accepted as YAML input.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::yaml::{self, Value};

const EMBEDDED: &str = include_str!("../../config/aspects.yaml");

/// Index of an aspect in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AspectId(u8);

impl AspectId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AspectInfo {
    pub name: String,
    /// The `sycl::aspect` enumerator value in the newest DPC++ numbering.
    pub value: i64,
    /// `Some(message)` for aspects of `aspects_deprecated.def`.
    pub deprecated: Option<String>,
    /// One line for people (hovers).
    pub description: Option<String>,
}

/// A set of aspects as a bitset over registry indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AspectSet(u128);

impl AspectSet {
    pub const EMPTY: AspectSet = AspectSet(0);
    /// Every aspect: the mask of a link through which none flows.
    pub const ALL: AspectSet = AspectSet(u128::MAX);

    /// The set as bits over the registry's indices (to persist it: only the build that wrote
    /// them may read them back, its registry being the same).
    pub fn bits(self) -> u128 {
        self.0
    }

    pub fn from_bits(bits: u128) -> AspectSet {
        AspectSet(bits)
    }

    pub fn insert(&mut self, id: AspectId) -> bool {
        let bit = 1u128 << id.0;
        let fresh = self.0 & bit == 0;
        self.0 |= bit;
        fresh
    }

    pub fn contains(self, id: AspectId) -> bool {
        self.0 & (1u128 << id.0) != 0
    }

    pub fn union(self, other: AspectSet) -> AspectSet {
        AspectSet(self.0 | other.0)
    }

    pub fn intersection(self, other: AspectSet) -> AspectSet {
        AspectSet(self.0 & other.0)
    }

    pub fn is_subset(self, other: AspectSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn difference(self, other: AspectSet) -> AspectSet {
        AspectSet(self.0 & !other.0)
    }

    /// Members in registry order.
    pub fn iter(self) -> impl Iterator<Item = AspectId> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let i = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                AspectId(i)
            })
        })
    }
}

impl FromIterator<AspectId> for AspectSet {
    fn from_iter<I: IntoIterator<Item = AspectId>>(iter: I) -> Self {
        let mut set = AspectSet::EMPTY;
        for id in iter {
            set.insert(id);
        }
        set
    }
}

#[derive(Debug)]
pub struct AspectRegistry {
    aspects: Vec<AspectInfo>,
    by_name: HashMap<String, AspectId>,
    by_value: HashMap<i64, AspectId>,
    current: AspectSet,
}

/// The registry embedded in the binary.
pub fn registry() -> &'static AspectRegistry {
    static REGISTRY: LazyLock<AspectRegistry> = LazyLock::new(|| {
        AspectRegistry::from_yaml(EMBEDDED).expect("embedded config/aspects.yaml is valid")
    });
    &REGISTRY
}

impl AspectRegistry {
    /// Reads the registry format of `config/aspects.yaml`: `aspects:` and `deprecated:` lists of
    /// `{name, value[, message]}`.
    pub fn from_yaml(text: &str) -> Result<Self, String> {
        let docs = yaml::parse(text).map_err(|e| e.message)?;
        let root = docs.first().ok_or("empty aspect registry")?;
        let Value::Map(sections) = &root.value else {
            return Err("aspect registry must be a mapping".into());
        };
        let mut aspects = Vec::new();
        for (key, list) in sections {
            let deprecated = match key.as_str() {
                Some("aspects") => false,
                Some("deprecated") => true,
                other => return Err(format!("unknown registry section {other:?}")),
            };
            let Value::Seq(items) = &list.value else {
                return Err("registry sections are lists".into());
            };
            for item in items {
                let Value::Map(fields) = &item.value else {
                    return Err("registry items are mappings".into());
                };
                let field = |name: &str| fields.iter().find(|(k, _)| k.as_str() == Some(name));
                let name = field("name")
                    .and_then(|(_, v)| v.as_str())
                    .ok_or("aspect without a name")?;
                let value = match field("value").map(|(_, v)| &v.value) {
                    Some(Value::Int(i)) => *i,
                    _ => return Err(format!("aspect {name} has no integer value")),
                };
                let message = field("message").and_then(|(_, v)| v.as_str());
                let description = field("description").and_then(|(_, v)| v.as_str());
                aspects.push(AspectInfo {
                    name: name.to_string(),
                    value,
                    deprecated: deprecated.then(|| message.unwrap_or("deprecated").to_string()),
                    description: description.map(str::to_string),
                });
            }
        }
        if aspects.len() > 128 {
            return Err(format!("{} aspects do not fit an AspectSet", aspects.len()));
        }
        let mut by_name = HashMap::new();
        let mut by_value = HashMap::new();
        let mut current = AspectSet::EMPTY;
        for (i, a) in aspects.iter().enumerate() {
            let id = AspectId(i as u8);
            if by_name.insert(a.name.clone(), id).is_some() {
                return Err(format!("aspect {} listed twice", a.name));
            }
            if by_value.insert(a.value, id).is_some() {
                return Err(format!("aspect value {} used twice", a.value));
            }
            if a.deprecated.is_none() {
                current.insert(id);
            }
        }
        Ok(Self {
            aspects,
            by_name,
            by_value,
            current,
        })
    }

    pub fn get(&self, id: AspectId) -> &AspectInfo {
        &self.aspects[id.index()]
    }

    pub fn name(&self, id: AspectId) -> &str {
        &self.aspects[id.index()].name
    }

    pub fn by_name(&self, name: &str) -> Option<AspectId> {
        self.by_name.get(name).copied()
    }

    pub fn by_value(&self, value: i64) -> Option<AspectId> {
        self.by_value.get(&value).copied()
    }

    /// Every aspect, current ones first in file order, then the deprecated ones.
    pub fn iter(&self) -> impl Iterator<Item = (AspectId, &AspectInfo)> {
        self.aspects
            .iter()
            .enumerate()
            .map(|(i, a)| (AspectId(i as u8), a))
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.aspects.iter().map(|a| a.name.as_str())
    }

    /// The non-deprecated aspects: "the set of all aspects" of the trait algorithm.
    pub fn current(&self) -> AspectSet {
        self.current
    }

    pub fn len(&self) -> usize {
        self.aspects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.aspects.is_empty()
    }

    /// Names of a set, sorted alphabetically (the order DPC++ emits macros in).
    pub fn sorted_names(&self, set: AspectSet) -> Vec<&str> {
        let mut names: Vec<&str> = set.iter().map(|id| self.name(id)).collect();
        names.sort_unstable();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_registry_loads_with_current_and_deprecated() {
        let r = registry();
        assert_eq!(r.current().len(), 97);
        assert_eq!(r.len(), 101);
        let fp64 = r.by_name("fp64").unwrap();
        assert_eq!(r.get(fp64).value, 6);
        assert_eq!(r.by_value(27).map(|id| r.name(id)), Some("atomic64"));
        let host = r.by_name("host").unwrap();
        assert!(r.get(host).deprecated.is_some());
        assert!(!r.current().contains(host));
        assert_eq!(r.by_value(100), None);
    }

    #[test]
    fn set_operations() {
        let r = registry();
        let a: AspectSet = ["fp16", "fp64"]
            .iter()
            .map(|n| r.by_name(n).unwrap())
            .collect();
        let b: AspectSet = ["fp64", "gpu"]
            .iter()
            .map(|n| r.by_name(n).unwrap())
            .collect();
        assert_eq!(a.intersection(b).len(), 1);
        assert_eq!(a.union(b).len(), 3);
        assert!(a.intersection(b).is_subset(a));
        assert!(!a.is_subset(b));
        assert_eq!(r.sorted_names(a.union(b)), vec!["fp16", "fp64", "gpu"]);
    }

    #[test]
    fn malformed_registries_are_refused() {
        assert!(
            AspectRegistry::from_yaml("aspects: [{name: a, value: 1}, {name: a, value: 2}]")
                .is_err()
        );
        assert!(
            AspectRegistry::from_yaml("aspects: [{name: a, value: 1}, {name: b, value: 1}]")
                .is_err()
        );
        assert!(AspectRegistry::from_yaml("aspects: [{name: a}]").is_err());
        assert!(AspectRegistry::from_yaml("other: []").is_err());
    }
}
