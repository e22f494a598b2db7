//! Stages 7-10: the DAG's nodes and their ids. A SourceLoad per read dataset (staging-name
//! collisions are PZ0110), a Pipeline per table pipeline, a Check per sidecar check (name
//! collisions take `_2`, `_3`...), a SinkWrite per bound output.

use std::collections::{HashMap, HashSet};

use crate::error::pz::{PzCode, PzError};
use crate::query::pz_project::model::{SyncMode, WriteOptions};
use crate::query::pz_project::render::{staging_name, Dep};
use compat::dotnet::ordinal_cmp;

use super::canonical::{check_identity, columns_json, node_id, options_json};
use super::sql::{normalize_sql, pushes_nothing, splice_ctes};
use super::validate::effective_deps;
use super::{is_incremental, Claim, Node, NodeKind, Work};

pub struct Built {
    /// In build order; each `depends_on` sorted by id.
    pub nodes: Vec<Node>,
    /// Pipeline name -> its node.
    pipeline_nodes: HashMap<String, usize>,
    /// Datasets whose read is an explicit `sync: {mode: auto}`.
    pub auto_sources: Vec<(String, String)>,
    incremental: Vec<usize>,
    cdc: Vec<usize>,
}

impl Built {
    pub fn pipeline_node(&self, name: &str) -> Option<usize> {
        self.pipeline_nodes.get(name).copied()
    }

    pub fn is_incremental_source(&self, i: usize) -> bool {
        self.incremental.contains(&i)
    }

    pub fn is_cdc_source(&self, i: usize) -> bool {
        self.cdc.contains(&i)
    }

    pub fn sink_of<'w>(
        &self,
        work: &'w Work,
        i: usize,
    ) -> Option<(&'w str, &'w str, &'w WriteOptions)> {
        let (c, o) = self.nodes[i].dataset.as_ref()?;
        let conn = work.connection(c)?;
        let (name, write) = conn.outputs.iter().find(|(n, _)| n == o)?;
        Some((conn.name.as_str(), name.as_str(), write))
    }
}

type Claims = [Claim];

pub fn build(
    work: &Work,
    claims: &Claims,
    readers: &Claims,
    watermarked: &[(String, String)],
    inexact_checks: &[String],
) -> Result<Built, Vec<PzError>> {
    let mut built = Built {
        nodes: Vec::new(),
        pipeline_nodes: HashMap::new(),
        auto_sources: Vec::new(),
        incremental: Vec::new(),
        cdc: Vec::new(),
    };
    let source_nodes = built.add_source_loads(work, readers, watermarked)?;
    built.add_pipelines(work, &source_nodes);
    built.add_checks(work, inexact_checks);
    built.add_sink_writes(work, claims);
    super::sort_dependencies(&mut built.nodes);
    Ok(built)
}

impl Built {
    /// A SourceLoad per dataset a pipeline reads; returns each dataset's node. Two datasets
    /// of a connection whose staging names fold together are PZ0110.
    fn add_source_loads(
        &mut self,
        work: &Work,
        readers: &Claims,
        watermarked: &[(String, String)],
    ) -> Result<HashMap<(String, String), usize>, Vec<PzError>> {
        let readers: HashMap<&(String, String), &String> =
            readers.iter().map(|(k, v)| (k, v)).collect();
        let mut source_nodes = HashMap::new();
        let mut collisions = Vec::new();
        for conn in &work.connections {
            let mut staged: Vec<(String, String)> = Vec::new();
            for d in &conn.datasets {
                let key = (conn.name.clone(), d.name.clone());
                let Some(reader) = readers.get(&key).copied() else {
                    continue;
                };
                let staging = staging_name(&conn.name, &d.name);
                match staged.iter().find(|(s, _)| *s == staging) {
                    Some((_, first)) => {
                        collisions.push(staging_collision(&conn.name, first, &d.name))
                    }
                    None => staged.push((staging.clone(), d.name.clone())),
                }
                let canonical = format!(
                    "source-load\n{}\n{}\n{}\n{}",
                    conn.name,
                    d.name,
                    options_json(&d.options),
                    columns_json(d.columns.as_deref())
                );
                let at = self.nodes.len();
                let synthesized = watermarked.contains(&key);
                if synthesized || is_incremental(&d.sync) {
                    self.incremental.push(at);
                }
                match &d.sync {
                    Some(SyncMode::Cdc) => self.cdc.push(at),
                    Some(SyncMode::Auto) if !synthesized => self.auto_sources.push(key.clone()),
                    _ => {}
                }
                source_nodes.insert(key.clone(), at);
                let hints_empty = matches!(d.sync, Some(SyncMode::Cdc))
                    || reader_pushes_nothing(work, reader, &key, &staging);
                self.nodes.push(Node {
                    id: node_id(&canonical),
                    id_known: d.exact && hints_empty,
                    kind: NodeKind::SourceLoad,
                    name: staging,
                    depends_on: Vec::new(),
                    dataset: Some(key),
                });
            }
        }
        if !collisions.is_empty() {
            return Err(collisions);
        }
        Ok(source_nodes)
    }

    /// A Pipeline per table pipeline, then each one's dependencies on the nodes before it.
    fn add_pipelines(&mut self, work: &Work, source_nodes: &HashMap<(String, String), usize>) {
        let project = work.project;
        for (i, pipeline) in project.pipelines.iter().enumerate() {
            if pipeline.is_ephemeral() {
                continue;
            }
            let (sql, exact) = assembled_sql(work, i);
            let canonical = format!(
                "pipeline\n{}\n{}\n{sql}",
                pipeline.name, pipeline.materialization
            );
            self.pipeline_nodes
                .insert(pipeline.name.clone(), self.nodes.len());
            self.nodes.push(Node {
                id: node_id(&canonical),
                id_known: exact,
                kind: NodeKind::Pipeline,
                name: pipeline.name.clone(),
                depends_on: Vec::new(),
                dataset: None,
            });
        }
        for (i, pipeline) in project.pipelines.iter().enumerate() {
            let Some(at) = self
                .pipeline_node(&pipeline.name)
                .filter(|_| !pipeline.is_ephemeral())
            else {
                continue;
            };
            let mut deps = Vec::new();
            for dep in effective_deps(work, i) {
                let target = match dep {
                    Dep::Pipeline(n) => self.pipeline_node(n),
                    Dep::Source(s) => source_nodes
                        .get(&(s.conn.clone(), s.entity.clone()))
                        .copied(),
                };
                deps.extend(target);
            }
            self.nodes[at].depends_on = deps;
        }
    }

    /// A Check per sidecar check of a table pipeline, named by pz's convention (a name
    /// taken already gets `_2`, `_3`...).
    fn add_checks(&mut self, work: &Work, inexact_checks: &[String]) {
        let mut check_names: HashSet<String> = HashSet::new();
        for pipeline in work.project.pipelines.iter().filter(|p| !p.is_ephemeral()) {
            let at = self
                .pipeline_node(&pipeline.name)
                .expect("every table pipeline has a node");
            for check in &pipeline.checks {
                let conventional = check_name(&pipeline.name, check);
                let mut name = conventional.clone();
                let mut n = 2;
                while check_names.contains(&name) {
                    name = format!("{conventional}_{n}");
                    n += 1;
                }
                check_names.insert(name.clone());
                let canonical = format!("check\n{}\n{}", pipeline.name, check_identity(check));
                self.nodes.push(Node {
                    id: node_id(&canonical),
                    id_known: !inexact_checks.contains(&pipeline.name),
                    kind: NodeKind::Check,
                    name,
                    depends_on: vec![at],
                    dataset: None,
                });
            }
        }
    }

    /// A SinkWrite per output a pipeline claims.
    fn add_sink_writes(&mut self, work: &Work, claims: &Claims) {
        let claims: HashMap<&(String, String), &String> =
            claims.iter().map(|(k, v)| (k, v)).collect();
        for conn in &work.connections {
            for (output, write) in &conn.outputs {
                let key = (conn.name.clone(), output.clone());
                let Some(claimant) = claims.get(&key).copied() else {
                    continue;
                };
                let at = self
                    .pipeline_node(claimant)
                    .expect("a claimant is a table pipeline");
                let canonical = format!(
                    "sink-write\n{}\n{output}\n{claimant}\n{}\n{}\n{}",
                    conn.name,
                    write.mode,
                    write.schema_policy,
                    options_json(&write.options)
                );
                self.nodes.push(Node {
                    id: node_id(&canonical),
                    id_known: write.options.exact,
                    kind: NodeKind::SinkWrite,
                    name: format!("{}.{output}", conn.name),
                    depends_on: vec![at],
                    dataset: Some(key),
                });
            }
        }
    }
}

/// PZ0110: two datasets of `connection` whose staging names fold together.
fn staging_collision(connection: &str, first: &str, second: &str) -> PzError {
    PzError {
        code: PzCode::DuplicateName,
        message: format!(
            "source '{connection}': datasets '{first}' and '{second}' cannot be told apart in staging."
        ),
        file: Some("connections.yml".into()),
        line: None,
        next_step: Some(
            "rename one of them -- pz folds every character outside [A-Za-z0-9_] to '_' when it stages a read, so these two names collide".into(),
        ),
    }
}

/// A check's conventional node name: `check_<pipeline>_<name>` for custom SQL, else
/// `check_<pipeline>_<type>[_<columns>]`.
fn check_name(pipeline: &str, check: &crate::query::pz_project::model::Check) -> String {
    if check.check_type == "custom_sql" {
        let n = check
            .options
            .get("name")
            .map(|v| v.interpolated())
            .unwrap_or_default();
        format!("check_{pipeline}_{n}")
    } else if check.columns.is_empty() {
        format!("check_{pipeline}_{}", check.check_type)
    } else {
        format!(
            "check_{pipeline}_{}_{}",
            check.check_type,
            check.columns.join("_")
        )
    }
}

/// A table pipeline's executed SQL as pz hashes it, and whether this text is pz's: an
/// ephemeral consumer's is re-serialized by DuckDB, a `watermark()` pipeline's rewritten,
/// and a `run_id`/`run_started_at` one differs on every call.
fn assembled_sql(work: &Work, index: usize) -> (String, bool) {
    let rendered = &work.rendered[index];
    let mut ephemerals: Vec<&str> = rendered
        .deps
        .iter()
        .filter_map(|d| match d {
            Dep::Pipeline(n) if work.is_ephemeral(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    ephemerals.sort_by(|a, b| ordinal_cmp(a, b));
    ephemerals.dedup();
    let mut exact = rendered.watermarks.is_empty() && !rendered.per_call;
    let sql = if ephemerals.is_empty() {
        rendered.sql.clone()
    } else {
        exact = false;
        let ctes: Vec<(String, String)> = ephemerals
            .iter()
            .map(|name| {
                let at = work.project.pipeline_position(name);
                let body = at
                    .map(|a| normalize_sql(&work.rendered[a].sql))
                    .unwrap_or_default();
                (format!("__pz_cte__{name}"), body)
            })
            .collect();
        splice_ctes(&rendered.sql, &ctes)
    };
    (normalize_sql(&sql), exact)
}

/// Whether DuckDB's read-hint extraction provably finds nothing to push for this dataset:
/// its one reader takes it only through an ephemeral (the outer FROM never names it), or
/// reads it as `select * from <staging>` with no WHERE.
fn reader_pushes_nothing(work: &Work, reader: &str, key: &(String, String), staging: &str) -> bool {
    let Some(index) = work.project.pipeline_position(reader) else {
        return false;
    };
    let rendered = &work.rendered[index];
    let direct = rendered
        .deps
        .iter()
        .any(|d| matches!(d, Dep::Source(s) if s.conn == key.0 && s.entity == key.1));
    let consumes_ephemeral = rendered
        .deps
        .iter()
        .any(|d| matches!(d, Dep::Pipeline(n) if work.is_ephemeral(n)));
    if !direct {
        return !rendered.sql.contains(staging);
    }
    !consumes_ephemeral
        && rendered.watermarks.is_empty()
        && pushes_nothing(&normalize_sql(&rendered.sql), staging)
}
