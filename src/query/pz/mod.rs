//! The read side of `pz mcp` answered from a pz project's parsed files: the loader's and
//! the DAG compiler's rules (`load`, `render`, `compile`), and one module per tool
//! (`pz_project_overview`, `pz_compile`, `pz_state`, `pz_entity_schema`,
//! `pz_run_results`) writing pz's envelope. Knows nothing of MCP or of the store.
//!
//! Every answer says how far it is pz's own ([`Fidelity`]): exact, approximate (with the
//! reasons, e.g. node ids only DuckDB could compute), or needing pz itself (a live probe,
//! a remote state store, a template construct only pz's renderer evaluates); the MCP layer
//! decides whether to delegate.

pub mod compile;
pub mod load;
pub mod model;
pub mod render;
mod tools;

#[cfg(test)]
mod fixtures_tests;

use std::collections::HashMap;

pub use tools::compile_result::compile_answer;
pub use tools::entity_schema::entity_schema;
pub use tools::overview::project_overview;
pub use tools::run_results::run_results;
pub use tools::state::state;

/// The process environment as pz snapshots it per call (`${VAR}`, `env()`, `PZ_STATE_*`).
pub type Env = HashMap<String, String>;

/// How far an answer is pz's own.
#[derive(Debug, Clone, PartialEq)]
pub enum Fidelity {
    /// What `pz mcp` answers for these files and this environment.
    Exact,
    /// Served as printdex computes it; the reasons say what pz might answer differently.
    Approximate(Vec<String>),
    /// Only pz can answer (live connection, remote state, a construct pz alone evaluates);
    /// the envelope is the error to serve when pz is not available.
    NeedsPz(String),
}

/// One tool's answer: the envelope text (compact JSON, pz's key order and escaping).
#[derive(Debug, Clone, PartialEq)]
pub struct PzAnswer {
    pub envelope: String,
    pub fidelity: Fidelity,
}

impl PzAnswer {
    fn new(envelope: String, reasons: Vec<String>) -> PzAnswer {
        let fidelity = if reasons.is_empty() {
            Fidelity::Exact
        } else {
            Fidelity::Approximate(reasons)
        };
        PzAnswer { envelope, fidelity }
    }

    fn needs_pz(envelope: String, reason: String) -> PzAnswer {
        PzAnswer {
            envelope,
            fidelity: Fidelity::NeedsPz(reason),
        }
    }
}
