//! Headers outside the workspace: those the workspace's files include (transitively) that
//! the compile's include directories (`-I`, `-iquote`, `-isystem`, `-idirafter`,
//! `--include-dir`) hold outside the roots. They are read and analysed as workspace files
//! are. Never read: the compiler's and the system's headers, a SYCL implementation's, and the
//! standard and SYCL header names, which the analysis models instead of parsing (they would
//! cost seconds per unit and tell it nothing its model lacks). Only what is included is
//! looked at, never a whole directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{absolute, is_cpp, CompileEnv};
use crate::base::{normalize, Search};

/// Enough for any real program: a runaway chain of generated includes stops here.
const MAX_EXTERNAL: usize = 10_000;

/// An `#include` as written: the name and whether it is `<name>`.
pub type Include = (String, bool);

/// The names a text includes, with their form (`#include "a.h"`, `#include <b.h>`); a
/// computed include (`#include MACRO`) is not among them.
pub fn includes(text: &str) -> Vec<Include> {
    crate::syntax::pp::directives(text)
        .into_iter()
        .filter(|d| d.kind == crate::syntax::pp::DirKind::Include)
        .filter_map(|d| {
            let arg = text[d.args.start..d.args.end].trim();
            let (close, angled) = match arg.as_bytes().first()? {
                b'"' => ('"', false),
                b'<' => ('>', true),
                _ => return None,
            };
            let name = arg[1..].split(close).next()?;
            (!name.is_empty()).then(|| (name.to_string(), angled))
        })
        .collect()
}

/// A header found outside the workspace: its path (absolute) and its text, or why it is
/// skipped (as for a workspace file).
pub type Found = (Arc<str>, Result<String, String>);

/// The headers outside `roots` that `files` (the workspace's paths with their includes)
/// reach through the include search of their compile (`env`), transitively, each read with
/// `read`. A file with no compile command of its own (a header) searches every directory
/// some command names: the unit it is compiled in is not known here.
pub fn find(
    files: &[(Arc<str>, Vec<Include>)],
    env: &CompileEnv,
    roots: &[PathBuf],
    read: impl Fn(&Path) -> Result<String, String>,
) -> Vec<Found> {
    // A file checked alone has its directory's headers as the workspace's, as before.
    let roots: Vec<PathBuf> = roots
        .iter()
        .map(|r| match r.is_file() {
            true => absolute(r.parent().unwrap_or(Path::new("."))),
            false => absolute(r),
        })
        .collect();
    let workspace: FxHashSet<PathBuf> = files
        .iter()
        .map(|(p, _)| absolute(Path::new(&**p)))
        .collect();
    let (all_quote, all_dirs) = env.all_dirs();
    let union = Search {
        quote: &all_quote,
        dirs: &all_dirs,
    };
    let mut finder = Finder {
        workspace: &workspace,
        roots: &roots,
        exists: FxHashMap::default(),
        system: FxHashMap::default(),
    };
    let mut out: Vec<Found> = Vec::new();
    let mut seen: FxHashMap<PathBuf, usize> = FxHashMap::default();
    // An external header is searched with the directories of the file that led to it, as
    // its unit compiles it.
    let mut queue: Vec<(PathBuf, Vec<Include>, Search)> = Vec::new();
    for (path, incs) in files {
        if incs.is_empty() {
            continue;
        }
        let search = match env.flags(Path::new(&**path)) {
            Some(_) => env.search(Path::new(&**path)),
            None => union,
        };
        queue.push((absolute(Path::new(&**path)), incs.clone(), search));
    }
    let mut searched: FxHashSet<(PathBuf, Search)> = FxHashSet::default();
    while let Some((from, incs, search)) = queue.pop() {
        let dir = from.parent().unwrap_or(Path::new("/")).to_path_buf();
        for (name, angled) in incs {
            let Some(header) = finder.resolve(&dir, &name, angled, search) else {
                continue;
            };
            let at = match seen.get(&header) {
                Some(&at) => at,
                None if out.len() >= MAX_EXTERNAL => break,
                None => {
                    let text = read(&header);
                    tracing::debug!(file = %header.display(), ok = text.is_ok(), "external header");
                    out.push((Arc::from(header.display().to_string()), text));
                    seen.insert(header.clone(), out.len() - 1);
                    out.len() - 1
                }
            };
            if let Ok(text) = &out[at].1 {
                if searched.insert((header.clone(), search)) {
                    queue.push((header, includes(text), search));
                }
            }
        }
    }
    out
}

struct Finder<'a> {
    workspace: &'a FxHashSet<PathBuf>,
    roots: &'a [PathBuf],
    exists: FxHashMap<PathBuf, bool>,
    system: FxHashMap<PathBuf, bool>,
}

impl Finder<'_> {
    /// The external header `name` names from a file in `dir`, searched in the driver's
    /// order: `None` when the first place holding it is the workspace, a system or SYCL
    /// directory, or nowhere.
    fn resolve(&mut self, dir: &Path, name: &str, angled: bool, search: Search) -> Option<PathBuf> {
        if never_read(name) {
            return None;
        }
        for d in search.order(dir, angled) {
            let candidate = normalize(&d.join(name));
            if self.workspace.contains(&candidate) {
                return None;
            }
            let exists = *self
                .exists
                .entry(candidate.clone())
                .or_insert_with(|| candidate.is_file());
            if !exists {
                continue;
            }
            // Found: the driver reads this one. Inside the roots it is the workspace's
            // business (a file ignored, or a `kernel.sycl` fragment).
            let inside = self.roots.iter().any(|r| candidate.starts_with(r));
            let parent = candidate.parent().unwrap_or(d);
            if inside || !is_cpp(&candidate) || self.is_system(d) || self.is_system(parent) {
                return None;
            }
            return Some(candidate);
        }
        None
    }

    fn is_system(&mut self, dir: &Path) -> bool {
        if let Some(&known) = self.system.get(dir) {
            return known;
        }
        let system = is_system_dir(&normalize(dir));
        self.system.insert(dir.to_path_buf(), system);
        system
    }
}

/// Names the analysis models and never reads: the standard library's headers, the SYCL
/// headers, and the oneAPI libraries whose launches and kernels it models by name (oneDPL's
/// algorithms, oneMKL / oneMath routines; parsing them would replace the model with thousands
/// of lines of dispatch templates), with oneTBB that oneDPL pulls in.
fn never_read(name: &str) -> bool {
    const MODELLED: [&str; 7] = [
        "sycl/",
        "CL/",
        "oneapi/dpl/",
        "oneapi/mkl",
        "oneapi/math",
        "oneapi/tbb",
        "tbb/",
    ];
    MODELLED.iter().any(|m| name.starts_with(m))
        || name == "sycl.hpp"
        || STANDARD_HEADERS.contains(&name)
}

/// A directory of the compiler, the system or a SYCL implementation: under the system's
/// include and compiler directories, a clang resource directory (`lib/clang/N/include`), or a
/// directory at or under one that holds `sycl/sycl.hpp` or `CL/sycl.hpp` (a SYCL install's
/// `include`, its `include/sycl`).
pub fn is_system_dir(dir: &Path) -> bool {
    const SYSTEM: [&str; 7] = [
        "/usr/include",
        "/usr/local/include",
        "/usr/lib/gcc",
        "/usr/lib64/gcc",
        "/usr/lib/clang",
        "/usr/lib64/clang",
        "/usr/local/lib/clang",
    ];
    if SYSTEM.iter().any(|s| dir.starts_with(s)) {
        return true;
    }
    let names: Vec<&str> = dir
        .components()
        .map(|c| c.as_os_str().to_str().unwrap_or(""))
        .collect();
    // `/usr/lib/llvm-18/...`, and any `.../lib/clang/18/include` (a resource directory).
    if names.len() > 3
        && names[1] == "usr"
        && names[2].starts_with("lib")
        && names[3].starts_with("llvm")
    {
        return true;
    }
    if names
        .windows(2)
        .any(|w| (w[0] == "lib" || w[0] == "lib64") && w[1] == "clang")
    {
        return true;
    }
    dir.ancestors().any(|a| {
        a.join("sycl/sycl.hpp").is_file()
            || a.join("CL/sycl.hpp").is_file()
            || (a.file_name().is_some_and(|n| n == "sycl") && a.join("sycl.hpp").is_file())
    })
}

/// The C++ standard library's headers (C++23) and the C library's.
const STANDARD_HEADERS: &[&str] = &[
    "algorithm",
    "any",
    "array",
    "atomic",
    "barrier",
    "bit",
    "bitset",
    "cassert",
    "cctype",
    "cerrno",
    "cfenv",
    "cfloat",
    "charconv",
    "chrono",
    "cinttypes",
    "climits",
    "clocale",
    "cmath",
    "codecvt",
    "compare",
    "complex",
    "concepts",
    "condition_variable",
    "coroutine",
    "csetjmp",
    "csignal",
    "cstdarg",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "ctime",
    "cuchar",
    "cwchar",
    "cwctype",
    "deque",
    "exception",
    "execution",
    "expected",
    "filesystem",
    "flat_map",
    "flat_set",
    "format",
    "forward_list",
    "fstream",
    "functional",
    "future",
    "generator",
    "initializer_list",
    "iomanip",
    "ios",
    "iosfwd",
    "iostream",
    "istream",
    "iterator",
    "latch",
    "limits",
    "list",
    "locale",
    "map",
    "mdspan",
    "memory",
    "memory_resource",
    "mutex",
    "new",
    "numbers",
    "numeric",
    "optional",
    "ostream",
    "print",
    "queue",
    "random",
    "ranges",
    "ratio",
    "regex",
    "scoped_allocator",
    "semaphore",
    "set",
    "shared_mutex",
    "source_location",
    "span",
    "spanstream",
    "sstream",
    "stack",
    "stacktrace",
    "stdexcept",
    "stdfloat",
    "stop_token",
    "streambuf",
    "string",
    "string_view",
    "strstream",
    "syncstream",
    "system_error",
    "thread",
    "tuple",
    "type_traits",
    "typeindex",
    "typeinfo",
    "unordered_map",
    "unordered_set",
    "utility",
    "valarray",
    "variant",
    "vector",
    "version",
    "assert.h",
    "complex.h",
    "ctype.h",
    "errno.h",
    "fenv.h",
    "float.h",
    "inttypes.h",
    "iso646.h",
    "limits.h",
    "locale.h",
    "math.h",
    "setjmp.h",
    "signal.h",
    "stdalign.h",
    "stdarg.h",
    "stdatomic.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "tgmath.h",
    "threads.h",
    "time.h",
    "uchar.h",
    "wchar.h",
    "wctype.h",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_and_sycl_directories_are_never_read() {
        for d in [
            "/usr/include",
            "/usr/include/c++/12",
            "/usr/lib/gcc/x86_64-linux-gnu/12/include",
            "/usr/lib/llvm-18/include",
            "/opt/intel/oneapi/compiler/2024.0/lib/clang/18/include",
        ] {
            assert!(is_system_dir(Path::new(d)), "{d}");
        }
        let tmp = tempfile::tempdir().unwrap();
        let install = tmp.path().join("dpcpp/include");
        std::fs::create_dir_all(install.join("sycl/ext")).unwrap();
        std::fs::write(install.join("sycl/sycl.hpp"), "").unwrap();
        assert!(is_system_dir(&install));
        assert!(is_system_dir(&install.join("sycl")));
        assert!(is_system_dir(&install.join("sycl/ext")));
        let lib = tmp.path().join("lib/include");
        std::fs::create_dir_all(&lib).unwrap();
        assert!(!is_system_dir(&lib));
        assert!(never_read("sycl/ext/oneapi/bfloat16.hpp"));
        assert!(never_read("CL/sycl.hpp"));
        assert!(never_read("oneapi/dpl/algorithm"));
        assert!(never_read("oneapi/mkl.hpp"));
        assert!(!never_read("oneapi/mylib.hpp"));
        assert!(never_read("cmath") && never_read("math.h"));
        assert!(!never_read("util.hpp"));
    }

    #[test]
    fn includes_in_both_forms() {
        let text = "#include \"a.h\"\n#include <b/c.hpp>\n#include MACRO\n// #include \"no.h\"\n";
        assert_eq!(
            includes(text),
            [("a.h".to_string(), false), ("b/c.hpp".to_string(), true)]
        );
    }
}
