//! `printdex serve`: dbprint serve's checks in dbprint's order and words, then the store,
//! the watcher, a git checkout's refresher, one startup line, and the transport; over
//! stdio, a shared server's session when one can be had (`shared`).

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use super::{locate_project, refuse, serve_blocking, ServeArgs, Transport, DEFAULT_HOST};
use crate::config::git::Checkouts;
use crate::config::reference::REFERENCE_DIR_ENV;
use crate::config::{self, Served};
use crate::ingest::ManifestRead;
use crate::mcp::ServeError;
use crate::query::Warm;
use crate::store::references::ReferenceDocs;
use crate::store::{owner, Connection, Reads, Store};

#[cfg(unix)]
mod shared;
/// Without Unix sockets every session serves in-process (`mcp::shared::enabled` is false).
#[cfg(not(unix))]
mod shared {
    pub(super) fn host(
        _: super::Setup,
        socket: &std::path::Path,
    ) -> anyhow::Result<std::process::ExitCode> {
        anyhow::bail!("{}: a shared server needs Unix sockets", socket.display())
    }

    pub(super) fn attach(_: &super::Setup) -> anyhow::Result<Option<std::process::ExitCode>> {
        Ok(None)
    }
}

const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "::1", "localhost"];
/// uvicorn's exit status when it cannot start (a port it cannot bind), as dbprint exits.
const EXIT_BIND_FAILED: u8 = 3;

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // dbprint refuses this before anything else.
    if args.no_read_only {
        return Ok(refuse("Only --read-only is supported."));
    }
    let host = args.host.clone().unwrap_or_else(|| DEFAULT_HOST.into());
    match args.transport {
        Transport::Http => {
            if args.port.is_none() {
                return Ok(refuse("--port is required when --transport http."));
            }
            if !LOOPBACK_HOSTS.contains(&host.as_str()) {
                return Ok(refuse(&format!(
                    "--host must be loopback (['127.0.0.1', '::1', 'localhost']); got {}.",
                    compat::py::repr_str(&host)
                )));
            }
        }
        // dbprint ignores both without a word; a client config that sets them for stdio
        // likely meant HTTP, so say so.
        Transport::Stdio => {
            for (flag, given) in [
                ("--port", args.port.is_some()),
                ("--host", args.host.is_some()),
            ] {
                if given {
                    super::warn(&format!(
                        "{flag} applies only to --transport http; serving over stdio, it is ignored."
                    ));
                }
            }
        }
    }
    let checkouts = Checkouts::from_env();
    let located = match locate_project(args.project.as_deref(), &checkouts) {
        Ok(l) => l,
        Err(e) => return Ok(refuse(&format!("error: {e}"))),
    };
    let project = located.project;
    let served = match Served::resolve(&project, args.connection.as_deref()) {
        Ok(s) => s,
        Err(e) => return Ok(refuse(&e.to_string())),
    };
    let dir = args
        .index_dir
        .clone()
        .unwrap_or_else(|| config::default_index_dir(&project.project_root));
    let setup = Setup {
        project,
        remote: located.remote,
        served,
        dir,
        reference_dir: args.reference_dir.clone(),
        locator: args.project.clone(),
    };
    if let Some(socket) = &args.shared_host {
        return shared::host(setup, socket);
    }
    if matches!(args.transport, Transport::Stdio) && crate::mcp::shared::enabled() {
        if let Some(code) = shared::attach(&setup)? {
            return Ok(code);
        }
    }
    in_process(setup, args.transport, &host, args.port)
}

/// What a served session is made from, once dbprint's checks passed: enough to open the
/// store here, in a shared server, or in a session whose shared server was lost.
#[derive(Clone)]
pub(super) struct Setup {
    project: crate::config::ProjectConfig,
    remote: Option<crate::config::remote::RemoteAddress>,
    served: Served,
    dir: std::path::PathBuf,
    reference_dir: Option<std::path::PathBuf>,
    /// `--project` as given.
    locator: Option<String>,
}

/// A store opened to serve, with its watcher and warm-up started.
pub(super) struct Opened {
    store: Arc<Store>,
    summary: Summary,
}

impl Setup {
    /// Open the store and start what keeps it fresh and warm (a git checkout's refresher
    /// too): the part of a start that reads the index.
    fn open(self, warm: Warm) -> anyhow::Result<Opened> {
        if let Some(address) = &self.remote {
            Checkouts::from_env().keep_fresh(address.clone(), super::warn);
        }
        let opening = std::time::Instant::now();
        let store = Store::open_serving(self.served, &self.dir, self.reference_dir)?;
        tracing::debug!(elapsed = ?opening.elapsed(), "store open");
        let locator = self.locator.as_deref().filter(|_| self.remote.is_some());
        if let Err(e) = owner::record(
            &self.dir,
            &owner::Owner::now(&self.project.config_path, locator),
        ) {
            tracing::warn!(
                "cannot record the index's project in {}: {e}",
                self.dir.display()
            );
        }
        // The watcher holds the store to the process's end; it is never joined.
        let _watcher = crate::store::watch::spawn(store.clone());
        warm_in_background(store.clone(), warm);
        let summary = Summary::of(&store, &self.project.project_root, locator, &self.dir);
        tracing::debug!(elapsed = ?opening.elapsed(), "serving");
        Ok(Opened { store, summary })
    }
}

/// Serve from a store opened in this process, over stdio or HTTP.
fn in_process(
    setup: Setup,
    transport: Transport,
    host: &str,
    port: Option<u16>,
) -> anyhow::Result<ExitCode> {
    let references = ReferenceDocs::new(setup.reference_dir.clone());
    let Opened { store, summary } = setup.open(Warm::Unkept)?;
    let closing = store.clone();
    let (announced, references) = unavailable_references(references);
    let server = crate::mcp::dbprint::server(store);
    let served = serve_blocking(async {
        match (transport, port) {
            (Transport::Http, Some(port)) => {
                let limits = crate::mcp::sessions::SessionLimits::from_env();
                crate::mcp::http::serve_http(server, host, port, limits, |bound| {
                    summary.announce(&over_http(bound));
                    let _ = announced.send(());
                })
                .await
            }
            _ => {
                summary.announce("over stdio");
                let _ = announced.send(());
                crate::mcp::serve_stdio(server).await
            }
        }
    })?;
    // Its line, if any, is said before the process ends (at most the Python timeout); a
    // startup line never said (a port not bound) is no longer waited for.
    drop(announced);
    let _ = references.join();
    // Leave the mirror's WAL small and the index marked clean for the next start (the
    // store is never dropped: the watcher thread holds it to the end).
    closing.close();
    if let Err(ServeError::Bind(failed)) = &served {
        eprintln!("printdex: {failed}");
        return Ok(ExitCode::from(EXIT_BIND_FAILED));
    }
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Large diffs, get_table_context's overlay indexes and validate_sql's catalog are built
/// (or, with `Warm::Everything`, read back too, and the resource listing made) off the
/// request path before their first call. A session's own server (`Warm::Unkept`) then
/// reads back the kept values a first call would otherwise wait for whole: validate_sql's
/// catalog and get_diff's prepared diff (a tenth of a second and more each at 100,000
/// tables). Each waits while a call sweeps what it reads (`GiveWay`), as the first
/// searches of a session do, for a tenth of a second at most in all, and runs at the
/// calls' priority: below them, or held back until the first searches were done, a first
/// validate_sql right after two searches waited 60-140 ms for the catalog.
fn warm_in_background(store: Arc<Store>, warm: Warm) {
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        // After the client's first requests (handshake, a first listing), which would
        // otherwise share the cores with this.
        std::thread::sleep(std::time::Duration::from_millis(300));
        make_unkept(&store, warm);
        // They read the whole print: what they freed goes back to the system.
        crate::store::memory::release_freed();
        if warm == Warm::Unkept {
            read_back(&store);
        }
        tracing::debug!(elapsed = ?started.elapsed(), "the warm-up is done");
    });
}

/// What no earlier process kept, made (everything, with `Warm::Everything`: a shared
/// server, and `index rebuild` for the first session after it).
pub(super) fn make_unkept(store: &Store, warm: Warm) {
    for name in store.served.served_names_sorted() {
        // The diff reads the files it reads as they are now: a start's head, while the
        // start's reconcile is under way, serves it as well as the reconcile would.
        if let Ok(state) = store.fresh(Connection(Some(&name)), Reads::CurrentFiles) {
            crate::query::diff::warm(&state, warm);
        }
        if let Ok(state) = store.fresh(Connection(Some(&name)), Reads::CheckedAsRead) {
            crate::query::context::warm(&state);
            crate::query::validate_sql::warm(&state, warm);
            if warm == Warm::Everything {
                // The resource listing, which clients ask for at a session's start.
                let _ = crate::query::resources::list(std::slice::from_ref(&state));
            }
        }
    }
}

/// The kept values a session's first calls read back whole, read back ahead of them.
fn read_back(store: &Store) {
    let most = std::time::Duration::from_millis(100);
    let mut give_way = crate::store::background::GiveWay::at_most(most);
    for name in store.served.served_names_sorted() {
        give_way.now();
        if let Ok(state) = store.fresh(Connection(Some(&name)), Reads::CurrentFiles) {
            crate::query::diff::read_back(&state);
        }
        give_way.now();
        if let Ok(state) = store.fresh(Connection(Some(&name)), Reads::CheckedAsRead) {
            crate::query::validate_sql::read_back(&state);
        }
    }
}

/// What the startup line says, gathered before serving.
struct Summary {
    project: String,
    connections: String,
    index: String,
}

impl Summary {
    fn of(store: &Store, root: &Path, address: Option<&str>, dir: &Path) -> Summary {
        let connections: Vec<String> = store
            .served
            .served_names_sorted()
            .into_iter()
            .map(|name| {
                let fresh = store.fresh(Connection(Some(&name)), Reads::Manifest);
                let what = match fresh.map(|s| s.manifest.clone()) {
                    Ok(ManifestRead::Ok { doc, .. }) => {
                        let n = doc.tables().len();
                        format!("{n} table{}", if n == 1 { "" } else { "s" })
                    }
                    Ok(ManifestRead::Absent) => "no manifest yet".into(),
                    _ => "manifest unreadable".into(),
                };
                format!("{name} ({what})")
            })
            .collect();
        let project = match address {
            Some(address) => format!("{address} (checked out at {})", root.display()),
            None => root.display().to_string(),
        };
        Summary {
            project,
            connections: connections.join(", "),
            index: match store.index_is_private() {
                false => format!("index {} at {}", store.index_state().name(), dir.display()),
                true => format!(
                    "index {} at {} (private: {} cannot be used)",
                    store.index_state().name(),
                    store.index_dir().display(),
                    dir.display()
                ),
            },
        }
    }

    /// The one line a person starting the server sees.
    fn line(&self, transport: &str) -> String {
        format!(
            "printdex: serving {} {transport}: {}; {}",
            self.project, self.connections, self.index
        )
    }

    fn announce(&self, transport: &str) {
        eprintln!("{}", self.line(transport));
    }
}

/// `at http://ADDR/mcp (streamable HTTP) and http://ADDR/sse (SSE)`, for the first address
/// bound (the others, for `localhost`, serve the same).
fn over_http(bound: &[SocketAddr]) -> String {
    match bound.first() {
        Some(addr) => format!(
            "at http://{addr}/mcp (streamable HTTP) and http://{addr}/sse (SSE, as dbprint serves)"
        ),
        None => "over HTTP".into(),
    }
}

/// Said once at startup when get_reference (or some of its documents) cannot answer:
/// looked for off the startup path (asking a Python interpreter takes a while), and said
/// after the startup line, once the sender says it was printed (never, if serving failed).
fn unavailable_references(
    references: ReferenceDocs,
) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (announced, startup_said) = std::sync::mpsc::channel();
    let looking = std::thread::spawn(move || {
        let missing = references.missing();
        if startup_said.recv().is_ok() {
            say_unavailable(&missing);
        }
    });
    (announced, looking)
}

pub(super) fn say_unavailable(missing: &[crate::config::reference::Document]) {
    if missing.is_empty() {
        return;
    }
    let what = if missing.len() == crate::config::reference::Document::ALL.len() {
        "get_reference is unavailable: no dbprint package with its reference documents was found"
            .to_string()
    } else {
        let names: Vec<&str> = missing.iter().map(|d| d.name()).collect();
        format!(
            "get_reference cannot serve {}: the dbprint package found lacks it",
            names.join(", ")
        )
    };
    eprintln!(
        "printdex: {what} (looked beside `dbprint` on PATH, in what python3/python import, in pipx and uv tools); pass --reference-dir or set {REFERENCE_DIR_ENV}"
    );
}
