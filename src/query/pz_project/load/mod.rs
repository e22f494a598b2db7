//! Loading a parsed project as `pz mcp` does (`ProjectPhases.Load`): `ProjectLoader.Load`'s
//! stages in order (project.yml, connections.yml, retired `sources/`/`sinks/`, pipelines and
//! sidecars, the state connection), every error aggregated, the MCP hint rewrites applied,
//! then the path guard (PZ0606) over the loaded project.

mod checks;
mod connections;
mod guard;
mod interpolate;
pub mod options;
mod pipelines;
mod project_yml;
mod retired;

pub use connections::entity_name_problem;
pub use interpolate::interpolate;

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::{Diag, ParsedProject};

use super::model::{file_error, Project, PzWarning};
use super::Env;

/// What loading found besides the project: errors, warnings, and which parts are this
/// loader's reading rather than pz's own (see [`crate::ingest::pz_project::value`]).
#[derive(Debug, Default)]
pub struct LoadIssue {
    pub errors: Vec<PzError>,
    pub warnings: Vec<PzWarning>,
    /// Why an error text may differ from pz's (a YAML syntax error's wording).
    pub inexact: Vec<String>,
    /// Pipelines whose sidecar checks hold a value whose pz spelling is a guess.
    pub inexact_checks: Vec<String>,
}

impl LoadIssue {
    pub fn push_diag(&mut self, diag: &Diag) {
        if !diag.exact {
            self.inexact.push(format!(
                "{}: YAML error text is PyYAML's, not YamlDotNet's",
                diag.file.as_deref().unwrap_or("?")
            ));
        }
        self.errors.push(diag_error(diag));
    }
}

pub fn diag_error(diag: &Diag) -> PzError {
    PzError {
        code: diag.code,
        message: diag.message.clone(),
        file: diag.file.clone(),
        line: diag.line,
        next_step: diag.hint.clone(),
    }
}

/// A loaded project, or the errors that stopped it.
pub struct Loaded {
    pub project: Result<Project, Vec<PzError>>,
    pub issue: LoadIssue,
}

pub fn load_project(parsed: &ParsedProject, env: &Env) -> Loaded {
    let mut issue = LoadIssue::default();
    let file = project_yml::load_project_file(parsed.project_yml.as_ref(), env, &mut issue);
    let connections =
        connections::load_connections(parsed.connections_yml.as_ref(), env, &mut issue);
    retired::refuse(&parsed.retired, &mut issue.errors);
    let pipelines = pipelines::load_pipelines(&parsed.pipelines, &parsed.sidecars, &mut issue);
    validate_state_connection(&file, &connections, &mut issue.errors);
    if !issue.errors.is_empty() {
        let errors = issue.errors.drain(..).map(guard::rewrite_hint).collect();
        return Loaded {
            project: Err(errors),
            issue,
        };
    }
    let pipeline_index = pipelines
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.clone(), i))
        .collect();
    let project = Project {
        pipeline_index,
        name: file.name,
        version: file.version,
        vars: file.vars,
        check_samples: file.check_samples,
        state: file.state,
        connections,
        pipelines,
        warnings: std::mem::take(&mut issue.warnings),
    };
    let escapes = guard::find_escapes(&project, &parsed.root);
    let project = if escapes.is_empty() {
        Ok(project)
    } else {
        Err(escapes)
    };
    Loaded { project, issue }
}

/// `ProjectLoader.ValidateStateConnection` (PZ0125).
fn validate_state_connection(
    file: &project_yml::ProjectFile,
    connections: &[super::model::Connection],
    errors: &mut Vec<PzError>,
) {
    const CODE: PzCode = PzCode::StateConnectionInvalid;
    const FILE: &str = "project.yml";
    let backend = file.state.backend.as_str();
    if backend == "local" {
        return;
    }
    if backend == "http" {
        match &file.state_url {
            None => errors.push(file_error(
                CODE,
                "state backend 'http' has no endpoint: set state.url, or set PZ_STATE_URL.",
                FILE,
                "state:\n  backend: http\n  url: https://state.example/api/agents/runs/<id>/state",
            )),
            Some(url) if !is_absolute_http_url(url) => errors.push(file_error(
                CODE,
                format!("state.url '{url}' is not an absolute http(s) URL."),
                FILE,
                "use the run-scoped state URL the server issued, e.g. https://state.example/api/agents/runs/<id>/state",
            )),
            Some(_) => {}
        }
        return;
    }
    if let Some(name) = &file.state_connection {
        match connections.iter().find(|c| &c.name == name) {
            None => errors.push(file_error(
                CODE,
                format!("state.connection '{name}' is not declared in connections.yml."),
                FILE,
                format!("declare a connection named '{name}' with connector: {backend}"),
            )),
            Some(c) if c.connector != backend => errors.push(file_error(
                CODE,
                format!(
                    "state.connection '{name}' uses connector '{}', but state backend '{backend}' requires a '{backend}' connection.",
                    c.connector
                ),
                FILE,
                format!("point state.connection at a connector: {backend} connection"),
            )),
            Some(_) => {}
        }
        return;
    }
    if file.state_connection_string.is_none() {
        errors.push(file_error(
            CODE,
            format!("state backend '{backend}' has no credentials: set state.connection, or set PZ_STATE_CONNECTION_STRING."),
            FILE,
            "state:\n  backend: sqlserver\n  connection: ops",
        ));
    }
}

/// `Uri.TryCreate(url, Absolute)` with an http/https scheme, for the URLs a state server
/// issues (scheme, `://`, a host).
fn is_absolute_http_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    ["http://", "https://"].iter().any(|scheme| {
        lower.strip_prefix(scheme).is_some_and(|rest| {
            !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace)
        })
    })
}
