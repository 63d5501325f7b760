//! Interned names: four bytes each in the facts, where a pointer took eight. A workspace has a
//! few thousand distinct names for millions of uses (500 k lines: 7 300 names, 1.4 M
//! expressions), so every expression and local that names something is a third smaller.
//!
//! Names are never freed (the language server meets the same ones again on every edit). Reads
//! take no lock: the table is append-only (`boxcar`), and only interning a new text locks one
//! of a few shards.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{LazyLock, Mutex};

use rustc_hash::FxHashMap;

/// The default is the empty name (id 0).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Name(u32);

struct Entry {
    text: &'static str,
    /// The text's hash: a name hashes as its text does, so the order of hash maps keyed by
    /// names does not depend on which thread interned what first.
    hash: u64,
}

const SHARDS: usize = 16;

struct Table {
    entries: boxcar::Vec<Entry>,
    shards: [Mutex<FxHashMap<&'static str, u32>>; SHARDS],
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let table = Table {
        entries: boxcar::Vec::new(),
        shards: std::array::from_fn(|_| Mutex::new(FxHashMap::default())),
    };
    // Id 0 is the empty name, `Name::default()`.
    table.entries.push(Entry {
        text: "",
        hash: text_hash(""),
    });
    table
});

fn text_hash(text: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(text)
}

impl Name {
    pub fn new(text: &str) -> Name {
        if text.is_empty() {
            return Name(0);
        }
        let hash = text_hash(text);
        let table = &*TABLE;
        // A poisoned shard still holds a consistent map: entries are inserted whole.
        let mut shard = table.shards[(hash >> 58) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&id) = shard.get(text) {
            return Name(id);
        }
        let text: &'static str = Box::leak(text.into());
        let id = table.entries.push(Entry { text, hash });
        let id = u32::try_from(id).expect("fewer than 4 billion distinct names");
        shard.insert(text, id);
        Name(id)
    }

    /// How many names are interned, and the bytes of their texts.
    pub fn interned() -> (usize, usize) {
        let entries = &TABLE.entries;
        let bytes = entries.iter().map(|(_, e)| e.text.len()).sum();
        (entries.count(), bytes)
    }

    pub fn as_str(&self) -> &'static str {
        self.entry().text
    }

    fn entry(&self) -> &'static Entry {
        // Ids are only made by `new`, after their entry is in the table.
        &TABLE.entries[self.0 as usize]
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.entry().hash);
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Self {
        Name::new(text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Self {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Self {
        Name::new(&text)
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// As its text: the persisted index does not depend on the order names were interned in.
impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Name;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(Name::new(v))
            }
        }
        d.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_the_same_name_from_any_thread() {
        let here = Name::new("sycl::half");
        let there = std::thread::spawn(|| Name::new("sycl::half"))
            .join()
            .unwrap();
        assert_eq!(here, there);
        assert_eq!(there.as_str(), "sycl::half");
        assert_ne!(here, Name::new("sycl::half2"));
        assert_eq!(Name::default().as_str(), "");
        assert_eq!(Name::new(""), Name::default());
    }

    #[test]
    fn names_hash_and_order_as_their_texts() {
        use std::hash::BuildHasher;
        let h = rustc_hash::FxBuildHasher;
        // Interned in the reverse of their order.
        let (b, a) = (Name::new("zz_b"), Name::new("zz_a"));
        assert!(a < b);
        // A name's hash is a function of its text alone, not of its id.
        let of_text = |t: &str| {
            let mut s = h.build_hasher();
            s.write_u64(text_hash(t));
            s.finish()
        };
        assert_eq!(h.hash_one(a), of_text("zz_a"));
        assert_eq!(h.hash_one(b), of_text("zz_b"));
        assert_ne!(h.hash_one(a), h.hash_one(b));
    }

    #[test]
    fn names_round_trip_through_the_index_encoding() {
        let names = vec![Name::new("x"), Name::default(), Name::new("double*")];
        let bytes = postcard::to_allocvec(&names).unwrap();
        let back: Vec<Name> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, names);
        assert_eq!(std::mem::size_of::<Name>(), 4);
    }
}
