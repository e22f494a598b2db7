//! The read side: one module per question the tools ask, each answering from a
//! `store::Snapshot` with data (the items in order, head keys, totals, and the files it
//! read as `Pins`), never with pages: `render` turns an answer into its reply (`pz_docs`
//! answers from the `store::pz_docs::Catalog` it is handed). Knows nothing of MCP or of paging.

pub mod context;
pub mod diff;
pub mod edges;

pub mod find;
pub mod freshness;
pub mod list_tables;
pub mod manifest;
pub mod pins;
pub mod plan_joins;
pub mod pz_docs;
pub mod pz_project;
pub mod reference;
pub mod resolve_value;
pub mod resources;
pub mod search_columns;
pub mod tables;
pub mod validate_sql;
pub mod value;
pub mod value_resolution;

/// What a server's warm-up makes before the first calls ask for it (`diff::warm`,
/// `validate_sql::warm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warm {
    /// Only what no earlier process kept: a session's own server, which should not pay
    /// to read back what it may never be asked for.
    Unkept,
    /// What is kept too, read back, and the resource listing: a shared server, whose
    /// sessions' first calls all come after its one warm-up.
    Everything,
}

impl Warm {
    /// Whether the warm-up makes a value, given whether an earlier process kept it.
    pub fn makes(self, kept: impl FnOnce() -> bool) -> bool {
        self == Warm::Everything || !kept()
    }
}
