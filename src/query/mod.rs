//! The engine's read side: the served connections' current state, kept fresh
//! against the disk, and one module per question the tools ask. Knows nothing of MCP.

pub mod context;
pub mod diff;
pub mod edges;

pub mod freshness;
pub mod list_tables;
pub mod manifest;
pub mod pz;
pub mod reference;
pub mod resolve_value;
pub mod resources;
pub mod search_columns;
pub mod value_resolution;
