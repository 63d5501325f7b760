//! Where a file's includes are looked for: its compile command's directories in the driver's
//! order, and those configured for every file (`--include-dir`).

use std::path::{Path, PathBuf};

use super::{absolute, hash_of, CompileEnv, FileFlags};
use crate::base::Search;

impl CompileEnv {
    /// Every file also searches `dirs` (`--include-dir`, the `includeDirs` setting) for its
    /// includes, after the directories its compile command names.
    pub fn with_include_dirs(mut self, dirs: &[PathBuf]) -> Self {
        let mut extra: Vec<PathBuf> = Vec::new();
        for d in dirs.iter().map(|d| absolute(d)) {
            if !extra.contains(&d) {
                extra.push(d);
            }
        }
        if extra.is_empty() {
            return self;
        }
        for f in self.files.values_mut() {
            for d in &extra {
                if !f.include_dirs.contains(d) {
                    f.include_dirs.push(d.clone());
                }
            }
        }
        self.key = hash_of(&(self.key, &extra));
        self.extra_dirs = extra;
        self
    }

    /// Where the includes of a file compiled as `path` (a translation unit) are looked for.
    pub fn search(&self, path: &Path) -> Search<'_> {
        match self.flags(path) {
            Some(f) => Search {
                quote: &f.quote_dirs,
                dirs: &f.include_dirs,
            },
            None => Search {
                quote: &[],
                dirs: &self.extra_dirs,
            },
        }
    }

    /// Every directory some file searches (`-iquote` ones, then the others), each once in
    /// the order first named: where a header compiled in an unknown unit may find its
    /// includes.
    pub fn all_dirs(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut sorted: Vec<(&PathBuf, &FileFlags)> = self.files.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let (mut quote, mut dirs): (Vec<PathBuf>, Vec<PathBuf>) = Default::default();
        let add = |list: &mut Vec<PathBuf>, d: &PathBuf| {
            if !list.contains(d) {
                list.push(d.clone());
            }
        };
        for (_, f) in sorted {
            f.quote_dirs.iter().for_each(|d| add(&mut quote, d));
            f.include_dirs.iter().for_each(|d| add(&mut dirs, d));
        }
        self.extra_dirs.iter().for_each(|d| add(&mut dirs, d));
        (quote, dirs)
    }
}
