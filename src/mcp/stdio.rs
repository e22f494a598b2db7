//! Serving over stdio: the line transport (each line framed by `framing`, so every
//! request with a readable id is answered), and the signals that end a server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::channel::mpsc;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::errors::method_not_found_shape;
use super::framing::{self, Frame, RawIds, MAX_LINE};
use super::in_flight::InFlight;
use super::server::Server;
use super::tool_set::ToolSet;
use super::ServeError;

/// Serve `server` over stdio until the client closes stdin (EOF) or a SIGTERM/SIGINT
/// arrives; either way calls under way finish first (spec §7.3).
pub async fn serve_stdio<S: ToolSet>(server: Server<S>) -> Result<(), ServeError> {
    serve_lines(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        shutdown_signal(),
    )
    .await
}

/// Serve `server` over any line stream (stdio, a shared server's socket, a pipe in
/// memory) until its input ends or `stop` completes; either way calls under way finish
/// first, bounded.
pub async fn serve_lines<S, R, W>(
    server: Server<S>,
    read: R,
    write: W,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), ServeError>
where
    S: ToolSet,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let in_flight = server.in_flight().clone();
    let transport = LineTransport::new(read, write).draining(in_flight.clone());
    // No handshake gate: like the references' stdio sessions, a request that comes before
    // `initialize` is answered and a notification ignored, where rmcp's handshake would
    // end the session. `initialize` itself is answered by the handler, which negotiates.
    let service = rmcp::service::serve_directly(server, transport, None);
    let cancel = service.cancellation_token();
    let waiting = service.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = stop => {
            // Let in-flight calls answer, bounded, then stop reading.
            let _ = tokio::time::timeout(Duration::from_secs(10), in_flight.drained()).await;
            cancel.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
        }
        _ = &mut waiting => {}
    }
    Ok(())
}

/// Newline-delimited JSON-RPC over a reader and a writer. Lines are read bounded
/// (`MAX_LINE`); what `framing` answers itself is written in turn with rmcp's messages,
/// all through one writer task, so `receive` never waits on the writer and stays
/// cancel-safe inside rmcp's `select!`.
pub struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line over `MAX_LINE`, already answered.
    discarding: bool,
    /// The input ended; a last line without its newline has been taken.
    ended: bool,
    /// Calls under way, waited for at EOF (until `drain_until`) before rmcp hears of it:
    /// rmcp's own wait for them is shorter.
    in_flight: Option<Arc<InFlight>>,
    drain_until: Option<tokio::time::Instant>,
    ids: Arc<Mutex<RawIds>>,
    lines_out: Option<mpsc::UnboundedSender<String>>,
    writer: Option<tokio::task::JoinHandle<()>>,
}

/// What the buffer holds after one bounded read.
enum Read {
    Line,
    Overlong,
    Eof,
}

/// How long EOF waits for calls under way, as a signal does.
const DRAIN: Duration = Duration::from_secs(10);

/// A line buffer bigger than this is given back after its line.
const KEPT_CAPACITY: usize = 64 * 1024;

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        let (lines_out, mut lines) = mpsc::unbounded::<String>();
        let writer = tokio::spawn(async move {
            let mut write = write;
            while let Some(mut line) = lines.next().await {
                line.push('\n');
                if write.write_all(line.as_bytes()).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            ended: false,
            in_flight: None,
            drain_until: None,
            ids: Arc::default(),
            lines_out: Some(lines_out),
            writer: Some(writer),
        }
    }

    /// At EOF, wait (at most `DRAIN`) for the calls `in_flight` counts.
    pub fn draining(mut self, in_flight: Arc<InFlight>) -> Self {
        self.in_flight = Some(in_flight);
        self
    }

    /// Wait for the calls under way, up to a deadline fixed at the first call (this is
    /// awaited in rmcp's `select!`, and may be dropped and called again).
    async fn drain(&mut self) {
        let Some(in_flight) = self.in_flight.clone() else {
            return;
        };
        // A call read just before EOF may not have started yet.
        tokio::task::yield_now().await;
        let until = *self
            .drain_until
            .get_or_insert_with(|| tokio::time::Instant::now() + DRAIN);
        let _ = tokio::time::timeout_at(until, in_flight.drained()).await;
    }

    /// Read into `self.line` up to a newline, never past `MAX_LINE` bytes. Cancel-safe:
    /// what was read stays in `self.line` (or is counted as discarded) for the next call.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::Eof);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let outcome = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if self.line.len() + take > MAX_LINE + 1 {
                let room = MAX_LINE - self.line.len().min(MAX_LINE);
                self.line.extend_from_slice(&available[..room.min(take)]);
                self.discarding = newline.is_none();
                Some(Read::Overlong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }

    fn answer(&self, line: String) {
        if let Some(out) = &self.lines_out {
            let _ = out.unbounded_send(line);
        }
    }

    fn clear_line(&mut self) {
        self.line.clear();
        self.line.shrink_to(KEPT_CAPACITY);
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = match self.ids.lock() {
            Ok(mut ids) => ids
                .line(&method_not_found_shape(item))
                .map_err(std::io::Error::other),
            Err(_) => Err(std::io::Error::other("stdio id table poisoned")),
        }
        .and_then(|line| {
            self.lines_out
                .as_ref()
                .and_then(|out| out.unbounded_send(line).ok())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        });
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.ended {
                self.drain().await;
                return None;
            }
            let read = match self.read_line().await {
                Ok(read) => read,
                Err(e) => {
                    tracing::error!("reading stdin: {e}");
                    return None;
                }
            };
            let frame = match read {
                Read::Overlong => {
                    tracing::warn!("a line over {MAX_LINE} bytes on stdin, answered unread");
                    let answer = framing::overlong(&self.line);
                    self.clear_line();
                    self.answer(answer);
                    continue;
                }
                // A last line without its newline is still a line.
                Read::Eof if self.line.is_empty() || self.discarding => {
                    self.ended = true;
                    continue;
                }
                Read::Eof => {
                    self.ended = true;
                    self.frame()
                }
                Read::Line => self.frame(),
            };
            match frame {
                Frame::Message(message) => return Some(*message),
                Frame::Answer(answer) => self.answer(answer),
                Frame::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The writer ends once every line sent before is written.
        drop(self.lines_out.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    fn frame(&mut self) -> Frame {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let frame = match self.ids.lock() {
            Ok(mut ids) => framing::frame(line, &mut ids),
            Err(_) => Frame::Skip,
        };
        self.clear_line();
        frame
    }
}

/// What ends a server: SIGTERM or SIGINT (Ctrl-C) on unix; Ctrl-C, Ctrl-Break, closing
/// the console window, logoff or shutdown on Windows.
pub async fn shutdown_signal() {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = platform_signal() => {}
    }
}

#[cfg(unix)]
async fn platform_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut s) => {
            s.recv().await;
        }
        Err(_) => std::future::pending::<()>().await,
    }
}

#[cfg(windows)]
async fn platform_signal() {
    use tokio::signal::windows;
    /// One console event, or never if it cannot be listened for.
    async fn event(listener: std::io::Result<impl WindowsEvent>) {
        match listener {
            Ok(mut l) => l.next().await,
            Err(_) => std::future::pending::<()>().await,
        }
    }
    tokio::select! {
        _ = event(windows::ctrl_break()) => {}
        _ = event(windows::ctrl_close()) => {}
        _ = event(windows::ctrl_logoff()) => {}
        _ = event(windows::ctrl_shutdown()) => {}
    }
}

/// The four console event listeners tokio hands out, awaited alike.
#[cfg(windows)]
trait WindowsEvent {
    async fn next(&mut self);
}

#[cfg(windows)]
macro_rules! windows_event {
    ($($t:ident),*) => {$(
        impl WindowsEvent for tokio::signal::windows::$t {
            async fn next(&mut self) {
                self.recv().await;
            }
        }
    )*};
}

#[cfg(windows)]
windows_event!(CtrlBreak, CtrlClose, CtrlLogoff, CtrlShutdown);

#[cfg(not(any(unix, windows)))]
async fn platform_signal() {
    std::future::pending::<()>().await
}
