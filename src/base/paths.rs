//! The workspace's paths, for resolving includes lexically (relative to the includer, then
//! the workspace file whose path ends with the include and is nearest to the includer), and
//! which paths are headers.

use rustc_hash::FxHashMap as HashMap;
use std::path::{Component, Path, PathBuf};

/// `p` without `.`, and `..` applied lexically.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn common_prefix(a: &Path, b: &Path) -> usize {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The workspace's paths, for resolving includes as a compiler with unknown `-I` would.
pub struct PathIndex {
    paths: Vec<PathBuf>,
    by_path: HashMap<PathBuf, u32>,
    /// Suffix matches only among files of the same name: comparing every include with every
    /// path showed in profiles on real code bases.
    by_file_name: HashMap<std::ffi::OsString, Vec<u32>>,
}

impl PathIndex {
    pub fn new<'p>(paths: impl IntoIterator<Item = &'p str>) -> Self {
        let paths: Vec<PathBuf> = paths.into_iter().map(|p| normalize(Path::new(p))).collect();
        let by_path = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();
        let mut by_file_name: HashMap<std::ffi::OsString, Vec<u32>> = HashMap::default();
        for (i, p) in paths.iter().enumerate() {
            if let Some(n) = p.file_name() {
                by_file_name.entry(n.to_owned()).or_default().push(i as u32);
            }
        }
        PathIndex {
            paths,
            by_path,
            by_file_name,
        }
    }

    /// Also finds each relative path by its absolute form under `base` (the directory relative
    /// paths are relative to): compile commands name include directories absolutely.
    pub fn with_base(mut self, base: &Path) -> Self {
        for (i, p) in self.paths.iter().enumerate() {
            if p.is_relative() {
                let abs = normalize(&base.join(p));
                self.by_path.entry(abs).or_insert(i as u32);
            }
        }
        self
    }

    pub fn get(&self, path: &Path) -> Option<u32> {
        self.by_path.get(&normalize(path)).copied()
    }

    /// The workspace file `inc` names from file `from`: relative to `from`'s directory, then
    /// to each of `dirs` (the `-I` list), else the one workspace file ending with it that is
    /// nearest to `from`.
    pub fn resolve(&self, from: u32, inc: &str, dirs: &[PathBuf]) -> Option<u32> {
        // Several equally near: the build's `-I` order decides, which is not known here.
        // Taking any would mix programs (a benchmark suite whose programs each have a
        // `reference.h`, included by one that has none): none is found.
        match self.candidates(from, inc, dirs)[..] {
            [j] => Some(j),
            _ => None,
        }
    }

    /// The file an `#include` of `inc` (`<inc>` if `angled`) names from file `from`, searched
    /// as the driver searches (see [`Search`]), else as [`PathIndex::resolve`] guesses.
    pub fn resolve_in(&self, from: u32, inc: &str, angled: bool, search: Search) -> Option<u32> {
        match self.candidates_in(from, inc, angled, search)[..] {
            [j] => Some(j),
            _ => None,
        }
    }

    /// The files `resolve` chooses among: the one found relative to `from` or `dirs`, else
    /// the workspace files ending with `inc` that are nearest to `from`.
    pub fn candidates(&self, from: u32, inc: &str, dirs: &[PathBuf]) -> Vec<u32> {
        let search = Search { quote: &[], dirs };
        self.candidates_in(from, inc, false, search)
    }

    fn candidates_in(&self, from: u32, inc: &str, angled: bool, search: Search) -> Vec<u32> {
        let from = &self.paths[from as usize];
        let dir = from.parent().unwrap_or(Path::new(""));
        for d in search.order(dir, angled) {
            if let Some(&j) = self.by_path.get(&normalize(&d.join(inc))) {
                return vec![j];
            }
        }
        let inc = normalize(Path::new(inc));
        let same_name = inc
            .file_name()
            .and_then(|n| self.by_file_name.get(n))
            .map_or(&[][..], Vec::as_slice);
        let matches: Vec<u32> = same_name
            .iter()
            .copied()
            .filter(|&j| self.paths[j as usize].ends_with(&inc))
            .collect();
        let best = matches
            .iter()
            .map(|&j| common_prefix(from, &self.paths[j as usize]))
            .max()
            .unwrap_or(0);
        matches
            .into_iter()
            .filter(|&j| common_prefix(from, &self.paths[j as usize]) == best)
            .collect()
    }
}

/// The directories an `#include` is looked for in, as the DPC++ (clang) driver searches them:
/// `"name"` in the includer's directory, then `quote` (`-iquote`), then `dirs` (`-I`,
/// `-isystem`, `-idirafter`, in that order); `<name>` in `dirs` only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Search<'a> {
    pub quote: &'a [PathBuf],
    pub dirs: &'a [PathBuf],
}

impl<'a> Search<'a> {
    /// The directories, in order, for an include from a file in `includer_dir`.
    pub fn order(self, includer_dir: &'a Path, angled: bool) -> impl Iterator<Item = &'a Path> {
        let quoted = (!angled).then_some(includer_dir);
        let quote = if angled { &[][..] } else { self.quote };
        quoted
            .into_iter()
            .chain(quote.iter().map(PathBuf::as_path))
            .chain(self.dirs.iter().map(PathBuf::as_path))
    }
}

/// Headers by extension: compiled only as part of a translation unit.
pub fn is_header(path: &str) -> bool {
    Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "h" | "hh" | "hpp" | "hxx" | "inl" | "ipp" | "tpp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_searched_in_the_drivers_order() {
        let index = PathIndex::new([
            "/w/src/a.cpp",
            "/w/src/util.hpp",
            "/q/util.hpp",
            "/i/util.hpp",
            "/i/only.hpp",
        ]);
        let (quote, dirs) = ([PathBuf::from("/q")], [PathBuf::from("/i")]);
        let search = Search {
            quote: &quote,
            dirs: &dirs,
        };
        // "..." from the includer's directory first; <...> skips it and -iquote.
        assert_eq!(index.resolve_in(0, "util.hpp", false, search), Some(1));
        assert_eq!(index.resolve_in(0, "util.hpp", true, search), Some(3));
        let no_quote = Search {
            quote: &[],
            ..search
        };
        assert_eq!(index.resolve_in(0, "only.hpp", true, no_quote), Some(4));
        // Relative workspace paths are found by the absolute directories of a command.
        let rel = PathIndex::new(["src/a.cpp", "inc/x.h"]).with_base(Path::new("/w"));
        let inc = [PathBuf::from("/w/inc")];
        let s = Search {
            quote: &[],
            dirs: &inc,
        };
        assert_eq!(rel.candidates_in(0, "x.h", true, s), [1]);
    }
}
