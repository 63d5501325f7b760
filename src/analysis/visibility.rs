//! Which files' declarations a file can see: itself and what it includes, transitively.
//!
//! Calls are resolved by name, and a workspace may hold several programs (a benchmark suite, a
//! repository of samples) that reuse names; a call must only bind to a function the calling file
//! could have declared in scope. Includes are resolved lexically against the workspace's paths:
//! relative to the including file first, else to the workspace file whose path ends with the
//! include and shares the longest directory prefix with the includer (what `-I` would find;
//! when several share it, to none). A header also sees the translation unit it is compiled in.

use crate::base::{is_header, PathIndex, SourceFile};

/// The translation units one compile of the workspace stands for, when a header means
/// different things in different units (`compiles`): a header then sees the one of those
/// units that compiles it, not the first of all its includers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Units {
    /// Unit paths.
    names: std::sync::Arc<[String]>,
    /// Every unit except `names` (the first group: the units no variant names).
    except: bool,
}

impl Default for Units {
    fn default() -> Self {
        Self::all()
    }
}

impl Units {
    /// Every unit: the first includer decides.
    pub fn all() -> Self {
        Self {
            names: std::sync::Arc::from([]),
            except: true,
        }
    }

    pub fn only(names: Vec<String>) -> Self {
        Self {
            names: names.into(),
            except: false,
        }
    }

    pub fn except(names: Vec<String>) -> Self {
        Self {
            names: names.into(),
            except: true,
        }
    }

    fn has(&self, path: &str) -> bool {
        self.names.iter().any(|n| n == path) != self.except
    }

    fn is_all(&self) -> bool {
        self.except && self.names.is_empty()
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct Visibility {
    /// Per file, the sorted indices of the files it sees (itself included).
    visible: Vec<Vec<u32>>,
    /// Per file: a source file, or a header some source file includes, transitively: code a
    /// compiler is given. A header no source includes is compiled by nobody.
    compiled: Vec<bool>,
    /// Some file is a source file (else a set of headers, checked on their own).
    has_units: bool,
}

impl Visibility {
    pub fn new(files: &[SourceFile]) -> Self {
        Self::for_units(files, &Units::all())
    }

    /// A header sees the first of `units` that compiles it (in file order), else the unit of
    /// its first includer.
    pub fn for_units(files: &[SourceFile], units: &Units) -> Self {
        let index = PathIndex::new(files.iter().map(|f| &*f.path));
        let direct: Vec<Vec<u32>> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.facts
                    .includes
                    .iter()
                    .filter_map(|inc| index.resolve(i as u32, inc, &[]))
                    .collect()
            })
            .collect();
        let visible = (0..files.len())
            .map(|start| {
                let mut seen = vec![start as u32];
                let mut stack = vec![start as u32];
                while let Some(f) = stack.pop() {
                    for &g in &direct[f as usize] {
                        if !seen.contains(&g) {
                            seen.push(g);
                            stack.push(g);
                        }
                    }
                }
                seen.sort_unstable();
                seen
            })
            .collect::<Vec<_>>();
        // A header is compiled as part of a translation unit: it also sees what that unit
        // declared before including it (HeCBench's `kernels.h` uses the types its `main.cpp`
        // defines first). As clangd does, one unit is chosen: the includer chain up from the
        // first source file (else the first file) that includes it directly, so a header shared
        // by several programs sees one program, never the union of them.
        let mut includers: Vec<Vec<u32>> = vec![Vec::new(); files.len()];
        for (i, ds) in direct.iter().enumerate() {
            for &d in ds {
                if d as usize != i {
                    includers[d as usize].push(i as u32);
                }
            }
        }
        let is_header = |i: u32| is_header(&files[i as usize].path);
        let mut compiled = vec![false; files.len()];
        for (u, seen) in visible.iter().enumerate() {
            if !is_header(u as u32) {
                for &f in seen {
                    compiled[f as usize] = true;
                }
            }
        }
        let has_units = (0..files.len() as u32).any(|i| !is_header(i));
        let unit = |start: u32| -> u32 {
            let mut at = start;
            let mut seen = vec![start];
            loop {
                let ins = &includers[at as usize];
                let next = ins
                    .iter()
                    .copied()
                    .find(|&i| !is_header(i))
                    .or(ins.first().copied());
                match next {
                    Some(n) if !seen.contains(&n) => {
                        seen.push(n);
                        at = n;
                    }
                    _ => return at,
                }
            }
        };
        let own = |f: u32| -> Option<u32> {
            if units.is_all() || !is_header(f) {
                return None;
            }
            (0..files.len() as u32).find(|&u| {
                !is_header(u)
                    && units.has(&files[u as usize].path)
                    && visible[u as usize].binary_search(&f).is_ok()
            })
        };
        let visible = (0..files.len() as u32)
            .map(|f| {
                let u = own(f).unwrap_or_else(|| unit(f));
                if u == f {
                    return visible[f as usize].clone();
                }
                let mut all = visible[f as usize].clone();
                all.extend_from_slice(&visible[u as usize]);
                all.sort_unstable();
                all.dedup();
                all
            })
            .collect();
        Self {
            visible,
            compiled,
            has_units,
        }
    }

    /// Whether a compiler is given `file`'s code: a source file, a header a source includes,
    /// or any file of a set that holds no source file (`units_elsewhere` false: headers
    /// checked on their own, as a user who names one asks).
    pub fn compiled(&self, file: u32, units_elsewhere: bool) -> bool {
        self.compiled[file as usize] || (!self.has_units && !units_elsewhere)
    }

    /// The files `from` sees, sorted, itself included.
    pub fn visible_from(&self, from: u32) -> &[u32] {
        &self.visible[from as usize]
    }

    /// Per file, the files it sees, sorted.
    pub fn lists(&self) -> &[Vec<u32>] {
        &self.visible
    }

    pub fn sees(&self, from: u32, file: u32) -> bool {
        self.visible[from as usize].binary_search(&file).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::FileFacts;
    use std::sync::Arc;

    fn file(path: &str, includes: &[&str]) -> SourceFile {
        SourceFile {
            path: Arc::from(path),
            facts: Arc::new(FileFacts {
                includes: includes.iter().map(|s| s.to_string()).collect(),
                ..FileFacts::default()
            }),
        }
    }

    #[test]
    fn relative_then_nearest_suffix_and_transitive() {
        let files = vec![
            file("a/src/main.cpp", &["util.h", "common/defs.h"]),
            file("a/src/util.h", &["../include/deep.h"]),
            file("a/include/deep.h", &[]),
            file("a/common/defs.h", &[]),
            file("b/common/defs.h", &[]),
            file("b/main.cpp", &["common/defs.h"]),
        ];
        let v = Visibility::new(&files);
        assert!(v.sees(0, 1) && v.sees(0, 2), "relative and transitive");
        assert!(
            v.sees(0, 3) && !v.sees(0, 4),
            "nearest of two suffix matches"
        );
        assert!(v.sees(5, 4) && !v.sees(5, 3));
        assert!(!v.sees(5, 0) && v.sees(5, 5));
    }

    #[test]
    fn a_header_sees_the_unit_of_its_first_source_includer_only() {
        let files = vec![
            file("a/main.cpp", &["types.h", "kernels.h", "../shared/util.h"]),
            file("a/kernels.h", &[]),
            file("a/types.h", &[]),
            file("b/main.cpp", &["../shared/util.h", "other.h"]),
            file("b/other.h", &[]),
            file("shared/util.h", &["inner.h"]),
            file("shared/inner.h", &[]),
        ];
        let v = Visibility::new(&files);
        assert!(
            v.sees(1, 2),
            "kernels.h sees what a/main.cpp includes before it"
        );
        assert!(!v.sees(2, 4), "not what another program includes");
        // The shared header and what it includes see program a (the first includer), not b.
        assert!(v.sees(5, 2) && v.sees(6, 2));
        assert!(!v.sees(5, 4) && !v.sees(6, 4));
        assert!(
            !v.sees(0, 4) && !v.sees(3, 2),
            "sources see only their own includes"
        );
    }

    #[test]
    fn a_header_sees_the_unit_its_compile_stands_for() {
        let files = vec![
            file("a.cpp", &["h.hpp"]),
            file("b.cpp", &["h.hpp"]),
            file("h.hpp", &[]),
        ];
        let first = Visibility::new(&files);
        assert!(first.sees(2, 0) && !first.sees(2, 1));
        let b = Visibility::for_units(&files, &Units::only(vec!["b.cpp".into()]));
        assert!(
            b.sees(2, 1) && !b.sees(2, 0),
            "b's compile: the header sees b"
        );
        let rest = Visibility::for_units(&files, &Units::except(vec!["a.cpp".into()]));
        assert!(rest.sees(2, 1) && !rest.sees(2, 0));
        let none = Visibility::for_units(&files, &Units::only(vec!["c.cpp".into()]));
        assert!(
            none == first,
            "no unit of the compile includes it: the first includer"
        );
    }

    #[test]
    fn a_header_no_source_includes_is_compiled_by_nobody() {
        let files = vec![
            file("p/main.cpp", &["used.hpp"]),
            file("p/used.hpp", &["deep.hpp"]),
            file("p/deep.hpp", &[]),
            file("p/orphan.hpp", &["deep.hpp"]),
        ];
        let v = Visibility::new(&files);
        assert!(v.compiled(0, false) && v.compiled(1, false) && v.compiled(2, false));
        assert!(!v.compiled(3, false), "nobody includes it");
        let headers = Visibility::new(&files[3..]);
        assert!(
            headers.compiled(0, false),
            "a set of headers alone is checked"
        );
        assert!(
            !headers.compiled(0, true),
            "unless the workspace has sources elsewhere"
        );
    }

    #[test]
    fn an_include_found_in_several_equally_near_places_is_none_of_them() {
        let files = vec![
            file("suite/p1/main.cpp", &["reference.h"]),
            file("suite/p2/reference.h", &[]),
            file("suite/p3/reference.h", &[]),
            file("suite/p4/main.cpp", &["reference.h"]),
            file("suite/p4/sub/reference.h", &[]),
        ];
        let v = Visibility::new(&files);
        assert!(!v.sees(0, 1) && !v.sees(0, 2));
        assert!(v.sees(3, 4), "one nearest match is found");
    }
}
