//! MCP: one server core and the tool sets it serves. The core (`server`, `stdio`, `http`,
//! `protocol`, `in_flight`, `errors`) speaks the protocol; a tool set (`tool_set::ToolSet`)
//! brings its tools, one file each, and its reference's wording: `dbprint/` (the print
//! tools and resources over the store) and `pz/` (pz's docs tools). No I/O of its own
//! beyond the transports.

pub mod child;
pub mod dbprint;
pub mod errors;
pub mod framing;
pub mod http;
pub mod in_flight;
pub mod json;
pub mod protocol;
pub mod pz;
pub mod server;
pub mod sessions;
pub mod shared;
pub mod stdio;
pub mod tool_set;

pub use server::Server;
pub use stdio::{serve_stdio, shutdown_signal};
pub use tool_set::ToolSet;

/// Why serving stopped other than by a client's EOF or a signal.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A port that could not be bound (dbprint then exits 3).
    #[error("{0}")]
    Bind(#[from] http::BindFailed),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Join(#[from] tokio::task::JoinError),
    #[error("the HTTP server stopped")]
    HttpStopped,
}
