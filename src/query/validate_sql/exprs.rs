//! Expressions in a scope: every column reference looked up (a miss, an ambiguity or an
//! unknown qualifier is a finding), every comparison of a column with a literal handed to
//! the literal checks, and every subquery walked with this scope as its outer one.
//! sqlparser's visitor reaches every expression; a subquery's own expressions are the
//! nested walk's, so they are skipped here.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    AccessExpr, Expr, FunctionArg, FunctionArguments, Ident, Query, Visit, Visitor,
};
use sqlparser::tokenizer::Span;

use super::literals;
use super::scope::{self, ColRef, Lookup, Scope};
use super::suggest::{closest, LIMIT};
use super::walk::{describe, Ctes, Walk};
use super::Kind;

/// Names that read as columns but are the database's own: niladic functions some dialects
/// write without parentheses, and date parts passed as bare words (`DATEADD(day, ...)`).
/// A miss on one of these is not reported.
const WORDS: [&str; 60] = [
    "current_date",
    "current_time",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "current_user",
    "session_user",
    "user",
    "current_role",
    "current_schema",
    "current_catalog",
    "current_database",
    "sysdate",
    "systimestamp",
    "getdate",
    "now",
    "year",
    "years",
    "yy",
    "yyyy",
    "quarter",
    "qq",
    "month",
    "months",
    "mm",
    "mon",
    "week",
    "weeks",
    "wk",
    "ww",
    "isoweek",
    "day",
    "days",
    "dd",
    "dayofweek",
    "dow",
    "dayofyear",
    "doy",
    "dy",
    "weekday",
    "dw",
    "hour",
    "hours",
    "hh",
    "minute",
    "minutes",
    "mi",
    "second",
    "seconds",
    "ss",
    "millisecond",
    "milliseconds",
    "ms",
    "microsecond",
    "microseconds",
    "us",
    "nanosecond",
    "ns",
    "epoch",
    "isoyear",
];

struct Check<'w, 'a, 's, 'c> {
    walk: &'w mut Walk<'a>,
    scope: &'w Scope<'s>,
    ctes: Option<&'w Ctes<'c>>,
    /// Subqueries entered: their expressions are not this scope's.
    depth: usize,
    /// Expressions that are not column references though they look like one (a field name
    /// after a dot, a named argument's name).
    skip: HashSet<*const Expr>,
    /// Lambda parameters in force.
    params: Vec<String>,
}

impl Visitor for Check<'_, '_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            self.walk.query(query, self.scope, self.ctes);
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth > 0 || self.skip.contains(&(e as *const Expr)) {
            return ControlFlow::Continue(());
        }
        match e {
            Expr::Identifier(ident) => {
                if !self.params.contains(&self.walk.spell(ident)) {
                    reference(
                        self.walk,
                        std::slice::from_ref(ident),
                        ident.span,
                        self.scope,
                        false,
                    );
                }
            }
            Expr::CompoundIdentifier(parts) => {
                let span = parts[0].span.union(&parts[parts.len() - 1].span);
                reference(self.walk, parts, span, self.scope, false);
            }
            Expr::CompoundFieldAccess { access_chain, .. } => {
                for access in access_chain {
                    if let AccessExpr::Dot(field) = access {
                        self.skip_names(field);
                    }
                }
            }
            Expr::Lambda(lambda) => {
                for p in lambda.params.iter() {
                    self.params.push(self.walk.spell(&p.name));
                }
            }
            Expr::Function(f) => {
                if let FunctionArguments::List(list) = &f.args {
                    for arg in &list.args {
                        if let FunctionArg::ExprNamed { name, .. } = arg {
                            self.skip_names(name);
                        }
                    }
                }
            }
            _ => literals::comparison(self.walk, e, self.scope),
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if let (0, Expr::Lambda(lambda)) = (self.depth, e) {
            for _ in lambda.params.iter() {
                self.params.pop();
            }
        }
        ControlFlow::Continue(())
    }
}

impl Check<'_, '_, '_, '_> {
    /// `e` and the identifiers inside it are names, not column references.
    fn skip_names(&mut self, e: &Expr) {
        self.skip.insert(e as *const Expr);
    }
}

/// Check every expression of `node` (any AST node) in `scope`.
pub fn visit<V: Visit>(walk: &mut Walk, node: &V, scope: &Scope, ctes: Option<&Ctes>) {
    let mut check = Check {
        walk,
        scope,
        ctes,
        depth: 0,
        skip: HashSet::new(),
        params: Vec::new(),
    };
    let _ = node.visit(&mut check);
}

/// Check one expression in `scope`.
pub fn check(walk: &mut Walk, e: &Expr, scope: &Scope, ctes: Option<&Ctes>) {
    visit(walk, e, scope, ctes);
}

/// The print column an expression is, when it is a plain reference to one.
pub fn origin(walk: &Walk, e: &Expr, scope: &Scope) -> Option<ColRef> {
    match lookup(walk, e, scope)? {
        (Lookup::Column { origin, .. }, _) => origin,
        _ => None,
    }
}

/// What a plain column reference (possibly parenthesized) reaches, and how many of its
/// parts qualified it.
pub fn lookup(walk: &Walk, e: &Expr, scope: &Scope) -> Option<(Lookup, usize)> {
    let parts: &[Ident] = match e {
        Expr::Identifier(i) => std::slice::from_ref(i),
        Expr::CompoundIdentifier(is) => is,
        Expr::Nested(inner) => return lookup(walk, inner, scope),
        _ => return None,
    };
    let spelled: Vec<String> = parts.iter().map(|p| walk.spell(p)).collect();
    Some(scope::dotted(scope, &spelled))
}

/// Look up one reference (`parts`, written at `span`) and report what is wrong with it.
/// `soft`: a miss is not reported (a word that may be the database's own).
pub fn reference(walk: &mut Walk, parts: &[Ident], span: Span, scope: &Scope, soft: bool) {
    let Some(first) = parts.first() else {
        return;
    };
    // Variables and parameters (`@x`, `$1`, `:name`).
    if parts.len() == 1 && first.quote_style.is_none() && first.value.starts_with(['@', '$', ':']) {
        return;
    }
    let spelled: Vec<String> = parts.iter().map(|p| walk.spell(p)).collect();
    let (found, k) = scope::dotted(scope, &spelled);
    if matches!(found, Lookup::Column { .. } | Lookup::Unchecked) {
        return;
    }
    // Spelled only for a finding.
    let written: Vec<String> = parts.iter().map(Ident::to_string).collect();
    let text = written.join(".");
    match found {
        Lookup::Column { .. } | Lookup::Unchecked => {}
        Lookup::Missing {
            depth,
            rel: Some(rel),
        } => {
            let s = scope::level(scope, depth);
            let r = &s.relations[rel];
            let column = &spelled[k];
            let prefix = written[..k].join(".");
            let suggestions = missing_column_suggestions(s, rel, column, &prefix);
            let what = describe(walk.cat, r);
            walk.report(
                Kind::UnknownColumn,
                span,
                &text,
                format!("{what} has no column `{}`", written[k]),
                suggestions,
            );
        }
        Lookup::Missing { rel: None, .. } => {
            if soft || (parts.len() == 1 && WORDS.contains(&first.value.to_lowercase().as_str())) {
                return;
            }
            let suggestions = near_columns(scope, &spelled[0]);
            let shown: Vec<String> = scope
                .relations
                .iter()
                .map(|r| describe(walk.cat, r))
                .collect();
            let message = if shown.is_empty() {
                format!("`{text}` is not a column: this SELECT reads no table")
            } else {
                format!(
                    "no table of this query has a column `{text}` (it reads {})",
                    shown.join(", ")
                )
            };
            walk.report(Kind::UnknownColumn, span, &text, message, suggestions);
        }
        Lookup::Ambiguous { depth, rels } => {
            let s = scope::level(scope, depth);
            let holders: Vec<String> = rels
                .iter()
                .map(|&r| describe(walk.cat, &s.relations[r]))
                .collect();
            let suggestions: Vec<String> = rels
                .iter()
                .map(|&r| &s.relations[r])
                .filter(|r| !r.written.is_empty())
                .map(|r| format!("{}.{}", r.written, written[0]))
                .collect();
            walk.report(
                Kind::AmbiguousColumn,
                span,
                &text,
                format!(
                    "`{}` is a column of {}; qualify it with the one you mean",
                    written[0],
                    holders.join(" and ")
                ),
                suggestions,
            );
        }
        Lookup::NoQualifier => {
            let qualifier = written[..parts.len() - 1].join(".");
            let column = &spelled[parts.len() - 1];
            let suggestions =
                qualifier_suggestions(scope, column, &spelled[0], &written[parts.len() - 1]);
            walk.report(
                Kind::UnknownColumn,
                span,
                &text,
                format!("`{qualifier}` is not a table, alias or CTE of this query"),
                suggestions,
            );
        }
    }
}

/// For a column a relation lacks: the same name in another relation of that FROM first,
/// then close names in this one (`prefix.column`).
fn missing_column_suggestions(s: &Scope, rel: usize, column: &str, prefix: &str) -> Vec<String> {
    let r = &s.relations[rel];
    let mut suggestions: Vec<String> = s
        .relations
        .iter()
        .enumerate()
        .filter(|(i, other)| *i != rel && !other.written.is_empty())
        .filter_map(|(_, other)| {
            let c = other.columns.find(column)?;
            Some(format!(
                "{}.{}",
                other.written, other.columns.list[c].written
            ))
        })
        .collect();
    suggestions.extend(
        closest(
            column,
            r.columns
                .list
                .iter()
                .map(|c| (c.stored.as_str(), c.written.as_str())),
            LIMIT,
        )
        .into_iter()
        .map(|c| format!("{prefix}.{c}")),
    );
    suggestions.truncate(LIMIT);
    suggestions
}

/// For a qualifier that names nothing: the relations that have the column, else the
/// relations whose names are close to the qualifier (`qualifier`, spelled for lookup).
fn qualifier_suggestions(scope: &Scope, column: &str, qualifier: &str, last: &str) -> Vec<String> {
    let suggestions: Vec<String> = scope
        .relations
        .iter()
        .filter(|r| !r.written.is_empty())
        .filter_map(|r| {
            let c = r.columns.find(column)?;
            Some(format!("{}.{}", r.written, r.columns.list[c].written))
        })
        .collect();
    if !suggestions.is_empty() {
        return suggestions;
    }
    closest(
        qualifier,
        scope
            .relations
            .iter()
            .filter(|r| !r.written.is_empty())
            .map(|r| {
                (
                    r.names.last().map_or("", String::as_str),
                    r.written.as_str(),
                )
            }),
        LIMIT,
    )
    .into_iter()
    .map(|q| format!("{q}.{last}"))
    .collect()
}

/// Columns of the innermost FROM close to `name`, qualified where the name alone would
/// be ambiguous.
fn near_columns(scope: &Scope, name: &str) -> Vec<String> {
    let candidates: Vec<(&str, String)> = scope
        .relations
        .iter()
        .flat_map(|r| r.columns.list.iter().map(move |c| (r, c)))
        .map(|(r, c)| {
            let holders = scope
                .relations
                .iter()
                .filter(|o| o.columns.find(&c.stored).is_some())
                .count();
            let shown = if holders > 1 && !r.written.is_empty() {
                format!("{}.{}", r.written, c.written)
            } else {
                c.written.clone()
            };
            (c.stored.as_str(), shown)
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    for s in closest(name, candidates, LIMIT * 2) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out.truncate(LIMIT);
    out
}
