//! `/mcp`'s sessions: rmcp's local session manager, bounded. A session ends after it has
//! been idle for `SessionLimits::idle` (its worker stops and rmcp forgets it), and at most
//! `SessionLimits::max` live at once: a new session past the cap ends the one idle the
//! longest. Every message a session's handler sends goes out in the references' shape
//! (`errors::method_not_found_shape`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::{Transport, WorkerTransport};
use rmcp::RoleServer;
use tokio::time::Instant;

use super::errors::method_not_found_shape;

/// How long an `/mcp` session may stay idle, and how many may live at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    pub idle: Duration,
    pub max: usize,
}

/// `PRINTDEX_SESSION_IDLE_SECS`: seconds an idle `/mcp` session lives.
pub const IDLE_ENV: &str = "PRINTDEX_SESSION_IDLE_SECS";
/// `PRINTDEX_MAX_SESSIONS`: `/mcp` sessions at most.
pub const MAX_ENV: &str = "PRINTDEX_MAX_SESSIONS";

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            idle: Duration::from_secs(30 * 60),
            max: 1000,
        }
    }
}

impl SessionLimits {
    /// The defaults, with `IDLE_ENV` and `MAX_ENV` where they hold a positive number.
    pub fn from_env() -> SessionLimits {
        let read = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        let default = SessionLimits::default();
        SessionLimits {
            idle: read(IDLE_ENV).map_or(default.idle, Duration::from_secs),
            max: read(MAX_ENV).map_or(default.max, |n| n as usize),
        }
    }
}

/// rmcp's `LocalSessionManager` with `SessionLimits` kept.
pub struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    /// When each live session last saw a request.
    last_seen: Mutex<HashMap<SessionId, Instant>>,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        let mut inner = LocalSessionManager::default();
        // The session's worker ends itself after this long without a message.
        inner.session_config.keep_alive = Some(limits.idle);
        Sessions {
            inner,
            max: limits.max.max(1),
            last_seen: Mutex::default(),
        }
    }

    fn touch(&self, id: &SessionId) {
        if let Ok(mut seen) = self.last_seen.lock() {
            if let Some(at) = seen.get_mut(id) {
                *at = Instant::now();
            }
        }
    }

    /// The session idle the longest, when the cap is reached.
    fn to_evict(&self) -> Option<SessionId> {
        let seen = self.last_seen.lock().ok()?;
        if seen.len() < self.max {
            return None;
        }
        seen.iter()
            .min_by_key(|(_, at)| **at)
            .map(|(id, _)| id.clone())
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = Shaped<WorkerTransport<LocalSessionWorker>>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        while let Some(oldest) = self.to_evict() {
            tracing::info!("/mcp: {} sessions live, ending the longest idle", self.max);
            self.close_session(&oldest).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        if let Ok(mut seen) = self.last_seen.lock() {
            seen.insert(id.clone(), Instant::now());
        }
        Ok((id, Shaped(transport)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        let answer = self.inner.initialize_session(id, message).await?;
        Ok(method_not_found_shape(answer))
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if let Ok(mut seen) = self.last_seen.lock() {
            seen.remove(id);
        }
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }
}

/// A session's transport whose outgoing messages take the references' shape.
pub struct Shaped<T>(T);

impl<T: Transport<RoleServer>> Transport<RoleServer> for Shaped<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.0.send(method_not_found_shape(item))
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.0.receive()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_cap_the_longest_idle_session_ends() {
        let sessions = Sessions::new(SessionLimits {
            idle: Duration::from_secs(60),
            max: 2,
        });
        let (a, _ta) = sessions.create_session().await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (b, _tb) = sessions.create_session().await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        sessions.touch(&a);
        let (c, _tc) = sessions.create_session().await.unwrap();
        assert!(sessions.has_session(&a).await.unwrap());
        assert!(
            !sessions.has_session(&b).await.unwrap(),
            "b was idle the longest"
        );
        assert!(sessions.has_session(&c).await.unwrap());
        assert_eq!(sessions.last_seen.lock().unwrap().len(), 2);
    }

    #[test]
    fn default_limits() {
        let d = SessionLimits::default();
        assert_eq!((d.idle, d.max), (Duration::from_secs(1800), 1000));
    }
}
