//! `printdex serve` over stdio with a shared server (`mcp::shared`): the command attaches
//! to the host of its index and configuration, starting one when none runs, and relays;
//! the host is this binary again, run with `--shared-host`.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};

use super::{say_unavailable, Opened, Setup};
use crate::cli::serve_blocking;
use crate::mcp::shared::{self, Address, Host, InProcess, Ready};
use crate::query::Warm;
use crate::store::references::ReferenceDocs;

impl Setup {
    /// The address of the host that serves exactly what this setup would serve.
    fn address(&self) -> std::io::Result<Address> {
        let dir = std::path::absolute(&self.dir)?;
        let config = std::path::absolute(&self.project.config_path)?;
        // The resolved connections, whole: an edited .dbprint.yaml is another host.
        let served = format!("{:?}", self.served);
        let reference = self
            .reference_dir
            .as_deref()
            .map(std::path::absolute)
            .transpose()?;
        let locator = self.locator.as_deref().unwrap_or("");
        Address::new(&[
            dir.as_os_str(),
            config.as_os_str(),
            OsStr::new(&served),
            reference.as_deref().map_or(OsStr::new(""), Path::as_os_str),
            OsStr::new(locator),
        ])
    }

    /// A server opened in this process for a session whose host was lost.
    fn server_for_a_lost_host(
        self,
    ) -> Result<InProcess<crate::mcp::dbprint::DbprintTools>, String> {
        let Opened { store, .. } = self.open(Warm::Unkept).map_err(|e| format!("{e:#}"))?;
        let closing = store.clone();
        Ok(InProcess {
            server: crate::mcp::dbprint::server(store),
            close: Box::new(move || closing.close()),
        })
    }
}

/// Attach this stdio session to its host and relay it. `Ok(None)`: no host could be
/// attached (said in the log); the caller serves in-process.
pub(super) fn attach(setup: &Setup) -> anyhow::Result<Option<ExitCode>> {
    let address = match setup.address() {
        Ok(address) => address,
        Err(e) => {
            tracing::info!("serving in-process: no place for a shared server ({e})");
            return Ok(None);
        }
    };
    let fallback = setup.clone();
    let relayed = serve_blocking(async move {
        let attached = match shared::attach(&address, || start_host(&address)).await {
            Ok(attached) => attached,
            Err(why) => {
                tracing::info!("serving in-process: {why}");
                return None;
            }
        };
        tracing::debug!(socket = %address.socket.display(), "attached to the shared server");
        eprintln!("{}", attached.startup);
        let references = ReferenceDocs::new(fallback.reference_dir.clone());
        std::thread::spawn(move || say_unavailable(&references.missing()));
        Some(shared::relay(attached, move || fallback.server_for_a_lost_host()).await)
    })?;
    match relayed {
        None => Ok(None),
        Some(relayed) => {
            relayed?;
            Ok(Some(ExitCode::SUCCESS))
        }
    }
}

/// Start the host: this binary with this command's arguments and `--shared-host`,
/// detached (its own process group, so a Ctrl-C meant for this session spares it), its
/// stderr to the address's log.
fn start_host(address: &Address) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let log = std::fs::File::create(&address.log)?;
    Command::new(std::env::current_exe()?)
        .args(std::env::args_os().skip(1))
        .arg("--shared-host")
        .arg(&address.socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
}

/// Run as the host of `socket` until it is idle (`mcp::shared::host`).
pub(super) fn host(setup: Setup, socket: &Path) -> anyhow::Result<ExitCode> {
    let address = setup.address()?;
    if address.socket != socket {
        anyhow::bail!(
            "this shared server's address is {}, not {} (another environment?)",
            address.socket.display(),
            socket.display()
        );
    }
    let Some(host) = Host::claim(address)? else {
        tracing::info!("another shared server holds {}", socket.display());
        return Ok(ExitCode::SUCCESS);
    };
    let (keep, kept) = std::sync::mpsc::channel();
    let opening = async move {
        // Its sessions' first calls all come after its one warm-up: what is kept is
        // read back then, not at the first call.
        let opened = tokio::task::spawn_blocking(move || setup.open(Warm::Everything))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("{e:#}"))?;
        let _ = keep.send(opened.store.clone());
        Ok(Ready {
            server: crate::mcp::dbprint::server(opened.store),
            startup: opened.summary.line("over stdio"),
        })
    };
    serve_blocking(host.serve(opening, shared::idle_limit()))??;
    // Leave the mirror's WAL small and the index marked clean for the next start.
    if let Ok(store) = kept.try_recv() {
        store.close();
    }
    Ok(ExitCode::SUCCESS)
}
