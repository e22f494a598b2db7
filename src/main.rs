//! The `printdex` binary: the command line's edge, where errors become exit codes.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use printdex::cli::{default_index_dir, serve_blocking, Cli, Command, IndexAction, Transport};
use printdex::config::{self, ProjectConfig, Served};
use printdex::mcp::ServeError;
use printdex::store::Store;

const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "::1", "localhost"];

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("PRINTDEX_LOG"))
        .with_ansi(false)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// A startup failure worded as dbprint words it, and exit 1.
fn refuse(text: &str) -> ExitCode {
    eprintln!("{text}");
    let _ = std::io::stderr().flush();
    ExitCode::from(1)
}

fn load_project(project: Option<&str>) -> Result<ProjectConfig, config::ConfigError> {
    match project {
        Some(p) => config::load_at(p),
        None => config::discover(&std::env::current_dir().unwrap_or_default()),
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve {
            connection,
            project,
            transport,
            host,
            port,
            index_dir,
            reference_dir,
        } => {
            if transport == Transport::Http {
                if port.is_none() {
                    return Ok(refuse("--port is required when --transport http."));
                }
                if !LOOPBACK_HOSTS.contains(&host.as_str()) {
                    return Ok(refuse(&format!(
                        "--host must be loopback (['127.0.0.1', '::1', 'localhost']); got {}.",
                        compat::py::repr_str(&host)
                    )));
                }
            }
            let project = match load_project(project.as_deref()) {
                Ok(p) => p,
                Err(e) => return Ok(refuse(&format!("error: {e}"))),
            };
            let served = match Served::resolve(&project, connection.as_deref()) {
                Ok(s) => s,
                Err(e) => return Ok(refuse(&e.to_string())),
            };
            let dir = index_dir.unwrap_or_else(|| default_index_dir(&project.project_root));
            let store = Arc::new(Store::open(served, &dir)?.with_reference_dir(reference_dir));
            let _watcher = printdex::store::watch::spawn(store.clone());
            let closing = store.clone();
            // Large diffs, get_table_context's overlay indexes and validate_sql's catalog
            // are built off the request path before their first call.
            let warming = store.clone();
            std::thread::spawn(move || {
                // After the client's first requests (handshake, a first listing), which
                // would otherwise share the cores with this.
                std::thread::sleep(std::time::Duration::from_millis(300));
                for name in warming.served.served_names_sorted() {
                    if let Ok(state) = warming.connection(Some(&name)) {
                        printdex::query::diff::warm(&state);
                        printdex::query::context::warm(&state);
                        printdex::query::validate_sql::warm(&state);
                    }
                }
            });
            let server = printdex::mcp::dbprint::server(store);
            let served = serve_blocking(async {
                match (transport, port) {
                    (Transport::Http, Some(port)) => {
                        printdex::mcp::http::serve_http(server, &host, port).await
                    }
                    _ => printdex::mcp::serve_stdio(server).await,
                }
            })?;
            // Leave the mirror's WAL small for the next start (the store is never dropped:
            // the watcher thread holds it to the end).
            let _ = closing.mirror().checkpoint();
            if let Err(ServeError::Bind(failed)) = &served {
                // uvicorn's log line and startup-failure status.
                eprintln!("ERROR:    {failed}");
                let _ = std::io::stderr().flush();
                return Ok(ExitCode::from(3));
            }
            served?;
            let _ = std::io::stderr().flush();
            Ok(ExitCode::SUCCESS)
        }
        Command::Pz { action } => printdex::cli::pz::run(action),
        Command::Index { action } => match action {
            IndexAction::Rebuild { project, index_dir } => {
                index_rebuild(project.as_deref(), index_dir)
            }
            IndexAction::Status { project, index_dir } => {
                index_status(project.as_deref(), index_dir)
            }
        },
    }
}

/// Every configured connection, for the index commands.
fn all_connections(project: &ProjectConfig) -> Served {
    Served {
        connections: project.connections.clone(),
        default: None,
        configured: project.names_sorted(),
    }
}

fn index_rebuild(
    project: Option<&str>,
    index_dir: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let project = match load_project(project) {
        Ok(p) => p,
        Err(e) => return Ok(refuse(&format!("error: {e}"))),
    };
    let dir = index_dir.unwrap_or_else(|| default_index_dir(&project.project_root));
    let _ = std::fs::remove_dir_all(&dir);
    let started = std::time::Instant::now();
    let progress = indicatif::ProgressBar::new(0);
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} files ({per_sec}, {eta} left)",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let store = Store::open_with_progress(
        all_connections(&project),
        &dir,
        &|connection, done, total| {
            progress.set_message(format!("indexing {connection}"));
            progress.set_length(total as u64);
            progress.set_position(done as u64);
        },
    )?;
    progress.finish_and_clear();
    store.mirror().checkpoint()?;
    let (files, tables, bytes) = store.mirror().counts()?;
    let columns = store.indexed_columns()?;
    eprintln!(
        "indexed {} connection(s): {tables} tables, {columns} columns, {files} files, {:.1} MiB in {:.2} s -> {}",
        project.connections.len(),
        bytes as f64 / 1_048_576.0,
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn index_status(
    project: Option<&str>,
    index_dir: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let project = match load_project(project) {
        Ok(p) => p,
        Err(e) => return Ok(refuse(&format!("error: {e}"))),
    };
    let dir = index_dir.unwrap_or_else(|| default_index_dir(&project.project_root));
    // Read only: reporting never reconciles, rebuilds or resets anything.
    let Some(mirror) = printdex::store::mirror::Mirror::inspect(&dir)? else {
        println!("index: none at {} (built at the next start)", dir.display());
        return Ok(ExitCode::SUCCESS);
    };
    println!("index: {}", mirror.path.display());
    if !mirror.current {
        println!("format: older than this printdex; rebuilt at the next start");
        return Ok(ExitCode::SUCCESS);
    }
    let files: i64 = mirror.connections.iter().map(|c| c.files).sum();
    println!(
        "files: {files}  tables: {}  size: {:.1} MiB",
        mirror.tables,
        mirror.bytes as f64 / 1_048_576.0
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    for conn in &project.connections {
        let Some(c) = mirror.connections.iter().find(|c| c.name == conn.name) else {
            println!(
                "{}: not indexed yet, print {}",
                conn.name,
                conn.print_root.display()
            );
            continue;
        };
        println!(
            "{}: {} files ({} unparseable, {} declared but absent), print {}",
            c.name,
            c.files,
            c.unparseable,
            c.absent,
            conn.print_root.display()
        );
        if let Some(last) = &c.last_reconcile {
            let field = |k: &str| last.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            println!(
                "  last reconcile: {} s ago, {} files checked, {} read again, {} ms",
                now.saturating_sub(field("at")),
                field("files"),
                field("reread"),
                field("ms")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
