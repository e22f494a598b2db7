//! printdex: serves dbprint prints to AI agents over MCP from a SQLite mirror.
//!
//! Data flow, one module per stage: `config` -> `ingest` -> `mirror` -> `query`
//! -> `render` -> `mcp`. See ARCHITECTURE.md. Below them all, the `compat` crate holds the
//! value model, Python's and .NET's text rules and the YAML loader.

#![deny(unsafe_code)]

pub mod cli;
pub mod config;
pub mod error;
pub mod index;
pub mod ingest;
pub mod mcp;
pub mod mirror;
pub mod pz;
pub mod query;
pub mod reading;
pub mod render;
pub mod watch;
