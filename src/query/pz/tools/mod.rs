//! The five read-side tools, each a function of the parsed project and the environment,
//! sharing pz's load -> compile phases (`ProjectPhases`) and its JSON shapes.

pub mod compile_result;
pub mod entity_schema;
pub mod overview;
pub mod run_results;
pub mod state;

use crate::ingest::pz::ParsedProject;
use crate::pz::envelope::{self, Json, PzError};

use super::compile::ids::{settle_ids, IdSource};
use super::compile::{compile, CompileFailure, Dag, Node};
use super::load::load_project;
use super::model::{Project, PzWarning};
use super::{Env, PzAnswer};

/// A loaded project, or the errors that stopped the load; with the reasons it may not be pz's.
pub(super) struct LoadPhase {
    pub project: Result<Project, Vec<PzError>>,
    pub reasons: Vec<String>,
    pub inexact_checks: Vec<String>,
}

impl LoadPhase {
    /// The project with the reasons and inexact checks, or the load errors' answer.
    pub fn split(self) -> Result<(Project, Vec<String>, Vec<String>), PzAnswer> {
        match self.project {
            Ok(p) => Ok((p, self.reasons, self.inexact_checks)),
            Err(errors) => Err(PzAnswer::new(
                envelope::failure(None, &errors),
                self.reasons,
            )),
        }
    }
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
pub(super) struct Compiled {
    pub dag: Dag,
    pub ids: IdSource,
}

pub(super) fn compile_loaded(
    parsed: &ParsedProject,
    project: &Project,
    env: &Env,
    inexact_checks: &[String],
) -> Result<Compiled, CompileFailure> {
    let mut dag = compile(project, env, inexact_checks)?;
    let ids = settle_ids(
        &mut dag,
        parsed.manifest.as_ref(),
        parsed.newest_input_mtime_ns,
    );
    Ok(Compiled { dag, ids })
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
        code: "PZ0104",
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
                    ("code", Json::str(w.code)),
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

pub(super) fn errors_json(errors: &[PzError]) -> Json {
    Json::Arr(errors.iter().map(PzError::json).collect())
}
