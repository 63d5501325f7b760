//! How each file is compiled: the macros its device compile predefines, its own `-D`/`-U`/`-I`
//! from `compile_commands.json`, and the workspace headers its includes reach (a header is
//! preprocessed as its translation unit includes it). Reads no files: texts come in.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use crate::analysis::visibility::{is_header, PathIndex};
use crate::devices::predefined::Predefined;
use crate::syntax::pp::{self, MacroTable, Macros, Origin, Source};
use crate::syntax::{self, FileFacts};

/// What a compile command says about one file beyond its targets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileFlags {
    /// `-D NAME[=value]` (`Some`) and `-U NAME` (`None`), in order.
    pub macros: Vec<(String, Option<String>)>,
    pub include_dirs: Vec<PathBuf>,
}

/// The predefined macros of the configured device compile and the per-file flags.
pub struct CompileEnv {
    predefined: Vec<Predefined>,
    files: FxHashMap<PathBuf, FileFlags>,
    /// Macro tables by flags, built once: most files of a build share their flags.
    bases: Mutex<FxHashMap<u64, Arc<MacroTable>>>,
    key: u64,
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
    pub fn new(predefined: Vec<Predefined>, files: Vec<(PathBuf, FileFlags)>) -> Self {
        let files: FxHashMap<PathBuf, FileFlags> =
            files.into_iter().map(|(p, f)| (absolute(&p), f)).collect();
        let mut sorted: Vec<(&PathBuf, &FileFlags)> = files.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let key = hash_of(&(&predefined, sorted));
        CompileEnv {
            predefined,
            files,
            bases: Mutex::default(),
            key,
        }
    }

    /// Only the file's own macros: for tests and for text with no workspace.
    pub fn none() -> Self {
        CompileEnv::new(Vec::new(), Vec::new())
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

    /// The macros a file with `flags` starts from, and their fingerprint.
    pub fn base(&self, flags: Option<&FileFlags>) -> (Macros, u64) {
        let key = hash_of(&(self.key, flags));
        let mut bases = self.bases.lock().unwrap_or_else(|e| e.into_inner());
        let table = bases
            .entry(key)
            .or_insert_with(|| {
                let mut defs: Vec<(String, Option<String>, Origin)> = self
                    .predefined
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
        (Macros::new(table), key)
    }
}

/// The workspace's files as the preprocessor reads them.
pub struct Sources<'e> {
    env: &'e CompileEnv,
    paths: Vec<Arc<str>>,
    index: PathIndex,
    texts: Vec<Option<Arc<str>>>,
    /// Content hashes, computed when a fingerprint needs them.
    hashes: Vec<OnceLock<u64>>,
    sources: Vec<OnceLock<Option<Arc<Source>>>>,
    /// Per file, the files that include it and where (computed when a header needs it).
    includers: OnceLock<Vec<Vec<(u32, usize)>>>,
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
        let index = PathIndex::new(paths.iter().map(|p| &**p));
        let sources = (0..paths.len()).map(|_| OnceLock::new()).collect();
        let hashes = match hashes {
            Some(h) => h.into_iter().map(OnceLock::from).collect(),
            None => (0..paths.len()).map(|_| OnceLock::new()).collect(),
        };
        Sources {
            env,
            paths,
            index,
            texts,
            hashes,
            sources,
            includers: OnceLock::new(),
        }
    }

    /// The index of a file by path.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.index.get(Path::new(path)).map(|i| i as usize)
    }

    pub fn text(&self, i: usize) -> Option<&Arc<str>> {
        self.texts.get(i)?.as_ref()
    }

    fn source(&self, i: usize) -> Option<Arc<Source>> {
        self.sources[i]
            .get_or_init(|| {
                let text = self.text(i)?;
                Some(Arc::new(Source::new(self.paths[i].clone(), text.clone())))
            })
            .clone()
    }

    fn dirs(&self, unit: usize) -> &[PathBuf] {
        self.env
            .flags(Path::new(&*self.paths[unit]))
            .map_or(&[][..], |f| &f.include_dirs)
    }

    fn includers(&self) -> &[Vec<(u32, usize)>] {
        self.includers.get_or_init(|| {
            use rayon::prelude::*;
            let direct: Vec<Vec<(u32, usize)>> = (0..self.paths.len())
                .into_par_iter()
                .map(|i| {
                    let Some(src) = self.source(i) else {
                        return Vec::new();
                    };
                    src.directives
                        .iter()
                        .filter(|d| d.kind == pp::DirKind::Include)
                        .filter_map(|d| {
                            let arg = src.text[d.args.start..d.args.end].trim();
                            let inner = arg.get(1..)?;
                            let spelled = &inner[..inner.find(['"', '>'])?];
                            let j = self.index.resolve(i as u32, spelled, self.dirs(i))?;
                            Some((j, d.range.start))
                        })
                        .collect()
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

    /// The includer chain a file is compiled through, its translation unit first: from the
    /// first source file that includes it (else the first file), as the visibility rules
    /// choose. `[file]` for a file nothing includes; a source file some other includes
    /// (`#include "kernels.cpp"`) is compiled there.
    fn chain(&self, file: usize) -> Vec<(usize, usize)> {
        let mut chain = vec![(file, 0)];
        let includers = self.includers();
        let mut at = file;
        while chain.len() < 16 {
            let ins = &includers[at];
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

    /// The facts of file `i`, preprocessed as it is compiled.
    pub fn extract(
        &self,
        i: usize,
        budget: Option<std::time::Duration>,
    ) -> Result<FileFacts, String> {
        let text = self.text(i).ok_or("skipped: cannot read it")?;
        let chain = self.chain(i);
        let unit = chain[0].0;
        let (mut macros, _) = self.env.base(self.env.flags(Path::new(&*self.paths[unit])));
        let includes = FileIncludes {
            sources: self,
            dirs: self.dirs(unit),
        };
        // Down the chain: each includer's macros up to where it includes the next.
        for w in chain.windows(2) {
            let ((includer, _), (_, offset)) = (w[0], w[1]);
            if let Some(src) = self.source(includer) {
                pp::macros_at(&src, offset, &mut macros, &includes);
            }
        }
        let cx = syntax::Context {
            path: &self.paths[i],
            macros,
            includes: &includes,
        };
        let mut facts = syntax::extract_in(text, cx, budget)?;
        let mut deps: Vec<String> = chain[..chain.len() - 1]
            .iter()
            .map(|(f, _)| self.paths[*f].to_string())
            .collect();
        for d in std::mem::take(&mut facts.preprocessor.deps) {
            if !deps.contains(&d) && *d != *self.paths[i] {
                deps.push(d);
            }
        }
        facts.preprocessor.env_key = self.env_key(&deps).unwrap_or(0);
        facts.preprocessor.deps = deps;
        Ok(facts)
    }

    /// The fingerprint of what preprocessing a file read besides its text, given the files it
    /// read; `None` when one of them is gone.
    pub fn env_key(&self, deps: &[String]) -> Option<u64> {
        // The whole environment, not only this file's flags: a header takes its translation
        // unit's, and a change of compile commands is rare enough to re-read everything.
        let base = self.env.key();
        let mut hashes = Vec::with_capacity(deps.len());
        for d in deps {
            let j = self.index.get(Path::new(d))? as usize;
            let hash = self.hashes[j]
                .get_or_init(|| self.text(j).map_or(0, |t| crate::cache::content_hash(t)));
            hashes.push(*hash);
        }
        Some(hash_of(&(base, hashes)))
    }
}

/// Includes as seen from one translation unit (its `-I` list).
struct FileIncludes<'s, 'e> {
    sources: &'s Sources<'e>,
    dirs: &'s [PathBuf],
}

impl pp::Includes for FileIncludes<'_, '_> {
    fn resolve(&self, from: &str, spelled: &str, _angled: bool) -> Option<Arc<Source>> {
        let s = self.sources;
        let f = s.index.get(Path::new(from))?;
        let j = s.index.resolve(f, spelled, self.dirs)?;
        s.source(j as usize)
    }
}
