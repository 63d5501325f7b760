//! The IO edge of the analysis: finding C++ files under the given paths (honouring
//! `.gitignore`), reading them, and extracting their facts in parallel. Shared by `check` and
//! the servers; everything past this point is pure.

mod compile;
pub mod external;

pub use compile::{absolute, CompileEnv, FileFlags, Sources};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::base::SourceFile;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::syntax::{self, PackedFacts, CPP_EXTENSIONS};
use crate::text::{LineCol, TextRange};

/// Files larger than this are skipped with a notice: no real source is this big, and the
/// parser's memory grows with the file.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

pub fn is_cpp(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CPP_EXTENSIONS.contains(&e))
}

/// `p` without its `.` components: `check .` names `src/main.cpp` as `check src/main.cpp` does.
pub fn tidy(p: &Path) -> PathBuf {
    let out: PathBuf = p
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

/// C++ files under `paths` (files given directly are taken whatever their extension), sorted.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for root in paths {
        let meta = std::fs::metadata(root)
            .map_err(|e| format!("cannot read '{}': {e}", root.display()))?;
        if meta.is_file() {
            files.push(tidy(root));
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .require_git(false)
            .follow_links(false)
            .build();
        for entry in walker {
            let Ok(entry) = entry else { continue };
            if entry.file_type().is_some_and(|t| t.is_file()) && is_cpp(entry.path()) {
                files.push(tidy(entry.path()));
            }
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

#[derive(Default)]
pub struct Loaded {
    pub files: Vec<SourceFile>,
    /// Sources of the files, in the order of `files`; empty unless asked for (a workspace's
    /// texts are a quarter of its memory, and `check` needs only those of flagged files).
    pub texts: Vec<String>,
    /// Content hashes of the files, for the persisted index.
    pub hashes: Vec<u64>,
    pub notices: Vec<Diagnostic>,
    /// Files that sources include but that are not C++ files of the workspace (HeCBench's
    /// `#include "kernel.sycl"` inside a kernel): read for the preprocessor, never analysed.
    pub fragments: Vec<(Arc<str>, Arc<str>)>,
    /// How many of `files` had their facts from the persisted index (not parsed).
    pub reused: usize,
    /// When loaded packed: each file's facts encoded, in the order of `files`, whose facts
    /// are then outlines (`FileFacts::outline`). `check` decodes them a part at a time.
    pub packed: Vec<PackedFacts>,
    /// `files` hold outlines: without `packed`, there are no facts to save.
    pub outlined: bool,
    /// The headers outside the workspace its files include (`external`), readable or not:
    /// those read are among `files` (or `notices`), and a server watches them all.
    pub external: Vec<Arc<str>>,
}

/// How [`load_selected`] loads.
#[derive(Clone, Copy, Default)]
pub struct LoadMode<'a> {
    /// Keep the texts (`Loaded::texts`).
    pub keep_texts: bool,
    /// Pack each file's facts as they are made (see [`Loaded::packed`]).
    pub pack: bool,
    /// The workspace's roots: a header the include search finds outside them is an external
    /// header (read and analysed). Empty: the directories of the paths.
    pub roots: &'a [PathBuf],
}

/// The files the texts include by a quoted name, relative to the includer, that exist on disk
/// and are not among `known`, with their texts; and the same for what those include.
pub fn included_fragments(known: &[Arc<str>], quoted: &[Vec<String>]) -> Vec<(Arc<str>, Arc<str>)> {
    /// Enough for any real program; a runaway chain of generated includes stops here.
    const MAX_FRAGMENTS: usize = 10_000;
    let mut seen: std::collections::HashSet<PathBuf> = known
        .iter()
        .map(|p| crate::workspace::compile::absolute(Path::new(&**p)))
        .collect();
    let mut out: Vec<(Arc<str>, Arc<str>)> = Vec::new();
    let mut queue: Vec<(Arc<str>, Vec<String>)> = known
        .iter()
        .zip(quoted)
        .filter(|(_, q)| !q.is_empty())
        .map(|(p, q)| (p.clone(), q.clone()))
        .collect();
    while let Some((path, spelled)) = queue.pop() {
        let Some(dir) = Path::new(&*path).parent() else {
            continue;
        };
        for spelled in spelled {
            let candidate = dir.join(spelled);
            let abs = crate::workspace::compile::absolute(&candidate);
            if out.len() >= MAX_FRAGMENTS || seen.contains(&abs) || !abs.is_file() {
                continue;
            }
            seen.insert(abs);
            if let Ok(t) = read_source(&candidate) {
                let name: Arc<str> = Arc::from(candidate.display().to_string());
                let t: Arc<str> = Arc::from(t);
                queue.push((name.clone(), quoted_includes(&t)));
                out.push((name, t));
            }
        }
    }
    out
}

/// The names a text includes in quotes (`#include "kernel.sycl"`).
pub fn quoted_includes(text: &str) -> Vec<String> {
    crate::syntax::pp::directives(text)
        .into_iter()
        .filter(|d| d.kind == crate::syntax::pp::DirKind::Include)
        .filter_map(|d| {
            let arg = text[d.args.start..d.args.end].trim();
            arg.strip_prefix('"')
                .and_then(|r| r.split('"').next())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        })
        .collect()
}

pub fn notice(path: &Arc<str>, message: String) -> Box<Diagnostic> {
    Box::new(Diagnostic {
        file: path.clone(),
        range: TextRange::empty(0),
        pos: LineCol {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        },
        severity: Severity::Note,
        code: Code::FileSkipped,
        message,
        suggestions: Vec::new(),
        function: None,
        aspect: None,
        chain: Vec::new(),
        targets: Vec::new(),
    })
}

/// Reads and extracts every file in parallel. A file that cannot be used becomes a notice.
pub fn load(paths: &[PathBuf], env: &CompileEnv, progress: impl Fn() + Sync) -> Loaded {
    load_indexed(paths, &crate::cache::Index::default(), true, env, progress)
}

/// Like [`load`], taking the facts of unchanged files from a persisted index, and keeping the
/// texts only if `keep_texts`.
pub fn load_indexed(
    paths: &[PathBuf],
    index: &crate::cache::Index,
    keep_texts: bool,
    env: &CompileEnv,
    progress: impl Fn() + Sync,
) -> Loaded {
    let mode = LoadMode {
        keep_texts,
        ..LoadMode::default()
    };
    load_selected(paths, index, mode, env, progress, |_| true)
}

/// The files of shard `k` (1-based) of `n`: every shard computes the same split of `paths`,
/// balanced by size (largest first, each to the lightest shard; ties by path), so the shards of
/// a CI fan-out parse about as much each.
pub fn shard_of(paths: &[PathBuf], k: usize, n: usize) -> Vec<bool> {
    let mut order: Vec<(u64, usize)> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (std::fs::metadata(p).map_or(0, |m| m.len()), i))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| paths[a.1].cmp(&paths[b.1])));
    let mut load = vec![0u64; n];
    let mut mine = vec![false; paths.len()];
    for (size, i) in order {
        let lightest = (0..n).min_by_key(|&s| (load[s], s)).unwrap_or(0);
        load[lightest] += size.max(1);
        mine[i] = lightest + 1 == k;
    }
    mine
}

/// Like [`load_indexed`], extracting only the files `select` takes (by index in `paths`); the
/// others are still read, for the preprocessor to include. With `pack`, each file's facts are
/// packed as soon as they are made (see [`Loaded::packed`]): a workspace's facts decoded were
/// most of `check`'s memory.
pub fn load_selected(
    paths: &[PathBuf],
    index: &crate::cache::Index,
    mode: LoadMode,
    env: &CompileEnv,
    progress: impl Fn() + Sync,
    select: impl Fn(usize) -> bool + Sync,
) -> Loaded {
    let LoadMode {
        keep_texts, pack, ..
    } = mode;
    let budget = syntax::parse_budget();
    let mut names: Vec<Arc<str>> = paths
        .iter()
        .map(|p| Arc::from(p.display().to_string()))
        .collect();
    // All texts first: a file's preprocessing reads the headers it includes. Unless texts
    // are kept, a file whose facts the index has is only hashed and scanned for quoted
    // includes (fragments): its text is read again if a file parsed after all needs it (on a
    // warm `check`, every text held was the peak of memory).
    type Read = Result<(Option<Arc<str>>, u64, Vec<external::Include>), String>;
    let take = |name: &str, text: String| {
        let hash = crate::cache::content_hash(&text);
        let includes = external::includes(&text);
        let cached = !keep_texts && index.get_packed(name, hash).is_some();
        ((!cached).then(|| Arc::from(text)), hash, includes)
    };
    let mut read: Vec<Read> = paths
        .par_iter()
        .zip(&names)
        .map(|(p, name)| read_source(p).map(|text| take(name, text)))
        .collect();
    // Headers outside the workspace that its files include: files like the others from here.
    let workspace_files = names.len();
    let external = {
        let roots: Vec<PathBuf> = match mode.roots {
            [] => paths
                .iter()
                .map(|p| p.parent().unwrap_or(Path::new(".")).to_path_buf())
                .collect(),
            roots => roots.to_vec(),
        };
        let listed: Vec<(Arc<str>, Vec<external::Include>)> = names
            .iter()
            .zip(&read)
            .map(|(n, r)| {
                let incs = r.as_ref().map_or_else(|_| Vec::new(), |(.., i)| i.clone());
                (n.clone(), incs)
            })
            .collect();
        let t = std::time::Instant::now();
        let found = external::find(&listed, env, &roots, read_source);
        tracing::debug!(found = found.len(), elapsed = ?t.elapsed(), "external headers");
        found
    };
    let external_names: Vec<Arc<str>> = external.iter().map(|(p, _)| p.clone()).collect();
    for (name, text) in external {
        read.push(text.map(|t| take(&name, t)));
        names.push(name);
    }
    let mut texts: Vec<Option<Arc<str>>> = read
        .iter()
        .map(|r| r.as_ref().ok().and_then(|(t, ..)| t.clone()))
        .collect();
    let quoted: Vec<Vec<String>> = read
        .iter()
        .map(|r| {
            r.as_ref().map_or_else(
                |_| Vec::new(),
                |(.., incs)| {
                    let quoted = incs.iter().filter(|(_, angled)| !angled);
                    quoted.map(|(n, _)| n.clone()).collect()
                },
            )
        })
        .collect();
    let mut hashes: Vec<u64> = read
        .iter()
        .map(|r| r.as_ref().map_or(0, |(_, h, _)| *h))
        .collect();
    // From here the texts live in `sources` only, which lets them go group by group.
    let read: Vec<Result<u64, String>> = read.into_iter().map(|r| r.map(|(_, h, _)| h)).collect();
    let fragments = included_fragments(&names, &quoted);
    drop(quoted);
    let mut all_names = names.clone();
    for (p, t) in &fragments {
        all_names.push(p.clone());
        hashes.push(crate::cache::content_hash(t));
        texts.push(Some(t.clone()));
    }
    // A text released and then asked for after all is read again.
    let sources = Sources::new(env, all_names, texts, Some(hashes)).fetching(|p| {
        tracing::debug!(file = p, "read again");
        read_source(Path::new(p)).ok().map(Arc::from)
    });
    // Many files to parse: in groups of files that include each other, a group's texts
    // released once its files are extracted (rayon hands each thread a run of the order, so
    // groups finish one after another). A few (a warm start) are not worth scanning every
    // file's includes for.
    // External headers are every shard's: each one's facts are the same.
    let selected = |i: usize| i < names.len() && (i >= workspace_files || select(i));
    let fresh = (0..names.len())
        .filter(|&i| selected(i))
        .filter(|&i| {
            read[i]
                .as_ref()
                .is_ok_and(|&h| index.get_packed(&names[i], h).is_none())
        })
        .count();
    let groups: Vec<Vec<usize>> = if fresh > 32 {
        sources.include_groups()
    } else {
        Vec::new()
    };
    // Packing pays for itself when the workspace is many programs; when one group of files
    // that include each other is most of it, the analysis is one part (`analysis::parts`
    // joins at least those) and packed facts would only be decoded again.
    let pack = pack && !groups.iter().any(|g| g.len() * 2 > names.len());
    if tracing::enabled!(tracing::Level::DEBUG) && !groups.is_empty() {
        let mut sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.truncate(8);
        tracing::debug!(groups = groups.len(), ?sizes, "include groups");
    }
    let mut group_of = vec![usize::MAX; names.len()];
    for (g, files) in groups.iter().enumerate() {
        for &i in files.iter().filter(|&&i| i < names.len()) {
            group_of[i] = g;
        }
    }
    let left: Vec<std::sync::atomic::AtomicUsize> = groups
        .iter()
        .map(|g| g.iter().filter(|&&i| selected(i)).count().into())
        .collect();
    let order: Vec<usize> = if groups.is_empty() {
        (0..names.len()).filter(|&i| selected(i)).collect()
    } else {
        groups
            .iter()
            .flatten()
            .copied()
            .filter(|&i| selected(i))
            .collect()
    };
    let reused = std::sync::atomic::AtomicUsize::new(0);
    type Outcome = Result<(SourceFile, String, u64, Option<PackedFacts>), Box<Diagnostic>>;
    let mut results: Vec<(usize, Outcome)> = order
        .par_iter()
        .map(|&i| {
            let name = &names[i];
            let out = read[i]
                .clone()
                .and_then(|hash| {
                    let stored = index.get_packed(name, hash);
                    let cached = stored.and_then(|p| p.try_unpack()).filter(|f| {
                        sources.env_key(i, &f.preprocessor.deps) == Some(f.preprocessor.env_key)
                    });
                    // Packing keeps the index's bytes of a reused file, not a new encoding.
                    let (facts, repack) = match cached {
                        Some(f) => {
                            reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            (Arc::new(f), stored.cloned())
                        }
                        None => (Arc::new(sources.extract(i, Some(budget))?), None),
                    };
                    let text = match keep_texts.then(|| sources.text(i)).flatten() {
                        Some(t) => t.to_string(),
                        None => String::new(),
                    };
                    let (facts, packed) = if pack {
                        let packed = repack.unwrap_or_else(|| PackedFacts::pack(&facts));
                        (Arc::new(facts.outline()), Some(packed))
                    } else {
                        (facts, None)
                    };
                    Ok((
                        SourceFile {
                            path: name.clone(),
                            facts,
                        },
                        text,
                        hash,
                        packed,
                    ))
                })
                .map_err(|why| notice(name, why));
            if let Some(g) = groups.get(group_of[i]) {
                if left[group_of[i]].fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
                    g.iter().for_each(|&k| sources.release(k));
                }
            }
            progress();
            (i, out)
        })
        .collect();
    results.sort_unstable_by_key(|(i, _)| *i);
    let results = results.into_iter().map(|(_, r)| r);
    let mut loaded = Loaded {
        files: Vec::new(),
        texts: Vec::new(),
        hashes: Vec::new(),
        notices: Vec::new(),
        fragments,
        reused: reused.into_inner(),
        packed: Vec::new(),
        outlined: pack,
        external: external_names,
    };
    for r in results {
        match r {
            Ok((f, t, h, packed)) => {
                loaded.files.push(f);
                loaded.packed.extend(packed);
                if keep_texts {
                    loaded.texts.push(t);
                }
                loaded.hashes.push(h);
            }
            Err(n) => {
                tracing::info!(file = %n.file, "{}", n.message);
                loaded.notices.push(*n);
            }
        }
    }
    loaded
}

impl Loaded {
    /// Saves the facts for the next start; a failure only costs that start its speed.
    /// Whether every file's facts came from `index` and it holds no other file: writing it
    /// again would write the same (on a warm `check`, that write was a third of the time).
    pub fn same_as(&self, index: &crate::cache::Index) -> bool {
        self.reused == self.files.len() && index.len() == self.files.len()
    }

    pub fn save_index(&self, path: &Path) -> std::io::Result<()> {
        if self.outlined && self.packed.len() != self.files.len() {
            return Err(std::io::Error::other(
                "the packed facts were decoded already",
            ));
        }
        if self.outlined {
            let entries: Vec<(&str, u64, &[u8])> = self
                .files
                .iter()
                .zip(&self.hashes)
                .zip(&self.packed)
                .map(|((f, h), p)| (&*f.path, *h, p.bytes()))
                .collect();
            return crate::cache::Index::save_packed(path, &entries);
        }
        let entries: Vec<(String, u64, Arc<crate::syntax::FileFacts>)> = self
            .files
            .iter()
            .zip(&self.hashes)
            .map(|(f, h)| (f.path.to_string(), *h, f.facts.clone()))
            .collect();
        crate::cache::Index::save(path, &entries)
    }
}

/// The text of a source file, or why it is skipped.
pub fn read_source(path: &Path) -> Result<String, String> {
    let unreadable = |e: std::io::Error| format!("skipped: cannot read it: {e}");
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "skipped: {} MB is over the {} MB limit for a source file",
            meta.len() >> 20,
            MAX_FILE_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err("skipped: binary file".into());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        // Legacy encodings: the code is still ASCII; only comments or strings are garbled.
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Source texts read on demand, each file once: for locating findings that came without
/// byte ranges (a daemon's answer) and showing their lines. Names are read under `base`.
#[derive(Default)]
pub struct SourceTexts {
    base: std::path::PathBuf,
    texts: std::collections::BTreeMap<String, Option<Arc<str>>>,
}

impl SourceTexts {
    pub fn under(base: impl Into<std::path::PathBuf>) -> Self {
        Self {
            base: base.into(),
            texts: Default::default(),
        }
    }

    /// The text of `name` (`None` when it cannot be read).
    pub fn get(&mut self, name: &str) -> Option<Arc<str>> {
        let base = &self.base;
        self.texts
            .entry(name.to_string())
            .or_insert_with(|| read_source(&base.join(name)).ok().map(Into::into))
            .clone()
    }

    /// Every text read, by name.
    pub fn read(&self) -> impl Iterator<Item = (&str, &Arc<str>)> {
        self.texts
            .iter()
            .filter_map(|(n, t)| Some((n.as_str(), t.as_ref()?)))
    }
}
