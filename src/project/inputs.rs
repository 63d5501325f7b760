//! What an analysis run reads besides the facts: which sources it parses again and the text
//! of every source for the preprocessor; shared by the language server and the daemon's live
//! projects ([`super::live`]). The language server's main loop only takes a snapshot (shared maps and
//! the few edited texts); the work over the whole workspace happens on the pool, so typing
//! never waits for it. Profiles of a 179 KB file's edits had a quarter of each edit's time on
//! the main loop here, hashing every workspace file's include list.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::base::SourceFile;
use crate::syntax;

/// For each file some source's preprocessing read (a header, or a source included as one),
/// the sources that read it: kept as facts change, so an edit looks up its readers instead of
/// scanning every source's dependencies.
#[derive(Default)]
pub(crate) struct Readers(HashMap<String, Vec<usize>>);

impl Readers {
    /// Source `i`'s facts change from `old` to `new`.
    pub fn replace(&mut self, i: usize, old: &syntax::FileFacts, new: &syntax::FileFacts) {
        for d in &old.preprocessor.deps {
            if let Some(v) = self.0.get_mut(d) {
                v.retain(|&r| r != i);
                if v.is_empty() {
                    self.0.remove(d);
                }
            }
        }
        for d in &new.preprocessor.deps {
            let v = self.0.entry(d.clone()).or_default();
            if !v.contains(&i) {
                v.push(i);
            }
        }
    }

    /// Whether some source reads `path`.
    pub fn is_read(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }

    fn of(&self, path: &str) -> &[usize] {
        self.0.get(path).map_or(&[], Vec::as_slice)
    }
}

/// A closed source's text, from the disk: the state keeps only those some other source reads.
pub(crate) fn read_closed(path: &str) -> Option<Arc<str>> {
    crate::workspace::read_source(std::path::Path::new(path))
        .ok()
        .map(Arc::from)
}

/// The sources of `base` whose facts say they read `path` or include a file of its name, and
/// `newer` (sources whose facts may be older than their text): a superset of its includers.
pub(crate) fn may_include(
    base: Arc<Vec<SourceFile>>,
    newer: Vec<u32>,
) -> impl Fn(&str) -> Vec<u32> + Send + Sync + 'static {
    move |path: &str| {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let mut out: Vec<u32> = base
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.facts.preprocessor.deps.iter().any(|d| d == path)
                    || f.facts
                        .includes
                        .iter()
                        .any(|inc| inc.rsplit(['/', '\\']).next() == Some(name))
            })
            .map(|(i, _)| i as u32)
            .chain(newer.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A run's snapshot of the state's sources.
pub(crate) struct RunInputs {
    pub base: Arc<Vec<SourceFile>>,
    pub index_of: Arc<HashMap<String, usize>>,
    /// Closed files' texts, of those some other source reads (the others are read from the
    /// disk when a run needs them).
    pub texts: Arc<HashMap<String, Arc<str>>>,
    /// Open documents' texts, by path.
    pub open: HashMap<String, Arc<str>>,
    /// Sources edited since the last accepted run.
    pub dirty: Vec<(String, Arc<str>)>,
    /// For each edited source some other source reads, those readers.
    pub readers: Vec<(String, Vec<usize>)>,
    pub fragments: Vec<(Arc<str>, Arc<str>)>,
}

impl RunInputs {
    pub fn readers_of(
        readers: &Readers,
        dirty: &[(String, Arc<str>)],
    ) -> Vec<(String, Vec<usize>)> {
        dirty
            .iter()
            .map(|(p, _)| (p.clone(), readers.of(p).to_vec()))
            .filter(|(_, r)| !r.is_empty())
            .collect()
    }

    fn current_text(&self, path: &str) -> Option<Arc<str>> {
        self.open
            .get(path)
            .or_else(|| self.texts.get(path))
            .cloned()
            .or_else(|| read_closed(path))
    }

    /// The sources to parse: the edited ones, and those that read an edited one's macros:
    /// those that compile it inside a function, and the others when its directives changed
    /// (an edit inside function bodies, the usual one, changes no other file).
    pub fn to_parse(&self) -> Vec<(String, Arc<str>)> {
        let mut out = self.dirty.clone();
        let edited: HashSet<&str> = self.dirty.iter().map(|(p, _)| p.as_str()).collect();
        let mut added: HashSet<usize> = HashSet::new();
        for (p, readers) in &self.readers {
            let Some((_, text)) = self.dirty.iter().find(|(d, _)| d == p) else {
                continue;
            };
            let before = self
                .index_of
                .get(p)
                .and_then(|&i| self.base.get(i))
                .map(|f| &f.facts.preprocessor);
            let directives_changed =
                before.is_none_or(|b| b.directives != syntax::pp::directive_fingerprint(text));
            for &r in readers {
                let Some(f) = self.base.get(r) else {
                    continue;
                };
                let reads = directives_changed || f.facts.preprocessor.spliced.contains(p);
                if reads && !edited.contains(&*f.path) && added.insert(r) {
                    if let Some(t) = self.current_text(&f.path) {
                        out.push((f.path.to_string(), t));
                    }
                }
            }
        }
        // A new source is a new translation unit for the headers it includes: they are read
        // again, it may compile them otherwise (their variants name the units).
        for (p, text) in &self.dirty {
            if self.index_of.contains_key(p) || crate::base::is_header(p) {
                continue;
            }
            for r in self.headers_included_by(text) {
                let f = &self.base[r];
                if !edited.contains(&*f.path) && added.insert(r) {
                    if let Some(t) = self.current_text(&f.path) {
                        out.push((f.path.to_string(), t));
                    }
                }
            }
        }
        out
    }

    /// The headers of `base` that `text` may include, directly or through each other (by file
    /// name, a superset as `may_include`'s).
    fn headers_included_by(&self, text: &str) -> Vec<usize> {
        let name_of = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
        let mut names: Vec<String> = text
            .lines()
            .filter_map(|l| {
                let l = l.trim_start().strip_prefix('#')?.trim_start();
                let arg = l.strip_prefix("include")?.trim();
                let inner = arg.get(1..)?;
                Some(name_of(&inner[..inner.find(['"', '>'])?]))
            })
            .collect();
        let mut found: Vec<usize> = Vec::new();
        while let Some(name) = names.pop() {
            for (i, f) in self.base.iter().enumerate() {
                if crate::base::is_header(&f.path)
                    && name_of(&f.path) == name
                    && !found.contains(&i)
                {
                    found.push(i);
                    names.extend(f.facts.includes.iter().map(|inc| name_of(inc)));
                }
            }
        }
        found
    }

    /// For `Sources::knowing_includers` over `sources()`: the sources whose facts say they read
    /// a file or include one of its name, and every source whose text is newer than its facts.
    pub fn may_include(&self) -> impl Fn(&str) -> Vec<u32> + Send + Sync + 'static {
        let appended = self
            .dirty
            .iter()
            .filter(|(p, _)| !self.index_of.contains_key(p))
            .count()
            + self.fragments.len();
        let newer: Vec<u32> = self
            .open
            .keys()
            .chain(self.dirty.iter().map(|(p, _)| p))
            .filter_map(|p| self.index_of.get(p))
            .map(|&i| i as u32)
            .chain((self.base.len()..self.base.len() + appended).map(|i| i as u32))
            .collect();
        may_include(self.base.clone(), newer)
    }

    /// Every source's current text, for the preprocessor to read headers from.
    pub fn sources(&self) -> (Vec<Arc<str>>, Vec<Option<Arc<str>>>) {
        let mut paths: Vec<Arc<str>> = self.base.iter().map(|f| f.path.clone()).collect();
        let mut texts: Vec<Option<Arc<str>>> = paths
            .iter()
            .map(|p| self.texts.get(&**p).cloned())
            .collect();
        // Open, then edited: the newest text wins.
        for (p, t) in self
            .open
            .iter()
            .chain(self.dirty.iter().map(|(p, t)| (p, t)))
        {
            match self.index_of.get(p) {
                Some(&i) if i < texts.len() => texts[i] = Some(t.clone()),
                _ => {}
            }
        }
        for (p, t) in &self.dirty {
            if !self.index_of.contains_key(p) {
                paths.push(Arc::from(p.as_str()));
                texts.push(Some(t.clone()));
            }
        }
        for (p, t) in &self.fragments {
            paths.push(p.clone());
            texts.push(Some(t.clone()));
        }
        (paths, texts)
    }
}

impl RunInputs {
    /// Extracts the sources [`Self::to_parse`] names, each preprocessed with every source's
    /// current text (`trees`: the open documents' kept trees, to re-parse from); a file over
    /// the parse budget gives why it is skipped.
    pub fn extract(
        &self,
        env: &crate::workspace::CompileEnv,
        trees: Option<Arc<syntax::Trees>>,
    ) -> Vec<(String, Result<syntax::FileFacts, String>)> {
        use rayon::prelude::*;
        let budget = syntax::parse_budget();
        let to_parse = self.to_parse();
        let (paths, texts) = self.sources();
        let mut sources = crate::workspace::Sources::new(env, paths, texts, None)
            .fetching(read_closed)
            .knowing_includers(self.may_include());
        if let Some(trees) = trees {
            sources = sources.with_trees(trees);
        }
        to_parse
            .par_iter()
            .map(|(p, t)| {
                let facts = match sources.position(p) {
                    Some(i) => sources.extract(i, Some(budget)),
                    None => syntax::extract_within(t, Some(budget)),
                };
                (p.clone(), facts)
            })
            .collect()
    }
}

/// Takes `parsed` facts into a file set: a known file's facts replaced, a new one appended;
/// `readers` follows what each now reads.
pub(crate) fn store(
    files: &mut Arc<Vec<SourceFile>>,
    index_of: &mut Arc<HashMap<String, usize>>,
    readers: &mut Readers,
    parsed: Vec<(String, Arc<syntax::FileFacts>)>,
) {
    let files = Arc::make_mut(files);
    for (path, facts) in parsed {
        match index_of.get(&path) {
            Some(&i) => {
                readers.replace(i, &files[i].facts, &facts);
                files[i].facts = facts;
            }
            None => {
                readers.replace(files.len(), &syntax::FileFacts::default(), &facts);
                Arc::make_mut(index_of).insert(path.clone(), files.len());
                files.push(SourceFile {
                    path: Arc::from(path.as_str()),
                    facts,
                });
            }
        }
    }
}
