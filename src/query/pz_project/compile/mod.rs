//! pz's DAG compiler (`DagCompiler.Compile`) over a loaded project: render every pipeline,
//! bind sinks, synthesize call-site entities, validate in pz's stage order (each stage's
//! errors thrown together, later stages masked), build SourceLoad / Pipeline / Check /
//! SinkWrite nodes with content-addressed ids, and order them.
//!
//! Ids need inputs only pz has in some cases (DuckDB re-serializes a consumer of an
//! ephemeral, rewrites a `watermark()` comparison, and extracts read hints that feed a
//! SourceLoad's id); such nodes carry `id_known: false` until [`ids`] settles them.

mod bindings;
pub mod canonical;
pub mod ids;
mod nodes;
mod order;
pub mod sql;
mod validate;

use crate::error::pz::PzError;

use super::model::{Dataset, Project, PzWarning, SyncMode, WriteOptions};
use super::render::{render, RenderFailure, Rendered};
use super::Env;

pub use order::flow_labels;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    SourceLoad,
    Pipeline,
    Check,
    SinkWrite,
}

impl Node {
    /// `conn.entity` of a SourceLoad or SinkWrite.
    pub fn dataset_ref(&self) -> Option<String> {
        self.dataset.as_ref().map(|(c, e)| format!("{c}.{e}"))
    }
}

impl NodeKind {
    pub fn rank(self) -> u8 {
        self as u8
    }

    /// `NodeKind.ToString()`, as the MCP tools write it.
    pub fn pascal(self) -> &'static str {
        match self {
            NodeKind::SourceLoad => "SourceLoad",
            NodeKind::Pipeline => "Pipeline",
            NodeKind::Check => "Check",
            NodeKind::SinkWrite => "SinkWrite",
        }
    }

    /// The manifest's spelling.
    pub fn snake(self) -> &'static str {
        match self {
            NodeKind::SourceLoad => "source_load",
            NodeKind::Pipeline => "pipeline",
            NodeKind::Check => "check",
            NodeKind::SinkWrite => "sink_write",
        }
    }
}

/// One DAG node; `depends_on` indexes the same node list.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// Whether `id` is the id pz computes (see the module doc).
    pub id_known: bool,
    pub kind: NodeKind,
    pub name: String,
    pub depends_on: Vec<usize>,
    /// (connection, entity) of a SourceLoad or SinkWrite.
    pub dataset: Option<(String, String)>,
}

/// A connection as the compiled DAG holds it (`CompiledDag.Connections`): YAML reads plus
/// call-site-synthesized ones, and the outputs sink() calls bound.
#[derive(Debug, Clone)]
pub struct EffectiveConnection {
    pub name: String,
    pub connector: String,
    pub datasets: Vec<Dataset>,
    pub outputs: Vec<(String, WriteOptions)>,
    pub entity_writes: Vec<String>,
}

/// A compiled project.
#[derive(Debug, Clone)]
pub struct Dag {
    /// In pz's order; each `depends_on` sorted by id.
    pub nodes: Vec<Node>,
    pub connections: Vec<EffectiveConnection>,
    pub warnings: Vec<PzWarning>,
    pub notices: Vec<String>,
    /// Why the answer may differ from pz's beyond node ids.
    pub inexact: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum CompileFailure {
    Errors(Vec<PzError>),
    /// A template or construct only pz's own compiler can evaluate.
    Gap(String),
}

/// A (connection, entity) and the one pipeline that reads or binds it.
pub(crate) type Claim = ((String, String), String);

/// Working state shared by the stages.
pub(crate) struct Work<'a> {
    pub project: &'a Project,
    pub rendered: Vec<Rendered>,
    pub connections: Vec<EffectiveConnection>,
    pub inexact: Vec<String>,
    pub notices: Vec<String>,
    pub warnings: Vec<PzWarning>,
}

impl Work<'_> {
    pub fn connection(&self, name: &str) -> Option<&EffectiveConnection> {
        self.connections.iter().find(|c| c.name == name)
    }

    pub fn is_ephemeral(&self, pipeline: &str) -> bool {
        self.project
            .pipeline(pipeline)
            .is_some_and(|p| p.is_ephemeral())
    }
}

/// `DagCompiler.Compile`, with `inexact_checks` naming pipelines whose checks' values are a
/// guessed spelling (their check ids are then not known).
pub fn compile(
    project: &Project,
    env: &Env,
    inexact_checks: &[String],
) -> Result<Dag, CompileFailure> {
    let mut rendered = Vec::with_capacity(project.pipelines.len());
    let mut errors = Vec::new();
    for pipeline in &project.pipelines {
        match render(pipeline, project, env) {
            Ok(r) => rendered.push(r),
            Err(RenderFailure::Gap(why)) => return Err(CompileFailure::Gap(why)),
            Err(RenderFailure::Errors(e)) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(CompileFailure::Errors(order::order_errors(errors)));
    }
    let mut work = Work {
        project,
        rendered,
        connections: Vec::new(),
        inexact: Vec::new(),
        notices: Vec::new(),
        warnings: Vec::new(),
    };
    let fail = CompileFailure::Errors;
    bindings::extract_sink_prefixes(&mut work).map_err(fail)?;
    bindings::synthesize_connections(&mut work).map_err(fail)?;
    validate::independent_stages(&mut work).map_err(|e| fail(order::order_errors(e)))?;
    let claims = bindings::resolve_sinks(&mut work).map_err(fail)?;
    let readers = validate::single_readers(&work).map_err(fail)?;
    let incremental = validate::watermark_inference(&mut work);
    let built =
        nodes::build(&work, &claims, &readers, &incremental, inexact_checks).map_err(fail)?;
    validate::pairing_matrices(&work, &built).map_err(|e| fail(order::order_errors(e)))?;
    validate::dead_leaves(&mut work, &built);
    let order = order::topological(&built.nodes).map_err(|e| fail(vec![e]))?;
    let nodes = reorder(built.nodes, &order);
    validate::effectively_once_notices(&mut work, &nodes, &built.auto_sources);
    let mut warnings = project.warnings.clone();
    warnings.append(&mut work.warnings);
    Ok(Dag {
        nodes,
        connections: work.connections,
        warnings,
        notices: work.notices,
        inexact: work.inexact,
    })
}

/// The nodes in `order`, dependencies renumbered and sorted by id.
fn reorder(nodes: Vec<Node>, order: &[usize]) -> Vec<Node> {
    let mut position = vec![0; nodes.len()];
    for (new, old) in order.iter().enumerate() {
        position[*old] = new;
    }
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    let mut out: Vec<Node> = order.iter().filter_map(|i| slots[*i].take()).collect();
    for node in &mut out {
        node.depends_on = node.depends_on.iter().map(|d| position[*d]).collect();
    }
    sort_dependencies(&mut out);
    out
}

/// `ResolveDependsOn`: each dependency list deduplicated and sorted by id (ordinal).
pub fn sort_dependencies(nodes: &mut [Node]) {
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    for node in nodes.iter_mut() {
        node.depends_on
            .sort_by(|a, b| ids[*a].cmp(&ids[*b]).then(a.cmp(b)));
        node.depends_on.dedup();
    }
}

/// Whether a dataset is read incrementally by an explicit `sync: {mode: incremental}`.
pub(crate) fn is_incremental(sync: &Option<SyncMode>) -> bool {
    matches!(sync, Some(SyncMode::Incremental { .. }))
}
