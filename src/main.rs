//! The `printdex` binary: the command line's edge, where errors become exit codes.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use printdex::cli::{Cli, Command};

// glibc's allocator spent a quarter of a rebuild's CPU in malloc and free (many small
// parsed values made and dropped on two threads) and kept freed arenas resident; mimalloc
// does the same work in a fraction of the time and returns memory sooner.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, the same in mimalloc
/// 2 and 3; the crate's bindings do not name it): milliseconds before freed pages go back
/// to the system, 1,000 by default in mimalloc 3, the one `libmimalloc-sys` builds.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// Freed pages go back within milliseconds: a large print's phases free hundreds of
/// megabytes each (a parse, a batch of documents, a merge), and with the default delay
/// the next phase still found them resident. A 100,000-table rebuild peaked at 669 MB
/// with the default, 485 MB with 10 ms and 480 MB with 2 ms (7% slower: a system call
/// for nearly every page freed).
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Set the allocator up first thing in `main`, before any thread starts.
#[allow(unsafe_code)] // the binary's only calls into C: two allocator settings
fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mi_option_set stores one option's value; it takes no pointer and may be
        // called at any time.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
    // mimalloc asks for transparent huge pages for its arenas, and then a page touched
    // anywhere in a 2 MiB range makes the whole range resident: a 2,000-table server
    // held 61-69 MB at its start instead of 38 MB. Its own option (`MIMALLOC_ALLOW_THP`)
    // is read before `main`, so the process turns them off for itself instead (the
    // processes it starts, git and pz, inherit that and lose only huge pages).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE sets a flag of this process; it takes no pointer.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = Cli::parse();
    let filter = match std::env::var("PRINTDEX_LOG") {
        Ok(directives) if !directives.is_empty() => tracing_subscriber::EnvFilter::new(directives),
        _ if cli.debug => tracing_subscriber::EnvFilter::new("debug"),
        _ => tracing_subscriber::EnvFilter::new("error"),
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    };
    let _ = std::io::stderr().flush();
    code
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(args) => printdex::cli::serve::run(args),
        Command::Pz { action } => printdex::cli::pz::run(action),
        Command::Index { action } => printdex::cli::index::run(action),
        Command::Erd(args) => printdex::cli::erd::run(args),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[allow(unsafe_code)]
    fn the_purge_delay_set_is_the_option_meant() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: mi_option_get reads one option's value.
        let read = || unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        // The option's documented default, read at the place set: a mimalloc that moved
        // the option fails here rather than setting another one.
        assert_eq!(read(), 1000);
        super::tune_allocator();
        assert_eq!(read(), super::PURGE_DELAY_MS);
    }
}
