//! The five read-side tools, each a function of the parsed project and the environment,
//! sharing pz's load -> compile phases (`ProjectPhases`) and its JSON shapes.

pub mod compile_result;
pub mod entity_schema;
pub mod overview;
pub mod run_results;
pub mod state;

use std::sync::OnceLock;

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::ParsedProject;
use compat::dotnet::Json;

use super::compile::ids::{settle_ids, IdSource};
use super::compile::{compile, CompileFailure, Dag, Node};
use super::load::load_project;
use super::model::{Project, PzWarning};
use super::{Env, PzAnswer};

/// A loaded project, or the errors that stopped the load; with the reasons it may not be pz's.
pub struct LoadPhase {
    pub project: Result<Project, Vec<PzError>>,
    pub reasons: Vec<String>,
    pub inexact_checks: Vec<String>,
}

pub(super) fn load(parsed: &ParsedProject, env: &Env) -> LoadPhase {
    let loaded = load_project(parsed, env);
    LoadPhase {
        project: loaded.project,
        reasons: loaded.issue.inexact,
        inexact_checks: loaded.issue.inexact_checks,
    }
}

/// A compiled DAG with settled ids.
pub struct Compiled {
    pub dag: Dag,
    pub ids: IdSource,
}

/// What every tool reads: the parsed files, the environment, the load (done once) and the
/// compile (done on first need).
pub(super) struct Ctx<'a> {
    pub parsed: &'a ParsedProject,
    pub env: &'a Env,
    pub load: &'a LoadPhase,
    pub compiled: &'a OnceLock<Result<Compiled, CompileFailure>>,
}

impl<'a> Ctx<'a> {
    /// The loaded project and the reasons so far, or the load errors' answer.
    pub fn project(&self) -> Result<(&'a Project, Vec<String>), PzAnswer> {
        match &self.load.project {
            Ok(p) => Ok((p, self.load.reasons.clone())),
            Err(errors) => Err(PzAnswer::failed(errors.clone(), self.load.reasons.clone())),
        }
    }

    /// `ProjectPhases.LoadAndCompile`'s compile, over the loaded project.
    pub fn compiled(&self, project: &Project) -> &'a Result<Compiled, CompileFailure> {
        self.compiled.get_or_init(|| {
            let mut dag = compile(project, self.env, &self.load.inexact_checks)?;
            let ids = settle_ids(
                &mut dag,
                self.parsed.manifest.as_ref(),
                self.parsed.newest_input_mtime_ns,
            );
            Ok(Compiled { dag, ids })
        })
    }
}

/// Reasons an answer over this DAG may differ from pz's.
pub(super) fn dag_reasons(compiled: &Compiled, mut reasons: Vec<String>) -> Vec<String> {
    reasons.extend(compiled.dag.inexact.iter().cloned());
    if let IdSource::Approximate { nodes, .. } = &compiled.ids {
        reasons.push(format!(
            "node ids not computable offline: {}",
            nodes.join(", ")
        ));
    }
    reasons
}

/// The envelope a template gap falls back to when pz is not there to render it.
pub(super) fn gap_error(reason: &str) -> PzError {
    PzError {
        code: PzCode::TemplateError,
        message: format!("printdex cannot render this template offline: {reason}"),
        file: None,
        line: None,
        next_step: Some(
            "printdex evaluates pz's template functions with literal arguments only; make pz available to printdex (--pz, PZ_BIN or PATH) to compile this project".into(),
        ),
    }
}

pub(super) fn nodes_json(dag: &Dag) -> Json {
    Json::Arr(dag.nodes.iter().map(|n| node_json(n, &dag.nodes)).collect())
}

fn node_json(node: &Node, all: &[Node]) -> Json {
    Json::Obj(vec![
        ("id", Json::str(&node.id)),
        ("name", Json::str(&node.name)),
        ("kind", Json::str(node.kind.pascal())),
        (
            "dependsOn",
            Json::Arr(
                node.depends_on
                    .iter()
                    .map(|d| Json::str(&all[*d].id))
                    .collect(),
            ),
        ),
    ])
}

pub(super) fn warnings_json(warnings: &[PzWarning]) -> Json {
    Json::Arr(
        warnings
            .iter()
            .map(|w| {
                let mut fields = vec![
                    ("code", Json::str(w.code.as_str())),
                    ("message", Json::str(&w.message)),
                ];
                if let Some(f) = &w.file {
                    fields.push(("file", Json::str(f)));
                }
                if let Some(l) = w.line {
                    fields.push(("line", Json::Int(i64::from(l))));
                }
                if let Some(h) = &w.hint {
                    fields.push(("hint", Json::str(h)));
                }
                Json::Obj(fields)
            })
            .collect(),
    )
}

pub(super) fn strings_json(items: &[String]) -> Json {
    Json::Arr(items.iter().map(Json::str).collect())
}
