//! Table and column names as an agent writes them: a table's full FQN or any unambiguous
//! dotted suffix of it (`loans`, `lending.loans`), a column as `<table>.<column>`. A name
//! that fits no table is answered with the closest names, one that fits several with all
//! of them, as validate_sql's suggestions are found.

use super::graph::Graph;
use crate::error::QueryError;
use crate::query::validate_sql::catalog::Catalog;
use crate::query::validate_sql::suggest;

/// Candidates an ambiguous name's error lists at most.
const LISTED: usize = 10;

fn quoted(name: &str) -> String {
    compat::py::repr_str(name)
}

/// `names` written as a list, the first [`LISTED`] of them.
fn listed(names: &[&str]) -> String {
    let shown: Vec<&str> = names.iter().take(LISTED).copied().collect();
    let more = names.len().saturating_sub(LISTED);
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// The table `name` names in `graph`, or the exact error.
pub fn table(
    graph: &Graph,
    name: &str,
    connection: &str,
    argument: &str,
) -> Result<usize, QueryError> {
    let wanted = name.trim().to_lowercase();
    let found = graph.named(&wanted);
    match found {
        [one] => Ok(*one as usize),
        [] => Err(unknown_table(graph, name, &wanted, connection, argument)),
        many => {
            let mut names: Vec<&str> = many
                .iter()
                .map(|&v| graph.tables[v as usize].as_str())
                .collect();
            names.sort_unstable();
            Err(QueryError::InvalidArgument(format!(
                "{argument} {} names {} tables in connection {}: {}. Pass the full name of the one you mean.",
                quoted(name),
                many.len(),
                quoted(connection),
                listed(&names)
            )))
        }
    }
}

/// The closest tables to a name that fits none: each table compared by as many trailing
/// segments as the name has.
fn unknown_table(
    graph: &Graph,
    name: &str,
    wanted: &str,
    connection: &str,
    argument: &str,
) -> QueryError {
    let depth = wanted.split('.').count();
    let tail = |fqn: &str| -> String {
        let parts: Vec<&str> = fqn.split('.').collect();
        parts[parts.len().saturating_sub(depth)..].join(".")
    };
    let tails: Vec<(String, usize)> = graph
        .tables
        .iter()
        .enumerate()
        .map(|(v, fqn)| (tail(&fqn.to_lowercase()), v))
        .collect();
    let closest: Vec<usize> = suggest::closest(
        wanted,
        tails.iter().map(|(t, v)| (t.as_str(), *v)),
        suggest::LIMIT,
    );
    let hint = if closest.is_empty() {
        format!(
            "Call list_tables with connection {} for valid names.",
            quoted(connection)
        )
    } else {
        let names: Vec<&str> = closest.iter().map(|&v| graph.tables[v].as_str()).collect();
        format!("The closest: {}.", names.join(", "))
    };
    QueryError::InvalidArgument(format!(
        "{argument} {} names no table in connection {}. {hint}",
        quoted(name),
        quoted(connection)
    ))
}

/// A `<table>.<column>` entry: its table and the column's key, or the exact error.
pub fn column(
    graph: &Graph,
    cat: &Catalog,
    entry: &str,
    connection: &str,
) -> Result<(usize, String), QueryError> {
    let Some((table_part, column_part)) = entry.trim().rsplit_once('.') else {
        return Err(QueryError::InvalidArgument(format!(
            "columns entry {} is not <table>.<column>: name the column's table too, as in lending.loans.patron_id.",
            quoted(entry)
        )));
    };
    let at = table(graph, table_part, connection, "columns entry's table")?;
    let wanted = column_part.to_lowercase();
    let Some(columns) = cat
        .tables
        .get(at)
        .filter(|t| t.fqn == graph.tables[at])
        .and_then(|t| t.columns())
    else {
        // The print lists no columns for the table: the name cannot be checked.
        return Ok((at, wanted));
    };
    if columns.iter().any(|c| c.name == wanted) {
        return Ok((at, wanted));
    }
    let closest: Vec<&str> = suggest::closest(
        &wanted,
        columns.iter().map(|c| (c.name.as_str(), c.name.as_str())),
        suggest::LIMIT,
    );
    let hint = if closest.is_empty() {
        String::new()
    } else {
        format!(" The closest: {}.", closest.join(", "))
    };
    Err(QueryError::InvalidArgument(format!(
        "columns entry {}: {} has no column {}.{hint}",
        quoted(entry),
        graph.tables[at],
        quoted(column_part)
    )))
}
