fn main() {
    limit_malloc_arenas();
    std::process::exit(sycl_analyzer::cli::main());
}

/// glibc gives each thread that allocates concurrently an arena of its own (up to 8 per core),
/// and memory freed in one is not reused by the others: with the rayon, tokio and blocking-pool
/// threads, the language server's peak at 500 k lines was 810 MiB, 445 MiB with two arenas, with
/// no loss of speed (BENCHMARKS.md, 2026-11-25). Before any thread starts; `MALLOC_ARENA_MAX`
/// in the environment still decides when set.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; no other thread exists yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}
