//! plan_joins: how to join a set of tables, from the print's own evidence. The join graph
//! (`graph`, one per content of the print's relationships) is searched for the cheapest
//! tree connecting every requested table (`steiner`), each hop priced by `cost`; the answer
//! says each hop in words (`words`), as a SQL skeleton (`sql`), with up to three
//! alternatives within 10% of the best, or, when no tree exists, which requested tables
//! fall into which disconnected groups and what each group does reach. `names` resolves
//! what the agent wrote; `erd` picks the part of the graph a diagram draws.

pub mod cost;
pub mod erd;
pub mod graph;
pub mod names;
mod sql;
pub mod steiner;
#[cfg(test)]
mod tests;
pub mod words;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::error::QueryError;
use crate::query::pins::Pins;
use crate::query::validate_sql::catalog::{self, Catalog};
use crate::store::Snapshot;
use cost::Cardinality;
use graph::Graph;
use steiner::{Limits, Method, Search, Tree};

/// Alternatives reported at most.
pub const ALTERNATIVES: usize = 3;
/// How much dearer than the best an alternative may be.
pub const WITHIN: f64 = 0.10;
/// Tables one plan joins at most.
pub const MAX_TABLES: usize = 12;
/// `max_hops` when the call does not say.
pub const DEFAULT_MAX_HOPS: usize = 4;

/// What the agent asked.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Table names, the first being the root.
    pub tables: Vec<String>,
    /// `<table>.<column>` entries the query must reach.
    pub columns: Vec<String>,
    /// Tables the plan must not pass through.
    pub avoid: Vec<String>,
    /// Joins allowed per requested table beyond the first.
    pub max_hops: usize,
}

/// One join of a plan: `from` (already in the plan) to `to`.
#[derive(Debug, Clone)]
pub struct Hop {
    pub edge: usize,
    pub from: usize,
    pub to: usize,
    /// `from` is the referencing (child) table.
    pub up: bool,
    pub cardinality: Cardinality,
    /// The key column pairs, `from`'s column then `to`'s, in the edge's order.
    pub keys: Vec<(String, String)>,
    pub cost: f64,
    /// An inner join would drop rows already in the plan (or `from` came by a LEFT JOIN).
    pub left_join: bool,
    pub verdict: String,
}

/// A tree as hops in join order (breadth first from the root, siblings by name).
#[derive(Debug, Clone)]
pub struct Planned {
    pub hops: Vec<Hop>,
    pub cost: f64,
    pub sql: String,
}

/// An alternative tree and how it differs from the best.
#[derive(Debug, Clone)]
pub struct Alternative {
    pub planned: Planned,
    pub why: String,
}

/// The answer.
#[derive(Debug, Clone)]
pub struct Plan {
    pub connection: String,
    pub dialect: &'static str,
    pub graph: Arc<Graph>,
    /// The requested tables, each once, in the order asked (the root first).
    pub requested: Vec<usize>,
    /// Tables the plan passes through that were not asked for.
    pub added: Vec<usize>,
    pub columns: Vec<(usize, String)>,
    pub best: Planned,
    pub alternatives: Vec<Alternative>,
    pub method: Method,
    pub pins: Pins,
    /// The catalog the plan was checked against (column spellings and types), when at hand.
    pub catalog: Option<Arc<Catalog>>,
}

impl Plan {
    pub fn root(&self) -> usize {
        self.requested[0]
    }
}

/// Plan `request` over `state`'s print.
pub fn answer(state: &Snapshot, request: &Request) -> Result<Plan, QueryError> {
    state.manifest_or_error()?;
    let graph = graph::graph(state)?;
    let cat = catalog::catalog(state)?;
    let manifest = state.version_of(&state.manifest_path());
    let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let pins = Pins::of(&[
        ("manifest.yaml".into(), manifest),
        (
            "relationships.yaml".into(),
            hex(state.versions.named("relationships.yaml")),
        ),
        (
            "relationships.annotations.yaml".into(),
            hex(state.versions.named("relationships.annotations.yaml")),
        ),
    ]);
    let mut plan = plan(graph, Some(cat), &state.config.name, request)?;
    plan.pins = pins;
    Ok(plan)
}

/// Plan `request` over a graph (its catalog, when at hand, spells columns and checks them).
pub fn plan(
    graph: Arc<Graph>,
    catalog: Option<Arc<Catalog>>,
    connection: &str,
    request: &Request,
) -> Result<Plan, QueryError> {
    let g = graph.as_ref();
    let cat = catalog.as_deref();
    let Resolved {
        requested,
        columns,
        blocked,
        avoided,
    } = resolve(g, cat, connection, request)?;
    let limits = Limits {
        blocked: &blocked,
        banned: &[],
    };
    let root = requested[0];
    let mut search = Search::new(g.len());
    let first = match steiner::heuristic(g, &mut search, root, &requested, &limits, None) {
        Ok(tree) => tree,
        Err(_) => return Err(no_path(g, &requested, &avoided)),
    };
    let bound = first.cost * (1.0 + WITHIN);
    let region = steiner::region(g, &mut search, root, &requested, bound, &limits);
    let inside = {
        let mut inside = vec![false; g.len()];
        for &v in &region {
            inside[v] = true;
        }
        inside
    };
    let terminals = requested.len() - 1;
    let exact = steiner::exact_fits(terminals, region.len());
    let solve = |banned: &[u32], exact: bool, search: &mut Search| -> Option<Tree> {
        let limits = Limits {
            blocked: &blocked,
            banned,
        };
        if exact {
            steiner::exact(g, &region, root, &requested, &limits)
        } else {
            steiner::heuristic(g, search, root, &requested, &limits, Some(&inside)).ok()
        }
    };
    let best = if exact {
        solve(&[], true, &mut search).unwrap_or(first)
    } else {
        first
    };
    let method = if exact {
        Method::Exact
    } else {
        Method::Heuristic
    };
    let allowed = request.max_hops.max(1) * terminals;
    if best.arcs.len() > allowed {
        let hops = planned(g, cat, root, &best, &columns).hops;
        return Err(too_many_hops(g, &hops, request.max_hops.max(1), terminals));
    }
    // Alternatives: the best tree with one of its edges left out, each solved again.
    let edges = best.edge_set();
    let each_exact = exact && steiner::exact_fits(terminals, region.len() * edges.len().max(1));
    let mut others: Vec<Tree> = Vec::new();
    for &e in &edges {
        let Some(tree) = solve(&[e], each_exact, &mut search) else {
            continue;
        };
        let set = tree.edge_set();
        let fresh = set != edges && others.iter().all(|o| o.edge_set() != set);
        if fresh && tree.cost <= best.cost * (1.0 + WITHIN) + 1e-9 && tree.arcs.len() <= allowed {
            others.push(tree);
        }
    }
    others.sort_by(|a, b| {
        a.cost
            .total_cmp(&b.cost)
            .then(a.arcs.len().cmp(&b.arcs.len()))
    });
    others.truncate(ALTERNATIVES);
    let best_planned = planned(g, cat, root, &best, &columns);
    let alternatives = others
        .iter()
        .map(|t| Alternative {
            why: differs(g, &best, t),
            planned: planned(g, cat, root, t, &columns),
        })
        .collect();
    let mut added: Vec<usize> = best_planned
        .hops
        .iter()
        .map(|h| h.to)
        .filter(|v| !requested.contains(v))
        .collect();
    added.sort_unstable_by(|a, b| g.tables[*a].cmp(&g.tables[*b]));
    Ok(Plan {
        connection: connection.to_string(),
        dialect: g.adapter.name(),
        graph: graph.clone(),
        requested,
        added,
        columns,
        best: best_planned,
        alternatives,
        method,
        pins: Pins::none(),
        catalog,
    })
}

/// A request's names resolved: the requested tables (each once, the root first), the
/// columns, and the avoided tables (as a mask and sorted).
struct Resolved {
    requested: Vec<usize>,
    columns: Vec<(usize, String)>,
    blocked: Vec<bool>,
    avoided: Vec<usize>,
}

fn resolve(
    g: &Graph,
    cat: Option<&Catalog>,
    connection: &str,
    request: &Request,
) -> Result<Resolved, QueryError> {
    let mut requested: Vec<usize> = Vec::new();
    for name in &request.tables {
        let v = names::table(g, name, connection, "table")?;
        if !requested.contains(&v) {
            requested.push(v);
        }
    }
    let mut columns = Vec::new();
    for entry in &request.columns {
        let (v, column) = match cat {
            Some(cat) => names::column(g, cat, entry, connection)?,
            None => {
                let (table, column) = entry.rsplit_once('.').unwrap_or(("", entry));
                (
                    names::table(g, table, connection, "columns entry's table")?,
                    column.to_lowercase(),
                )
            }
        };
        if !requested.contains(&v) {
            requested.push(v);
        }
        columns.push((v, column));
    }
    if requested.len() > MAX_TABLES {
        return Err(QueryError::InvalidArgument(format!(
            "tables and columns name {} tables: plan_joins joins at most {MAX_TABLES} at once.",
            requested.len()
        )));
    }
    if requested.len() < 2 {
        let only = requested
            .first()
            .map(|&v| g.tables[v].as_str())
            .unwrap_or("");
        return Err(QueryError::InvalidArgument(format!(
            "tables and columns name only {only}: plan_joins joins two or more different tables."
        )));
    }
    let mut blocked = vec![false; g.len()];
    let mut avoided = Vec::new();
    for name in &request.avoid {
        let v = names::table(g, name, connection, "avoid entry")?;
        if requested.contains(&v) {
            return Err(QueryError::InvalidArgument(format!(
                "{} is both requested and to be avoided: leave it out of avoid, or out of tables and columns.",
                g.tables[v]
            )));
        }
        blocked[v] = true;
        avoided.push(v);
    }
    avoided.sort_unstable();
    Ok(Resolved {
        requested,
        columns,
        blocked,
        avoided,
    })
}

/// A tree's hops in join order, said and written.
fn planned(
    g: &Graph,
    cat: Option<&Catalog>,
    root: usize,
    tree: &Tree,
    columns: &[(usize, String)],
) -> Planned {
    let mut out_of: HashMap<usize, Vec<&steiner::TreeArc>> = HashMap::new();
    for a in &tree.arcs {
        out_of.entry(a.from).or_default().push(a);
    }
    let mut hops: Vec<Hop> = Vec::new();
    let mut left: HashMap<usize, bool> = HashMap::from([(root, false)]);
    let mut queue = VecDeque::from([root]);
    while let Some(v) = queue.pop_front() {
        let mut next = out_of.remove(&v).unwrap_or_default();
        next.sort_by(|a, b| {
            g.tables[a.to()]
                .cmp(&g.tables[b.to()])
                .then(a.step.edge.cmp(&b.step.edge))
        });
        for a in next {
            let e = &g.edges[a.step.edge as usize];
            let up = a.step.up;
            let keys: Vec<(String, String)> = if up {
                e.child_columns
                    .iter()
                    .cloned()
                    .zip(e.parent_columns.iter().cloned())
                    .collect()
            } else {
                e.parent_columns
                    .iter()
                    .cloned()
                    .zip(e.child_columns.iter().cloned())
                    .collect()
            };
            let loses = words::lost_share(up, e.observed.as_ref()).is_some();
            let left_join = loses || left.get(&v).copied().unwrap_or(false);
            left.insert(a.to(), left_join);
            hops.push(Hop {
                edge: a.step.edge as usize,
                from: v,
                to: a.to(),
                up,
                cardinality: Cardinality::of(up, e.observed.as_ref()),
                keys,
                cost: a.step.cost,
                left_join,
                verdict: words::verdict(g, e, up),
            });
            queue.push_back(a.to());
        }
    }
    let sql = sql::skeleton(g, cat, root, &hops, columns);
    Planned {
        hops,
        cost: tree.cost,
        sql,
    }
}

/// A hop in prose: `loans -> copies on book_id, copy_no (declared)`.
fn hop_words(g: &Graph, a: &steiner::TreeArc) -> String {
    let e = &g.edges[a.step.edge as usize];
    let columns = if a.step.up {
        &e.child_columns
    } else {
        &e.parent_columns
    };
    format!(
        "{} -> {} on {} ({})",
        short(g, a.from),
        short(g, a.to()),
        columns.join(", "),
        e.detection.name()
    )
}

/// A table's name without the database every table shares.
pub fn short(g: &Graph, v: usize) -> String {
    let fqn = &g.tables[v];
    match (&g.only_database, fqn.split_once('.')) {
        (Some(db), Some((first, rest))) if g.adapter.stored_name(first) == *db => rest.to_string(),
        _ => fqn.clone(),
    }
}

/// How `other` differs from `best`: the hops it takes instead, and its extra cost.
fn differs(g: &Graph, best: &Tree, other: &Tree) -> String {
    let in_best: Vec<u32> = best.edge_set();
    let in_other: Vec<u32> = other.edge_set();
    let only = |tree: &Tree, not: &[u32]| -> Vec<String> {
        tree.arcs
            .iter()
            .filter(|a| !not.contains(&a.step.edge))
            .map(|a| hop_words(g, a))
            .collect()
    };
    let takes = only(other, &in_best);
    let instead = only(best, &in_other);
    let dearer = if best.cost > 0.0 {
        (other.cost / best.cost - 1.0).max(0.0)
    } else {
        0.0
    };
    format!(
        "joins {} instead of {}; costs {} more",
        takes.join(", "),
        instead.join(", "),
        words::percent(dearer)
    )
}

/// The error when the best tree needs more joins than `max_hops` allows, with the value
/// that would accept it.
fn too_many_hops(g: &Graph, hops: &[Hop], max_hops: usize, terminals: usize) -> QueryError {
    let needed = hops.len().div_ceil(terminals.max(1));
    let path: Vec<String> = hops
        .iter()
        .map(|h| {
            let e = &g.edges[h.edge];
            let columns: Vec<&str> = h.keys.iter().map(|k| k.0.as_str()).collect();
            format!(
                "{} -> {} on {} ({})",
                short(g, h.from),
                short(g, h.to),
                columns.join(", "),
                e.detection.name()
            )
        })
        .collect();
    let allowed = max_hops * terminals;
    QueryError::Other(format!(
        "the cheapest plan needs {} joins, more than max_hops {max_hops} allows for {} tables ({allowed} join{}): {}. Pass max_hops {needed} to accept it.",
        hops.len(),
        terminals + 1,
        if allowed == 1 { "" } else { "s" },
        path.join(", ")
    ))
}

/// Tables each group of requested tables reaches, listed at most.
const NEAREST: usize = 5;

/// The error when no tree exists: which requested tables fall into which disconnected
/// groups, and the nearest tables each group does reach.
fn no_path(g: &Graph, requested: &[usize], avoided: &[usize]) -> QueryError {
    let component = g.components(avoided);
    let mut groups: Vec<(u32, Vec<usize>)> = Vec::new();
    for &v in requested {
        match groups.iter_mut().find(|(c, _)| *c == component[v]) {
            Some((_, members)) => members.push(v),
            None => groups.push((component[v], vec![v])),
        }
    }
    let mut text = format!(
        "no join path connects every requested table: they fall into {} groups that no edge of the print links{}.",
        groups.len(),
        if avoided.is_empty() { "" } else { " without the avoided tables" }
    );
    for (i, (_, members)) in groups.iter().enumerate() {
        let names: Vec<String> = members.iter().map(|&v| short(g, v)).collect();
        let near = nearest(g, members, avoided);
        let reach = if near.is_empty() {
            "it joins no other table".to_string()
        } else {
            let listed: Vec<String> = near
                .iter()
                .map(|(v, hops)| {
                    format!(
                        "{} ({hops} join{})",
                        short(g, *v),
                        if *hops == 1 { "" } else { "s" }
                    )
                })
                .collect();
            format!("its nearest other tables: {}", listed.join(", "))
        };
        text.push_str(&format!(
            "\n- group {}: {}; {reach}",
            i + 1,
            names.join(", ")
        ));
    }
    if !avoided.is_empty() {
        let open = g.components(&[]);
        let joined = requested.iter().all(|&v| open[v] == open[requested[0]]);
        if joined {
            let names: Vec<String> = avoided.iter().map(|&v| short(g, v)).collect();
            text.push_str(&format!(
                "\nThey connect only through the avoided tables ({}): leave some out of avoid.",
                names.join(", ")
            ));
            return QueryError::Other(text);
        }
    }
    text.push_str(
        "\nPlan each group on its own, or ask for a table of each group that reaches the other.",
    );
    QueryError::Other(text)
}

/// The tables nearest to `members` (by joins), not among them, at most [`NEAREST`].
fn nearest(g: &Graph, members: &[usize], avoided: &[usize]) -> Vec<(usize, usize)> {
    let mut seen: HashMap<usize, usize> = members.iter().map(|&v| (v, 0)).collect();
    let mut queue: VecDeque<usize> = members.iter().copied().collect();
    let mut found: Vec<(usize, usize)> = Vec::new();
    while let Some(v) = queue.pop_front() {
        let hops = seen[&v];
        if hops >= 3 {
            continue;
        }
        for s in g.arcs(v) {
            let w = s.to as usize;
            if seen.contains_key(&w) || avoided.binary_search(&w).is_ok() {
                continue;
            }
            seen.insert(w, hops + 1);
            found.push((w, hops + 1));
            queue.push_back(w);
        }
    }
    found.sort_by(|a, b| {
        a.1.cmp(&b.1)
            .then_with(|| g.tables[a.0].cmp(&g.tables[b.0]))
    });
    found.truncate(NEAREST);
    found
}

/// The cheapest join path from table `a` to table `b` (at most [`DEFAULT_MAX_HOPS`]
/// joins) as JOIN clauses: each table after `a` joined in turn, `b` as `b_alias` names it
/// (when the query aliases it). `in_query` gives how the query already names a table it
/// holds (`a` among them): the clauses start from the last such table on the path, and the
/// tables between are written by name. validate_sql suggests it for a join the print knows
/// no edge for.
pub fn path_clauses(
    g: &Graph,
    a: usize,
    b: usize,
    b_alias: Option<&str>,
    in_query: &dyn Fn(usize) -> Option<String>,
) -> Option<String> {
    if a == b {
        return None;
    }
    let blocked = vec![false; g.len()];
    let limits = Limits {
        blocked: &blocked,
        banned: &[],
    };
    let mut search = Search::new(g.len());
    let tree = steiner::heuristic(g, &mut search, a, &[a, b], &limits, None).ok()?;
    if tree.arcs.is_empty() || tree.arcs.len() > DEFAULT_MAX_HOPS {
        return None;
    }
    // The arcs of a two-table tree are one path from `a`; in order.
    let mut path = Vec::new();
    let mut at = a;
    for _ in 0..tree.arcs.len() {
        let arc = *tree.arcs.iter().find(|x| x.from == at)?;
        path.push(arc);
        at = arc.to();
    }
    if at != b {
        return None;
    }
    let from = path
        .iter()
        .rposition(|x| x.from == a || (x.from != b && in_query(x.from).is_some()))?;
    let mut clauses = Vec::new();
    let mut at = path[from].from;
    let mut at_written = in_query(at)?;
    for arc in &path[from..] {
        let e = &g.edges[arc.step.edge as usize];
        let (here, there) = if arc.step.up {
            (&e.child_columns, &e.parent_columns)
        } else {
            (&e.parent_columns, &e.child_columns)
        };
        let next = arc.to();
        let name = sql::table_name(g, next);
        let (joined, next_written) = match (next == b, b_alias) {
            (true, Some(alias)) => (format!("{name} AS {alias}"), alias.to_string()),
            _ => (name.clone(), name),
        };
        let on: Vec<String> = here
            .iter()
            .zip(there)
            .map(|(h, t)| {
                format!(
                    "{next_written}.{} = {at_written}.{}",
                    g.adapter.written(&g.adapter.stored_column(t, None)),
                    g.adapter.written(&g.adapter.stored_column(h, None))
                )
            })
            .collect();
        clauses.push(format!("JOIN {joined} ON {}", on.join(" AND ")));
        at = next;
        at_written = next_written;
    }
    (at == b).then(|| clauses.join(" "))
}
