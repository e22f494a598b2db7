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

fn main() -> ExitCode {
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
