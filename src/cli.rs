//! The command line: `serve` (mirroring `dbprint serve`), `pz …` (`pz`) and
//! `index rebuild|status`.

pub mod pz;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "printdex",
    version,
    about = "Serves dbprint prints to AI agents over MCP, from an index it keeps fresh"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    Stdio,
    Http,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the project's prints over MCP (a drop-in for `dbprint serve`).
    Serve {
        /// Connection to serve; resolved from .dbprint.yaml when omitted.
        connection: Option<String>,
        /// The project: its .dbprint.yaml or the directory holding it (default: walk up from the cwd).
        #[arg(long)]
        project: Option<String>,
        /// Wire transport.
        #[arg(long, value_enum, ignore_case = true, default_value = "stdio")]
        transport: Transport,
        /// HTTP bind address; loopback only.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// HTTP port (required with --transport http).
        #[arg(long)]
        port: Option<u16>,
        /// Where the index lives (default: a per-project directory in the user's cache).
        #[arg(long)]
        index_dir: Option<PathBuf>,
        /// The installed dbprint package directory (the one holding spec/v1/SPEC.md) to
        /// read get_reference's documents from; default: $PRINTDEX_REFERENCE_DIR, then
        /// the package beside a `dbprint` executable on PATH.
        #[arg(long)]
        reference_dir: Option<PathBuf>,
    },
    /// pz (PipelineZ): serve its MCP surface, keep its docs offline.
    Pz {
        #[command(subcommand)]
        action: pz::PzAction,
    },
    /// Manage the index.
    Index {
        #[command(subcommand)]
        action: IndexAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum IndexAction {
    /// Rebuild the index from scratch, offline.
    Rebuild {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        index_dir: Option<PathBuf>,
    },
    /// Say what is indexed, how fresh and how big.
    Status {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        index_dir: Option<PathBuf>,
    },
}

/// The default index directory of a project: `$XDG_CACHE_HOME/printdex/<hash of its root>`.
pub fn default_index_dir(project_root: &std::path::Path) -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let key = blake3::hash(project_root.to_string_lossy().as_bytes()).to_hex();
    cache.join("printdex").join(&key[..16])
}

/// Run a server to its end on a multi-threaded runtime, then shut the runtime down without
/// waiting long: tokio's stdin reader sits in a blocking thread that a signal cannot wake,
/// and a tool call past the drain bound is not waited for either.
pub fn serve_blocking<F: Future>(serving: F) -> std::io::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(serving);
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(served)
}
