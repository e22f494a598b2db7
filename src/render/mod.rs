//! Render: answers become reply text. One paging engine (`paging`: units, the page cut,
//! parts) cuts every paged reply into pages of at most 20,000 characters measured as the
//! reference measures them, with cursors (`cursor`) pinned to what the answer read; text
//! documents and resources are cut by lines (`document`, `resource`). One module per reply
//! shape turns a question's answer (`crate::query`) into its reply.

pub mod context;
pub mod cursor;
pub mod diff;
pub mod document;
pub mod erd;
pub mod find;
pub mod list_tables;
pub mod manifest;
pub mod paging;
pub mod plan_joins;
pub mod pz_envelope;
pub mod pz_project;
pub mod resolve_value;
pub mod resource;
pub mod search_columns;
pub mod validate_sql;

use compat::value::Value;

/// A tool's reply: a dict (sent as indent-2 JSON) or a finished text.
pub enum Reply {
    Dict(Value),
    Text(String),
}

/// How a tool's reply is written: Markdown (the default), or the same data as JSON or YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Md,
    Json,
    Yaml,
}

impl Format {
    /// The `format` argument as a tool received it; absent is Markdown (the tool's schema
    /// has already refused any other spelling).
    pub fn from_arg(arg: Option<&str>) -> Format {
        match arg {
            Some("json") => Format::Json,
            Some("yaml") => Format::Yaml,
            _ => Format::Md,
        }
    }
}
