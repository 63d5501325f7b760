fn main() {
    limit_malloc_arenas();
    std::process::exit(sycl_analyzer::cli::main());
}

/// glibc gives each thread that allocates concurrently an arena of its own (up to 8 per core),
/// and memory freed in one is not reused by the others: with the rayon, tokio and blocking-pool
/// threads, the language server's peak at 500 k lines was 810 MiB, 445 MiB with two arenas, with
/// no loss of speed (BENCHMARKS.md, 2026-11-25). Before any thread starts; `MALLOC_ARENA_MAX`
/// in the environment still decides when set.
///
/// And large blocks (from 1 MiB: a vector of a workspace's nodes, a file's expressions) are
/// mapped on their own, so freeing one gives it back at once: glibc otherwise raises its
/// threshold to the largest block freed so far, and a relink's freed vectors stayed resident
/// as holes in the heap (500 k lines: peak 242-247 -> 216-222 MiB, no edit slower).
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tuned = std::env::var_os("GLIBC_TUNABLES").is_some();
        // SAFETY: mallopt only sets an allocator parameter; no other thread exists yet.
        unsafe {
            if std::env::var_os("MALLOC_ARENA_MAX").is_none() && !tuned {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
            if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() && !tuned {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
            }
        }
    }
}
