//! A table name in the SQL, resolved the way the connection's database would resolve it
//! against the print's tables: the name's parts (already folded by the adapter's rules)
//! must end the table's path, and the parts left out take the adapter's defaults: the
//! print's one database when it has only one, and the adapter's fixed default schema
//! (`public`, `main`, `dbo`...) where it has one. Where the session decides the default
//! (Snowflake, BigQuery, MySQL, an unknown adapter), any table ending in the name answers.

use super::catalog::Catalog;
use super::dialect::Adapter;
use super::suggest::{closeness, distance, LIMIT};

/// What a table name in the SQL reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableMatch {
    Found(usize),
    /// No table of the print; the likeliest meant, written as the query would reach them.
    Missing(Vec<String>),
    /// Several tables of the print answer to it, each written so that only it does.
    Several(Vec<String>),
    /// A system catalog (`information_schema`, `pg_catalog`...): not the print's to judge.
    System,
}

/// Schemas every database carries beside the user's tables.
const SYSTEM_SCHEMAS: [&str; 6] = [
    "information_schema",
    "pg_catalog",
    "sys",
    "performance_schema",
    "account_usage",
    "system",
];

/// The tables `parts` reaches under the adapter's rules.
fn reached(cat: &Catalog, parts: &[String]) -> Vec<usize> {
    let Some(name) = parts.last() else {
        return Vec::new();
    };
    let adapter = cat.adapter;
    let default_schema = adapter.default_schema().map(|s| adapter.stored_name(s));
    let candidates: Box<dyn Iterator<Item = usize>> = match parts {
        [.., parent, _] => Box::new(cat.tables_under(parent, name)),
        _ => Box::new(cat.tables_named(name).into_iter()),
    };
    let mut out: Vec<usize> = candidates
        .filter(|&t| {
            let path = cat.tables[t].path();
            let given = if parts.len() > path.len() && adapter == Adapter::BigQuery {
                // `project.dataset.table`: the project is not part of the FQN.
                &parts[parts.len() - path.len()..]
            } else {
                parts
            };
            if given.len() > path.len() || !path.ends_with(given) {
                return false;
            }
            let missing = path.len() - given.len();
            // Three-part paths (database.schema.table) leave out the schema second.
            let schema_left_out = path.len() == 3 && missing >= 2;
            !(schema_left_out && default_schema.as_ref().is_some_and(|s| path[1] != *s))
        })
        .collect();
    // DuckDB reads `a.b` as schema `a`'s table `b`, or as catalog `a`'s `main.b`.
    if adapter == Adapter::DuckDb && parts.len() == 2 {
        let main = [
            parts[0].clone(),
            adapter.stored_name("main"),
            parts[1].clone(),
        ];
        if let Some(t) = cat.table_at(&main) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The shortest name that reaches table `t` alone, as the query would write it.
pub fn written_name(cat: &Catalog, t: usize) -> String {
    let path = cat.tables[t].path();
    for take in 1..=path.len() {
        let parts = &path[path.len() - take..];
        if reached(cat, parts) == [t] {
            return written(cat.adapter, parts);
        }
    }
    written(cat.adapter, &path)
}

fn written(adapter: Adapter, parts: &[String]) -> String {
    parts
        .iter()
        .map(|p| adapter.written(p))
        .collect::<Vec<_>>()
        .join(".")
}

/// Resolve a table name of the SQL, given as the stored spellings of its parts.
pub fn resolve(cat: &Catalog, parts: &[String]) -> TableMatch {
    let found = reached(cat, parts);
    match found.as_slice() {
        [t] => return TableMatch::Found(*t),
        [] => {}
        several => {
            return TableMatch::Several(several.iter().map(|&t| written_name(cat, t)).collect())
        }
    }
    let system = parts.len() >= 2
        && SYSTEM_SCHEMAS.contains(&parts[parts.len() - 2].to_lowercase().as_str())
        || (parts.len() == 1 && parts[0].eq_ignore_ascii_case("dual"));
    if system {
        return TableMatch::System;
    }
    TableMatch::Missing(suggestions(cat, parts))
}

/// The tables a missing name most likely meant: the same name elsewhere first, then
/// names close to it; each ranked by how close its path is to what was written.
fn suggestions(cat: &Catalog, parts: &[String]) -> Vec<String> {
    let Some(name) = parts.last() else {
        return Vec::new();
    };
    let mut names: Vec<(usize, &str)> = cat
        .names()
        .filter_map(|n| closeness(name, n).map(|d| (d, n)))
        .collect();
    names.sort();
    let wanted = parts.join(".");
    let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
    for (d, n) in names {
        for t in cat.tables_named(n) {
            let path = cat.tables[t].path();
            let tail = path[path.len().saturating_sub(parts.len())..].join(".");
            let far = distance(&wanted, &tail, usize::MAX / 2).unwrap_or(usize::MAX);
            candidates.push((d, far, t));
        }
    }
    candidates.sort();
    let mut out: Vec<String> = Vec::new();
    for (_, _, t) in candidates {
        let w = written_name(cat, t);
        if !out.contains(&w) {
            out.push(w);
        }
        if out.len() == LIMIT {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::catalog::{Catalog, Table};
    use super::*;

    fn catalog(adapter: Adapter, fqns: &[&str]) -> Catalog {
        let tables = fqns
            .iter()
            .map(|f| Table::new(adapter, f, "table", None))
            .collect();
        Catalog::new(adapter, tables, Vec::new())
    }

    fn parts(adapter: Adapter, name: &str) -> Vec<String> {
        name.split('.')
            .map(|p| adapter.spell_text(p, false))
            .collect()
    }

    #[test]
    fn duckdb_looks_in_main_and_the_only_database() {
        let a = Adapter::DuckDb;
        let cat = catalog(a, &["shop.main.orders", "shop.sales.refunds"]);
        assert_eq!(resolve(&cat, &parts(a, "orders")), TableMatch::Found(0));
        assert_eq!(
            resolve(&cat, &parts(a, "main.orders")),
            TableMatch::Found(0)
        );
        assert_eq!(
            resolve(&cat, &parts(a, "shop.orders")),
            TableMatch::Found(0)
        );
        assert_eq!(
            resolve(&cat, &parts(a, "sales.refunds")),
            TableMatch::Found(1)
        );
        // Not in the default schema: the qualified name is suggested.
        assert_eq!(
            resolve(&cat, &parts(a, "refunds")),
            TableMatch::Missing(vec!["sales.refunds".into()])
        );
        assert_eq!(
            resolve(&cat, &parts(a, "sales.refund")),
            TableMatch::Missing(vec!["sales.refunds".into()])
        );
        assert_eq!(
            resolve(&cat, &parts(a, "information_schema.tables")),
            TableMatch::System
        );
    }

    #[test]
    fn a_session_default_schema_admits_any_schema_holding_the_name() {
        let a = Adapter::Snowflake;
        let cat = catalog(a, &["db.raw.orders", "db.mart.orders", "db.mart.users"]);
        assert_eq!(resolve(&cat, &parts(a, "users")), TableMatch::Found(2));
        assert_eq!(
            resolve(&cat, &parts(a, "orders")),
            TableMatch::Several(vec!["raw.orders".into(), "mart.orders".into()])
        );
        // Quoted lowercase names do not reach Snowflake's uppercase catalog spelling.
        assert!(matches!(
            resolve(&cat, &["users".to_string()]),
            TableMatch::Missing(_)
        ));
    }

    #[test]
    fn bigquery_names_may_carry_their_project() {
        let a = Adapter::BigQuery;
        let cat = catalog(a, &["sales.orders"]);
        assert_eq!(
            resolve(&cat, &parts(a, "proj.sales.orders")),
            TableMatch::Found(0)
        );
        assert_eq!(resolve(&cat, &parts(a, "orders")), TableMatch::Found(0));
    }
}
