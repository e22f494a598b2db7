//! Settling node ids the compiler could not compute (`Node::id_known == false`): from
//! `.pz/target/manifest.json` when `pz compile` wrote it after every project file changed
//! and it lists the same nodes (name and kind); otherwise the approximation stays and a
//! notice says which ids it concerns and why.

use crate::ingest::pz_project::manifest::CompiledManifest;
use compat::dotnet::ordinal_cmp;

use super::{sort_dependencies, Dag};

/// Where the answer's node ids came from.
#[derive(Debug, Clone, PartialEq)]
pub enum IdSource {
    /// Every id computed as pz computes it.
    Computed,
    /// Taken from a fresh, matching `.pz/target/manifest.json`.
    Manifest,
    /// Some ids are printdex's approximation; the notice explains.
    Approximate { nodes: Vec<String>, notice: String },
}

pub fn settle_ids(
    dag: &mut Dag,
    manifest: Option<&CompiledManifest>,
    newest_input_mtime_ns: i64,
) -> IdSource {
    let mut unknown: Vec<String> = dag
        .nodes
        .iter()
        .filter(|n| !n.id_known)
        .map(|n| n.name.clone())
        .collect();
    if unknown.is_empty() {
        return IdSource::Computed;
    }
    let why_not = match manifest {
        None => "there is no .pz/target/manifest.json".to_string(),
        Some(m) if m.mtime_ns <= newest_input_mtime_ns => {
            ".pz/target/manifest.json is older than the project's files".to_string()
        }
        Some(m) => match manifest_ids(dag, m) {
            Some(ids) => {
                for (node, id) in dag.nodes.iter_mut().zip(ids) {
                    node.id = id;
                    node.id_known = true;
                }
                sort_dependencies(&mut dag.nodes);
                return IdSource::Manifest;
            }
            None => ".pz/target/manifest.json lists other nodes than the project compiles to"
                .to_string(),
        },
    };
    unknown.sort_by(|a, b| ordinal_cmp(a, b));
    let notice = format!(
        "printdex: the node ids of {} are approximations: pz derives them with DuckDB's SQL parser, and {why_not}; run `pz compile` to write pz's ids there",
        unknown.join(", ")
    );
    IdSource::Approximate {
        nodes: unknown,
        notice,
    }
}

/// The manifest's id for each node, when its nodes are exactly the DAG's by (name, kind).
fn manifest_ids(dag: &Dag, manifest: &CompiledManifest) -> Option<Vec<String>> {
    if manifest.nodes.len() != dag.nodes.len() {
        return None;
    }
    let mut used = vec![false; manifest.nodes.len()];
    let mut ids = Vec::with_capacity(dag.nodes.len());
    for node in &dag.nodes {
        let at =
            manifest.nodes.iter().enumerate().position(|(i, m)| {
                !used[i] && m.name == node.name && m.kind == node.kind.snake()
            })?;
        used[at] = true;
        ids.push(manifest.nodes[at].id.clone());
    }
    Some(ids)
}
