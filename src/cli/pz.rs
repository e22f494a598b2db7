//! `printdex pz …`: serve pz's MCP surface, and keep its docs index.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Subcommand;

use crate::error::pz::DocsError;
use crate::mcp::pz::delegate::Delegate;
use crate::mcp::pz::{warm_on_publish, PzTools};
use crate::query::pz_project::Env;
use crate::store::owner;
use crate::store::pz_docs::disk::{self, now_secs, Store};
use crate::store::pz_docs::fetch;
use crate::store::pz_docs::service::{self, DocsConfig, DEFAULT_MAX_AGE};

const DOCS_DIR_HELP: &str =
    "The docs index directory (default: pz-docs in printdex's cache, $XDG_CACHE_HOME/printdex)";

#[derive(Debug, Subcommand)]
pub enum PzAction {
    /// Serve pz's MCP surface over stdio (a stand-in for `pz mcp`).
    Serve {
        /// The pz project directory (default: the current directory).
        #[arg(long)]
        project: Option<PathBuf>,
        /// List the execute tools (pz_run, pz_retry, pz_run_results), as `pz mcp --allow-run`.
        #[arg(long)]
        allow_run: bool,
        /// The pz executable to pass the tools printdex cannot answer to (default: PZ_BIN,
        /// else `pz` on PATH; without one those tools are not listed).
        #[arg(long)]
        pz: Option<PathBuf>,
        /// The mirror directory (default: a per-project directory in the user's cache).
        #[arg(long)]
        index_dir: Option<PathBuf>,
        /// Refresh the docs index in the background once older than this (e.g. 30m, 24h, 0 for
        /// every call, never to turn refreshing off).
        #[arg(long, default_value = "24h", value_parser = parse_age)]
        docs_max_age: Age,
        /// Longest wait on the docs source (e.g. 15s).
        #[arg(long, default_value = "15s", value_parser = parse_duration)]
        docs_timeout: Duration,
        #[arg(long, help = DOCS_DIR_HELP)]
        docs_dir: Option<PathBuf>,
    },
    /// The offline copy of pz's documentation.
    Docs {
        #[command(subcommand)]
        action: DocsAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum DocsAction {
    /// Fetch llms.txt and llms-full.txt and index them.
    Sync {
        /// A site URL (http, https, file://) or a directory holding the two files.
        /// Default: PZ_DOCS_URL, else https://pipelinez.dev.
        #[arg(long)]
        from: Option<String>,
        /// Longest wait for both files together (e.g. 15s, 2m).
        #[arg(long, default_value = "15s", value_parser = parse_duration)]
        timeout: Duration,
        #[arg(long, help = DOCS_DIR_HELP)]
        docs_dir: Option<PathBuf>,
    },
    /// Say which corpus is installed, from where and how old.
    Status {
        #[arg(long, help = DOCS_DIR_HELP)]
        docs_dir: Option<PathBuf>,
    },
}

/// A refresh age; `None` never refreshes.
#[derive(Debug, Clone, Copy)]
pub struct Age(pub Option<Duration>);

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map(|i| s.split_at(i))
        .unwrap_or((s, "s"));
    let n: f64 = num.parse().map_err(|_| format!("not a duration: {s:?}"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" | "" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        "d" => n * 86400.0,
        _ => return Err(format!("unknown unit in {s:?} (use ms, s, m, h or d)")),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("not a duration: {s:?}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_age(s: &str) -> Result<Age, String> {
    if s.eq_ignore_ascii_case("never") {
        return Ok(Age(None));
    }
    parse_duration(s).map(|d| Age(Some(d)))
}

pub fn run(action: PzAction) -> anyhow::Result<ExitCode> {
    match action {
        PzAction::Serve {
            project,
            allow_run,
            pz,
            index_dir,
            docs_max_age,
            docs_timeout,
            docs_dir,
        } => {
            let mut cfg = DocsConfig::from_env();
            cfg.max_age = docs_max_age.0;
            cfg.timeout = docs_timeout;
            if let Some(d) = docs_dir {
                cfg.root = d;
            }
            let root = std::path::absolute(project.unwrap_or_else(|| PathBuf::from(".")))?;
            let dir = index_dir.unwrap_or_else(|| crate::config::default_index_dir(&root));
            let store = Arc::new(crate::store::Store::open_project(&root, &dir)?);
            // `index list` names it, and `index prune` drops it once project.yml is gone.
            let owner = owner::Owner::now(&root.join("project.yml"), None);
            if let Err(e) = owner::record(&dir, &owner) {
                tracing::warn!("cannot record the project of {}: {e}", dir.display());
            }
            let env: Env = std::env::vars().collect();
            warm_on_publish(&store, &env);
            let _watcher = crate::store::watch::spawn(store.clone());
            let closing = store.clone();
            let delegate = find_pz(pz).map(|program| {
                tracing::info!(
                    "passing what printdex cannot answer to {}",
                    program.display()
                );
                Delegate::new(program, &root, allow_run)
            });
            let tools = PzTools {
                docs: service::DocsService::new(cfg),
                project: Some(store),
                env,
                allow_run,
                delegate,
            };
            let docs = tools.docs.clone();
            // Load the installed corpus (and start a refresh if it is stale) before the first call.
            std::thread::spawn(move || docs.warm());
            super::serve_blocking(crate::mcp::serve_stdio(crate::mcp::pz::server(tools)))??;
            // The mirror's WAL folded in and the location marked clean for the next start.
            closing.close();
            Ok(ExitCode::SUCCESS)
        }
        PzAction::Docs { action } => match action {
            DocsAction::Sync {
                from,
                timeout,
                docs_dir,
            } => sync(from, timeout, docs_dir),
            DocsAction::Status { docs_dir } => status(docs_dir),
        },
    }
}

/// The pz executable: `--pz`, else `PZ_BIN`, else `pz` on PATH (`pz.exe` on Windows);
/// `None` when there is none.
fn find_pz(flag: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p);
    }
    if let Some(p) = std::env::var_os("PZ_BIN").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    crate::config::find_on_path("pz")
}

fn sync(
    from: Option<String>,
    timeout: Duration,
    docs_dir: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let base = match from {
        Some(f) => fetch::base_from_arg(&f),
        None => std::env::var("PZ_DOCS_URL")
            .map(|s| s.trim_end_matches('/').to_string())
            .unwrap_or_else(|_| fetch::DEFAULT_BASE.to_string()),
    };
    let store = Store::at(docs_dir.unwrap_or_else(disk::default_root));
    let started = std::time::Instant::now();
    match service::sync(&store, &base, timeout) {
        Ok(done) => {
            let m = &done.meta;
            println!(
                "{} {} pages from {} in {:.2} s ({}) -> {}",
                if done.reused { "unchanged:" } else { "synced" },
                m.pages,
                m.source,
                started.elapsed().as_secs_f64(),
                done.pointer.version,
                store.version_dir(&done.pointer.version).display()
            );
            for f in [&m.llms_txt, &m.llms_full_txt] {
                println!("  {}  {} bytes  blake3 {}", f.url, f.bytes, f.blake3);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            if let DocsError::Unreachable { cause, .. } = &e {
                eprintln!("  cause: {cause}");
            }
            if matches!(
                e,
                DocsError::Unreachable { .. } | DocsError::TooLarge { .. }
            ) {
                eprintln!(
                    "  hint: sync from a mirror with --from URL, or from a directory holding llms.txt and llms-full.txt with --from DIR; or set PZ_DOCS_URL (now {})",
                    std::env::var("PZ_DOCS_URL")
                        .map(|v| format!("{v:?}"))
                        .unwrap_or_else(|_| "unset".into())
                );
            }
            Ok(ExitCode::from(1))
        }
    }
}

fn status(docs_dir: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let store = Store::at(docs_dir.unwrap_or_else(disk::default_root));
    let Some(p) = store.pointer() else {
        println!(
            "no pz docs synced in {} (run: printdex pz docs sync)",
            store.root().display()
        );
        return Ok(ExitCode::from(1));
    };
    let now = now_secs();
    println!(
        "version: {} ({})",
        p.version,
        store.version_dir(&p.version).display()
    );
    println!("source: {}", p.source);
    println!(
        "synced {} s ago, last checked {} s ago (refresh default: after {} s)",
        now.saturating_sub(p.synced_at),
        now.saturating_sub(p.checked_at),
        DEFAULT_MAX_AGE.as_secs()
    );
    if let Some(m) = store.meta(&p.version) {
        println!("pages: {}  lines: {}", m.pages, m.lines);
        for f in [&m.llms_txt, &m.llms_full_txt] {
            println!("  {}  {} bytes  blake3 {}", f.url, f.bytes, f.blake3);
        }
    }
    Ok(ExitCode::SUCCESS)
}
