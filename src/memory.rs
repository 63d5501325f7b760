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

/// What the heap holds, in bytes: (allocated and live, freed but still resident or mapped).
/// For the log: tells live data from fragmentation when the resident size is too large.
pub fn heap() -> Option<(usize, usize)> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads glibc's counters.
        let m = unsafe { libc::mallinfo2() };
        Some((m.uordblks + m.hblkhd, m.fordblks))
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
