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
                .columns()?
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

/// The resource template a diagram around one table is read by (a scheme of printdex's
/// own, so it never meets dbprint's URIs).
pub const TEMPLATE: &str = "printdex://{connection}/erd/{table}{?depth}";
/// The scheme's prefix.
pub const SCHEME: &str = "printdex://";
/// The depth a URI without one draws.
pub const DEFAULT_DEPTH: usize = 1;

/// What an ERD resource URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErdUri {
    pub connection: String,
    pub table: String,
    pub depth: usize,
}

/// `printdex://<connection>/erd/<table>[?depth=N]`, or the exact error.
pub fn parse_uri(uri: &str) -> Result<ErdUri, crate::error::QueryError> {
    use crate::error::QueryError;
    let malformed = || {
        QueryError::InvalidArgument(format!(
            "URI {} does not match {TEMPLATE}.",
            compat::py::repr_str(uri)
        ))
    };
    let rest = uri.strip_prefix(SCHEME).ok_or_else(malformed)?;
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    let mut parts = path.split('/');
    let (Some(connection), Some("erd"), Some(table), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed());
    };
    if connection.is_empty() || table.is_empty() {
        return Err(malformed());
    }
    let mut depth = DEFAULT_DEPTH;
    for pair in query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key != "depth" {
            return Err(QueryError::InvalidArgument(format!(
                "URI {} takes no parameter {}: only depth.",
                compat::py::repr_str(uri),
                compat::py::repr_str(key)
            )));
        }
        depth = value
            .parse::<usize>()
            .ok()
            .filter(|d| (1..=MAX_DEPTH).contains(d))
            .ok_or_else(|| {
                QueryError::InvalidArgument(format!(
                    "depth {} in URI {} must be a whole number from 1 to {MAX_DEPTH}.",
                    compat::py::repr_str(value),
                    compat::py::repr_str(uri)
                ))
            })?;
    }
    Ok(ErdUri {
        connection: connection.to_string(),
        table: table.to_string(),
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erd_uris_name_a_connection_a_table_and_a_depth() {
        assert_eq!(
            parse_uri("printdex://library/erd/lending.loans?depth=2").unwrap(),
            ErdUri {
                connection: "library".into(),
                table: "lending.loans".into(),
                depth: 2
            }
        );
        assert_eq!(parse_uri("printdex://library/erd/loans").unwrap().depth, 1);
        let err = |u: &str| parse_uri(u).unwrap_err().to_string();
        assert_eq!(
            err("printdex://library/erd"),
            "URI 'printdex://library/erd' does not match printdex://{connection}/erd/{table}{?depth}."
        );
        assert_eq!(
            err("printdex://library/erd/loans?depth=9"),
            "depth '9' in URI 'printdex://library/erd/loans?depth=9' must be a whole number from 1 to 3."
        );
        assert_eq!(
            err("printdex://library/erd/loans?page=2"),
            "URI 'printdex://library/erd/loans?page=2' takes no parameter 'page': only depth."
        );
    }
}
