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

/// SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}
