//! Memory a large scan freed, given back. The binary allocates with mimalloc (`main.rs`),
//! which returns freed pages to the system on its own within milliseconds; what is still
//! allocated through the C library's `malloc` (SQLite's page cache and statements) stays
//! with glibc, whose arenas keep freed blocks for reuse and return little of them on their
//! own. After a phase that held a large print's parses (a cold scan reads hundreds of
//! thousands of files), that memory would stay resident for the rest of the process.
//! Elsewhere the allocator is left alone.

/// Files a scan must have read again before its end is worth a trim.
pub const TRIM_AFTER_FILES: usize = 4096;

/// Return the free memory at the top of every arena, and the free pages inside them, to
/// the system.
#[allow(unsafe_code)] // a call into libc
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointer
    // and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
