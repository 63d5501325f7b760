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

use crate::syntax::FileFacts;

mod report;
pub use report::{load_report, report_key, report_path, save_report};

/// Changes whenever the facts' shape or meaning may change.
const FORMAT: &str = concat!("sycl-analyzer-index-4-", env!("CARGO_PKG_VERSION"));

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

#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    entries: Vec<(String, u64, FileFacts)>,
}

/// Facts of the previous run, by path.
#[derive(Default)]
pub struct Index {
    entries: HashMap<String, (u64, Arc<FileFacts>)>,
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
        let Ok(bytes) = std::fs::read(path) else {
            return Index::default();
        };
        match postcard::from_bytes::<Stored>(&bytes) {
            Ok(stored) if stored.format == format_tag() => Index {
                entries: stored
                    .entries
                    .into_iter()
                    .map(|(p, h, f)| (p, (h, Arc::new(f))))
                    .collect(),
            },
            _ => Index::default(),
        }
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
        match postcard::from_bytes::<Stored>(&bytes) {
            Ok(stored) if stored.format == format_tag() => Ok(Index {
                entries: stored
                    .entries
                    .into_iter()
                    .map(|(p, h, f)| (p, (h, Arc::new(f))))
                    .collect(),
            }),
            Ok(_) => Err(format!(
                "'{}' was written by another build of sycl-analyzer: run the shards and the merge with the same binary",
                path.display()
            )),
            Err(e) => Err(format!("'{}' is not a facts file: {e}", path.display())),
        }
    }

    /// The facts of `path` if its content is unchanged.
    pub fn get(&self, path: &str, hash: u64) -> Option<Arc<FileFacts>> {
        self.entries
            .get(path)
            .filter(|(h, _)| *h == hash)
            .map(|(_, f)| f.clone())
    }

    /// Writes `entries` (path, content hash, facts) atomically. The facts are serialized where
    /// they are, straight to the file: a copy of them (or of their encoding) in memory was the
    /// language server's peak of memory on a large workspace.
    pub fn save(path: &Path, entries: &[(String, u64, Arc<FileFacts>)]) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Borrowed<'a> {
            format: String,
            entries: Vec<(&'a str, u64, &'a FileFacts)>,
        }
        let stored = Borrowed {
            format: format_tag(),
            entries: entries
                .iter()
                .map(|(p, h, f)| (p.as_str(), *h, &**f))
                .collect(),
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let result = (|| {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            postcard::to_io(&stored, &mut out).map_err(std::io::Error::other)?;
            std::io::Write::flush(&mut out)?;
            std::fs::rename(&tmp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let entries: Vec<(String, u64, Arc<FileFacts>)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    format!("{i}.cpp"),
                    content_hash(t),
                    Arc::new(crate::syntax::extract(t)),
                )
            })
            .collect();
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
