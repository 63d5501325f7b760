//! How each file is compiled: the macros its device compile predefines, its own `-D`/`-U`/`-I`
//! from `compile_commands.json`, and the workspace headers its includes reach (a header is
//! preprocessed as its translation unit includes it). Reads no files: texts come in, or through
//! the caller's `Sources::fetching`.

mod meanings;
mod search;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::base::{is_header, PathIndex, Search, UnionFind};
use crate::devices::predefined::{DeviceCompiles, Predefined};
use crate::syntax::pp::{self, MacroAt, MacroDef, MacroTable, Macros, Origin, Source};
use crate::syntax::{self, FileFacts};
use crate::text::TextRange;

/// What a compile command says about one file beyond its targets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileFlags {
    /// `-D NAME[=value]` (`Some`) and `-U NAME` (`None`), in order.
    pub macros: Vec<(String, Option<String>)>,
    /// Searched for both `#include "..."` and `<...>`: `-I`, `-isystem`, `-idirafter` (in the
    /// driver's order), then `--include-dir`.
    pub include_dirs: Vec<PathBuf>,
    /// `-iquote`: searched for `#include "..."` only, after the includer's directory.
    pub quote_dirs: Vec<PathBuf>,
    /// `-include FILE`: read before the file's first line.
    pub forced_includes: Vec<PathBuf>,
}

/// The predefined macros of the configured device compiles and the per-file flags.
pub struct CompileEnv {
    /// Per device compile that differs from the others, its targets and all its predefined
    /// macros; one entry (with no target names) when they are all the same.
    compiles: Vec<(Vec<String>, Vec<Predefined>)>,
    /// The macros whose definition differs between the compiles: a file whose preprocessing
    /// reads none of them is the same in every compile, and is preprocessed once.
    varying: Arc<FxHashSet<Arc<str>>>,
    files: FxHashMap<PathBuf, FileFlags>,
    /// `--include-dir`: searched by every file, after its own directories.
    extra_dirs: Vec<PathBuf>,
    /// Macro tables by compile and flags, built once: most files of a build share their flags.
    bases: Mutex<FxHashMap<u64, Arc<MacroTable>>>,
    key: u64,
    /// Header readings, kept for as long as this environment (a language server's session
    /// until the targets or compile commands change).
    memo: pp::memo::HeaderMemo,
}

fn hash_of(x: &impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// An absolute path without `.` and `..`, for matching compile commands with files.
pub fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl CompileEnv {
    /// The device compile of `targets` (the implicit `spir64` when `None`) with each file's
    /// own flags.
    pub fn for_targets(
        targets: Option<&[crate::devices::ResolvedTarget]>,
        table: &crate::devices::DeviceTable,
        files: Vec<(PathBuf, FileFlags)>,
    ) -> Self {
        let implicit;
        let targets = match targets {
            Some(t) => t,
            None => {
                implicit = crate::devices::parse_target_list("spir64", table).targets;
                &implicit
            }
        };
        Self::new(
            crate::devices::predefined::device_compiles(targets, table),
            files,
        )
    }

    pub fn new(device: DeviceCompiles, files: Vec<(PathBuf, FileFlags)>) -> Self {
        let files: FxHashMap<PathBuf, FileFlags> =
            files.into_iter().map(|(p, f)| (absolute(&p), f)).collect();
        let mut sorted: Vec<(&PathBuf, &FileFlags)> = files.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let key = hash_of(&(&device, sorted));
        let (compiles, varying) = if device.classes.len() < 2 {
            (vec![(Vec::new(), device.merged())], FxHashSet::default())
        } else {
            let varying = device
                .classes
                .iter()
                // A function-like macro (`f(...)`, the `-D` form) is looked up by its name.
                .flat_map(|c| {
                    c.macros
                        .iter()
                        .map(|m| Arc::from(m.0.split('(').next().unwrap_or_default()))
                })
                .collect();
            let compiles = device
                .classes
                .iter()
                .map(|c| {
                    let mut all = device.common.clone();
                    all.extend(c.macros.iter().cloned());
                    (c.targets.clone(), all)
                })
                .collect();
            (compiles, varying)
        };
        CompileEnv {
            compiles,
            varying: Arc::new(varying),
            files,
            extra_dirs: Vec::new(),
            bases: Mutex::default(),
            key,
            memo: Default::default(),
        }
    }

    /// Only the file's own macros: for tests and for text with no workspace.
    pub fn none() -> Self {
        CompileEnv::new(DeviceCompiles::default(), Vec::new())
    }

    /// How many device compiles differ (1 when every target's compile is the same).
    pub fn compile_count(&self) -> usize {
        self.compiles.len()
    }

    /// The targets of compile `c` (none when there is one compile).
    pub fn compile_targets(&self, c: usize) -> &[String] {
        &self.compiles[c].0
    }

    /// The predefined macros of compile `c`: name, value, where it comes from.
    pub fn predefined(&self, c: usize) -> &[Predefined] {
        &self.compiles[c].1
    }

    /// A fingerprint of the whole environment.
    pub fn key(&self) -> u64 {
        self.key
    }

    pub fn flags(&self, path: &Path) -> Option<&FileFlags> {
        if self.files.is_empty() {
            return None;
        }
        self.files.get(&absolute(path))
    }

    /// The macros a file with `flags` starts from in device compile `compile`, watching the
    /// macros that differ between compiles.
    pub fn base(&self, compile: usize, flags: Option<&FileFlags>) -> Macros {
        let key = hash_of(&(self.key, compile, flags));
        let mut bases = self.bases.lock().unwrap_or_else(|e| e.into_inner());
        let table = bases
            .entry(key)
            .or_insert_with(|| {
                let mut defs: Vec<(String, Option<String>, Origin)> = self.compiles[compile]
                    .1
                    .iter()
                    .map(|(n, v, why)| {
                        (
                            n.clone(),
                            Some(v.clone()),
                            Origin::Predefined(Arc::from(why.as_str())),
                        )
                    })
                    .collect();
                for (n, v) in flags.map_or(&[][..], |f| &f.macros) {
                    defs.push((n.clone(), v.clone(), Origin::CommandLine));
                }
                Arc::new(Macros::table(&defs))
            })
            .clone();
        let mut macros = Macros::new(table);
        if !self.varying.is_empty() {
            macros.watch(self.varying.clone());
        }
        macros
    }
}

/// A value computed when first needed and kept until released: a loaded workspace's texts go
/// once every file that reads them is extracted (`check` of oneAPI-samples held 116 MB of
/// texts beside all the facts at its peak).
struct Slot<T>(Mutex<Option<Option<T>>>);

impl<T: Clone> Slot<T> {
    fn new(value: Option<Option<T>>) -> Self {
        Slot(Mutex::new(value))
    }

    /// Computed under the slot's lock: a second reader waits for the first one's value.
    fn get_or_init(&self, init: impl FnOnce() -> Option<T>) -> Option<T> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = &*slot {
            return v.clone();
        }
        let v = init();
        *slot = Some(v.clone());
        v
    }

    fn release(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The value if it was computed (`Some(None)`: computed, and none).
    fn peek(&self) -> Option<Option<T>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

type Fetch<'e> = Box<dyn Fn(&str) -> Option<Arc<str>> + Send + Sync + 'e>;
type MayInclude<'e> = Box<dyn Fn(&str) -> Vec<u32> + Send + Sync + 'e>;

/// The workspace's files as the preprocessor reads them.
pub struct Sources<'e> {
    env: &'e CompileEnv,
    paths: Vec<Arc<str>>,
    index: PathIndex,
    texts: Vec<Slot<Arc<str>>>,
    /// Reads a text not given, when first needed: the language server keeps no closed
    /// file's text that no other file reads.
    fetch: Option<Fetch<'e>>,
    /// The files that may include a given one (a superset), when the caller knows them from
    /// the files' facts: without it, every text is searched for the file's name.
    may_include: Option<MayInclude<'e>>,
    /// Content hashes, computed when a fingerprint needs them.
    hashes: Vec<OnceLock<u64>>,
    sources: Vec<Slot<Arc<Source>>>,
    /// Per file, the files that include it and where (computed when asked), or for all
    /// files at once once many were asked.
    includers: Vec<OnceLock<Vec<(u32, usize)>>>,
    all_includers: OnceLock<Vec<Vec<(u32, usize)>>>,
    asked: std::sync::atomic::AtomicUsize,
    units_key: OnceLock<u64>,
    /// The open documents' syntax trees, for incremental re-parsing (the language server's).
    trees: Option<Arc<syntax::Trees>>,
}

impl<'e> Sources<'e> {
    /// `texts[i]` is `None` for a file that could not be read; `hashes`, when known, are
    /// their content hashes.
    pub fn new(
        env: &'e CompileEnv,
        paths: Vec<Arc<str>>,
        texts: Vec<Option<Arc<str>>>,
        hashes: Option<Vec<u64>>,
    ) -> Self {
        let mut index = PathIndex::new(paths.iter().map(|p| &**p));
        // Compile commands name include directories absolutely; workspace paths may be
        // relative to here.
        if let Ok(here) = std::env::current_dir() {
            index = index.with_base(&here);
        }
        let n = paths.len();
        let sources = (0..n).map(|_| Slot::new(None)).collect();
        let hashes = match hashes {
            Some(h) => h.into_iter().map(OnceLock::from).collect(),
            None => (0..paths.len()).map(|_| OnceLock::new()).collect(),
        };
        Sources {
            env,
            paths,
            index,
            texts: texts.into_iter().map(|t| Slot::new(t.map(Some))).collect(),
            fetch: None,
            may_include: None,
            hashes,
            sources,
            includers: (0..n).map(|_| OnceLock::new()).collect(),
            all_includers: OnceLock::new(),
            asked: Default::default(),
            units_key: OnceLock::new(),
            trees: None,
        }
    }

    /// Texts given as `None` are read with `fetch` when first needed (`None` again: unreadable).
    pub fn fetching(mut self, fetch: impl Fn(&str) -> Option<Arc<str>> + Send + Sync + 'e) -> Self {
        self.fetch = Some(Box::new(fetch));
        self
    }

    /// `may_include(path)`: the indexes of the files that may include `path`; the others are
    /// not read to find its includers.
    pub fn knowing_includers(
        mut self,
        may_include: impl Fn(&str) -> Vec<u32> + Send + Sync + 'e,
    ) -> Self {
        self.may_include = Some(Box::new(may_include));
        self
    }

    /// Re-parses the documents `trees` keeps from their last trees.
    pub fn with_trees(mut self, trees: Arc<syntax::Trees>) -> Self {
        self.trees = Some(trees);
        self
    }

    /// The index of a file by path.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.index.get(Path::new(path)).map(|i| i as usize)
    }

    pub fn text(&self, i: usize) -> Option<Arc<str>> {
        self.texts
            .get(i)?
            .get_or_init(|| self.fetch.as_ref().and_then(|f| f(&self.paths[i])))
    }

    fn source(&self, i: usize) -> Option<Arc<Source>> {
        self.sources[i].get_or_init(|| {
            let text = self.text(i)?;
            Some(Arc::new(Source::new(self.paths[i].clone(), text)))
        })
    }

    /// Forgets file `i`'s text and scanned directives: read again (through `fetching`) if
    /// asked for after all.
    pub fn release(&self, i: usize) {
        if let (Some(t), Some(s)) = (self.texts.get(i), self.sources.get(i)) {
            s.release();
            t.release();
        }
    }

    /// The files that reach each other through includes, each group in file order, the
    /// groups by their first file: once a group is extracted, none of its texts is read again.
    pub fn include_groups(&self) -> Vec<Vec<usize>> {
        let mut sets = UnionFind::new(self.paths.len());
        for (j, ins) in self.all_includers().iter().enumerate() {
            for &(i, _) in ins {
                sets.union(i as usize, j);
            }
        }
        sets.groups()
    }

    /// Where the includes of a file compiled in `unit` are looked for.
    fn dirs(&self, unit: usize) -> Search<'_> {
        self.env.search(Path::new(&*self.paths[unit]))
    }

    /// The files that include file `j`, and where. Only texts that spell its file name can,
    /// so one substring search over the workspace finds the few to read: an edit's analysis
    /// asks this for the edited file only.
    fn includers_of(&self, j: usize) -> &[(u32, usize)] {
        if let Some(may) = &self.may_include {
            return self.includers[j].get_or_init(|| {
                let name = Path::new(&*self.paths[j])
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                let mut found: Vec<(u32, usize)> = may(&self.paths[j])
                    .into_iter()
                    .filter(|&i| i as usize != j && (i as usize) < self.paths.len())
                    // Scanning a text's directives costs more than looking for the name.
                    .filter(|&i| self.spells(i as usize, name))
                    .flat_map(|i| {
                        self.includes_of(i as usize)
                            .into_iter()
                            .filter(|&(k, _)| k as usize == j)
                            .map(move |(_, at)| (i, at))
                    })
                    .collect();
                found.sort_unstable();
                found.dedup();
                found
            });
        }
        // Past a few files (a cold load asks for all) one pass over every file's directives
        // costs less than a search per file.
        if let Some(all) = self.all_includers.get() {
            return &all[j];
        }
        if self
            .asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            >= 32
        {
            return &self.all_includers()[j];
        }
        self.includers[j].get_or_init(|| {
            use rayon::prelude::*;
            let Some(name) = Path::new(&*self.paths[j])
                .file_name()
                .and_then(|n| n.to_str())
            else {
                return Vec::new();
            };
            let mut found: Vec<(u32, usize)> = (0..self.paths.len())
                .into_par_iter()
                .filter(|&i| i != j && self.spells(i, name))
                .flat_map_iter(|i| {
                    self.includes_of(i)
                        .into_iter()
                        .filter(|&(k, _)| k as usize == j)
                        .map(move |(_, at)| (i as u32, at))
                })
                .collect();
            found.sort_unstable();
            found
        })
    }

    /// The workspace files file `i` includes, and where.
    /// Whether file `i`'s text spells `name`. A text not in memory is read for the search and
    /// let go unless it does: a search for a header's includers read every file of the
    /// workspace, and kept them all (a warm `check` with one file changed).
    fn spells(&self, i: usize, name: &str) -> bool {
        match self.texts[i].peek() {
            Some(text) => text.is_some_and(|t| t.contains(name)),
            None => self
                .fetch
                .as_ref()
                .and_then(|f| f(&self.paths[i]))
                .is_some_and(|t| t.contains(name)),
        }
    }

    fn includes_of(&self, i: usize) -> Vec<(u32, usize)> {
        self.source(i)
            .map_or_else(Vec::new, |src| self.includes_in(i, &src))
    }

    fn includes_in(&self, i: usize, src: &Source) -> Vec<(u32, usize)> {
        src.directives
            .iter()
            .filter(|d| d.kind == pp::DirKind::Include)
            .filter_map(|d| {
                let arg = src.text[d.args.start..d.args.end].trim();
                let inner = arg.get(1..)?;
                let spelled = &inner[..inner.find(['"', '>'])?];
                let angled = arg.starts_with('<');
                let j = self
                    .index
                    .resolve_in(i as u32, spelled, angled, self.dirs(i))?;
                Some((j, d.range.start))
            })
            .collect()
    }

    fn all_includers(&self) -> &[Vec<(u32, usize)>] {
        self.all_includers.get_or_init(|| {
            use rayon::prelude::*;
            // A text not in memory (its facts came from the index) is read, scanned and let
            // go: keeping them all was a warm `check`'s peak when one file had changed.
            let direct: Vec<Vec<(u32, usize)>> = (0..self.paths.len())
                .into_par_iter()
                .map(|i| match self.texts[i].peek() {
                    Some(_) => self.includes_of(i),
                    None => {
                        let text = self.fetch.as_ref().and_then(|f| f(&self.paths[i]));
                        let src = text.map(|t| Source::new(self.paths[i].clone(), t));
                        src.map_or_else(Vec::new, |src| self.includes_in(i, &src))
                    }
                })
                .collect();
            let mut rev = vec![Vec::new(); self.paths.len()];
            for (i, ds) in direct.into_iter().enumerate() {
                for (j, at) in ds {
                    if j as usize != i {
                        rev[j as usize].push((i as u32, at));
                    }
                }
            }
            rev
        })
    }

    /// The includer chain a file is compiled through, its translation unit first, each with
    /// where it includes the next (the file itself last, at 0): from the
    /// first source file that includes it (else the first file), as the visibility rules
    /// choose. `[file]` for a file nothing includes; a source file some other includes
    /// (`#include "kernels.cpp"`) is compiled there.
    fn chain(&self, file: usize) -> Vec<(usize, usize)> {
        let mut chain = vec![(file, 0)];
        let mut at = file;
        while chain.len() < 16 {
            let ins = self.includers_of(at);
            let next = ins
                .iter()
                .find(|(i, _)| !is_header(&self.paths[*i as usize]))
                .or(ins.first());
            match next {
                Some(&(i, offset)) if !chain.iter().any(|(c, _)| *c == i as usize) => {
                    chain.push((i as usize, offset));
                    at = i as usize;
                }
                _ => break,
            }
        }
        chain.reverse();
        chain
    }

    /// The facts of file `i`, preprocessed as it is compiled. A file whose preprocessing read a
    /// macro that differs between the targets' device compiles is preprocessed again for each
    /// other compile; the facts of a compile whose text differs are its `variants`. So is a
    /// header compiled differently by another translation unit that includes it (`-D` flags, a
    /// `#define` before the `#include`): those units' facts are variants too (`units`).
    pub fn extract(
        &self,
        i: usize,
        budget: Option<std::time::Duration>,
    ) -> Result<FileFacts, String> {
        let text = self.text(i).ok_or("skipped: cannot read it")?;
        let text: &str = &text;
        let chain = self.chain(i);
        let unit = chain[0].0;
        let includes = FileIncludes {
            sources: self,
            dirs: self.dirs(unit),
        };
        let others = if chain.len() > 1 {
            self.other_units(i, unit)
        } else {
            Vec::new()
        };
        let t = std::time::Instant::now();
        let mut entry = self.start(&chain, &includes, 0);
        let entry_dependent = entry.read_watched();
        // What the header reads of its includer's macros, to compare the other units on.
        if !others.is_empty() {
            entry.record_reads();
        }
        let (first, mut macros) = self.preprocess_from(i, text, entry, &includes);
        let reads = match others.is_empty() {
            true => Vec::new(),
            false => macros.recorded_reads(),
        };
        tracing::trace!(elapsed = ?t.elapsed(), "preprocess");
        let key0 = first.1;
        let text0 = match others.is_empty() {
            true => 0,
            false => hash_of(&first.0.text),
        };
        let trees = self.trees.as_deref().map(|t| (t, &self.paths[i]));
        let mut facts = syntax::extract_preprocessed_with(text, first.0, budget, trees)?;
        let dependent = macros.read_watched();
        facts.preprocessor.target_dependent = dependent;
        let per = self.per_compile(i, text, &chain, &includes, (key0, None), dependent);
        let keys: Vec<u64> = per.iter().map(|p| p.0).collect();
        let seen = self.meanings(text, per, budget)?;
        if seen.len() > 1 {
            let mut seen = seen.into_iter();
            facts.preprocessor.targets = seen.next().map(|s| s.1).unwrap_or_default();
            facts.preprocessor.variants = seen
                .map(|(_, targets, f)| crate::syntax::TargetVariant {
                    targets,
                    units: Vec::new(),
                    facts: Arc::new(f.unwrap_or_default()),
                })
                .collect();
        }
        if !others.is_empty() {
            let first = FirstReading {
                reads,
                dirs: includes.dirs,
                entry_dependent,
                dependent,
                keys,
                text: text0,
            };
            let variants = self.unit_variants(i, text, &others, &first, budget)?;
            if !variants.is_empty() {
                let units: Vec<&str> = variants
                    .iter()
                    .flat_map(|v| &v.units)
                    .map(|u| &**u)
                    .collect();
                tracing::debug!(
                    file = &*self.paths[i],
                    examined = others.len(),
                    ?units,
                    "another meaning in other units"
                );
            }
            facts.preprocessor.variants.extend(variants);
        }
        let forced = self.forced(self.env.flags(Path::new(&*self.paths[unit])));
        let mut deps: Vec<String> = forced
            .iter()
            .chain(chain[..chain.len() - 1].iter().map(|(f, _)| f))
            .map(|f| self.paths[*f].to_string())
            .collect();
        // Another unit's text and flags decide what this file means there.
        for other in &others {
            let flags = self.env.flags(Path::new(&*self.paths[other[0].0]));
            for f in self
                .forced(flags)
                .into_iter()
                .chain(other.iter().map(|s| s.0))
            {
                let d = &self.paths[f];
                if f != i && !deps.iter().any(|x| **x == **d) {
                    deps.push(d.to_string());
                }
            }
        }
        for d in std::mem::take(&mut facts.preprocessor.deps) {
            if !deps.contains(&d) && *d != *self.paths[i] {
                deps.push(d);
            }
        }
        facts.preprocessor.env_key = self.env_key(i, &deps).unwrap_or(0);
        facts.preprocessor.deps = deps;
        Ok(facts)
    }

    /// The workspace files `-include` names (those outside it are not read, as system headers).
    fn forced(&self, flags: Option<&FileFlags>) -> Vec<usize> {
        flags.map_or(Vec::new(), |f| {
            f.forced_includes
                .iter()
                .filter_map(|p| {
                    let p = absolute(p);
                    // Workspace paths are as given: absolute, or relative to here.
                    let here = std::env::current_dir().ok();
                    let relative = here.as_deref().and_then(|h| p.strip_prefix(h).ok());
                    self.index
                        .get(&p)
                        .or_else(|| relative.and_then(|r| self.index.get(r)))
                        .map(|j| j as usize)
                })
                .collect()
        })
    }

    /// File `i` preprocessed in device compile `compile` down its includer chain, with a
    /// fingerprint of the compiled text and skipped regions, and the macros at its end.
    fn preprocess(
        &self,
        i: usize,
        text: &str,
        chain: &[(usize, usize)],
        includes: &FileIncludes,
        compile: usize,
    ) -> ((pp::Preprocessed, u64), Macros) {
        let macros = self.start(chain, includes, compile);
        self.preprocess_from(i, text, macros, includes)
    }

    /// File `i` preprocessed from `macros`, the macros at its first line.
    fn preprocess_from(
        &self,
        i: usize,
        text: &str,
        mut macros: Macros,
        includes: &FileIncludes,
    ) -> ((pp::Preprocessed, u64), Macros) {
        let pre = pp::preprocess(text, &self.paths[i], &mut macros, includes);
        let skipped: Vec<&TextRange> = pre.inactive.iter().filter(|r| r.start < r.end).collect();
        let key = hash_of(&(&pre.text, skipped));
        ((pre, key), macros)
    }

    /// The macros at the first line of the last file of `chain` in device compile `compile`.
    fn start(&self, chain: &[(usize, usize)], includes: &FileIncludes, compile: usize) -> Macros {
        let unit = chain[0].0;
        let flags = self.env.flags(Path::new(&*self.paths[unit]));
        let mut macros = self.env.base(compile, flags);
        for j in self.forced(flags) {
            if let Some(src) = self.source(j) {
                pp::macros_at(&src, src.text.len(), &mut macros, includes);
            }
        }
        // Down the chain: each includer's macros up to where it includes the next.
        let file = &*self.paths[chain[chain.len() - 1].0];
        for &(includer, offset) in &chain[..chain.len() - 1] {
            if let Some(src) = self.source(includer) {
                pp::macros_before(&src, offset, &mut macros, includes, Some(file));
            }
        }
        macros
    }

    /// What macro `name` is where the line holding `offset` of file `i` starts, in each device
    /// compile (compiles that agree are one entry).
    pub fn macro_at(&self, i: usize, offset: usize, name: &str) -> Vec<MacroAt> {
        let Some(src) = self.source(i) else {
            return Vec::new();
        };
        let line_start = src.text[..offset.min(src.text.len())]
            .rfind('\n')
            .map_or(0, |n| n + 1);
        let chain = self.chain(i);
        let includes = FileIncludes {
            sources: self,
            dirs: self.dirs(chain[0].0),
        };
        let mut out: Vec<MacroAt> = Vec::new();
        for c in 0..self.env.compile_count() {
            let mut macros = self.start(&chain, &includes, c);
            pp::macros_at(&src, line_start, &mut macros, &includes);
            let definition = macros.get(name).map(|m| MacroDef {
                signature: m.signature(name),
                replacement: m.replacement(),
                origin: m.origin.clone(),
            });
            let targets = self.env.compile_targets(c);
            match out.iter_mut().find(|a| a.definition == definition) {
                Some(a) => a.targets.extend(targets.iter().cloned()),
                None => out.push(MacroAt {
                    targets: targets.to_vec(),
                    definition,
                }),
            }
        }
        out
    }

    /// The fingerprint of what preprocessing file `i` read besides its text, given the files
    /// it read; `None` when one of them is gone.
    pub fn env_key(&self, i: usize, deps: &[String]) -> Option<u64> {
        // The whole environment, not only this file's flags: a header takes its translation
        // unit's, and a change of compile commands is rare enough to re-read everything.
        let mut base = self.env.key();
        // A header means what the units that include it make of it (its variants): a unit
        // added since may read it otherwise. Which units include it is not known before it
        // is read, so any new or removed source file has every header read again.
        if is_header(&self.paths[i]) {
            base = hash_of(&(base, self.units_key()));
        }
        let mut hashes = Vec::with_capacity(deps.len());
        for d in deps {
            let j = self.index.get(Path::new(d))? as usize;
            let hash = self.hashes[j]
                .get_or_init(|| self.text(j).map_or(0, |t| crate::cache::content_hash(&t)));
            hashes.push(*hash);
        }
        Some(hash_of(&(base, hashes)))
    }
}

impl Sources<'_> {
    /// The fingerprint of the workspace's source files (what may be a translation unit).
    fn units_key(&self) -> u64 {
        *self.units_key.get_or_init(|| {
            let mut units: Vec<&str> = self
                .paths
                .iter()
                .map(|p| &**p)
                .filter(|p| !is_header(p))
                .collect();
            units.sort_unstable();
            hash_of(&units)
        })
    }
}

/// Translation units a header is compared with for another meaning (nearest first): a header
/// of a library that hundreds of sources include is read again for these at most.
const MAX_UNITS: usize = 64;

/// A file's compiled text in each device compile: the key of the text, and the text where
/// its key comes first (`None` for one extracted already).
type PerCompile = Vec<(u64, Option<pp::Preprocessed>)>;

/// One distinct compiled text of a file: its key, the targets that compile it, its facts
/// (`None`: extracted already).
type Meaning = (u64, Vec<String>, Option<FileFacts>);

/// A header's reading in its first source includer, which other units are compared with.
struct FirstReading<'s> {
    /// The names it looked up in the macros it started from, with their values.
    reads: Vec<(Arc<str>, pp::memo::Value)>,
    dirs: Search<'s>,
    /// Its includers' text up to the include looked up a per-target macro.
    entry_dependent: bool,
    /// It looked up a per-target macro (its own text or its includers').
    dependent: bool,
    /// Per device compile, the key of its compiled text.
    keys: Vec<u64>,
    /// The hash of its compiled text in compile 0, skipped regions aside.
    text: u64,
}

/// Includes as seen from one translation unit (its `-I` list).
struct FileIncludes<'s, 'e> {
    sources: &'s Sources<'e>,
    dirs: Search<'s>,
}

impl pp::Includes for FileIncludes<'_, '_> {
    fn resolve(&self, from: &str, spelled: &str, angled: bool) -> Option<Arc<Source>> {
        let s = self.sources;
        let f = s.index.get(Path::new(from))?;
        let j = s.index.resolve_in(f, spelled, angled, self.dirs)?;
        s.source(j as usize)
    }

    fn memo(&self, header: &Source) -> Option<(&pp::memo::HeaderMemo, u64)> {
        let s = self.sources;
        let j = s.index.get(Path::new(&*header.path))? as usize;
        let hash = *s.hashes[j].get_or_init(|| crate::cache::content_hash(&header.text));
        Some((&s.env.memo, hash_of(&(&header.path, hash, self.dirs))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::{parse_target_list, DeviceTable};

    fn facts_for(targets: &str, text: &str) -> FileFacts {
        let table = DeviceTable::builtin();
        let targets = parse_target_list(targets, table).targets;
        let env = CompileEnv::new(
            crate::devices::predefined::device_compiles(&targets, table),
            Vec::new(),
        );
        let sources = Sources::new(
            &env,
            vec![Arc::from("k.cpp")],
            vec![Some(Arc::from(text))],
            None,
        );
        sources.extract(0, None).unwrap()
    }

    #[test]
    fn a_file_that_reads_a_target_macro_has_a_variant_per_distinct_compile() {
        let text = "#ifdef __NVPTX__\nvoid cuda() {}\n#else\nvoid other() {}\n#endif\n#if 0\nx\n#endif\nvoid all() {}\n";
        let f = facts_for("intel_gpu_pvc,intel_gpu_dg1,nvidia_gpu_sm_80", text);
        let pp = &f.preprocessor;
        assert!(pp.target_dependent);
        // pvc and dg1 compile the same text: one variant for CUDA.
        assert_eq!(pp.targets, ["intel_gpu_pvc", "intel_gpu_dg1"]);
        assert_eq!(pp.variants.len(), 1);
        assert_eq!(pp.variants[0].targets, ["nvidia_gpu_sm_80"]);
        let names = |f: &FileFacts| -> Vec<String> {
            f.functions.iter().map(|f| f.name.to_string()).collect()
        };
        assert_eq!(names(&f), ["other", "all"]);
        assert_eq!(names(&pp.variants[0].facts), ["cuda", "all"]);
        // Inactive: only what no compile compiles.
        let inactive = f.inactive_regions();
        assert_eq!(inactive.len(), 1, "{inactive:?}");
        assert_eq!(&text[inactive[0].start..inactive[0].end], "x\n");
    }

    #[test]
    fn the_compiler_defines_sycl_external_and_unnamed_lambdas() {
        // clang defines both in every device compile: `#ifdef` code is compiled, and a
        // `SYCL_EXTERNAL` function stays one (the word is kept for `prepare`).
        let text = "#ifdef SYCL_EXTERNAL\nSYCL_EXTERNAL void ext(double *p) { p[0] = 1; }\n#endif\n#if __SYCL_UNNAMED_LAMBDA__\nvoid named() {}\n#endif\n";
        let f = facts_for("intel_gpu_pvc", text);
        let names: Vec<(String, bool)> = f
            .functions
            .iter()
            .map(|f| (f.name.to_string(), f.sycl_external))
            .collect();
        assert_eq!(
            names,
            [("ext".to_string(), true), ("named".to_string(), false)]
        );
    }

    #[test]
    fn a_file_without_target_conditionals_is_compiled_once() {
        let text = "#ifdef __SYCL_DEVICE_ONLY__\nvoid d() {}\n#endif\n";
        let f = facts_for("intel_gpu_pvc,nvidia_gpu_sm_80", text);
        assert!(!f.preprocessor.target_dependent);
        assert!(f.preprocessor.variants.is_empty());
        // A file that looks at a target macro but compiles the same text has no variant.
        let f = facts_for(
            "intel_gpu_pvc,nvidia_gpu_sm_80",
            "#ifdef __NVPTX__\n#endif\nvoid d() {}\n",
        );
        assert!(f.preprocessor.target_dependent);
        assert!(f.preprocessor.variants.is_empty());
    }

    #[test]
    fn includers_found_one_at_a_time_are_those_of_the_whole_map() {
        let env = CompileEnv::none();
        let files = [
            (
                "w/a.cpp",
                "#include \"b.h\"\n#include \"sub/c.h\"\nint a;\n",
            ),
            ("w/b.h", "#pragma once\n#include \"sub/c.h\"\n"),
            ("w/sub/c.h", "int c; // b.h\n"),
            ("w/d.cpp", "#include \"a.cpp\"\n#include <b.h>\n"),
        ];
        let make = || {
            Sources::new(
                &env,
                files.iter().map(|f| Arc::from(f.0)).collect(),
                files.iter().map(|f| Some(Arc::from(f.1))).collect(),
                None,
            )
        };
        let (lazy, full) = (make(), make());
        for (j, f) in files.iter().enumerate() {
            assert_eq!(lazy.includers_of(j), &full.all_includers()[j], "{}", f.0);
        }
        assert_eq!(full.all_includers()[2].len(), 2);
        assert_eq!(full.all_includers()[0], [(3, 0)]);
    }

    #[test]
    fn include_groups_and_a_released_text_read_again() {
        let env = CompileEnv::none();
        let files = [
            ("w/a.cpp", "#include \"c.h\"\nint a;\n"),
            ("w/b.cpp", "int b;\n"),
            ("w/c.h", "#include \"e.h\"\n"),
            ("w/d.cpp", "#include \"e.h\"\n"),
            ("w/e.h", "#define E 1\n"),
            ("w/f.h", "int f;\n"),
        ];
        let fetched = std::sync::atomic::AtomicUsize::new(0);
        let sources = Sources::new(
            &env,
            files.iter().map(|f| Arc::from(f.0)).collect(),
            files.iter().map(|f| Some(Arc::from(f.1))).collect(),
            None,
        )
        .fetching(|p| {
            fetched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            files
                .iter()
                .find(|f| f.0 == p)
                .map(|f| Arc::from(format!("{}// read again\n", f.1)))
        });
        // a, c, d and e reach each other through e.h; b and f stand alone.
        assert_eq!(
            sources.include_groups(),
            [vec![0, 2, 3, 4], vec![1], vec![5]]
        );
        let before = sources.extract(0, None).unwrap();
        assert_eq!(fetched.load(std::sync::atomic::Ordering::Relaxed), 0);
        for i in 0..files.len() {
            sources.release(i);
        }
        assert!(sources.text(1).unwrap().ends_with("// read again\n"));
        assert_eq!(
            sources.extract(0, None).unwrap().functions,
            before.functions
        );
        assert!(fetched.load(std::sync::atomic::Ordering::Relaxed) >= 2);
    }

    #[test]
    fn a_macro_is_known_per_compile_where_it_is_read() {
        let table = DeviceTable::builtin();
        let targets = parse_target_list("intel_gpu_pvc,nvidia_gpu_sm_80", table).targets;
        let env = CompileEnv::new(
            crate::devices::predefined::device_compiles(&targets, table),
            Vec::new(),
        );
        let text = "#define REAL double\n#ifdef __NVPTX__\n#endif\n#undef REAL\n";
        let sources = Sources::new(
            &env,
            vec![Arc::from("k.cpp")],
            vec![Some(Arc::from(text))],
            None,
        );
        let at = |line: usize, name: &str| {
            let offset: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
            sources.macro_at(0, offset + 1, name)
        };
        let nvptx = at(1, "__NVPTX__");
        assert_eq!(nvptx.len(), 2, "{nvptx:?}");
        assert_eq!(nvptx[0].targets, ["intel_gpu_pvc"]);
        assert_eq!(nvptx[0].definition, None);
        assert_eq!(nvptx[1].targets, ["nvidia_gpu_sm_80"]);
        let d = nvptx[1].definition.as_ref().unwrap();
        assert_eq!(d.replacement, "1");
        assert!(
            matches!(&d.origin, Origin::Predefined(why) if why.contains("nvidia_gpu_sm_80")),
            "{d:?}"
        );
        // A file's own definition, in every compile, until its #undef.
        let real = at(2, "REAL");
        assert_eq!(real.len(), 1);
        let d = real[0].definition.as_ref().unwrap();
        assert_eq!(d.replacement, "double");
        assert!(matches!(d.origin, Origin::File { line: 1, .. }), "{d:?}");
        assert_eq!(at(4, "REAL")[0].definition, None);
    }

    /// Sources given with their compile flags (`-D` only), extracted in an environment with
    /// those flags and no targets.
    fn extract_all(files: &[(&str, &str, &[&str])]) -> Vec<FileFacts> {
        let flags = files
            .iter()
            .map(|(p, _, defs)| {
                let macros = defs
                    .iter()
                    .map(|d| (d.to_string(), Some("1".into())))
                    .collect();
                (
                    PathBuf::from(p),
                    FileFlags {
                        macros,
                        ..FileFlags::default()
                    },
                )
            })
            .collect();
        let env = CompileEnv::new(Default::default(), flags);
        let sources = Sources::new(
            &env,
            files.iter().map(|f| Arc::from(f.0)).collect(),
            files.iter().map(|f| Some(Arc::from(f.1))).collect(),
            None,
        );
        (0..files.len())
            .map(|i| sources.extract(i, None).unwrap())
            .collect()
    }

    const REAL: &str = "#pragma once\n#ifdef USE_DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\ninline real twice(real x) { return x * 2; }\n";

    fn typedefs(f: &FileFacts) -> Vec<String> {
        f.aliases.iter().map(|a| a.target.to_string()).collect()
    }

    #[test]
    fn a_header_has_a_variant_for_the_units_that_read_it_differently() {
        let facts = extract_all(&[
            ("w/a.cpp", "#include \"real.hpp\"\n", &["USE_DOUBLE"]),
            ("w/b.cpp", "#include \"real.hpp\"\n", &[]),
            ("w/c.cpp", "#include \"real.hpp\"\n", &["OTHER"]),
            (
                "w/d.cpp",
                "#define USE_DOUBLE\n#include \"real.hpp\"\n",
                &[],
            ),
            ("w/real.hpp", REAL, &[]),
        ]);
        let pp = &facts[4].preprocessor;
        // a.cpp is the first includer; d.cpp defines the macro before including it, as a's
        // flag does: one meaning. b and c (another flag, not read) share the other.
        assert_eq!(typedefs(&facts[4]), ["double"]);
        assert_eq!(pp.variants.len(), 1, "{:?}", pp.variants);
        assert_eq!(pp.variants[0].units, ["w/b.cpp", "w/c.cpp"]);
        assert!(pp.variants[0].targets.is_empty());
        assert_eq!(typedefs(&pp.variants[0].facts), ["float"]);
        // Editing another unit changes what the header means there.
        for d in ["w/a.cpp", "w/b.cpp", "w/c.cpp", "w/d.cpp"] {
            assert!(pp.deps.iter().any(|x| x == d), "{d}: {:?}", pp.deps);
        }
        // The units themselves compile one text each.
        assert!(facts[..4]
            .iter()
            .all(|f| f.preprocessor.variants.is_empty()));
    }

    #[test]
    fn a_header_every_unit_reads_alike_has_no_variant() {
        let facts = extract_all(&[
            (
                "w/a.cpp",
                "#define N 4\n#include \"real.hpp\"\n",
                &["UNREAD"],
            ),
            ("w/b.cpp", "#include \"real.hpp\"\n", &[]),
            ("w/real.hpp", REAL, &[]),
        ]);
        assert!(facts[2].preprocessor.variants.is_empty());
        assert_eq!(typedefs(&facts[2]), ["float"]);
    }

    #[test]
    fn a_unit_that_only_skips_other_directives_compiles_the_same_header() {
        // b.cpp read g.h first: the header's guard test of G_H skips a #define there, and
        // nothing it compiles differs.
        let facts = extract_all(&[
            ("w/a.cpp", "#include \"h.hpp\"\n", &[]),
            ("w/b.cpp", "#include \"g.h\"\n#include \"h.hpp\"\n", &[]),
            ("w/g.h", "#pragma once\n#define G_H\n", &[]),
            (
                "w/h.hpp",
                "#pragma once\n#ifndef G_H\n#define G_H\n#endif\ninline float f() { return 1; }\n",
                &[],
            ),
        ]);
        assert!(facts[3].preprocessor.variants.is_empty());
    }

    #[test]
    fn a_nested_header_varies_with_the_units_above_its_includer() {
        let facts = extract_all(&[
            ("w/a.cpp", "#include \"mid.hpp\"\n", &[]),
            ("w/b.cpp", "#include \"mid.hpp\"\n", &["USE_DOUBLE"]),
            ("w/mid.hpp", "#pragma once\n#include \"real.hpp\"\n", &[]),
            ("w/real.hpp", REAL, &[]),
        ]);
        let pp = &facts[3].preprocessor;
        assert_eq!(typedefs(&facts[3]), ["float"]);
        assert_eq!(pp.variants.len(), 1);
        assert_eq!(pp.variants[0].units, ["w/b.cpp"]);
        assert_eq!(typedefs(&pp.variants[0].facts), ["double"]);
        // mid.hpp itself reads USE_DOUBLE only through real.hpp, and compiles one text.
        assert!(facts[2].preprocessor.variants.is_empty());
    }

    #[test]
    fn a_header_varying_by_unit_and_by_target() {
        let table = DeviceTable::builtin();
        let targets = parse_target_list("intel_gpu_pvc,nvidia_gpu_sm_80", table).targets;
        let flags = vec![(
            PathBuf::from("w/b.cpp"),
            FileFlags {
                macros: vec![("USE_DOUBLE".into(), Some("1".into()))],
                ..FileFlags::default()
            },
        )];
        let env = CompileEnv::new(
            crate::devices::predefined::device_compiles(&targets, table),
            flags,
        );
        let header = "#if defined(USE_DOUBLE) && defined(__NVPTX__)\ntypedef double real;\n#else\ntypedef float real;\n#endif\n";
        let files = [
            ("w/a.cpp", "#include \"real.hpp\"\n"),
            ("w/b.cpp", "#include \"real.hpp\"\n"),
            ("w/real.hpp", header),
        ];
        let sources = Sources::new(
            &env,
            files.iter().map(|f| Arc::from(f.0)).collect(),
            files.iter().map(|f| Some(Arc::from(f.1))).collect(),
            None,
        );
        let f = sources.extract(2, None).unwrap();
        let pp = &f.preprocessor;
        // a.cpp: float everywhere. b.cpp: double for CUDA only.
        assert_eq!(typedefs(&f), ["float"]);
        let by: Vec<(Vec<String>, Vec<String>, Vec<String>)> = pp
            .variants
            .iter()
            .map(|v| (v.units.clone(), v.targets.clone(), typedefs(&v.facts)))
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            by,
            [
                (s(&["w/b.cpp"]), s(&["intel_gpu_pvc"]), s(&["float"])),
                (s(&["w/b.cpp"]), s(&["nvidia_gpu_sm_80"]), s(&["double"])),
            ]
        );
    }
}
