//! The join graph of a whole print: every table validate_sql's catalog names, every edge it
//! read (declared, inferred, measured and people's added edges, people's rejections
//! withheld, their confirmations and each edge's `observed` block kept), each edge walkable
//! both ways at the price [`super::cost`] sets. Built once per content of what it derives
//! from (the manifest, every relationships.yaml and every relationships.annotations.yaml)
//! and kept in the snapshot's cache, so a plan never reads a file.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cost::{self, Detection, Evidence};
use crate::error::QueryError;
use crate::query::validate_sql::catalog::{self, Catalog, Observed};
use crate::query::validate_sql::dialect::Adapter;
use crate::store::cache::Key;
use crate::store::derived::Kept;
use crate::store::Snapshot;

/// An edge of the graph: `child.child_columns` refers to `parent.parent_columns`, pairwise.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinEdge {
    pub child: usize,
    pub parent: usize,
    pub child_columns: Vec<String>,
    pub parent_columns: Vec<String>,
    pub detection: Detection,
    /// A person's annotation addresses this emitted edge without rejecting it.
    pub confirmed: bool,
    pub observed: Option<Observed>,
    /// A person's note on it.
    pub note: Option<String>,
}

impl JoinEdge {
    pub fn evidence(&self) -> Evidence<'_> {
        Evidence {
            detection: self.detection,
            confirmed: self.confirmed,
            observed: self.observed.as_ref(),
        }
    }

    /// The table a walk from `from` along this edge reaches.
    pub fn other(&self, from: usize) -> usize {
        if from == self.child {
            self.parent
        } else {
            self.child
        }
    }
}

/// One way along an edge, out of the node whose list holds it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Step {
    pub to: u32,
    pub edge: u32,
    /// From the child to the parent.
    pub up: bool,
    /// The cost of this way.
    pub cost: f64,
    /// The cost of the way back (from `to` to this node).
    pub back: f64,
}

/// The print's join graph.
#[derive(Debug, Serialize, Deserialize)]
pub struct Graph {
    pub adapter: Adapter,
    /// The first FQN segment, when every table shares it (left out of SQL names).
    pub only_database: Option<String>,
    /// Each table's FQN, by node.
    pub tables: Vec<String>,
    pub edges: Vec<JoinEdge>,
    /// Node `v`'s arcs are `arcs[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    arcs: Vec<Step>,
    /// Every dotted suffix of every FQN (lowercase) -> the tables it names.
    suffixes: HashMap<String, Vec<u32>>,
    /// Each node's connected component (edges walked either way).
    component: Vec<u32>,
}

impl Graph {
    /// The graph over a catalog's tables and edges.
    pub fn of(cat: &Catalog) -> Graph {
        let tables: Vec<String> = cat.tables.iter().map(|t| t.fqn.clone()).collect();
        let edges: Vec<JoinEdge> = cat
            .edges()
            .map(|e| JoinEdge {
                child: e.from,
                parent: e.to,
                child_columns: e.from_columns,
                parent_columns: e.to_columns,
                detection: Detection::of(&e.detection),
                confirmed: e.confirmed,
                observed: e.observed,
                note: e.note,
            })
            .collect();
        let n = tables.len();
        let mut degree = vec![0u32; n + 1];
        for e in edges.iter().filter(|e| e.child != e.parent) {
            degree[e.child] += 1;
            degree[e.parent] += 1;
        }
        let mut start = vec![0u32; n + 1];
        for v in 0..n {
            start[v + 1] = start[v] + degree[v];
        }
        let mut fill = start.clone();
        let placeholder = Step {
            to: 0,
            edge: 0,
            up: true,
            cost: 0.0,
            back: 0.0,
        };
        let mut arcs = vec![placeholder; start[n] as usize];
        for (i, e) in edges.iter().enumerate() {
            if e.child == e.parent {
                continue;
            }
            let up = cost::hop(&e.evidence(), true);
            let down = cost::hop(&e.evidence(), false);
            arcs[fill[e.child] as usize] = Step {
                to: e.parent as u32,
                edge: i as u32,
                up: true,
                cost: up,
                back: down,
            };
            fill[e.child] += 1;
            arcs[fill[e.parent] as usize] = Step {
                to: e.child as u32,
                edge: i as u32,
                up: false,
                cost: down,
                back: up,
            };
            fill[e.parent] += 1;
        }
        let mut suffixes: HashMap<String, Vec<u32>> = HashMap::new();
        for (v, fqn) in tables.iter().enumerate() {
            let lower = fqn.to_lowercase();
            let mut at = 0;
            loop {
                suffixes
                    .entry(lower[at..].to_string())
                    .or_default()
                    .push(v as u32);
                match lower[at..].find('.') {
                    Some(dot) => at += dot + 1,
                    None => break,
                }
            }
        }
        for nodes in suffixes.values_mut() {
            nodes.dedup();
        }
        let mut graph = Graph {
            adapter: cat.adapter,
            only_database: cat.only_database.clone(),
            tables,
            edges,
            start,
            arcs,
            suffixes,
            component: Vec::new(),
        };
        graph.component = graph.components(&[]);
        graph
    }

    pub fn len(&self) -> usize {
        self.tables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The arcs out of `v`.
    pub fn arcs(&self, v: usize) -> &[Step] {
        &self.arcs[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// The tables a lowercase dotted suffix names.
    pub fn named(&self, suffix: &str) -> &[u32] {
        self.suffixes
            .get(suffix)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Each node's connected component when the `blocked` nodes (sorted) are left out
    /// (a blocked node is its own component).
    pub fn components(&self, blocked: &[usize]) -> Vec<u32> {
        if blocked.is_empty() && self.component.len() == self.len() {
            return self.component.clone();
        }
        let n = self.len();
        let mut component = vec![u32::MAX; n];
        let mut stack = Vec::new();
        let mut next = 0u32;
        for s in 0..n {
            if component[s] != u32::MAX {
                continue;
            }
            component[s] = next;
            if blocked.binary_search(&s).is_err() {
                stack.push(s);
            }
            while let Some(v) = stack.pop() {
                for a in self.arcs(v) {
                    let w = a.to as usize;
                    if component[w] == u32::MAX && blocked.binary_search(&w).is_err() {
                        component[w] = next;
                        stack.push(w);
                    }
                }
            }
            next += 1;
        }
        component
    }

    /// Each node's component, unblocked.
    pub fn component(&self, v: usize) -> u32 {
        self.component[v]
    }
}

/// The graph of `state`'s print, built once per content of its manifest and its
/// relationships files (people's included) from validate_sql's catalog.
pub fn graph(state: &Snapshot) -> Result<Arc<Graph>, QueryError> {
    let (scope, key) = graph_keys(state);
    // The connection's current graph, kept on disk for the processes after this one.
    state.kept(
        scope,
        key,
        |_| true,
        || {
            let cat = catalog::catalog(state)?;
            Ok(Graph::of(&cat))
        },
    )
}

/// Whether the graph of `state`'s print is held or kept on disk already.
pub fn is_kept(state: &Snapshot) -> bool {
    let (scope, key) = graph_keys(state);
    state.is_kept(&scope, &key)
}

impl Kept for Graph {
    const ENCODING: u32 = 1;
}

/// The graph's scope (the connection's print) and key (what it derives from).
fn graph_keys(state: &Snapshot) -> (Key, Key) {
    let adapter = catalog::adapter_of(state);
    let manifest = state.version_of(&state.manifest_path());
    let relationships = state.versions.named("relationships.yaml");
    let annotations = state.versions.named("relationships.annotations.yaml");
    let key = Key::new(
        "plan_joins graph",
        [
            state.config.print_root.as_os_str().as_encoded_bytes(),
            manifest.as_bytes(),
            relationships.as_slice(),
            annotations.as_slice(),
            adapter.name().as_bytes(),
        ],
    );
    let scope = Key::new(
        "plan_joins graph of",
        [state.config.print_root.as_os_str().as_encoded_bytes()],
    );
    (scope, key)
}
