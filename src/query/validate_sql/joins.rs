//! Join keys against the print's edges. The equalities a join is made of (the ON clause's
//! `a.x = b.y` conjuncts, a USING list, and in WHERE those between two FROM items) are
//! grouped by the pair of relations they join; a group must hold every column pair of
//! some edge the print knows between the two tables behind them (declared, inferred or
//! measured, not rejected by a person, or added by one). A group holding part of an edge
//! joins on part of a key; one holding none joins on something the print never saw join.

use sqlparser::ast::{BinaryOperator, Expr, Spanned};
use sqlparser::tokenizer::Span;

use super::catalog::Edge;
use super::exprs;
use super::scope::{ColRef, Lookup, Relation, Scope, Source};
use super::walk::Walk;
use super::Kind;

/// One side of a join key: a relation of the FROM and one of its columns.
#[derive(Debug, Clone, Copy)]
pub struct JoinSide {
    pub rel: usize,
    /// The print column it is, if it passes one through unchanged.
    pub origin: Option<ColRef>,
}

impl JoinSide {
    pub fn new(rel: usize, relation: &Relation, col: usize) -> JoinSide {
        JoinSide {
            rel,
            origin: relation.columns.list[col].origin,
        }
    }
}

/// `a = b` between two columns of this FROM.
struct Pair {
    left: JoinSide,
    right: JoinSide,
    span: Span,
}

/// The conjuncts of `e` (`a AND (b AND c)` is three).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut out = conjuncts(left);
            out.extend(conjuncts(right));
            out
        }
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// The side a plain reference to a column of this FROM (not an enclosing one) is.
fn side(walk: &Walk, e: &Expr, scope: &Scope) -> Option<JoinSide> {
    match exprs::lookup(walk, e, scope)? {
        (
            Lookup::Column {
                depth: 0,
                rel,
                origin,
                ..
            },
            _,
        ) => Some(JoinSide { rel, origin }),
        _ => None,
    }
}

/// The column equalities among `e`'s conjuncts between two relations of this FROM.
fn pairs(walk: &Walk, e: &Expr, scope: &Scope) -> Vec<Pair> {
    conjuncts(e)
        .into_iter()
        .filter_map(|c| match c {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } => {
                let (l, r) = (side(walk, left, scope)?, side(walk, right, scope)?);
                (l.rel != r.rel).then(|| Pair {
                    left: l,
                    right: r,
                    span: c.span(),
                })
            }
            _ => None,
        })
        .collect()
}

/// An ON clause.
pub fn check_on(walk: &mut Walk, on: &Expr, scope: &Scope) {
    let found = pairs(walk, on, scope);
    check(walk, found, scope.relations);
}

/// A USING list: each name's two sides.
pub fn check_using(walk: &mut Walk, sides: Vec<(JoinSide, JoinSide, Span)>, rels: &[Relation]) {
    let found = sides
        .into_iter()
        .map(|(left, right, span)| Pair { left, right, span })
        .collect();
    check(walk, found, rels);
}

/// WHERE equalities joining two FROM items (`FROM a, b WHERE a.x = b.y`).
pub fn check_where(walk: &mut Walk, selection: &Expr, scope: &Scope, item_of: &[usize]) {
    let found: Vec<Pair> = pairs(walk, selection, scope)
        .into_iter()
        .filter(|p| item_of.get(p.left.rel) != item_of.get(p.right.rel))
        .collect();
    check(walk, found, scope.relations);
}

/// Each relation pair's keys against the edges between their tables.
fn check(walk: &mut Walk, found: Vec<Pair>, rels: &[Relation]) {
    let mut groups: Vec<((usize, usize), Vec<Pair>)> = Vec::new();
    for mut p in found {
        if p.left.rel > p.right.rel {
            std::mem::swap(&mut p.left, &mut p.right);
        }
        let key = (p.left.rel, p.right.rel);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(p),
            None => groups.push((key, vec![p])),
        }
    }
    for ((a, b), group) in groups {
        one_join(walk, &group, rels, a, b);
    }
}

/// The column pairs of an edge, as (table `a`'s column, table `b`'s column).
fn oriented(e: &Edge, a: usize, b: usize) -> Vec<Vec<(String, String)>> {
    let zip = |x: &[String], y: &[String]| -> Vec<(String, String)> {
        x.iter().cloned().zip(y.iter().cloned()).collect()
    };
    let mut out = Vec::new();
    if e.from == a && e.to == b {
        out.push(zip(&e.from_columns, &e.to_columns));
    }
    if e.from == b && e.to == a {
        out.push(zip(&e.to_columns, &e.from_columns));
    }
    out
}

fn one_join(walk: &mut Walk, group: &[Pair], rels: &[Relation], a: usize, b: usize) {
    let (ra, rb) = (&rels[a], &rels[b]);
    // Every key must lead to one print table per side, or the print cannot judge it.
    let origins: Option<Vec<(ColRef, ColRef)>> = group
        .iter()
        .map(|p| Some((p.left.origin?, p.right.origin?)))
        .collect();
    let Some(origins) = origins else { return };
    let (ta, tb) = (origins[0].0.table, origins[0].1.table);
    if origins.iter().any(|(x, y)| x.table != ta || y.table != tb) {
        return;
    }
    let cat = walk.cat;
    if !cat.tables[ta].joins_known && !cat.tables[tb].joins_known {
        return;
    }
    let name = |c: ColRef| cat.column(c.table, c.column).map(|c| c.name.clone());
    let keys: Option<Vec<(String, String)>> = origins
        .iter()
        .map(|(x, y)| Some((name(*x)?, name(*y)?)))
        .collect();
    let Some(keys) = keys else { return };
    // A table joined to itself on the same columns is the same rows, not a guess.
    if ta == tb && keys.iter().all(|(x, y)| x == y) {
        return;
    }
    let between: Vec<Edge> = cat.edges_between(ta, tb).collect();
    let edges: Vec<(&Edge, Vec<(String, String)>)> = between
        .iter()
        .flat_map(|e| oriented(e, ta, tb).into_iter().map(move |o| (e, o)))
        .collect();
    if edges
        .iter()
        .any(|(_, pairs)| pairs.iter().all(|p| keys.contains(p)))
    {
        return;
    }
    let partial = edges
        .iter()
        .find(|(_, pairs)| pairs.iter().any(|p| keys.contains(p)));
    let rejected = cat
        .rejected_between(ta, tb)
        .flat_map(|e| oriented(e, ta, tb).into_iter().map(move |o| (e, o)))
        .find(|(_, pairs)| pairs.iter().all(|p| keys.contains(p)))
        .map(|(e, _)| e);
    let (fa, fb) = (&cat.tables[ta].fqn, &cat.tables[tb].fqn);
    let shown_keys: Vec<String> = keys.iter().map(|(x, y)| format!("{x} = {y}")).collect();
    let on = shown_keys.join(" and ");
    let listed = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(x, y)| format!("{x} = {y}"))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let message = match (rejected, partial) {
        (Some(edge), _) => format!(
            "joins {fa} to {fb} on {on}, an edge a person rejected{}",
            edge.note
                .as_ref()
                .map(|n| format!(": \"{n}\""))
                .unwrap_or_default()
        ),
        (None, partial) => match partial {
        Some((edge, pairs)) => format!(
            "joins {fa} to {fb} on {on}, only part of their {} edge ({}): each row meets every row sharing that part of the key",
            edge.detection,
            listed(pairs)
        ),
        None if edges.is_empty() => format!(
            "joins {fa} to {fb} on {on}, but the print records no edge between the two tables{}",
            shared_parent(walk, ta, tb, &keys)
        ),
        None => format!(
            "joins {fa} to {fb} on {on}, which is no edge the print records; their edges: {}",
            edges
                .iter()
                .map(|(e, pairs)| format!("{} ({})", listed(pairs), e.detection))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        },
    };
    let mut suggestions: Vec<String> = Vec::new();
    for (_, pairs) in &edges {
        if let Some(s) = condition(walk, pairs, ra, rb, ta, tb) {
            if !suggestions.contains(&s) {
                suggestions.push(s);
            }
        }
    }
    if edges.is_empty() {
        if let Some(path) = planned_path(walk, ta, tb, ra, rels, b) {
            suggestions.push(path);
        }
    }
    let first = group[0].span;
    let span = group.iter().fold(first, |s, p| s.union(&p.span));
    let fallback = shown_keys.join(" AND ");
    walk.report(Kind::UnknownJoin, span, &fallback, message, suggestions);
}

/// When both sides of every key refer to one table by those columns (two children of one
/// parent), the words saying so: such a join pairs every child row of a parent with every
/// other child row of it.
fn shared_parent(walk: &Walk, ta: usize, tb: usize, keys: &[(String, String)]) -> String {
    let cat = walk.cat;
    let columns_a: Vec<String> = keys.iter().map(|(x, _)| x.clone()).collect();
    let columns_b: Vec<String> = keys.iter().map(|(_, y)| y.clone()).collect();
    for ea in cat.edges_from(ta).filter(|e| e.from_columns == columns_a) {
        let shared = cat.edges_from(tb).any(|eb| {
            eb.from_columns == columns_b && eb.to == ea.to && eb.to_columns == ea.to_columns
        });
        if shared && ea.to != ta && ea.to != tb {
            return format!(
                "; both refer to {} by these columns, so each row meets every row sharing that parent: join each table to {} instead",
                cat.tables[ea.to].fqn, cat.tables[ea.to].fqn
            );
        }
    }
    String::new()
}

/// An edge written as a join condition over the query's own relations, when both carry
/// the edge's columns.
fn condition(
    walk: &Walk,
    pairs: &[(String, String)],
    ra: &Relation,
    rb: &Relation,
    ta: usize,
    tb: usize,
) -> Option<String> {
    let column = |rel: &Relation, table: usize, name: &str| -> Option<String> {
        let col = walk.cat.tables[table]
            .columns()?
            .iter()
            .position(|c| c.name == name)?;
        let out = rel
            .columns
            .list
            .iter()
            .find(|c| c.origin == Some(ColRef { table, column: col }))?;
        Some(if rel.written.is_empty() {
            out.written.clone()
        } else {
            format!("{}.{}", rel.written, out.written)
        })
    };
    let parts: Option<Vec<String>> = pairs
        .iter()
        .map(|(x, y)| Some(format!("{} = {}", column(ra, ta, x)?, column(rb, tb, y)?)))
        .collect();
    Some(parts?.join(" AND "))
}

/// The join path plan_joins finds from `ta` (as `ra` is written) to `tb` (relation `b`,
/// aliased as it is), as JOIN clauses to write instead of this join; tables the FROM
/// already holds on the way are named as it names them.
fn planned_path(
    walk: &Walk,
    ta: usize,
    tb: usize,
    ra: &Relation,
    rels: &[Relation],
    b: usize,
) -> Option<String> {
    let graph = walk.graph();
    if graph.tables.get(ta) != Some(&walk.cat.tables[ta].fqn)
        || graph.tables.get(tb) != Some(&walk.cat.tables[tb].fqn)
    {
        return None;
    }
    let rb = &rels[b];
    let alias = rb.aliased.then_some(rb.written.as_str());
    let in_query = |t: usize| -> Option<String> {
        if t == ta {
            return Some(ra.written.clone());
        }
        rels.iter()
            .enumerate()
            .find(|(i, r)| *i != b && matches!(r.source, Source::Table(x) if x == t))
            .map(|(_, r)| r.written.clone())
    };
    crate::query::plan_joins::path_clauses(graph, ta, tb, alias, &in_query)
}
