//! The host: the one process serving every stdio session on an address. It listens before
//! its store is open, so a session that arrives meanwhile waits, hearing a beat; each
//! session is the line transport over its connection with a server of its own (its own
//! calls under way) over the one store. It exits once no session has been attached for
//! the idle limit, on SIGTERM/SIGINT, or when its socket is gone or another's.

use std::fs::{File, OpenOptions};
use std::future::Future;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::BufReader;
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

use super::address::Address;
use super::handshake::{hear, send, Heard, Hello, Reply, BEAT, PROTOCOL};
use crate::error::Recover;
use crate::mcp::stdio::{serve_lines, shutdown_signal};
use crate::mcp::{Server, ToolSet};

/// What sessions are served with once the store is open.
pub struct Ready<S: ToolSet> {
    pub server: Server<S>,
    /// The startup line each attached session's command says on its stderr.
    pub startup: String,
}

/// The store's opening, once known: what sessions are served with, or why none can be.
type Outcome<S> = Arc<Result<Ready<S>, String>>;
/// Where sessions wait for the outcome (`None` while the store opens).
type Opened<S> = watch::Receiver<Option<Outcome<S>>>;

/// A claimed address: its lock held, its socket bound.
pub struct Host {
    address: Address,
    listener: std::os::unix::net::UnixListener,
    /// Held for the host's life: the one host of this address.
    _lock: File,
    /// The socket file's (device, inode): another's socket at the path ends this host.
    socket_identity: (u64, u64),
}

/// Live sessions, and when the last one ended.
struct Sessions {
    live: AtomicUsize,
    quiet_since: Mutex<Instant>,
}

/// How often the host looks at its sessions and its socket.
const LOOK_EVERY: Duration = Duration::from_millis(500);
/// How long a host's end waits for its sessions' calls under way.
const DRAIN: Duration = Duration::from_secs(10);
/// The longest hello line a host reads.
const HELLO_MAX: u64 = 4096;

impl Host {
    /// Claim `address`: take its lock, bind its socket (owner-only) and write the pid file.
    /// `Ok(None)`: another host holds it.
    pub fn claim(address: Address) -> io::Result<Option<Host>> {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&address.lock)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        // A socket left by a host that was killed: no host holds the lock, so it is stale.
        match std::fs::remove_file(&address.socket) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = std::os::unix::net::UnixListener::bind(&address.socket)?;
        std::fs::set_permissions(&address.socket, std::fs::Permissions::from_mode(0o600))?;
        listener.set_nonblocking(true)?;
        let meta = std::fs::symlink_metadata(&address.socket)?;
        std::fs::write(&address.pid, format!("{}\n", std::process::id()))?;
        Ok(Some(Host {
            address,
            listener,
            _lock: lock,
            socket_identity: (meta.dev(), meta.ino()),
        }))
    }

    /// Serve sessions while `opening` opens the store beside the listener, until the host
    /// has been without a session for `idle`, a shutdown signal, or its socket is gone.
    pub async fn serve<S, O>(self, opening: O, idle: Duration) -> io::Result<()>
    where
        S: ToolSet,
        O: Future<Output = Result<Ready<S>, String>>,
    {
        let listener = UnixListener::from_std(self.listener.try_clone()?)?;
        let (opened, ready) = watch::channel::<Option<Outcome<S>>>(None);
        let (stopping, stop) = watch::channel(false);
        let sessions = Arc::new(Sessions {
            live: AtomicUsize::new(0),
            quiet_since: Mutex::new(Instant::now()),
        });
        let opening = async move {
            let outcome = opening.await;
            if let Err(why) = &outcome {
                tracing::error!("the shared server cannot serve: {why}");
            }
            let _ = opened.send(Some(Arc::new(outcome)));
        };
        tokio::pin!(opening);
        let mut open = false;
        let signal = shutdown_signal();
        tokio::pin!(signal);
        let mut look = tokio::time::interval(LOOK_EVERY);
        loop {
            tokio::select! {
                _ = &mut opening, if !open => open = true,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        sessions.live.fetch_add(1, Ordering::SeqCst);
                        tokio::spawn(session(
                            stream,
                            self.address.clone(),
                            ready.clone(),
                            stop.clone(),
                            sessions.clone(),
                        ));
                    }
                    Err(e) => tracing::warn!("accepting a session: {e}"),
                },
                _ = look.tick() => {
                    if self.ending(&sessions, idle, &ready) {
                        break;
                    }
                }
                _ = &mut signal => break,
            }
        }
        drop(listener);
        self.let_go();
        let _ = stopping.send(true);
        let deadline = Instant::now() + DRAIN;
        while sessions.live.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    /// Whether the host should end now: its socket is no longer its own, or no session
    /// is attached and its store failed to open or it has been idle past the limit.
    fn ending<S: ToolSet>(&self, sessions: &Sessions, idle: Duration, ready: &Opened<S>) -> bool {
        let lost = std::fs::symlink_metadata(&self.address.socket)
            .map(|m| (m.dev(), m.ino()) != self.socket_identity)
            .unwrap_or(true);
        if lost {
            tracing::info!("the shared server's socket is gone or another's: ending");
            return true;
        }
        if sessions.live.load(Ordering::SeqCst) > 0 {
            return false;
        }
        match ready.borrow().as_deref() {
            // Still opening: sessions may be on their way.
            None => false,
            Some(Err(_)) => true,
            Some(Ok(_)) => sessions.quiet_since.lock().recover().elapsed() >= idle,
        }
    }

    /// The socket and pid file go, if they are still this host's.
    fn let_go(&self) {
        let ours = std::fs::symlink_metadata(&self.address.socket)
            .is_ok_and(|m| (m.dev(), m.ino()) == self.socket_identity);
        if ours {
            let _ = std::fs::remove_file(&self.address.socket);
            let _ = std::fs::remove_file(&self.address.pid);
        }
    }
}

/// One session: the hello checked, the store waited for (with a beat), then the line
/// transport over the connection until the client closes it or the host ends.
async fn session<S: ToolSet>(
    stream: UnixStream,
    address: Address,
    mut ready: Opened<S>,
    mut stop: watch::Receiver<bool>,
    sessions: Arc<Sessions>,
) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    if let Some(refusal) = check_hello(&mut read, &address).await {
        let _ = send(&mut write, &Reply::Refused { reason: refusal }).await;
    } else if let Some(ready) = wait_ready(&mut ready, &mut write).await {
        match &*ready {
            Err(why) => {
                let reason = format!("the shared server cannot serve: {why}");
                let _ = send(&mut write, &Reply::Refused { reason }).await;
            }
            Ok(ready) => {
                let attached = Reply::Attached {
                    startup: ready.startup.clone(),
                };
                if send(&mut write, &attached).await.is_ok() {
                    let stopped = async move {
                        let _ = stop.wait_for(|s| *s).await;
                    };
                    let _ = serve_lines(ready.server.session(), read, write, stopped).await;
                }
            }
        }
    }
    // The last session out starts the idle clock.
    let mut quiet_since = sessions.quiet_since.lock().recover();
    if sessions.live.fetch_sub(1, Ordering::SeqCst) == 1 {
        *quiet_since = Instant::now();
    }
}

/// `None` when the client's hello is one this host serves; else why not.
async fn check_hello(
    read: &mut BufReader<tokio::net::unix::OwnedReadHalf>,
    address: &Address,
) -> Option<String> {
    let hello: Hello = match hear(read, HELLO_MAX).await {
        Heard::Said(hello) => hello,
        Heard::Garbled(e) => return Some(format!("not a printdex hello: {e}")),
        Heard::Silent | Heard::Ended => return Some("no hello".into()),
    };
    if hello.printdex_attach != PROTOCOL {
        return Some(format!(
            "handshake {} asked; this server speaks {PROTOCOL}",
            hello.printdex_attach
        ));
    }
    if hello.version != address.version {
        return Some(format!(
            "version {} asked; this server is {}",
            hello.version, address.version
        ));
    }
    if hello.key != address.key {
        return Some("another index or configuration".into());
    }
    None
}

/// The store's outcome once it is known, beating to the client meanwhile; `None` when the
/// client went away or the host ended first.
async fn wait_ready<S: ToolSet>(
    ready: &mut Opened<S>,
    write: &mut OwnedWriteHalf,
) -> Option<Outcome<S>> {
    loop {
        if let Some(outcome) = ready.borrow().clone() {
            return Some(outcome);
        }
        tokio::select! {
            changed = ready.changed() => changed.ok()?,
            _ = tokio::time::sleep(BEAT) => send(write, &Reply::Waiting).await.ok()?,
        }
    }
}
