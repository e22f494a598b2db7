//! The part of the join graph a diagram draws: the tables around one table (every table
//! within `depth` joins), a list of tables and the edges among them, a plan's own tree, or
//! the whole print. Each table is drawn with its key columns: those its drawn edges join
//! on, marked as referencing (FK) or referenced (PK), with their SQL types when the
//! print records them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::graph::Graph;
use crate::query::validate_sql::catalog::Catalog;

/// Tables a diagram around one table draws at most: past it the nearest are kept and the
/// rest counted.
pub const MAX_AROUND: usize = 80;
/// The deepest `depth` a diagram around a table takes.
pub const MAX_DEPTH: usize = 3;

/// A key column of a drawn table.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyColumn {
    pub name: String,
    pub sql_type: Option<String>,
    /// It refers to another table's key.
    pub referencing: bool,
    /// Another table's key refers to it.
    pub referenced: bool,
}

/// What a diagram draws.
#[derive(Debug, Clone)]
pub struct Diagram {
    pub graph: Arc<Graph>,
    /// The drawn tables, by node, in FQN order.
    pub tables: Vec<usize>,
    /// Each drawn table's key columns, in the order its edges name them.
    pub keys: Vec<Vec<KeyColumn>>,
    /// The drawn edges (graph edge indices), in the graph's order.
    pub edges: Vec<usize>,
    /// Tables within reach left out by [`MAX_AROUND`].
    pub left_out: usize,
}

impl Diagram {
    /// The diagram of `tables` and the `edges` given.
    pub fn of(
        graph: Arc<Graph>,
        cat: Option<&Catalog>,
        mut tables: Vec<usize>,
        edges: Vec<usize>,
    ) -> Diagram {
        tables.sort_by(|a, b| graph.tables[*a].cmp(&graph.tables[*b]));
        tables.dedup();
        let at: HashMap<usize, usize> = tables.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut keys: Vec<Vec<KeyColumn>> = vec![Vec::new(); tables.len()];
        let sql_type = |v: usize, column: &str| -> Option<String> {
            cat?.tables
                .get(v)
                .filter(|t| t.fqn == graph.tables[v])?
                .columns
                .as_ref()?
                .iter()
                .find(|c| c.name == column)?
                .sql_type
                .clone()
        };
        let mut mark = |v: usize, column: &str, referencing: bool| {
            let Some(&i) = at.get(&v) else { return };
            match keys[i].iter_mut().find(|k| k.name == column) {
                Some(k) => {
                    k.referencing |= referencing;
                    k.referenced |= !referencing;
                }
                None => keys[i].push(KeyColumn {
                    name: column.to_string(),
                    sql_type: sql_type(v, column),
                    referencing,
                    referenced: !referencing,
                }),
            }
        };
        for &e in &edges {
            let edge = &graph.edges[e];
            for c in &edge.child_columns {
                mark(edge.child, c, true);
            }
            for c in &edge.parent_columns {
                mark(edge.parent, c, false);
            }
        }
        Diagram {
            graph,
            tables,
            keys,
            edges,
            left_out: 0,
        }
    }

    /// `tables` and every edge among them.
    pub fn among(graph: Arc<Graph>, cat: Option<&Catalog>, tables: Vec<usize>) -> Diagram {
        let edges = edges_among(&graph, &tables);
        Diagram::of(graph, cat, tables, edges)
    }

    /// Every table within `depth` joins of `center` (the nearest [`MAX_AROUND`]), and every
    /// edge among them.
    pub fn around(
        graph: Arc<Graph>,
        cat: Option<&Catalog>,
        center: usize,
        depth: usize,
    ) -> Diagram {
        let mut seen: HashMap<usize, usize> = HashMap::from([(center, 0)]);
        let mut order = vec![center];
        let mut queue = VecDeque::from([center]);
        let mut left_out = 0;
        while let Some(v) = queue.pop_front() {
            let d = seen[&v];
            if d >= depth {
                continue;
            }
            let mut next: Vec<usize> = graph.arcs(v).iter().map(|s| s.to as usize).collect();
            next.sort_by(|a, b| graph.tables[*a].cmp(&graph.tables[*b]));
            next.dedup();
            for w in next {
                if seen.contains_key(&w) {
                    continue;
                }
                seen.insert(w, d + 1);
                if order.len() < MAX_AROUND {
                    order.push(w);
                    queue.push_back(w);
                } else {
                    left_out += 1;
                }
            }
        }
        let mut diagram = Diagram::among(graph, cat, order);
        diagram.left_out = left_out;
        diagram
    }

    /// Every table and edge of the print.
    pub fn whole(graph: Arc<Graph>, cat: Option<&Catalog>) -> Diagram {
        let tables: Vec<usize> = (0..graph.len()).collect();
        let edges: Vec<usize> = (0..graph.edges.len()).collect();
        Diagram::of(graph, cat, tables, edges)
    }
}

/// The edges whose both ends are among `tables` (a table's references to itself too).
fn edges_among(graph: &Graph, tables: &[usize]) -> Vec<usize> {
    let mut inside = vec![false; graph.len()];
    for &v in tables {
        inside[v] = true;
    }
    graph
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| inside[e.child] && inside[e.parent])
        .map(|(i, _)| i)
        .collect()
}
