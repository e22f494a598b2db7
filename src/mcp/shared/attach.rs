//! A stdio command finding its host: connect to the address's socket, starting a host
//! when none listens, and shake hands (the version and key checked by the host, its beat
//! heard while its store opens). Any failure is the caller's cue to serve in-process.

use std::io;
use std::process::Child;
use std::time::{Duration, Instant};

use tokio::io::BufReader;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;

use super::address::Address;
use super::handshake::{hear, send, Heard, Hello, Reply, PROTOCOL, SILENCE};

/// A session attached to its host.
pub struct Attached {
    pub read: BufReader<OwnedReadHalf>,
    pub write: OwnedWriteHalf,
    /// The host's startup line, for this command's stderr.
    pub startup: String,
}

/// How long a command waits for a host it started to listen (it binds before opening
/// its store, so this is a process start, not an index's).
const LISTEN_WITHIN: Duration = Duration::from_secs(10);
/// The longest handshake line read.
const REPLY_MAX: u64 = 1 << 20;

/// Attach to the host of `address`, starting one with `start` when none listens. `Err`
/// says why not (for the log); the caller then serves in-process.
pub async fn attach(
    address: &Address,
    start: impl FnOnce() -> io::Result<Child>,
) -> Result<Attached, String> {
    let mut start = Some(start);
    let mut started: Option<Child> = None;
    let since = Instant::now();
    // A host that ends (idle) as a session arrives is tried once more.
    let mut lost_once = false;
    loop {
        match UnixStream::connect(&address.socket).await {
            Ok(stream) => match handshake(stream, address).await {
                Ok(attached) => return Ok(attached),
                Err(Handshake::Lost) if !lost_once => lost_once = true,
                Err(Handshake::Lost) => return Err("the shared server went away".into()),
                Err(Handshake::Refused(why)) => return Err(why),
            },
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) =>
            {
                if let Some(start) = start.take() {
                    started = Some(start().map_err(|e| format!("starting a shared server: {e}"))?);
                } else if let Some(child) = started.as_mut() {
                    // A host that lost the race to another exits at once; that other one
                    // is about to listen, so only the time bound ends the wait.
                    if child.try_wait().ok().flatten().is_some() && !another_holds(address) {
                        return Err(format!(
                            "the shared server exited as it started (its log: {})",
                            address.log.display()
                        ));
                    }
                }
                if since.elapsed() > LISTEN_WITHIN {
                    return Err(format!(
                        "no shared server listened within {LISTEN_WITHIN:?} (its log: {})",
                        address.log.display()
                    ));
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(e) => return Err(format!("connecting to {}: {e}", address.socket.display())),
        }
    }
}

/// Whether some process holds the address's lock (a host is running or starting).
fn another_holds(address: &Address) -> bool {
    let Ok(lock) = std::fs::OpenOptions::new().write(true).open(&address.lock) else {
        return false;
    };
    matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

enum Handshake {
    /// The host closed the connection before a verdict.
    Lost,
    Refused(String),
}

async fn handshake(stream: UnixStream, address: &Address) -> Result<Attached, Handshake> {
    let (read, mut write) = stream.into_split();
    let hello = Hello {
        printdex_attach: PROTOCOL,
        version: address.version.clone(),
        key: address.key.clone(),
    };
    if send(&mut write, &hello).await.is_err() {
        return Err(Handshake::Lost);
    }
    let mut read = BufReader::new(read);
    loop {
        match hear::<_, Reply>(&mut read, REPLY_MAX).await {
            Heard::Said(Reply::Waiting) => {}
            Heard::Said(Reply::Attached { startup }) => {
                return Ok(Attached {
                    read,
                    write,
                    startup,
                })
            }
            Heard::Said(Reply::Refused { reason }) => return Err(Handshake::Refused(reason)),
            Heard::Garbled(e) => {
                return Err(Handshake::Refused(format!(
                    "the shared server said something else: {e}"
                )))
            }
            Heard::Silent => {
                return Err(Handshake::Refused(format!(
                    "the shared server was silent for {SILENCE:?} (stopped?)"
                )))
            }
            Heard::Ended => return Err(Handshake::Lost),
        }
    }
}
