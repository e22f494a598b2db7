//! validate_sql: an agent's SQL checked against the print before it runs, offline. The SQL
//! is parsed in the dialect of the connection's adapter; each statement is walked with the
//! print's catalog in hand (`catalog`, built once per snapshot content) and what does not
//! hold becomes a finding with its position: tables and columns the print lacks, ambiguous
//! columns, joins on keys the print knows no edge for, literals an exhaustive value list
//! lacks, literals of a type the column cannot hold, and the parser's own error.
//!
//! Modules, by concern: `dialect` (an adapter's parsing and naming rules), `tables` (table
//! names resolved as the database would), `scope` (what a name can reach), `walk` (queries
//! and FROMs built into scopes), `exprs` (references in expressions), `joins`, `literals`
//! and `types` (the checks), `suggest` (closest names), `source` (positions and text).

pub mod catalog;
pub mod dialect;
mod exprs;
mod joins;
mod literals;
mod scope;
mod source;
pub mod suggest;
mod tables;
#[cfg(test)]
mod tests;
pub mod types;
mod walk;

use std::sync::Arc;

use sqlparser::ast::Statement;
use sqlparser::dialect::Dialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Tokenizer;

use crate::error::QueryError;
use crate::store::Snapshot;
use catalog::Catalog;
use source::Source;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The SQL does not parse in the connection's dialect.
    ParseError,
    /// A table or view the print does not have (or that names several).
    UnknownTable,
    /// A column its table (or any table in reach) does not have.
    UnknownColumn,
    /// An unqualified column several tables in reach have.
    AmbiguousColumn,
    /// Join keys that are no edge the print knows between the two tables.
    UnknownJoin,
    /// A literal a column's complete value list does not hold.
    UnknownValue,
    /// A literal of a type the column cannot hold.
    TypeMismatch,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::ParseError,
        Kind::UnknownTable,
        Kind::UnknownColumn,
        Kind::AmbiguousColumn,
        Kind::UnknownJoin,
        Kind::UnknownValue,
        Kind::TypeMismatch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::ParseError => "parse_error",
            Kind::UnknownTable => "unknown_table",
            Kind::UnknownColumn => "unknown_column",
            Kind::AmbiguousColumn => "ambiguous_column",
            Kind::UnknownJoin => "unknown_join",
            Kind::UnknownValue => "unknown_value",
            Kind::TypeMismatch => "type_mismatch",
        }
    }
}

/// A place in the SQL: 1-based line, 1-based column counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

/// One thing in the SQL that does not hold against the print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub at: Position,
    /// The SQL text the finding is about, as written.
    pub text: String,
    /// What is wrong, in plain words.
    pub message: String,
    /// Replacements for `text` the print supports, best first (may be empty).
    pub suggestions: Vec<String>,
}

/// The answer: findings in SQL order, none when everything checks out.
#[derive(Debug, Clone)]
pub struct Report {
    pub connection: String,
    /// The adapter whose dialect and naming rules were applied.
    pub dialect: &'static str,
    /// Statements parsed.
    pub statements: usize,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.findings.is_empty()
    }
}

/// At most this many findings are reported (the rest are counted in the message of the
/// last); a query with more is better fixed in rounds.
pub const MAX_FINDINGS: usize = 200;

/// Build the connection's catalog and join graph ahead of their first call (serve runs this in the
/// background at startup): on a large print it reads every table's records once. What an
/// earlier process kept on disk is left there for the first call to read back.
pub fn warm(state: &Snapshot, warm: crate::query::Warm) {
    use crate::query::plan_joins::graph;
    // A failure here is the first call's to report, in its own words.
    if warm.makes(|| catalog::is_kept(state)) {
        let _ = catalog::catalog(state);
    }
    // The join graph plan_joins plans over (and validate_sql's unknown_join suggestions
    // follow) is derived from the catalog.
    if warm.makes(|| graph::is_kept(state)) {
        let _ = graph::graph(state);
    }
}

/// Read back the catalog an earlier process kept (or build it), ahead of the first call.
pub fn read_back(state: &Snapshot) {
    // A failure here is the first call's to report, in its own words.
    let _ = catalog::catalog(state);
}

/// Check `sql` against the print `state` holds, a snapshot verified for every file
/// (`Reads::EveryFile`).
pub fn answer(state: &Snapshot, sql: &str) -> Result<Report, QueryError> {
    Ok(checked(state, sql)?.0)
}

/// Check `sql` against the print `state` holds, a snapshot verified for its manifest alone
/// (`Reads::NamedTables`): what the check read of the tables its SQL names is then
/// checked against the disk (`strict`: a file found moved fails with `QueryError::Stale`,
/// for the store to read it again and ask again). `None`: the check planned a join path
/// over the print's join graph, which every table's relationships decide, so only a
/// snapshot verified for every file may answer it.
pub fn answer_named(
    state: &Snapshot,
    sql: &str,
    strict: bool,
) -> Result<Option<Report>, QueryError> {
    let (report, met, cat) = checked(state, sql)?;
    if met.graph {
        return Ok(None);
    }
    if strict {
        // A join's edges come from the files of the two tables it joins, so these are
        // every file the answer read beyond the manifest.
        let mut tables = met.tables;
        tables.sort_unstable();
        tables.dedup();
        for fqn in tables.iter().map(|&t| &cat.tables[t].fqn) {
            if let Some(moved) = table_files(state, fqn)
                .into_iter()
                .find(|p| !state.unchanged_on_disk(p))
            {
                return Err(QueryError::Stale(moved));
            }
        }
    }
    Ok(Some(report))
}

/// The check, with the catalog it read and what it met there.
fn checked(state: &Snapshot, sql: &str) -> Result<(Report, Met, Arc<Catalog>), QueryError> {
    // A manifest that cannot be read fails the call as it fails every other tool.
    state.manifest_or_error()?;
    let cat = catalog::catalog(state)?;
    let domains = catalog::IndexDomains(state);
    // The join graph is read only when a join the print knows no edge for needs a path:
    // most checks never need it, and on a large print it is tens of megabytes.
    let graph = || crate::query::plan_joins::graph::graph(state).ok();
    let (report, met) = check_over(&cat, &domains, &graph, &state.config.name, sql);
    Ok((report, met, cat))
}

/// The files the print declares for table `fqn` that `state` tracks (a table reached
/// through a link out of the print tracks none).
fn table_files(state: &Snapshot, fqn: &str) -> Vec<std::path::PathBuf> {
    let entry = (state.manifest_or_error().ok().flatten())
        .and_then(|m| m.tables().get(fqn))
        .filter(|e| *e != compat::value::Value::Null);
    let mut files = entry
        .map(|e| crate::ingest::walk::declared_paths(&state.config.print_root, fqn, &e))
        .unwrap_or_default();
    files.retain(|p| state.tracks(p));
    files
}

/// Check `sql` against a catalog whose columns carry no value lists.
pub fn check(cat: &Catalog, connection: &str, sql: &str) -> Report {
    check_with(cat, &catalog::NoDomains, connection, sql)
}

/// Check `sql` against a catalog, its columns' value lists read from `domains`.
pub fn check_with(
    cat: &Catalog,
    domains: &dyn catalog::Domains,
    connection: &str,
    sql: &str,
) -> Report {
    check_over(cat, domains, &|| None, connection, sql).0
}

/// What a check met beyond the catalog's names: with the manifest, everything its answer
/// read of the print.
struct Met {
    /// The catalog tables the SQL named (their columns, value lists and joins were read),
    /// as met.
    tables: Vec<usize>,
    /// The join graph was read: a path was planned over every table's edges.
    graph: bool,
}

/// [`check_with`], with where the print's join graph comes from when a join needs a
/// planned path (`None`: it is built from the catalog).
fn check_over(
    cat: &Catalog,
    domains: &dyn catalog::Domains,
    graph: &walk::GraphSource,
    connection: &str,
    sql: &str,
) -> (Report, Met) {
    let src = Source::new(sql);
    let dialect = cat.adapter.parser_dialect();
    let mut report = Report {
        connection: connection.to_string(),
        dialect: cat.adapter.name(),
        statements: 0,
        findings: Vec::new(),
    };
    let statements = match parse(dialect.as_ref(), sql) {
        Ok(statements) => statements,
        Err(e) => {
            report.findings.push(parse_error(&src, &e));
            return (
                report,
                Met {
                    tables: Vec::new(),
                    graph: false,
                },
            );
        }
    };
    report.statements = statements.len();
    if statements.is_empty() {
        report.findings.push(Finding {
            kind: Kind::ParseError,
            at: src.end(),
            text: String::new(),
            message: "the text holds no SQL statement".to_string(),
            suggestions: Vec::new(),
        });
        return (
            report,
            Met {
                tables: Vec::new(),
                graph: false,
            },
        );
    }
    let mut walk = walk::Walk::new(cat, domains, &src, graph);
    for statement in &statements {
        walk.statement(statement);
    }
    let met = Met {
        graph: walk.read_graph(),
        tables: std::mem::take(&mut walk.met),
    };
    let mut findings = walk.findings;
    findings.sort_by_key(|f| (f.at, f.kind));
    findings.dedup_by(|b, a| a.kind == b.kind && a.at == b.at && a.text == b.text);
    if findings.len() > MAX_FINDINGS {
        let more = findings.len() - MAX_FINDINGS;
        findings.truncate(MAX_FINDINGS);
        if let Some(last) = findings.last_mut() {
            last.message.push_str(&format!(
                " ({more} more findings not shown: fix these and check again)"
            ));
        }
    }
    report.findings = findings;
    (report, met)
}

/// `Parser::parse_sql`, with the token buffer sized once from the text: grown by doubling
/// it is reallocated a dozen times per call, each a large allocation that makes the
/// allocator sweep every small block the last call freed.
fn parse(dialect: &dyn Dialect, sql: &str) -> Result<Vec<Statement>, ParserError> {
    let mut tokens = Vec::with_capacity(sql.len() / 2 + 16);
    Tokenizer::new(dialect, sql).tokenize_with_location_into_buf(&mut tokens)?;
    Parser::new(dialect)
        .with_tokens_with_locations(tokens)
        .parse_statements()
}

/// The parser's error as a finding: its message, at the position it names.
fn parse_error(src: &Source, e: &ParserError) -> Finding {
    let raw = match e {
        ParserError::TokenizerError(s) | ParserError::ParserError(s) => s.clone(),
        ParserError::RecursionLimitExceeded => "the statement nests too deeply to read".to_string(),
    };
    // sqlparser ends a message with " at Line: N, Column: M".
    let (message, at) = match raw.rfind(" at Line: ") {
        Some(i) => {
            let tail = &raw[i + " at Line: ".len()..];
            let mut numbers = tail.split(", Column: ").map(|n| n.trim().parse::<u64>());
            match (numbers.next(), numbers.next()) {
                (Some(Ok(line)), Some(Ok(column))) => {
                    (raw[..i].to_string(), Some(Position { line, column }))
                }
                _ => (raw.clone(), None),
            }
        }
        None => (raw.clone(), None),
    };
    let at = at.filter(|p| p.line > 0).unwrap_or_else(|| src.end());
    // "Expected: ..., found: X": X is what the parser stopped at.
    let text = message
        .rsplit_once(", found: ")
        .map(|(_, found)| {
            if found == "EOF" {
                String::new()
            } else {
                found.to_string()
            }
        })
        .or_else(|| {
            src.word_at(sqlparser::tokenizer::Location::new(at.line, at.column))
                .map(str::to_string)
        })
        .unwrap_or_default();
    Finding {
        kind: Kind::ParseError,
        at,
        text,
        message,
        suggestions: Vec::new(),
    }
}
