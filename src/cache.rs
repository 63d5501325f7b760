//! The persisted index: per-file facts in the user cache directory, keyed by content hash and
//! tool version, so a second start skips parsing every unchanged file.
//!
//! One file per workspace root. Written atomically (temporary file, then rename); a file that is
//! corrupt, truncated or from another version is ignored and rebuilt.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::syntax::{FileFacts, PackedFacts};

mod report;
pub use report::{load_report, report_key, report_path, save_report};

/// Changes whenever the facts' shape or meaning may change.
const FORMAT: &str = concat!("sycl-analyzer-index-10-", env!("CARGO_PKG_VERSION"));

/// The format plus the identity of the running build (size and time of the executable): a
/// rebuilt binary never reads facts written by another build, whose layout may differ.
fn format_tag() -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{}-{}", m.len(), t.map_or(0, |d| d.as_nanos()))
        })
        .unwrap_or_default();
    format!("{FORMAT}-{build}")
}

/// Each file's facts are stored as bytes (postcard, length first): the index is read without
/// decoding them, and a file's are decoded when asked for (in parallel, by the loading), or
/// never (`check` keeps them packed).
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    format: String,
    #[serde(borrow)]
    entries: Vec<(String, u64, &'a [u8])>,
}

/// Facts of the previous run, by path.
#[derive(Default)]
pub struct Index {
    entries: HashMap<String, (u64, PackedFacts)>,
}

/// Facts encoded where they are serialized: one file's encoding in memory at a time.
struct Encoded<'a>(&'a FileFacts);

/// Bytes as bytes (serde writes a slice as a sequence of numbers otherwise).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl Serialize for Encoded<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes = postcard::to_allocvec(self.0).map_err(serde::ser::Error::custom)?;
        s.serialize_bytes(&bytes)
    }
}

pub fn content_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// `$XDG_CACHE_HOME/sycl-analyzer/<hash of the root>.idx`, else under `~/.cache`.
pub fn index_path(root: &Path) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    let abs = std::path::absolute(root).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    abs.hash(&mut h);
    Some(
        base.join("sycl-analyzer")
            .join(format!("{:016x}.idx", h.finish())),
    )
}

impl Index {
    /// The index at `path`, or an empty one when it is missing, corrupt or from another version.
    pub fn load(path: &Path) -> Index {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| Self::parse(bytes).ok())
            .unwrap_or_default()
    }

    /// The entries of an index file's bytes; `Err(true)` when it is from another build.
    fn parse(bytes: Vec<u8>) -> Result<Index, Result<bool, postcard::Error>> {
        let buf = Arc::new(bytes);
        let stored = postcard::from_bytes::<Stored>(&buf).map_err(Err)?;
        if stored.format != format_tag() {
            return Err(Ok(true));
        }
        let start = buf.as_ptr() as usize;
        let entries = stored
            .entries
            .into_iter()
            .map(|(p, h, facts)| {
                let at = facts.as_ptr() as usize - start;
                let packed = PackedFacts::in_buffer(buf.clone(), at..at + facts.len());
                (p, (h, packed))
            })
            .collect();
        Ok(Index { entries })
    }

    /// Adds `other`'s entries (a file in both takes `other`'s).
    pub fn extend(&mut self, other: Index) {
        self.entries.extend(other.entries);
    }

    /// How many files it has facts for.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reads a facts file written by `check --shard`: unlike the cache, one that is missing,
    /// corrupt or from another build is an error.
    pub fn load_strict(path: &Path) -> Result<Index, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        match Self::parse(bytes) {
            Ok(index) => Ok(index),
            Err(Ok(_)) => Err(format!(
                "'{}' was written by another build of sycl-analyzer: run the shards and the merge with the same binary",
                path.display()
            )),
            Err(Err(e)) => Err(format!("'{}' is not a facts file: {e}", path.display())),
        }
    }

    /// The facts of `path` if its content is unchanged (decoded; `None` if they do not
    /// decode).
    pub fn get(&self, path: &str, hash: u64) -> Option<Arc<FileFacts>> {
        self.get_packed(path, hash)?.try_unpack().map(Arc::new)
    }

    /// The same, as stored.
    pub fn get_packed(&self, path: &str, hash: u64) -> Option<&PackedFacts> {
        self.entries
            .get(path)
            .filter(|(h, _)| *h == hash)
            .map(|(_, f)| f)
    }

    /// Writes `entries` (path, content hash, facts) atomically. The facts are encoded one file
    /// at a time, as they are written: a copy of them all (or of their encoding) in memory was
    /// the language server's peak of memory on a large workspace.
    pub fn save(path: &Path, entries: &[(String, u64, Arc<FileFacts>)]) -> std::io::Result<()> {
        let entries = entries.iter().map(|(p, h, f)| (p.as_str(), *h, Encoded(f)));
        write_index(path, entries.collect())
    }

    /// Like [`Index::save`], from facts already encoded (`PackedFacts::bytes`).
    pub fn save_packed(path: &Path, entries: &[(&str, u64, &[u8])]) -> std::io::Result<()> {
        let entries = entries.iter().map(|&(p, h, b)| (p, h, Bytes(b)));
        write_index(path, entries.collect())
    }
}

/// The index file: the format tag, then each file's path, content hash and facts as bytes.
fn write_index<F: Serialize>(path: &Path, entries: Vec<(&str, u64, F)>) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Borrowed<'a, F> {
        format: String,
        entries: Vec<(&'a str, u64, F)>,
    }
    let stored = Borrowed {
        format: format_tag(),
        entries,
    };
    write_atomically(path, |out| {
        postcard::to_io(&stored, out).map_err(std::io::Error::other)?;
        Ok(())
    })
}

/// Writes `path` through a temporary file renamed over it: a reader never sees half a file.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write(&mut out)?;
        std::io::Write::flush(&mut out)?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Index entries of `texts`: `f0.cpp`, `f1.cpp`...
    fn entries_of(texts: &[impl AsRef<str>]) -> Vec<(String, u64, Arc<FileFacts>)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let t = t.as_ref();
                (
                    format!("f{i}.cpp"),
                    content_hash(t),
                    Arc::new(crate::syntax::extract(t)),
                )
            })
            .collect()
    }

    #[test]
    fn an_index_saved_from_packed_facts_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let texts = [
            "#include \"k.h\"\nvoid f(sycl::half h) { double d = h; }",
            "struct K { void operator()() const { long x = 1; } };",
        ];
        let entries = entries_of(&texts);
        let packed: Vec<crate::syntax::PackedFacts> = entries
            .iter()
            .map(|(_, _, f)| crate::syntax::PackedFacts::pack(f))
            .collect();
        let borrowed: Vec<(&str, u64, &[u8])> = entries
            .iter()
            .zip(&packed)
            .map(|((p, h, _), b)| (p.as_str(), *h, b.bytes()))
            .collect();
        let (a, b) = (dir.path().join("a.idx"), dir.path().join("b.idx"));
        Index::save(&a, &entries).unwrap();
        Index::save_packed(&b, &borrowed).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let idx = Index::load(&b);
        assert_eq!(
            idx.get("f1.cpp", entries[1].1).as_deref(),
            Some(&*entries[1].2)
        );
        assert_eq!(packed[0].unpack(), *entries[0].2);
    }

    #[test]
    fn an_entry_whose_facts_do_not_decode_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.idx");
        let good = PackedFacts::pack(&crate::syntax::extract("void f() {}"));
        let junk = [0xffu8; 12];
        Index::save_packed(
            &path,
            &[("bad.cpp", 1, &junk), ("good.cpp", 2, good.bytes())],
        )
        .unwrap();
        let idx = Index::load(&path);
        assert_eq!(idx.len(), 2);
        assert!(idx.get_packed("bad.cpp", 1).is_some());
        assert!(idx.get("bad.cpp", 1).is_none(), "read again, not a panic");
        assert_eq!(idx.get("good.cpp", 2).as_deref(), Some(&good.unpack()));
    }

    #[test]
    fn round_trip_and_rejection_of_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x/i.idx");
        let text = "[[sycl::device_has()]] void f() { double d; }";
        let facts = Arc::new(crate::syntax::extract(text));
        let h = content_hash(text);
        Index::save(&path, &[("a.cpp".into(), h, facts.clone())]).unwrap();
        let idx = Index::load(&path);
        assert_eq!(idx.get("a.cpp", h).as_deref(), Some(&*facts));
        assert!(idx.get("a.cpp", h + 1).is_none(), "changed content misses");
        // Truncated or garbage: ignored, not a crash.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(Index::load(&path).get("a.cpp", h).is_none());
        std::fs::write(&path, b"garbage").unwrap();
        assert!(Index::load(&path).get("a.cpp", h).is_none());
        assert!(Index::load(&dir.path().join("missing"))
            .get("a.cpp", h)
            .is_none());
    }

    /// Interned names, side-table runs and packed literals come back as they were written:
    /// a real example plus the expression forms that use them.
    #[test]
    fn round_trip_of_every_expression_form() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.idx");
        let extra = "template <class T> void g(T t) { auto l = [&](int k) { return t * k; };
            h<int, 3>(t, l(2)); t.template m<T>(); double d = (double)t + 1ULL << 40;
            long big = 0x7fffffffffffffff; int a[4] = {1, 2}; new S(t, d); sizeof(T); }";
        let texts = [
            include_str!("../examples/vector-math/src/main.cpp").to_string(),
            extra.to_string(),
        ];
        let entries = entries_of(&texts);
        assert!(entries[1].2.functions.iter().any(|f| f
            .body
            .as_ref()
            .is_some_and(|b| !b.lists.is_empty() && !b.targs.is_empty())));
        Index::save(&path, &entries).unwrap();
        let idx = Index::load(&path);
        for (p, h, facts) in &entries {
            assert_eq!(idx.get(p, *h).as_deref(), Some(&**facts), "{p}");
        }
    }
}
