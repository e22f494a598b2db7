//! A session's lines relayed between this command's stdio and its host, byte for byte
//! (the host frames them as stdio would). The relay keeps what it needs to go on without
//! the host: the session's `initialize` and `notifications/initialized` lines, and every
//! request not yet answered. When the host is lost (killed, crashed) before the session
//! ends, the session goes on in-process: a server is opened here, the handshake is sent
//! to it again (its answer dropped: the client had it), then the unanswered requests, in
//! order. Only whole lines reach stdout, so an answer cut short by the host's end is
//! answered again, never half-written.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::attach::Attached;
use crate::mcp::framing::MAX_LINE;
use crate::mcp::stdio::{serve_lines, shutdown_signal};
use crate::mcp::{ServeError, Server, ToolSet};

/// A server opened in this process when the host is lost, and how to close its store.
pub struct InProcess<S: ToolSet> {
    pub server: Server<S>,
    pub close: Box<dyn FnOnce() + Send>,
}

type Upstream = (
    Box<dyn AsyncRead + Unpin + Send>,
    Box<dyn AsyncWrite + Unpin + Send>,
);

/// How long a signalled command waits for its session's calls under way.
const DRAIN: Duration = Duration::from_secs(10);

/// Relay stdio to `attached` until the client's input ends and every request is
/// answered (or a signal, after a bounded wait); `open` makes the in-process server if
/// the host is lost first.
pub async fn relay<S, F>(attached: Attached, open: F) -> Result<(), ServeError>
where
    S: ToolSet,
    F: FnOnce() -> Result<InProcess<S>, String> + Send + 'static,
{
    let mut upstream: Upstream = (Box::new(attached.read), Box::new(attached.write));
    let mut stdin = tokio::io::stdin();
    let mut stdout = tokio::io::stdout();
    let mut session = Session::default();
    let mut answers = Vec::new();
    let mut open = Some(open);
    let mut close: Option<Box<dyn FnOnce() + Send>> = None;
    let mut input_ended = false;
    let mut drain_until: Option<tokio::time::Instant> = None;
    let (mut from_client, mut from_host) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    let signal = shutdown_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            read = stdin.read(&mut from_client), if !input_ended => match read {
                Ok(n) if n > 0 => {
                    session.sent(&from_client[..n]);
                    // A failed write means the host is gone: its read side says so next,
                    // and what was written is in `session` to send again.
                    let _ = upstream.1.write_all(&from_client[..n]).await;
                }
                _ => {
                    input_ended = true;
                    let _ = upstream.1.shutdown().await;
                }
            },
            read = upstream.0.read(&mut from_host) => match read {
                Ok(n) if n > 0 => {
                    answers.extend_from_slice(&from_host[..n]);
                    forward_whole_lines(&mut answers, &mut session, &mut stdout).await?;
                }
                _ => {
                    // Done: the session ended and all is answered, or a signal asked this
                    // command to stop (what the host did not answer in its drain is not
                    // worth opening the index for).
                    if input_ended && (session.unanswered.is_empty() || drain_until.is_some()) {
                        break;
                    }
                    // Lost before the session ended: go on in-process (once; if that
                    // server ends too, nothing is left to answer).
                    let Some(open) = open.take() else { break };
                    tracing::warn!("the shared server stopped; this session goes on in-process");
                    let in_process = tokio::task::spawn_blocking(open)
                        .await?
                        .map_err(std::io::Error::other)?;
                    close = Some(in_process.close);
                    answers.clear();
                    upstream = session.resume(in_process.server, input_ended).await;
                }
            },
            _ = &mut signal, if !input_ended => {
                input_ended = true;
                drain_until = Some(tokio::time::Instant::now() + DRAIN);
                let _ = upstream.1.shutdown().await;
            }
            _ = sleep_until(drain_until), if drain_until.is_some() => break,
        }
    }
    stdout.flush().await?;
    if let Some(close) = close {
        let _ = tokio::task::spawn_blocking(close).await;
    }
    Ok(())
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Write every whole line in `answers` to stdout (keeping a last one cut short), noting
/// which requests they answer.
async fn forward_whole_lines(
    answers: &mut Vec<u8>,
    session: &mut Session,
    stdout: &mut tokio::io::Stdout,
) -> std::io::Result<()> {
    let Some(end) = answers.iter().rposition(|b| *b == b'\n') else {
        return Ok(());
    };
    let whole: Vec<u8> = answers.drain(..=end).collect();
    let mut out = Vec::with_capacity(whole.len());
    for line in whole.split_inclusive(|b| *b == b'\n') {
        if session.answered(line) {
            out.extend_from_slice(line);
        }
    }
    stdout.write_all(&out).await?;
    stdout.flush().await
}

/// What a session has said that a new server would need to hear again.
#[derive(Default)]
struct Session {
    /// The `initialize` request (its id, its line).
    initialize: Option<(String, Vec<u8>)>,
    initialized: Option<Vec<u8>>,
    /// Requests sent and not yet answered, in order (id, line).
    unanswered: Vec<(String, Vec<u8>)>,
    /// The client's bytes since its last newline.
    partial: Vec<u8>,
    /// The partial line outgrew what is kept (`MAX_LINE`): it is not sent again.
    overlong: bool,
    /// The id of a replayed `initialize` whose answer the client already had.
    drop_answer: Option<String>,
}

impl Session {
    /// Note the client's bytes, line by line.
    fn sent(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (piece, rest, ended) = match bytes.iter().position(|b| *b == b'\n') {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &[][..], false),
            };
            if !self.overlong && self.partial.len() + piece.len() <= MAX_LINE {
                self.partial.extend_from_slice(piece);
            } else {
                self.overlong = true;
                self.partial = Vec::new();
            }
            if ended {
                let line = std::mem::take(&mut self.partial);
                if !std::mem::take(&mut self.overlong) {
                    self.line(line);
                }
            }
            bytes = rest;
        }
    }

    fn line(&mut self, line: Vec<u8>) {
        let Ok(serde_json::Value::Object(message)) = serde_json::from_slice(&line) else {
            return;
        };
        let Some(method) = message.get("method").and_then(|m| m.as_str()) else {
            return;
        };
        match message.get("id") {
            Some(id) => {
                let id = id.to_string();
                if method == "initialize" {
                    self.initialize = Some((id.clone(), line.clone()));
                }
                self.unanswered.push((id, line));
            }
            None if method == "notifications/initialized" => self.initialized = Some(line),
            None => {}
        }
    }

    /// Note a line from the server; `false` when it is not for the client (the answer
    /// to a replayed `initialize`).
    fn answered(&mut self, line: &[u8]) -> bool {
        let Ok(serde_json::Value::Object(message)) = serde_json::from_slice(line) else {
            return true;
        };
        if message.contains_key("method") {
            return true;
        }
        let Some(id) = message.get("id").map(|id| id.to_string()) else {
            return true;
        };
        if let Some(at) = self.unanswered.iter().position(|(k, _)| *k == id) {
            self.unanswered.remove(at);
        }
        if self.drop_answer.as_ref() == Some(&id) {
            self.drop_answer = None;
            return false;
        }
        true
    }

    /// Start `server` in this process over a pipe and tell it what the lost host had
    /// heard and not answered; the pipe's other end is the new upstream.
    async fn resume<S: ToolSet>(&mut self, server: Server<S>, input_ended: bool) -> Upstream {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (their_read, their_write) = tokio::io::split(theirs);
        tokio::spawn(serve_lines(
            server,
            their_read,
            their_write,
            std::future::pending(),
        ));
        let (read, mut write) = tokio::io::split(ours);
        let mut replay = Vec::new();
        let mut line = |bytes: &[u8]| {
            replay.extend_from_slice(bytes);
            replay.push(b'\n');
        };
        if let Some((id, initialize)) = &self.initialize {
            if !self.unanswered.iter().any(|(k, _)| k == id) {
                line(initialize);
                self.drop_answer = Some(id.clone());
            }
        }
        if let Some(initialized) = &self.initialized {
            line(initialized);
        }
        for (_, request) in &self.unanswered {
            line(request);
        }
        replay.extend_from_slice(&self.partial);
        let _ = write.write_all(&replay).await;
        if input_ended {
            let _ = write.shutdown().await;
        }
        (Box::new(read), Box::new(write))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_remembers_its_handshake_and_what_is_unanswered() {
        let mut session = Session::default();
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let inited = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let call = br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#;
        let mut bytes = Vec::new();
        for line in [&init[..], &inited[..], &call[..]] {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        // Split anywhere: lines are whole only at their newline.
        let (first, second) = bytes.split_at(17);
        session.sent(first);
        session.sent(second);
        session.sent(b"{\"jsonrpc\":\"2.0\",\"id\":3");
        assert_eq!(session.initialize.as_ref().unwrap().0, "1");
        assert_eq!(session.initialized.as_deref(), Some(&inited[..]));
        assert_eq!(session.unanswered.len(), 2);
        assert!(session.answered(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
        assert_eq!(session.unanswered.len(), 1);
        assert_eq!(session.unanswered[0].0, "\"a\"");
        assert_eq!(session.partial, b"{\"jsonrpc\":\"2.0\",\"id\":3");
    }

    #[test]
    fn the_answer_to_a_replayed_initialize_is_not_forwarded() {
        let mut session = Session {
            drop_answer: Some("1".into()),
            ..Session::default()
        };
        assert!(!session.answered(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
        assert!(session.answered(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
        assert!(session.answered(b"not json\n"));
    }

    #[test]
    fn an_overlong_line_is_not_kept() {
        let mut session = Session::default();
        session.sent(&vec![b'x'; MAX_LINE + 1]);
        session.sent(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        assert!(session.partial.is_empty());
        assert_eq!(session.unanswered.len(), 1);
        assert_eq!(session.unanswered[0].0, "2");
    }
}
