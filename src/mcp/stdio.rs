//! Serving over stdio, and the signals that end a server.

use std::time::Duration;

use super::server::Server;
use super::tool_set::ToolSet;
use super::ServeError;

/// Serve `server` over stdio until the client closes stdin (EOF) or a SIGTERM/SIGINT
/// arrives; either way calls under way finish first (spec §7.3).
pub async fn serve_stdio<S: ToolSet>(server: Server<S>) -> Result<(), ServeError> {
    let in_flight = server.in_flight().clone();
    // No handshake gate: like the references' stdio sessions, a request that comes before
    // `initialize` is answered and a notification ignored, where rmcp's handshake would
    // end the session. `initialize` itself is answered by the handler, which negotiates.
    let service = rmcp::service::serve_directly(server, rmcp::transport::stdio(), None);
    let cancel = service.cancellation_token();
    let waiting = service.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = shutdown_signal() => {
            // Let in-flight calls answer, bounded, then stop reading.
            let _ = tokio::time::timeout(Duration::from_secs(10), in_flight.drained()).await;
            cancel.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
        }
        _ = &mut waiting => {}
    }
    Ok(())
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
