//! The read side of pz (PipelineZ) below the MCP layer: the docs corpus (`docs`, synced to
//! disk once and answered offline) and pz's envelope writer. `mcp::pz` serves it as
//! `pz mcp` does; `cli::pz` runs `printdex pz …`.

pub mod docs;
pub mod envelope;
