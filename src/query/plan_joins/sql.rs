//! The plan as a SQL skeleton in the connection's dialect: the root in FROM, each hop a
//! JOIN (LEFT JOIN where the evidence says an inner join would drop rows already in the
//! plan), short aliases, names spelled and quoted as validate_sql reads them.

use super::graph::Graph;
use super::Hop;
use crate::query::validate_sql::catalog::Catalog;

/// Words an alias must not be (SQL keywords short enough to be made from initials).
const RESERVED: [&str; 24] = [
    "as", "at", "by", "do", "end", "for", "from", "go", "if", "in", "is", "join", "key", "left",
    "no", "not", "of", "on", "or", "select", "set", "to", "top", "use",
];

/// A short alias for a table: the initials of its own name's words, unique in the query.
fn alias(own: &str, taken: &[String]) -> String {
    let initials: String = own
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| w.chars().next())
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let base = match initials.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => initials,
        _ => "t".to_string(),
    };
    let free = |a: &str| !taken.iter().any(|t| t == a) && !RESERVED.contains(&a);
    if free(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|a| free(a))
        .unwrap_or(base)
}

/// A table's name as the SQL writes it: every segment but a database all tables share.
pub fn table_name(graph: &Graph, v: usize) -> String {
    let adapter = graph.adapter;
    let mut parts: Vec<&str> = graph.tables[v].split('.').collect();
    if let Some(db) = &graph.only_database {
        if parts.len() > 1 && adapter.stored_name(parts[0]) == *db {
            parts.remove(0);
        }
    }
    parts
        .iter()
        .map(|p| adapter.written(&adapter.stored_name(p)))
        .collect::<Vec<_>>()
        .join(".")
}

/// A column as the SQL writes it (the catalog's spelling, where it records one).
fn column_name(graph: &Graph, cat: Option<&Catalog>, v: usize, key: &str) -> String {
    let adapter = graph.adapter;
    let stored = cat
        .and_then(|c| c.tables.get(v))
        .filter(|t| t.fqn == graph.tables[v])
        .and_then(|t| t.columns())
        .and_then(|cols| cols.iter().find(|c| c.name == key))
        .map(|c| c.stored.clone())
        .unwrap_or_else(|| adapter.stored_column(key, None));
    adapter.written(&stored)
}

/// The skeleton: `SELECT` the requested columns (or `*`), `FROM` the root, one JOIN per hop.
pub fn skeleton(
    graph: &Graph,
    cat: Option<&Catalog>,
    root: usize,
    hops: &[Hop],
    columns: &[(usize, String)],
) -> String {
    let mut aliases: Vec<(usize, String)> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    let mut name = |v: usize, aliases: &mut Vec<(usize, String)>| -> String {
        if let Some((_, a)) = aliases.iter().find(|(t, _)| *t == v) {
            return a.clone();
        }
        let a = alias(super::words::own_name(&graph.tables[v]), &taken);
        taken.push(a.clone());
        aliases.push((v, a.clone()));
        a
    };
    let root_alias = name(root, &mut aliases);
    let mut lines = vec![format!("FROM {} AS {root_alias}", table_name(graph, root))];
    for hop in hops {
        let from = name(hop.from, &mut aliases);
        let to = name(hop.to, &mut aliases);
        let on: Vec<String> = hop
            .keys
            .iter()
            .map(|(f, t)| {
                format!(
                    "{to}.{} = {from}.{}",
                    column_name(graph, cat, hop.to, t),
                    column_name(graph, cat, hop.from, f)
                )
            })
            .collect();
        let join = if hop.left_join { "LEFT JOIN" } else { "JOIN" };
        lines.push(format!(
            "{join} {} AS {to} ON {}",
            table_name(graph, hop.to),
            on.join(" AND ")
        ));
    }
    let select = if columns.is_empty() {
        "SELECT *".to_string()
    } else {
        let listed: Vec<String> = columns
            .iter()
            .map(|(v, c)| {
                format!(
                    "{}.{}",
                    name(*v, &mut aliases),
                    column_name(graph, cat, *v, c)
                )
            })
            .collect();
        format!("SELECT {}", listed.join(", "))
    };
    format!("{select}\n{}", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_initials_kept_unique_and_never_keywords() {
        assert_eq!(alias("loans", &[]), "l");
        assert_eq!(alias("activity_log", &[]), "al");
        assert_eq!(alias("lines", &["l".into()]), "l2");
        assert_eq!(alias("order_notes", &[]), "on2");
        assert_eq!(alias("42things", &[]), "t");
    }
}
