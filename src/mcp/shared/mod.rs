//! One shared server per index for stdio sessions. Agents start a stdio server per session,
//! often several at once on one project; each would open the index, watch the print and
//! hold its own warm copy. Instead the first `printdex serve` over stdio starts a *host*
//! (the same binary, `--shared-host`, detached) that opens the store once and serves every
//! later session on the same index and configuration through an owner-only Unix socket;
//! each stdio command relays its session's lines to it (`relay`).
//!
//! - `address.rs`: where a host listens, named by everything that decides its answers and
//!   by the binary's version, in a directory only its user can enter.
//! - `host.rs`: the host: one listener, a session per connection over the line transport,
//!   a handshake that checks the version and waits for the store with a beat, exit when
//!   idle.
//! - `attach.rs`: a stdio command finding (or starting) its host and shaking hands.
//! - `relay.rs`: a session's lines to the host and back; when the host is lost, the
//!   session goes on in-process, its handshake and unanswered requests sent again.
//!
//! Sharing is best effort: a host that cannot be reached, started or trusted costs an
//! in-process server, as before. `PRINTDEX_SHARED=off` turns it off; it is Unix only
//! (elsewhere every session serves in-process).

#[cfg(unix)]
mod address;
#[cfg(unix)]
mod attach;
#[cfg(unix)]
mod host;
#[cfg(unix)]
mod relay;

#[cfg(unix)]
pub use address::Address;
#[cfg(unix)]
pub use attach::{attach, Attached};
#[cfg(unix)]
pub use host::{Host, Ready};
#[cfg(unix)]
pub use relay::{relay, InProcess};

use std::time::Duration;

/// Turns sharing off (`off`, `0`, `false`, `no`): every stdio session serves in-process.
pub const SHARED_ENV: &str = "PRINTDEX_SHARED";
/// How long a host with no session waits for one before it exits, in seconds.
pub const IDLE_ENV: &str = "PRINTDEX_SHARED_IDLE_SECS";
/// Where hosts keep their sockets (default: `$XDG_RUNTIME_DIR/printdex`, else
/// `<temp>/printdex-<uid>`).
pub const RUNTIME_DIR_ENV: &str = "PRINTDEX_RUNTIME_DIR";

/// A host exits after this long without a session, unless `IDLE_ENV` says otherwise.
const DEFAULT_IDLE: Duration = Duration::from_secs(300);

/// Whether stdio sessions share a host (Unix, and not turned off).
pub fn enabled() -> bool {
    cfg!(unix) && !std::env::var(SHARED_ENV).is_ok_and(|v| says_off(&v))
}

/// Whether a `PRINTDEX_SHARED` value turns sharing off.
fn says_off(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "off" | "0" | "false" | "no"
    )
}

/// How long a host waits without a session before it exits.
pub fn idle_limit() -> Duration {
    std::env::var(IDLE_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(DEFAULT_IDLE, Duration::from_secs_f64)
}

/// The handshake's messages, one JSON line each: the client's hello, then the host's
/// beats while the store opens, then its verdict. After the verdict the socket carries
/// the session's JSON-RPC lines.
#[cfg(unix)]
mod handshake {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

    /// The first line a client sends.
    #[derive(Debug, Serialize, Deserialize)]
    pub struct Hello {
        pub printdex_attach: u32,
        pub version: String,
        pub key: String,
    }

    /// The handshake's version: a host answers only a client that speaks it.
    pub const PROTOCOL: u32 = 1;

    /// A line the host sends back.
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Reply {
        /// The store is still opening (sent every `BEAT`, so a client tells a host at
        /// work from a stopped one).
        Waiting,
        /// Attached: the session starts; the startup line a person sees.
        Attached { startup: String },
        /// Not served here (another version, another key, a store that failed to open).
        Refused { reason: String },
    }

    /// How often a waiting client hears from the host.
    pub const BEAT: std::time::Duration = std::time::Duration::from_millis(250);
    /// A client gives up on a host it has not heard from for this long (and a host on a
    /// client that sends no hello).
    pub const SILENCE: std::time::Duration = std::time::Duration::from_secs(3);

    /// Write `message` as one JSON line.
    pub async fn send<W, T>(write: &mut W, message: &T) -> std::io::Result<()>
    where
        W: AsyncWrite + Unpin,
        T: Serialize,
    {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        write.write_all(&line).await?;
        write.flush().await
    }

    /// What the other side's next line said.
    pub enum Heard<T> {
        Said(T),
        /// A line that is not such a message (why).
        Garbled(String),
        /// Nothing within `SILENCE`.
        Silent,
        /// The connection ended (or failed) first.
        Ended,
    }

    /// The next line, at most `max` bytes, read as a `T`.
    pub async fn hear<R, T>(read: &mut R, max: u64) -> Heard<T>
    where
        R: AsyncBufRead + Unpin,
        T: DeserializeOwned,
    {
        let mut line = String::new();
        let mut bounded = read.take(max);
        match tokio::time::timeout(SILENCE, bounded.read_line(&mut line)).await {
            Err(_) => Heard::Silent,
            Ok(Ok(0)) | Ok(Err(_)) => Heard::Ended,
            Ok(Ok(_)) => match serde_json::from_str(line.trim_end()) {
                Ok(message) => Heard::Said(message),
                Err(e) => Heard::Garbled(e.to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharing_is_turned_off_only_by_a_word_that_says_so() {
        for off in ["off", " OFF ", "0", "false", "No"] {
            assert!(says_off(off), "{off:?}");
        }
        for on in ["on", "", "1", "yes", "offline"] {
            assert!(!says_off(on), "{on:?}");
        }
    }
}
