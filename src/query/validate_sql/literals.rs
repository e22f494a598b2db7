//! Comparisons of a print column with a literal (`col = 'x'`, `col <> 3`, `col IN (...)`,
//! `col < DATE '...'`, `col BETWEEN ...`): a literal of a type the column's storage type
//! cannot hold is a type mismatch; a literal an exhaustive value list does not hold is an
//! unknown value, answered as resolve_value answers the same text (stored spellings that
//! fold alike, values whose note names it, trigram-near values).

use sqlparser::ast::{BinaryOperator, Expr, InTarget, Spanned};

use super::catalog::{Column, Domain};
use super::exprs;
use super::scope::{ColRef, Scope};
use super::types::{numeric_text, Literal, TypeClass};
use super::walk::Walk;
use super::Kind;
use crate::ingest::reading::as_f64;
use crate::query::value_resolution::resolve;
use compat::py::str_of;
use compat::value::Value;

/// How the literal is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Test {
    /// `=`, `<>`, `IN`: the value list decides.
    Equality,
    /// `<`, `BETWEEN`...: only the type decides.
    Order,
}

/// Check `e` when it compares a print column with literals.
pub fn comparison(walk: &mut Walk, e: &Expr, scope: &Scope) {
    match e {
        Expr::BinaryOp { left, op, right } => {
            let test = match op {
                BinaryOperator::Eq | BinaryOperator::NotEq => Test::Equality,
                BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq => Test::Order,
                _ => return,
            };
            for (column, literal) in [(left, right), (right, left)] {
                if let Some(col) = exprs::origin(walk, column, scope) {
                    if let Some(lit) = Literal::of(literal) {
                        one(walk, col, column, literal, &lit, test);
                    }
                }
            }
        }
        Expr::In {
            expr,
            target: InTarget::List(items),
            ..
        } => {
            if let Some(col) = exprs::origin(walk, expr, scope) {
                for item in items {
                    if let Some(lit) = Literal::of(item) {
                        one(walk, col, expr, item, &lit, Test::Equality);
                    }
                }
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            if let Some(col) = exprs::origin(walk, expr, scope) {
                for bound in [low, high] {
                    if let Some(lit) = Literal::of(bound) {
                        one(walk, col, expr, bound, &lit, Test::Order);
                    }
                }
            }
        }
        _ => {}
    }
}

fn one(walk: &mut Walk, col: ColRef, column: &Expr, literal: &Expr, lit: &Literal, test: Test) {
    // Borrowed from the catalog, not the walk, so findings can still be reported.
    let cat = walk.cat;
    let Some(c) = cat.column(col.table, col.column) else {
        return;
    };
    let fqn = cat.tables[col.table].fqn.as_str();
    let written = walk
        .src
        .slice(column.span())
        .map(str::to_string)
        .unwrap_or_else(|| c.name.clone());
    let span = match literal {
        Expr::TypedString(t) => {
            let word = t.data_type.to_string();
            let word = word.split([' ', '(']).next().unwrap_or_default();
            walk.src.with_word_before(literal.span(), word)
        }
        _ => literal.span(),
    };
    let shown = walk
        .src
        .slice(span)
        .map(str::to_string)
        .unwrap_or_else(|| lit.text());
    let sql_type = c.sql_type.clone().unwrap_or_default();
    let mismatch = match (c.class(), lit) {
        (TypeClass::Numeric, Literal::Text(s)) if !numeric_text(s) => Some(format!(
            "{shown} is text that is not a number, but `{written}` ({fqn}.{}) is {sql_type}: the comparison fails to cast or matches nothing",
            c.name
        )),
        (TypeClass::Numeric | TypeClass::Text | TypeClass::Boolean, Literal::Temporal(_, ty)) => {
            Some(format!(
                "{shown} is a {} literal, but `{written}` ({fqn}.{}) is {sql_type}, not a date or time",
                ty.to_lowercase(),
                c.name
            ))
        }
        _ => None,
    };
    if let Some(message) = mismatch {
        walk.report(Kind::TypeMismatch, span, &shown, message, Vec::new());
        return;
    }
    if test == Test::Equality && c.listed {
        // Read from the index now: only a compared column's list is ever loaded.
        let Some(domain) = walk.domains.domain(&cat.tables[col.table], c) else {
            return;
        };
        if let Some((message, suggestions)) = unlisted(c, &domain, fqn, &written, &shown, lit) {
            walk.report(Kind::UnknownValue, span, &shown, message, suggestions);
        }
    }
}

/// A listed value's text, as resolve_value compares it.
fn text_of(entry: &Value) -> Option<String> {
    match entry.get("value") {
        None | Some(Value::Null) => None,
        Some(v) => Some(str_of(v)),
    }
}

/// A number, or text that spells one.
fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Str(s) if numeric_text(s) => s.trim().parse().ok(),
        other => as_f64(other),
    }
}

/// A value as a SQL literal of the kind the query wrote.
fn as_literal(v: &Value, quoted: bool) -> String {
    match v {
        Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        Value::Int(_) | Value::Float(_) | Value::BigInt(_) if !quoted => str_of(v),
        other => format!("'{}'", str_of(other).replace('\'', "''")),
    }
}

/// The finding for a literal the column's exhaustive list lacks, if it lacks it.
fn unlisted(
    c: &Column,
    domain: &Domain,
    fqn: &str,
    written: &str,
    shown: &str,
    lit: &Literal,
) -> Option<(String, Vec<String>)> {
    let listed = &domain.listed;
    let n = listed.len();
    // Spelled only for a literal found missing.
    let head = || {
        format!(
            "{shown} is not among the {n} values the print lists for `{written}` ({fqn}.{}), and that list is complete",
            c.name
        )
    };
    match lit {
        Literal::Bool(b) => {
            let present = listed
                .iter()
                .any(|e| e.get("value") == Some(&Value::Bool(*b)));
            (!present).then(|| (head(), Vec::new()))
        }
        Literal::Number(text) => {
            let x: f64 = text.parse().ok()?;
            let values: Vec<(f64, &Value)> = listed
                .iter()
                .filter_map(|e| {
                    let v = e.get("value")?;
                    Some((number_of(v)?, v))
                })
                .collect();
            if values.is_empty() {
                // Numbers against a list of text: compare the text.
                let present = listed.iter().any(|e| text_of(e).as_deref() == Some(text));
                return (!present).then(|| (head(), Vec::new()));
            }
            if values.iter().any(|(v, _)| *v == x) {
                return None;
            }
            let mut near = values;
            near.sort_by(|a, b| {
                (a.0 - x)
                    .abs()
                    .partial_cmp(&(b.0 - x).abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let suggestions = near
                .iter()
                .take(3)
                .map(|(_, v)| as_literal(v, false))
                .collect();
            Some((head(), suggestions))
        }
        Literal::Text(text) => {
            if listed
                .iter()
                .any(|e| text_of(e).as_deref() == Some(text.as_str()))
            {
                return None;
            }
            // A number in quotes against a numeric list: compare the numbers.
            if c.class() == TypeClass::Numeric && numeric_text(text) {
                let x: f64 = text.trim().parse().ok()?;
                let hit = listed
                    .iter()
                    .filter_map(|e| number_of(e.get("value")?))
                    .any(|v| v == x);
                if hit {
                    return None;
                }
            }
            let reply = resolve(
                text,
                listed,
                &domain.notes,
                domain.coverage.clone(),
                true,
                None,
                None,
            );
            let get = |key: &str| reply.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            let kind = get("match").and_then(Value::as_str).unwrap_or("none");
            let items = get("spellings")
                .or_else(|| get("candidates"))
                .and_then(Value::as_seq)
                .unwrap_or_default();
            let suggestions: Vec<String> = items
                .iter()
                .filter_map(|i| i.get("value"))
                .map(|v| as_literal(v, true))
                .collect();
            // Nothing near: a short list is offered whole.
            let suggestions = if suggestions.is_empty() && n <= 10 {
                listed
                    .iter()
                    .filter_map(|e| e.get("value"))
                    .map(|v| as_literal(v, true))
                    .collect()
            } else {
                suggestions
            };
            let why = match kind {
                "stored" => format!(
                    "; the column stores it as {} (values compare exactly: cover every spelling, or compare a folded form)",
                    suggestions.join(", ")
                ),
                "definition" => "; a value's note names it".to_string(),
                _ => String::new(),
            };
            Some((format!("{}{why}", head()), suggestions))
        }
        Literal::Temporal(..) => None,
    }
}
