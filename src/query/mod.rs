//! Query: the questions the tools ask, one module each, answered from a
//! `store::Snapshot` the caller hands over (a resource URI, which names its connection,
//! gets a resolver instead). Read-only: it never writes the mirror or the index, never
//! walks a print and never parses YAML; a file found moved since the snapshot is reported
//! (`QueryError::Stale`) for the store to re-read. Knows nothing of MCP.

pub mod context;
pub mod diff;
pub mod edges;

pub mod freshness;
pub mod list_tables;
pub mod manifest;
pub mod reference;
pub mod resolve_value;
pub mod resources;
pub mod search_columns;
pub mod validate_sql;
pub mod value_resolution;
