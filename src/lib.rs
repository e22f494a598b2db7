//! printdex: serves dbprint prints (and pz projects) to AI agents over MCP from a SQLite
//! mirror it keeps fresh. Data flows one way through one stage per module: `config` ->
//! `ingest` -> `store` -> `query` -> `render` -> `mcp`, with `cli` at the edge. Below them
//! all, the `compat` crate holds the value model, Python's and .NET's text rules and the
//! YAML loader. See ARCHITECTURE.md.

#![deny(unsafe_code)]

pub mod cli;
pub mod config;
pub mod error;
pub mod ingest;
pub mod mcp;
pub mod query;
pub mod render;
pub mod store;
