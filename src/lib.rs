//! printdex: serves dbprint prints to AI agents over MCP from a SQLite mirror.
//!
//! Data flow, one module per stage: `config` -> `ingest` -> `mirror` -> `query`
//! -> `render` -> `mcp`. See ARCHITECTURE.md.

pub mod cli;
pub mod config;
pub mod error;

pub mod ingest;
pub mod mcp;

pub mod pyfmt;
pub mod pz;
pub mod query;

pub mod render;
pub mod store;

pub mod yaml;
