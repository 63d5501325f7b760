//! Giving freed memory back to the system. glibc keeps what a program frees for its next
//! allocations; after a burst (indexing a workspace, rebuilding the call graph) that is tens of
//! megabytes the language server never uses again while it waits for edits, and which the
//! editor's user sees as its size. Measured at 500 k lines: resident 309 MiB after indexing and
//! ten interface edits, 213 MiB with a trim after each of them.

/// Returns the free memory of every heap to the system (a few milliseconds at 500 k lines): to
/// call after a burst, off the latency path.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of glibc's own heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// One heap for every thread, for the daemon, which lives long beside builds that load the
/// machine: under load its threads spread over two arenas, and what one freed the other could
/// not reuse (500 k lines beside two busy cores: peak 204 -> 185 MiB with one). Quiet, both
/// peak alike and one arena makes the first load 10-25 % slower, once (BENCHMARKS.md,
/// 2026-12-05). Before any thread starts; `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` in the
/// environment still decide when set.
pub fn single_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none()
        && std::env::var_os("GLIBC_TUNABLES").is_none()
    {
        // SAFETY: mallopt only sets an allocator parameter; no other thread exists yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

/// What the heap holds, in bytes: (allocated and live, freed but still resident or mapped).
/// For the log: tells live data from fragmentation when the resident size is too large.
/// `mallinfo2` (glibc 2.33) is looked up when the process runs, not linked: the released
/// binary is linked against glibc 2.17 and must start on RHEL 7/8, which lack it; there the
/// figures are not logged (`mallinfo`'s are 32-bit and wrap past 4 GiB).
pub fn heap() -> Option<(usize, usize)> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        type MallInfo2 = unsafe extern "C" fn() -> libc::mallinfo2;
        static FOUND: std::sync::OnceLock<Option<MallInfo2>> = std::sync::OnceLock::new();
        let f = FOUND.get_or_init(|| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks the symbol up.
            let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"mallinfo2".as_ptr()) };
            // SAFETY: glibc's mallinfo2 has exactly this signature.
            (!p.is_null())
                .then(|| unsafe { std::mem::transmute::<*mut libc::c_void, MallInfo2>(p) })
        });
        // SAFETY: mallinfo2 only reads glibc's counters.
        f.map(|f| unsafe { f() })
            .map(|m| (m.uordblks + m.hblkhd, m.fordblks))
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

/// `trim`, then logs what the heap holds.
pub fn trim_and_log(after: &str) {
    trim();
    if let Some((live, free)) = heap() {
        tracing::debug!(after, live_mib = live >> 20, free_mib = free >> 20, "heap");
    }
}

#[cfg(test)]
mod tests {
    /// The counters are found at run time on the glibc this is built on (2.36 here and in CI).
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn heap_counters_are_found_at_run_time() {
        let kept = std::hint::black_box(vec![7u8; 1 << 20]);
        let (live, _) = super::heap().expect("mallinfo2 on glibc >= 2.33");
        assert!(live >= kept.len(), "{live}");
    }
}
