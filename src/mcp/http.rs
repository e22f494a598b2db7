//! The HTTP transport (spec §6.2): the legacy SSE endpoints `dbprint serve --transport http`
//! serves (`GET /sse`, `POST /messages/`), answered as its SDK answers them, plus MCP
//! streamable HTTP at `/mcp` (rmcp's own service over `sessions::Sessions`, bounded in
//! number and idle time). Loopback only, with the reference's
//! DNS-rebinding checks on Host and Origin. Any tool set can be served; only dbprint's is.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use futures::channel::mpsc;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;

use super::errors::method_not_found_shape;
use super::in_flight::{InFlight, InFlightGuard};
use super::protocol::Dialect;
use super::sessions::{SessionLimits, Sessions};
use super::{shutdown_signal, ServeError, Server, ToolSet};

/// The reference SDK's limit on a POSTed body (and rmcp's default for `/mcp`).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// sse-starlette's keep-alive interval.
const PING: Duration = Duration::from_secs(15);
/// How long shutdown waits for requests and tool calls under way.
const DRAIN: Duration = Duration::from_secs(10);

type McpService<S> = StreamableHttpService<Server<S>, Sessions>;

/// A legacy SSE session, as the POST handler sees it.
#[derive(Clone)]
struct Session {
    /// The session's rmcp service input. Unbounded, so messages reach it in the order
    /// their POSTs were answered.
    input: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    /// Replies made without rmcp (before initialize), merged into the SSE stream.
    replies: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    initialized: Arc<AtomicBool>,
}

struct Http<S: ToolSet> {
    /// `Host` values answered: every loopback name with the bound port.
    hosts: [String; 3],
    server: Server<S>,
    mcp: McpService<S>,
    /// `/mcp`'s sessions, as `mcp` keeps them.
    mcp_sessions: Arc<Sessions>,
    /// Legacy SSE sessions by UUID.
    sessions: Mutex<HashMap<u128, Session>>,
    /// HTTP requests under way on `/mcp`, bodies included (long-lived GET streams excepted).
    requests: Arc<InFlight>,
}

/// A port that could not be bound (dbprint's uvicorn then exits 3), in printdex's words.
#[derive(Debug)]
pub struct BindFailed {
    pub addr: SocketAddr,
    pub source: std::io::Error,
}

impl std::fmt::Display for BindFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let port = self.addr.port();
        match self.source.kind() {
            std::io::ErrorKind::AddrInUse => write!(
                f,
                "cannot listen on {}: port {port} is already in use (another server holds it); choose another with --port",
                self.addr
            ),
            _ => write!(
                f,
                "cannot listen on {}: {}; choose another port with --port",
                self.addr, self.source
            ),
        }
    }
}

impl std::error::Error for BindFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The addresses uvicorn (asyncio's `create_server`) listens on for a loopback `--host`:
/// `localhost` is every loopback address the name resolves to.
async fn bind_addresses(host: &str, port: u16) -> Vec<SocketAddr> {
    let mut addrs: Vec<SocketAddr> = match host {
        "localhost" => tokio::net::lookup_host((host, port))
            .await
            .map(|found| found.filter(|a| a.ip().is_loopback()).collect())
            .unwrap_or_default(),
        "::1" => vec![SocketAddr::new(std::net::Ipv6Addr::LOCALHOST.into(), port)],
        _ => vec![],
    };
    addrs.dedup();
    if addrs.is_empty() {
        addrs.push(SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), port));
    }
    addrs
}

async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, BindFailed> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| BindFailed { addr, source })
}

/// Serve MCP over HTTP on a loopback address until SIGTERM/SIGINT; then stop accepting,
/// let requests and calls under way finish, close the streams and return (spec §7.3).
/// `listening` hears the addresses bound (with `--port 0`, the port the system picked)
/// before the first request is accepted. `limits` bound the `/mcp` sessions.
pub async fn serve_http<S: ToolSet>(
    server: Server<S>,
    host: &str,
    port: u16,
    limits: SessionLimits,
    listening: impl FnOnce(&[SocketAddr]),
) -> Result<(), ServeError> {
    let mut listeners = Vec::new();
    let mut port = port;
    for addr in bind_addresses(host, port).await {
        // With `--port 0`, every address gets the port the first one was given.
        let listener = bind(SocketAddr::new(addr.ip(), port)).await?;
        let bound = listener.local_addr()?;
        tracing::info!("listening on http://{bound}");
        port = bound.port();
        listeners.push(listener);
    }
    let bound: Vec<SocketAddr> = listeners
        .iter()
        .filter_map(|l| l.local_addr().ok())
        .collect();
    listening(&bound);

    // Host and Origin are checked before rmcp sees a request, with the reference's
    // statuses and texts, so rmcp's own (403) checks are switched off.
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(MAX_BODY);
    let mcp_cancel = config.cancellation_token.clone();
    let factory = server.clone();
    let mcp_sessions = Arc::new(Sessions::new(limits));
    let mcp = StreamableHttpService::new(move || Ok(factory.clone()), mcp_sessions.clone(), config);
    let state = Arc::new(Http {
        hosts: [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ],
        server: server.clone(),
        mcp,
        mcp_sessions,
        sessions: Mutex::default(),
        requests: Arc::default(),
    });
    let app = Router::new()
        .fallback(dispatch::<S>)
        .with_state(state.clone());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut serving = tokio::task::JoinSet::new();
    for listener in listeners {
        let app = app.clone();
        let mut stopped = stopped.clone();
        serving.spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await
        });
    }

    tokio::select! {
        _ = shutdown_signal() => {}
        Some(finished) = serving.join_next() => {
            finished??;
            return Err(ServeError::HttpStopped);
        }
    }
    // Stop accepting; connections finish the request they are on.
    let _ = stop.send(true);
    let deadline = tokio::time::Instant::now() + DRAIN;
    let _ = tokio::time::timeout_at(deadline, state.requests.drained()).await;
    let _ = tokio::time::timeout_at(deadline, server.in_flight().drained()).await;
    // Only now end the legacy sessions' input: rmcp then answers what it already received,
    // but waits no more than 5 s for a call still running.
    state.sessions.lock().expect("sessions lock").clear();
    // Ends `/mcp` sessions and their open GET streams.
    mcp_cancel.cancel();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(finished) = serving.join_next().await {
            finished??;
        }
        Ok::<(), ServeError>(())
    });
    match closed.await {
        Ok(finished) => finished,
        Err(_) => {
            tracing::warn!("HTTP connections still open at exit");
            Ok(())
        }
    }
}

/// Every request: routed by path as the reference's Starlette app routes it.
async fn dispatch<S: ToolSet>(State(http): State<Arc<Http<S>>>, req: Request) -> Response {
    match req.uri().path() {
        "/sse" => open_sse(&http, req.headers()),
        "/mcp" => mcp(&http, req).await,
        p if p.starts_with("/messages/") => post_message(&http, req).await,
        _ => not_routed(req),
    }
}

/// Starlette's fallbacks: a path one trailing slash away from a route is redirected
/// (307, query kept); anything else is 404 `Not Found`.
fn not_routed(req: Request) -> Response {
    let path = req.uri().path();
    let toggled = match path.strip_suffix('/') {
        Some(p) => p.to_string(),
        None => format!("{path}/"),
    };
    if path != "/" && matches!(toggled.as_str(), "/sse" | "/mcp" | "/messages/") {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        let query = req
            .uri()
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let mut r = plain(StatusCode::TEMPORARY_REDIRECT, "");
        if let Ok(v) = HeaderValue::from_str(&format!("http://{host}{toggled}{query}")) {
            r.headers_mut().insert(header::LOCATION, v);
        }
        return r;
    }
    let mut r = plain(StatusCode::NOT_FOUND, "Not Found");
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// A response with this status and body and no content type, as Starlette's `Response`.
fn plain(status: StatusCode, body: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r
}

impl<S: ToolSet> Http<S> {
    /// The reference SDK's DNS-rebinding check: 421 for a Host that is not a loopback name
    /// with our port, 403 for an Origin, when one is sent, that is not such a Host as `http://`.
    fn check_host_origin(&self, headers: &HeaderMap) -> Option<Response> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| self.hosts.iter().any(|a| a == h)) {
            return Some(plain(
                StatusCode::MISDIRECTED_REQUEST,
                "Invalid Host header",
            ));
        }
        match headers.get(header::ORIGIN).map(|o| o.to_str()) {
            None => None,
            Some(Ok("")) => None,
            Some(Ok(o))
                if o.strip_prefix("http://")
                    .is_some_and(|rest| self.hosts.iter().any(|a| a == rest)) =>
            {
                None
            }
            Some(_) => Some(plain(StatusCode::FORBIDDEN, "Invalid Origin header")),
        }
    }
}

/// `/mcp`: rmcp's streamable HTTP service behind the same Host/Origin and size checks.
async fn mcp<S: ToolSet>(http: &Http<S>, req: Request) -> Response {
    use tower_service::Service;
    if let Some(refused) = http.check_host_origin(req.headers()) {
        return refused;
    }
    if declared_length(req.headers()).is_some_and(|n| n > MAX_BODY as u64) {
        return plain(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large");
    }
    // A GET is the long-lived server stream; it must not hold shutdown up.
    let guard = (req.method() != Method::GET).then(|| http.requests.enter());
    let delete = req.method() == Method::DELETE;
    if delete {
        // The streamable-HTTP spec: a session the server does not know is 404.
        let named = req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok());
        if let Some(id) = named {
            if !http
                .mcp_sessions
                .has_session(&id.into())
                .await
                .unwrap_or(false)
            {
                return plain(StatusCode::NOT_FOUND, "Not Found: Session not found");
            }
        }
    }
    let Ok(mut response) = http.mcp.clone().call(req).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        // rmcp ends a session with 202; the Python and TypeScript SDKs expect 200 (or
        // 204) and log a failed termination otherwise.
        *response.status_mut() = StatusCode::OK;
    }
    match guard {
        Some(guard) => response.map(|inner| {
            Body::new(Guarded {
                inner,
                _guard: guard,
            })
        }),
        None => response.map(Body::new),
    }
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// A response body that counts as a request under way until it is sent or dropped.
struct Guarded<B> {
    inner: B,
    _guard: InFlightGuard,
}

impl<B: http_body::Body + Unpin> http_body::Body for Guarded<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// `GET /sse` (any method, as the reference's raw route): a new session whose first event
/// names the URL to POST messages to, and whose `message` events carry the server's replies.
fn open_sse<S: ToolSet>(http: &Arc<Http<S>>, headers: &HeaderMap) -> Response {
    if let Some(refused) = http.check_host_origin(headers) {
        return refused;
    }
    let id = uuid::Uuid::new_v4();
    let (to_server, from_client) = mpsc::unbounded::<ClientJsonRpcMessage>();
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(16);
    let (replies, early_replies) = mpsc::unbounded::<ServerJsonRpcMessage>();
    let session = Session {
        input: to_server,
        replies,
        initialized: Arc::default(),
    };
    http.sessions
        .lock()
        .expect("sessions lock")
        .insert(id.as_u128(), session);
    let server = http.server.clone();
    tokio::spawn(async move {
        // Ends when the session's input ends (client gone, or shutdown), having
        // answered every message it received.
        let to_client = futures::SinkExt::with(to_client, |m| {
            futures::future::ready(Ok::<_, mpsc::SendError>(method_not_found_shape(m)))
        });
        match server.serve((to_client, from_client)).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::debug!("SSE session {id} ended before initialize: {e}"),
        }
    });

    let stream = SseStream {
        endpoint: Some(format!("/messages/?session_id={}", id.simple())),
        from_server,
        early_replies,
        ping: tokio::time::interval_at(tokio::time::Instant::now() + PING, PING),
        _session: SessionGuard {
            http: http.clone(),
            id: id.as_u128(),
        },
    };
    let body = futures::stream::unfold(stream, |mut s| async move {
        let chunk = s.next_chunk().await?;
        Some((Ok::<_, std::convert::Infallible>(chunk), s))
    });
    let mut r = Response::new(Body::from_stream(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

struct SseStream<S: ToolSet> {
    endpoint: Option<String>,
    from_server: mpsc::Receiver<ServerJsonRpcMessage>,
    early_replies: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    ping: tokio::time::Interval,
    _session: SessionGuard<S>,
}

impl<S: ToolSet> SseStream<S> {
    /// The next event, framed as sse-starlette frames it; `None` once the rmcp service
    /// is over.
    async fn next_chunk(&mut self) -> Option<Bytes> {
        if let Some(endpoint) = self.endpoint.take() {
            return Some(event("endpoint", &endpoint));
        }
        tokio::select! {
            message = self.from_server.next() => {
                let json = serde_json::to_string(&message?).ok()?;
                Some(event("message", &json))
            }
            Some(message) = self.early_replies.next() => {
                let json = serde_json::to_string(&message).ok()?;
                Some(event("message", &json))
            }
            _ = self.ping.tick() => Some(Bytes::from(format!(": ping - {}\r\n\r\n", python_utc_now()))),
        }
    }
}

fn event(name: &str, data: &str) -> Bytes {
    let mut s = format!("event: {name}\r\n");
    for line in data.split(['\r', '\n']) {
        s.push_str("data: ");
        s.push_str(line);
        s.push_str("\r\n");
    }
    s.push_str("\r\n");
    Bytes::from(s)
}

/// `str(datetime.now(timezone.utc))`, the text of sse-starlette's ping comment.
fn python_utc_now() -> String {
    let t = time::OffsetDateTime::now_utc();
    let micros = t.microsecond();
    let frac = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}{frac}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// Forgets a legacy session when its SSE stream goes away; dropping its sender ends the
/// rmcp service, and later POSTs for it get 404.
struct SessionGuard<S: ToolSet> {
    http: Arc<Http<S>>,
    id: u128,
}

impl<S: ToolSet> Drop for SessionGuard<S> {
    fn drop(&mut self) {
        if let Ok(mut sessions) = self.http.sessions.lock() {
            sessions.remove(&self.id);
        }
    }
}

/// `POST /messages/?session_id=<uuid>`, checked in the reference SDK's order: method,
/// body size, content type, Host/Origin, session, message.
async fn post_message<S: ToolSet>(http: &Http<S>, req: Request) -> Response {
    if req.method() != Method::POST {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    let too_large = || plain(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large");
    if declared_length(req.headers()).is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        return too_large();
    };
    let json_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
    if !json_type {
        return plain(StatusCode::BAD_REQUEST, "Invalid Content-Type header");
    }
    if let Some(refused) = http.check_host_origin(&parts.headers) {
        return refused;
    }
    let Some(session) = query_param(parts.uri.query().unwrap_or(""), "session_id") else {
        return plain(StatusCode::BAD_REQUEST, "session_id is required");
    };
    let Some(id) = parse_uuid_hex(&session) else {
        return plain(StatusCode::BAD_REQUEST, "Invalid session ID");
    };
    let Some(session) = http
        .sessions
        .lock()
        .expect("sessions lock")
        .get(&id)
        .cloned()
    else {
        return plain(StatusCode::NOT_FOUND, "Could not find session");
    };
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&body) else {
        return plain(StatusCode::BAD_REQUEST, "Could not parse message");
    };
    if !session.initialized.load(Ordering::SeqCst) {
        match BeforeInitialize::judge(&message, &S::DIALECT) {
            BeforeInitialize::Forward => {
                let is_initialize = matches!(&message, ClientJsonRpcMessage::Request(r)
                    if matches!(r.request, rmcp::model::ClientRequest::InitializeRequest(_)));
                session
                    .initialized
                    .fetch_or(is_initialize, Ordering::SeqCst);
            }
            BeforeInitialize::Answer(reply) => {
                let _ = session.replies.unbounded_send(*reply);
                return plain(StatusCode::ACCEPTED, "Accepted");
            }
            BeforeInitialize::Ignore => return plain(StatusCode::ACCEPTED, "Accepted"),
        }
    }
    let _ = session.input.unbounded_send(message);
    plain(StatusCode::ACCEPTED, "Accepted")
}

/// What a legacy SSE session does with a client message that arrives before `initialize`.
// Built once per early message and matched at once; boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
enum BeforeInitialize {
    /// Hand it to rmcp: the initialize request itself, or a ping.
    Forward,
    /// Answer it without rmcp: the reference's SDK refuses any other request with
    /// -32602 `Invalid request parameters` and keeps the session.
    Answer(Box<ServerJsonRpcMessage>),
    /// Drop it, as the reference does a notification or response, rather than let
    /// rmcp's handshake end the session over it.
    Ignore,
}

impl BeforeInitialize {
    fn judge(message: &ClientJsonRpcMessage, dialect: &Dialect) -> BeforeInitialize {
        use rmcp::model::{ClientJsonRpcMessage as M, ClientRequest as R};
        match message {
            M::Request(r) if matches!(r.request, R::InitializeRequest(_) | R::PingRequest(_)) => {
                BeforeInitialize::Forward
            }
            M::Request(r) => BeforeInitialize::Answer(Box::new(ServerJsonRpcMessage::error(
                dialect.invalid_params(),
                Some(r.id.clone()),
            ))),
            _ => BeforeInitialize::Ignore,
        }
    }
}

/// A query parameter as Starlette reads it: `&`-separated, `+` is a space, %-decoded,
/// the last occurrence wins, a name without `=` has the empty value.
fn query_param(query: &str, name: &str) -> Option<String> {
    // The last occurrence wins: search from the end.
    query
        .rsplit('&')
        .filter(|pair| !pair.is_empty())
        .find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k) == name).then(|| percent_decode(v))
        })
}

/// A form field's text: `+` is a space, `%XX` a byte, the bytes read as UTF-8 (lossily).
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// Python's `UUID(hex=s)`: `urn:`/`uuid:` and braces and hyphens dropped, then exactly 32
/// characters that `int(_, 16)` reads (it allows surrounding spaces, a sign, `0x`, `_`).
fn parse_uuid_hex(s: &str) -> Option<u128> {
    let s = s.replace("urn:", "").replace("uuid:", "");
    let s = s.trim_matches(['{', '}']).replace('-', "");
    if s.chars().count() != 32 {
        return None;
    }
    let t = s.trim_matches(|c: char| c.is_whitespace());
    let t = t.strip_prefix('+').unwrap_or(t);
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .map(|rest| rest.strip_prefix('_').unwrap_or(rest))
        .unwrap_or(t);
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let digits: String = t.chars().filter(|&c| c != '_').collect();
    if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u128::from_str_radix(&digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_parse_as_python_uuid_hex_does() {
        let hex = "0123456789abcdef0123456789abcdef";
        let want = Some(0x0123456789abcdef0123456789abcdef_u128);
        assert_eq!(parse_uuid_hex(hex), want);
        assert_eq!(parse_uuid_hex(&hex.to_uppercase()), want);
        assert_eq!(
            parse_uuid_hex("{01234567-89ab-cdef-0123-456789abcdef}"),
            want
        );
        assert_eq!(
            parse_uuid_hex("urn:uuid:01234567-89ab-cdef-0123-456789abcdef"),
            want
        );
        assert_eq!(parse_uuid_hex(""), None);
        assert_eq!(parse_uuid_hex(&hex[1..]), None);
        assert_eq!(parse_uuid_hex("0123456789abcdef0123456789abcdeg"), None);
    }

    #[test]
    fn query_parameters_decode_as_starlette_does() {
        assert_eq!(
            query_param("session_id=ab%20c", "session_id").as_deref(),
            Some("ab c")
        );
        assert_eq!(
            query_param("a=1&session_id=x&session_id=y", "session_id").as_deref(),
            Some("y")
        );
        assert_eq!(query_param("session_id", "session_id").as_deref(), Some(""));
        assert_eq!(query_param("session=x", "session_id"), None);
        assert_eq!(
            query_param("session_id=a+b%zz", "session_id").as_deref(),
            Some("a b%zz")
        );
    }
}
