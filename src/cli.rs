//! The command line: `serve` (taking every flag `dbprint serve` takes), `pz …` (`pz`) and
//! `index rebuild|status|list|prune` (`index`). Each command's body lives in its own file.

pub mod erd;
pub mod index;
pub mod pz;
pub mod serve;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{self, git::Checkouts, remote::RemoteAddress, ConfigError, ProjectConfig};

/// `--project`'s help, for every command that takes one.
pub(crate) const PROJECT_HELP: &str = "Exact project locator: a directory whose direct child is .dbprint.yaml, that .dbprint.yaml file itself, or a git address (a GitHub, GitLab or Bitbucket URL, an SSH remote, or <git-url>#<ref>:<subpath>; cloned into printdex's cache). No upward walk, no downward scan. Omit it to walk up from the working directory instead";
pub(crate) const INDEX_DIR_HELP: &str = "Directory of the index (default: a per-project directory in printdex's cache, $XDG_CACHE_HOME/printdex)";

const SERVE_ENVIRONMENT: &str = "Environment:
  PRINTDEX_REFERENCE_DIR     the dbprint package directory, when --reference-dir is not given
  PRINTDEX_GIT_REFRESH_SECS  seconds between refreshes of a git --project's checkout (default 900)
  PRINTDEX_LOG               log filter on stderr (error by default; info, debug)
  PRINTDEX_CHANGE_FEED       portable: notify's watcher instead of Linux's inotify for the change feed
  PRINTDEX_SESSION_IDLE_SECS seconds an idle /mcp session lives (default 1800)
  PRINTDEX_MAX_SESSIONS      /mcp sessions at most; past it the longest idle ends (default 1000)
  XDG_CACHE_HOME             where printdex's cache is (indexes, git checkouts): $XDG_CACHE_HOME/printdex";

#[derive(Debug, Parser)]
#[command(
    name = "printdex",
    version,
    about = "Serves dbprint prints to AI agents over MCP, from an index it keeps fresh"
)]
pub struct Cli {
    /// Log at debug level on stderr (as PRINTDEX_LOG=debug); accepted where `dbprint --debug` is.
    #[arg(long, global = true)]
    pub debug: bool,
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
    /// Serve the project's prints over MCP, read-only (a drop-in for `dbprint serve`).
    #[command(after_help = SERVE_ENVIRONMENT)]
    Serve(ServeArgs),
    /// pz (PipelineZ): serve its MCP surface, keep its docs offline.
    Pz {
        #[command(subcommand)]
        action: pz::PzAction,
    },
    /// Draw a print's join graph (Mermaid, DOT or SVG): around a table, over a list of
    /// tables, or whole.
    Erd(erd::ErdArgs),
    /// Manage the indexes.
    Index {
        #[command(subcommand)]
        action: IndexAction,
    },
}

/// `printdex serve`: `dbprint serve`'s arguments, and printdex's own two.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Connection to serve; resolved from .dbprint.yaml when omitted (the `auto: true`
    /// set, or the sole connection).
    pub connection: Option<String>,
    #[arg(long, help = PROJECT_HELP, allow_hyphen_values = true)]
    pub project: Option<String>,
    /// Wire transport: stdio for an editor or agent, http for local sockets.
    #[arg(long, value_enum, ignore_case = true, default_value = "stdio")]
    pub transport: Transport,
    /// HTTP bind address, loopback only: 127.0.0.1, ::1 or localhost [default: 127.0.0.1]
    #[arg(long)]
    pub host: Option<String>,
    /// HTTP port; required with --transport http (0: any free port).
    #[arg(long)]
    pub port: Option<u16>,
    /// Serve read-only over the committed prints: the only mode, and the default.
    #[arg(long, overrides_with_all = ["read_only", "no_read_only"])]
    pub read_only: bool,
    /// Refused, as dbprint refuses it: only --read-only is supported.
    #[arg(long, overrides_with_all = ["read_only", "no_read_only"])]
    pub no_read_only: bool,
    #[arg(long, help = INDEX_DIR_HELP)]
    pub index_dir: Option<PathBuf>,
    /// The installed dbprint package directory (the one holding spec/v1/SPEC.md) to
    /// read get_reference's documents from; default: $PRINTDEX_REFERENCE_DIR, then the
    /// dbprint beside a `dbprint` on PATH, the one python3/python imports, pipx's, uv's.
    #[arg(long)]
    pub reference_dir: Option<PathBuf>,
    /// Run as the shared server listening on this socket (the stdio command starts it).
    #[arg(long, hide = true)]
    pub shared_host: Option<PathBuf>,
}

/// The default `--host`, dbprint's.
pub const DEFAULT_HOST: &str = "127.0.0.1";

/// `--project` and `--index-dir`, as every index command takes them.
#[derive(Debug, Args)]
pub struct IndexTarget {
    #[arg(long, help = PROJECT_HELP, allow_hyphen_values = true)]
    pub project: Option<String>,
    #[arg(long, help = INDEX_DIR_HELP)]
    pub index_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum IndexAction {
    /// Rebuild a project's index from scratch, offline, with progress on stderr.
    Rebuild(IndexTarget),
    /// Say what a project's index holds, how fresh and how big (read only).
    Status(IndexTarget),
    /// List every index in printdex's cache: its project, size, last use, and whether
    /// the project still exists.
    List,
    /// Remove the indexes of projects that no longer exist; nothing else.
    Prune {
        /// Say what would be removed, and remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// A project loaded from `--project` (a path or a git address) or found by walking up.
pub struct Located {
    pub project: ProjectConfig,
    /// The address a git `--project` named (its checkout is `project`'s root).
    pub remote: Option<RemoteAddress>,
}

/// Load the project `--project` names, cloning or refreshing a git address first, as
/// dbprint resolves it; a failed refresh over a usable checkout is a warning on stderr.
pub fn locate_project(
    project: Option<&str>,
    checkouts: &Checkouts,
) -> Result<Located, ConfigError> {
    let Some(locator) = project else {
        return Ok(Located {
            project: config::discover(&std::env::current_dir().unwrap_or_default())?,
            remote: None,
        });
    };
    let Some(address) = config::remote::parse_address(locator)? else {
        return Ok(Located {
            project: config::load_at(locator)?,
            remote: None,
        });
    };
    let dir = checkouts.materialize(&address, &warn)?;
    Ok(Located {
        project: config::load_at_path(&dir)?,
        remote: Some(address),
    })
}

/// A startup failure worded as dbprint words it, and exit 1.
pub fn refuse(text: &str) -> std::process::ExitCode {
    use std::io::Write;
    eprintln!("{text}");
    let _ = std::io::stderr().flush();
    std::process::ExitCode::from(1)
}

/// A warning worded as dbprint words its own, on stderr.
pub fn warn(message: &str) {
    eprintln!("warning: {message}");
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
