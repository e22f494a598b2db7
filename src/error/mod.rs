//! Every failure a request can meet, worded exactly as dbprint 0.15.0 words it.
//! The engine raises these; `mcp::errors` maps each to its wire form (a JSON-RPC
//! code for resources, `isError` text for tools) in one table. pz's errors, worded as pz
//! words them, are in `pz`. A lock a panicking thread held is recovered, one way
//! everywhere (`Recover`).

mod poison;
pub mod pz;

pub use poison::Recover;

use compat::py::repr_str;

/// `QueryError::Internal` with the failure's text: the server's own fault (the mirror, the
/// index, a lost record), never the caller's.
pub fn internal(e: impl std::fmt::Display) -> QueryError {
    QueryError::Internal(e.to_string())
}

/// `repr(list_of_str)`: `['a', 'b']`.
pub fn repr_str_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| repr_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

fn known_columns(columns: &[String]) -> String {
    if columns.is_empty() {
        "none - the table's statistics list no columns".into()
    } else {
        columns.join(", ")
    }
}

fn known_parts(parts: &[String], switched_off: bool) -> String {
    if switched_off {
        "none - not measured: switched off for this table".into()
    } else if parts.is_empty() {
        "none - the column lists no parts".into()
    } else {
        parts.join(", ")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("table {} not found in connection {}. Call list_tables with connection {} for valid names.", repr_str(.table), repr_str(.connection), repr_str(.connection))]
    UnknownTable { table: String, connection: String },
    #[error("the last generate run could not profile {}; run dbprint generate to see the cause", repr_str(.table))]
    UnprofiledTable { table: String },
    #[error("connection {} not in .dbprint.yaml. Configured: {}", repr_str(.connection), repr_str_list(.configured))]
    UnknownConnection {
        connection: String,
        configured: Vec<String>,
    },
    #[error("connection {} is configured but not served by this instance. Served: {}. Restart the server naming it to serve it.", repr_str(.connection), repr_str_list(.served))]
    UnservedConnection {
        connection: String,
        served: Vec<String>,
    },
    /// The label says "Configured" but the list is the served set, as the reference has it.
    #[error("no default connection; pass connection explicitly. Configured: {}", repr_str_list(.served))]
    NoDefaultConnection { served: Vec<String> },
    #[error(
        "manifest references {artifact} but file is absent at {path}. Re-run dbprint generate."
    )]
    MissingFile { artifact: String, path: String },
    #[error("{path}: YAML parse error: {message}")]
    YamlParse { path: String, message: String },
    /// A file that parses but is not the shape its readers walk.
    #[error("{path}: {reason}")]
    Malformed { path: String, reason: String },
    /// A non-YAML exception while constructing a value (Python's `str(exc)`).
    #[error("{0}")]
    Other(String),
    #[error("cursor {} is not one this server issued. Pass back a reply's `next_cursor` unchanged, or call again without `cursor` for the first page.", repr_str(.0))]
    MalformedCursor(String),
    #[error("this cursor was not issued by {0} with these arguments. Repeat the call that returned it with the same arguments, or call again without `cursor`.")]
    ForeignCursor(String),
    #[error("the print changed on disk since this cursor was issued, so {0} cannot resume where it left off. Call again without `cursor` to start over.")]
    StaleCursor(String),
    /// An argument that does not match the tool's schema; the text is already worded.
    #[error("{0}")]
    InvalidArgument(String),
    #[error("unknown tool {}. Available: {}", repr_str(.name), repr_str_list(.available))]
    UnknownTool {
        name: String,
        available: Vec<String>,
    },
    /// A resource URI outside the scheme (or with a query other than `page`/`version`).
    #[error("URI {} does not match the dbprint:// scheme.", repr_str(.0))]
    MalformedUri(String),
    #[error("{} names no page of this resource: pages run 1 to {pages}.", repr_str(.uri))]
    PageOutOfRange { uri: String, pages: usize },
    #[error("{} asks for a page past the first without `version`. Pass the `version` the first page's `_meta` reported, as `?page=<n>&version=<v>`.", repr_str(.0))]
    MissingPageVersion(String),
    /// The URI (or, when the file changed twice during one read, its path).
    #[error("{}: the file changed on disk since that version was read. Read page 1 again for its current version.", repr_str(.0))]
    StalePageVersion(String),
    /// A human-written kind the manifest never declared for the table.
    #[error("{artifact} is optional and not authored for table {}.", repr_str(.table))]
    OptionalNotAuthored { artifact: String, table: String },
    #[error("{artifact} is optional and not authored for connection {}.", repr_str(.connection))]
    OptionalNotAuthoredForConnection {
        artifact: String,
        connection: String,
    },
    #[error("{kind} is not declared for table {} - check the object's type before requesting it; the manifest does not declare every kind for every object.", repr_str(.table))]
    UndeclaredKind { kind: String, table: String },
    #[error("no diff available at {0}. Run `dbprint diff` or `dbprint generate` first.")]
    NoDiff(String),
    #[error("no reading guide available at {0}. Run `dbprint generate` first.")]
    NoReadingGuide(String),
    #[error("column {} not found in table {}. Columns: {}.", repr_str(.column), repr_str(.table), known_columns(.columns))]
    UnknownColumn {
        column: String,
        table: String,
        columns: Vec<String>,
    },
    #[error("part {} not found in column {} of table {}. Parts: {}.", repr_str(.part), repr_str(.column), repr_str(.table), known_parts(.parts, *.switched_off))]
    UnknownPart {
        part: String,
        column: String,
        table: String,
        parts: Vec<String>,
        /// The table's statistics name `parts` in `disabled`.
        switched_off: bool,
    },
    /// get_reference: no heading carries the section (numbers, or guide titles, sorted).
    #[error("section {} not found in {document}. Available: {}", repr_str(.section), repr_str_list(.available))]
    UnknownSection {
        document: String,
        section: String,
        available: Vec<String>,
    },
    /// No candidate dbprint package carries a reference document: an install defect.
    /// The text is dbprint's, then how to point printdex at a package.
    #[error("no {document} reference document available - neither the installed package nor the source tree carries it. Point printdex at an installed dbprint package directory with --reference-dir or the PRINTDEX_REFERENCE_DIR environment variable.")]
    NoReferenceDocument { document: String },
    /// The mirror itself failed (SQLite, I/O); never a user's fault.
    #[error("{0}")]
    Internal(String),
    /// A file moved on disk since the snapshot answering read it. Never reaches a
    /// client: the store re-reads the file and asks again (`Store::answer`).
    #[error("a print file changed on disk while it was read: {}", .0.display())]
    Stale(std::path::PathBuf),
}
