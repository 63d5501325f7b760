//! Which DPC++ release compiles the project, where its rules differ from the current one.
//!
//! oneAPI 2023.1 and 2023.2 compiled SPIR-V device code with typed pointers, and
//! `SYCLPropagateAspectsUsage` took a value's aspects from its type's subtypes, which for a
//! typed pointer are its element type: a `double *` kernel argument, capture or value used fp64
//! without any double being loaded. intel/llvm switched to opaque pointers, which contain no
//! type, in mid-2023 (PR #9828): 2024.0 is the first release with them. Releases before 2023
//! ran no aspect check at all; they are given the 2023 rule. (Sources in `protocol.md`, "What
//! the analysis counts".)
//!
//! The same releases recorded an image's aspects once, before optimisation: intel/llvm PR #8681
//! (opened 2023-03-16) added the second, post-optimisation run that lets a double LLVM narrows
//! to float leave fp64 out. 2023.0 and 2023.1 predate it; whether 2023.2 has it could not be
//! pinned, so 2023.x keeps counting every double (a finding rather than a silent failure), and
//! 2024.0 is the first release given the post-optimisation rule.

use std::path::Path;

/// A DPC++ (oneAPI) release, as far as the rules differ: the year of its version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DpcppRelease {
    /// 2024.0 and later (and an open-source build of intel/llvm): opaque pointers.
    #[default]
    Current,
    /// 2023.x and older: typed pointers in device IR, aspects recorded before optimisation only.
    TypedPointers,
}

impl DpcppRelease {
    /// `2023.2`, `2023.2.1`, `2024`, `current`; `None` for anything else.
    pub fn parse(text: &str) -> Option<DpcppRelease> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("current") || t.eq_ignore_ascii_case("latest") {
            return Some(DpcppRelease::Current);
        }
        Some(Self::of_year(version_year(t)?))
    }

    fn of_year(year: u32) -> DpcppRelease {
        if year < 2024 {
            DpcppRelease::TypedPointers
        } else {
            DpcppRelease::Current
        }
    }

    /// The release a compiler path names: oneAPI installs its compiler under a versioned
    /// directory (`/opt/intel/oneapi/compiler/2023.2.1/linux/bin/icpx`,
    /// `/opt/intel/oneapi/2025.0/bin/icpx`); `None` when the path names no version or is not
    /// a DPC++ driver.
    pub fn of_compiler(path: &str) -> Option<DpcppRelease> {
        let p = Path::new(path);
        let name = p.file_name()?.to_str()?;
        let name = name.strip_suffix(".exe").unwrap_or(name);
        if !matches!(
            name,
            "icpx" | "icx" | "icx-cl" | "dpcpp" | "clang++" | "clang"
        ) {
            return None;
        }
        // The innermost versioned directory is the compiler's own.
        p.ancestors()
            .skip(1)
            .filter_map(|a| a.file_name()?.to_str())
            .find_map(version_year)
            .map(Self::of_year)
    }

    pub fn typed_pointers(self) -> bool {
        self == DpcppRelease::TypedPointers
    }
}

/// The year of a oneAPI version (`2023`, `2023.2`, `2023.2.1`): four digits from 2020 on,
/// then dot-separated numbers.
fn version_year(text: &str) -> Option<u32> {
    let mut parts = text.split('.');
    let year = parts.next()?;
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let year: u32 = year.parse().ok()?;
    (2020..2100).contains(&year).then_some(year)
}

#[cfg(test)]
mod tests {
    use super::DpcppRelease::{self, *};

    #[test]
    fn versions_parse_by_year() {
        assert_eq!(DpcppRelease::parse("2023.2"), Some(TypedPointers));
        assert_eq!(DpcppRelease::parse("2023.2.1"), Some(TypedPointers));
        assert_eq!(DpcppRelease::parse("2022"), Some(TypedPointers));
        assert_eq!(DpcppRelease::parse("2024.0"), Some(Current));
        assert_eq!(DpcppRelease::parse("2025.1"), Some(Current));
        assert_eq!(DpcppRelease::parse("current"), Some(Current));
        assert_eq!(DpcppRelease::parse("23.2"), None);
        assert_eq!(DpcppRelease::parse("2023."), None);
        assert_eq!(DpcppRelease::parse("new"), None);
    }

    #[test]
    fn compiler_paths_name_their_release() {
        let of = DpcppRelease::of_compiler;
        assert_eq!(
            of("/opt/intel/oneapi/compiler/2023.2.1/linux/bin/icpx"),
            Some(TypedPointers)
        );
        assert_eq!(
            of("/opt/intel/oneapi/compiler/2023.0.0/linux/bin/icpx"),
            Some(TypedPointers)
        );
        assert_eq!(of("/opt/intel/oneapi/2025.0/bin/icpx"), Some(Current));
        assert_eq!(
            of("/opt/intel/oneapi/compiler/2024.0/bin/icpx"),
            Some(Current)
        );
        assert_eq!(
            of("C:/Program Files (x86)/Intel/oneAPI/compiler/2023.1.0/windows/bin/icx.exe"),
            Some(TypedPointers)
        );
        // The `latest` symlink, a plain `icpx` and another compiler say nothing.
        assert_eq!(of("/opt/intel/oneapi/compiler/latest/bin/icpx"), None);
        assert_eq!(of("icpx"), None);
        assert_eq!(of("/opt/2023.1/bin/g++"), None);
    }
}
