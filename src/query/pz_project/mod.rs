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
#[cfg(test)]
mod tests;
mod tools;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::error::pz::PzError;
use crate::ingest::pz_project::ParsedProject;
use crate::store::cache::{Cache, Key};
use crate::store::pz_project::ProjectSnapshot;
use compat::dotnet::Json;

use tools::{Compiled, Ctx, LoadPhase};

/// The process environment as pz snapshots it per call (`${VAR}`, `env()`, `PZ_STATE_*`).
pub type Env = HashMap<String, String>;

/// A parsed project made ready to answer: loaded once (as `pz mcp` loads it per call) and
/// compiled on first need, for one environment. Answers are pure functions of the files
/// and the environment, so a store can keep one of these per (content, environment) and
/// answer each call by rendering an envelope.
pub struct PreparedProject {
    parsed: Arc<ParsedProject>,
    env: Env,
    load: LoadPhase,
    compiled: OnceLock<Result<Compiled, compile::CompileFailure>>,
    /// The argument-less answers, computed once.
    overview: OnceLock<PzAnswer>,
    compile: OnceLock<PzAnswer>,
    state: OnceLock<PzAnswer>,
}

impl PreparedProject {
    pub fn new(parsed: Arc<ParsedProject>, env: Env) -> PreparedProject {
        let load = tools::load(&parsed, &env);
        PreparedProject {
            parsed,
            env,
            load,
            compiled: OnceLock::new(),
            overview: OnceLock::new(),
            compile: OnceLock::new(),
            state: OnceLock::new(),
        }
    }

    /// Compiles now and computes the argument-less answers (run when the store publishes
    /// new content, so no request compiles).
    pub fn warm(&self) {
        let ctx = self.ctx();
        if let Ok((project, _)) = ctx.project() {
            ctx.compiled(project);
        }
        self.overview();
        self.compile();
        self.state();
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            parsed: &self.parsed,
            env: &self.env,
            load: &self.load,
            compiled: &self.compiled,
        }
    }

    /// pz_project_overview (computed on the first call, then shared).
    pub fn overview(&self) -> &PzAnswer {
        self.overview
            .get_or_init(|| tools::overview::answer(&self.ctx()))
    }

    /// pz_compile (computed on the first call, then shared).
    pub fn compile(&self) -> &PzAnswer {
        self.compile
            .get_or_init(|| tools::compile_result::answer(&self.ctx()))
    }

    /// pz_state (computed on the first call, then shared).
    pub fn state(&self) -> &PzAnswer {
        self.state.get_or_init(|| tools::state::answer(&self.ctx()))
    }

    /// pz_entity_schema(connection, entity).
    pub fn entity_schema(&self, connection: &str, entity: &str) -> PzAnswer {
        tools::entity_schema::answer(&self.ctx(), connection, entity)
    }

    /// pz_run_results(run_id?).
    pub fn run_results(&self, run_id: Option<&str>) -> PzAnswer {
        tools::run_results::answer(&self.ctx(), run_id)
    }
}

/// The prepared project of `snapshot` under `env`, from the store's cache: built on first
/// need and shared by every call over the same content and environment.
pub fn prepared(cache: &Cache, snapshot: &ProjectSnapshot, env: &Env) -> Arc<PreparedProject> {
    let mut vars: Vec<(&String, &String)> = env.iter().collect();
    vars.sort();
    let parts = std::iter::once(&snapshot.version[..]).chain(
        vars.into_iter()
            .flat_map(|(k, v)| [k.as_bytes(), v.as_bytes()]),
    );
    let key = Key::new("pz_prepared", parts);
    // The parse is shared; the load and the DAG are about as large again as the files.
    let weight = |_: &PreparedProject| 4 * snapshot.bytes() + 4096;
    let built: Result<_, std::convert::Infallible> = cache.get_or_build(key, weight, || {
        Ok(PreparedProject::new(snapshot.parsed.clone(), env.clone()))
    });
    match built {
        Ok(prepared) => prepared,
    }
}

/// One call answered from parsed files, loading (and compiling) as pz does per call.
fn once<T>(parsed: &ParsedProject, env: &Env, f: impl FnOnce(&Ctx) -> T) -> T {
    let load = tools::load(parsed, env);
    let compiled = OnceLock::new();
    f(&Ctx {
        parsed,
        env,
        load: &load,
        compiled: &compiled,
    })
}

/// pz_project_overview over parsed files.
pub fn project_overview(parsed: &ParsedProject, env: &Env) -> PzAnswer {
    once(parsed, env, tools::overview::answer)
}

/// pz_compile over parsed files.
pub fn compile_answer(parsed: &ParsedProject, env: &Env) -> PzAnswer {
    once(parsed, env, tools::compile_result::answer)
}

/// pz_state over parsed files.
pub fn state(parsed: &ParsedProject, env: &Env) -> PzAnswer {
    once(parsed, env, tools::state::answer)
}

/// pz_entity_schema over parsed files.
pub fn entity_schema(
    parsed: &ParsedProject,
    env: &Env,
    connection: &str,
    entity: &str,
) -> PzAnswer {
    once(parsed, env, |ctx| {
        tools::entity_schema::answer(ctx, connection, entity)
    })
}

/// pz_run_results over parsed files.
pub fn run_results(parsed: &ParsedProject, env: &Env, run_id: Option<&str>) -> PzAnswer {
    once(parsed, env, |ctx| tools::run_results::answer(ctx, run_id))
}

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

/// One tool's answer, as the envelope will carry it (`render::pz_project` writes it): the
/// tool succeeded when there is a `result` (pz_project_overview's compile failure carries
/// `errors` beside it); otherwise `errors` is the whole answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PzAnswer {
    pub errors: Vec<PzError>,
    /// The `result` object, in pz's key order.
    pub result: Option<Json>,
    pub fidelity: Fidelity,
}

fn fidelity_of(reasons: Vec<String>) -> Fidelity {
    if reasons.is_empty() {
        Fidelity::Exact
    } else {
        Fidelity::Approximate(reasons)
    }
}

impl PzAnswer {
    /// `ok: true` with this result.
    fn result(result: Json, reasons: Vec<String>) -> PzAnswer {
        PzAnswer::beside(Vec::new(), result, reasons)
    }

    /// `ok: true`, `errors`, then the result.
    fn beside(errors: Vec<PzError>, result: Json, reasons: Vec<String>) -> PzAnswer {
        PzAnswer {
            errors,
            result: Some(result),
            fidelity: fidelity_of(reasons),
        }
    }

    /// `ok: false` with these errors.
    fn failed(errors: Vec<PzError>, reasons: Vec<String>) -> PzAnswer {
        PzAnswer {
            errors,
            result: None,
            fidelity: fidelity_of(reasons),
        }
    }

    /// The errors to answer when pz is not there to answer instead.
    fn needs_pz(errors: Vec<PzError>, reason: String) -> PzAnswer {
        PzAnswer {
            errors,
            result: None,
            fidelity: Fidelity::NeedsPz(reason),
        }
    }

    /// Whether the tool call succeeded (`ok`).
    pub fn ok(&self) -> bool {
        self.result.is_some()
    }
}
