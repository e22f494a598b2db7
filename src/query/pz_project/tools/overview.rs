//! pz_project_overview (`IntrospectTools.Overview`): name, flows, connections (names,
//! connectors, entities; never config values), pipelines with their refs/sources/sinks,
//! and the DAG's nodes. A compile failure over a loadable project is `ok: true` with the
//! errors and a best-effort result (no flows, no DAG, YAML-only connections); a load
//! failure is a plain error envelope.

use std::collections::HashMap;

use crate::query::pz_project::compile::ids::IdSource;
use crate::query::pz_project::compile::{flow_labels, CompileFailure, Dag, NodeKind};
use crate::query::pz_project::model::Project;
use crate::query::pz_project::PzAnswer;
use compat::dotnet::ordinal_cmp;
use compat::dotnet::Json;

use super::{dag_reasons, gap_error, nodes_json, strings_json, Ctx};

pub(in crate::query::pz_project) fn answer(ctx: &Ctx) -> PzAnswer {
    let (project, reasons) = match ctx.project() {
        Ok(loaded) => loaded,
        Err(answer) => return answer,
    };
    match ctx.compiled(project) {
        Ok(compiled) => {
            let notice = match &compiled.ids {
                IdSource::Approximate { notice, .. } => Some(notice.clone()),
                _ => None,
            };
            let result = overview_json(project, Some(&compiled.dag), notice);
            let reasons = dag_reasons(compiled, reasons);
            PzAnswer::result(result, reasons)
        }
        Err(CompileFailure::Errors(errors)) => {
            PzAnswer::beside(errors.clone(), overview_json(project, None, None), reasons)
        }
        Err(CompileFailure::Gap(reason)) => {
            let mut answer = PzAnswer::needs_pz(vec![gap_error(reason)], reason.clone());
            answer.result = Some(overview_json(project, None, None));
            answer
        }
    }
}

fn overview_json(project: &Project, dag: Option<&Dag>, notice: Option<String>) -> Json {
    let flows = dag.map(|d| flow_labels(&d.nodes)).unwrap_or_default();
    let mut fields = vec![
        ("name", Json::str(&project.name)),
        ("flows", strings_json(&flows)),
        ("connections", connections_json(project, dag)),
        ("pipelines", pipelines_json(project, dag)),
        (
            "dag",
            Json::Obj(vec![(
                "nodes",
                dag.map(nodes_json).unwrap_or_else(|| Json::Arr(Vec::new())),
            )]),
        ),
    ];
    // Not a pz field: present only when some ids are printdex's approximation.
    if let Some(n) = notice {
        fields.push(("notices", strings_json(&[n])));
    }
    Json::Obj(fields)
}

fn connections_json(project: &Project, dag: Option<&Dag>) -> Json {
    let entries: Vec<(String, String, Vec<String>, Vec<String>)> = match dag {
        Some(d) => d
            .connections
            .iter()
            .map(|c| {
                let reads = c.datasets.iter().map(|d| d.name.clone()).collect();
                let writes = c
                    .outputs
                    .iter()
                    .map(|(o, _)| o.clone())
                    .chain(c.entity_writes.iter().cloned())
                    .collect();
                (c.name.clone(), c.connector.clone(), reads, writes)
            })
            .collect(),
        None => project
            .connections
            .iter()
            .map(|c| {
                let reads = c.datasets.iter().map(|d| d.name.clone()).collect();
                let writes = c.entity_writes.iter().map(|(e, _)| e.clone()).collect();
                (c.name.clone(), c.connector.clone(), reads, writes)
            })
            .collect(),
    };
    Json::Arr(
        entries
            .into_iter()
            .map(|(name, connector, reads, writes)| {
                let mut names: Vec<&String> = reads.iter().chain(writes.iter()).collect();
                names.sort_by(|a, b| ordinal_cmp(a, b));
                names.dedup();
                let entities = names
                    .into_iter()
                    .map(|e| {
                        Json::Obj(vec![
                            ("name", Json::str(e)),
                            ("has_read", Json::Bool(reads.contains(e))),
                            ("has_write", Json::Bool(writes.contains(e))),
                        ])
                    })
                    .collect();
                Json::Obj(vec![
                    ("name", Json::str(name)),
                    ("connector", Json::str(connector)),
                    ("entities", Json::Arr(entities)),
                ])
            })
            .collect(),
    )
}

fn pipelines_json(project: &Project, dag: Option<&Dag>) -> Json {
    // Each pipeline node's position and the SinkWrites that load it, in node order.
    let mut node_of: HashMap<&str, usize> = HashMap::new();
    let mut sinks_of: HashMap<usize, Vec<String>> = HashMap::new();
    if let Some(d) = dag {
        for (i, node) in d.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::Pipeline => {
                    node_of.insert(node.name.as_str(), i);
                }
                NodeKind::SinkWrite => {
                    for &parent in &node.depends_on {
                        sinks_of
                            .entry(parent)
                            .or_default()
                            .extend(node.dataset_ref());
                    }
                }
                _ => {}
            }
        }
    }
    Json::Arr(
        project
            .pipelines
            .iter()
            .map(|p| {
                let (mut refs, mut sources) = (Vec::new(), Vec::new());
                let mut sinks = Vec::new();
                if let (Some(d), Some(&at)) = (dag, node_of.get(p.name.as_str())) {
                    for &parent in &d.nodes[at].depends_on {
                        let node = &d.nodes[parent];
                        match node.kind {
                            NodeKind::Pipeline => refs.push(node.name.clone()),
                            NodeKind::SourceLoad => sources.extend(node.dataset_ref()),
                            _ => {}
                        }
                    }
                    sinks = sinks_of.get(&at).cloned().unwrap_or_default();
                }
                Json::Obj(vec![
                    ("name", Json::str(&p.name)),
                    ("refs", strings_json(&refs)),
                    ("sources", strings_json(&sources)),
                    ("sinks", strings_json(&sinks)),
                ])
            })
            .collect(),
    )
}
