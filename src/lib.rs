//! printdex: serves dbprint prints to AI agents over MCP from a SQLite mirror.
//!
//! Data flow, one module per stage: `watch` -> `ingest` -> `mirror` -> `query`
//! -> `render` -> `mcp`. See ARCHITECTURE.md.

pub mod pyfmt;
pub mod yaml;
