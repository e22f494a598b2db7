//! The read side of pz (PipelineZ): `printdex pz serve` answers as `pz mcp` does, with pz's
//! identity, envelope and error codes. So far the documentation tools, served offline from a
//! docs index that `printdex pz docs sync` fills (see `docs`).

pub mod cli;
pub mod docs;
pub mod envelope;
pub mod mcp;
