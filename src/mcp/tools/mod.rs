//! One file per MCP tool: its definition and the glue from validated arguments to
//! the engine's answer. Tools appear here (and in tools/list) only once they work.

pub mod get_diff;
pub mod get_manifest;
pub mod get_reference;
pub mod get_table_context;
pub mod list_tables;
pub mod resolve_value;
pub mod search_columns;

use super::schema::ToolSpec;
use crate::error::QueryError;
use crate::store::Store;
use crate::yaml::Value;

pub use crate::render::Reply;

pub type Handler = fn(&Store, &Value) -> Result<Reply, QueryError>;

pub struct Tool {
    pub spec: ToolSpec,
    pub handler: Handler,
}

/// Every implemented tool, in the reference's tools/list order.
pub fn all() -> Vec<Tool> {
    vec![
        get_table_context::tool(),
        list_tables::tool(),
        search_columns::tool(),
        resolve_value::tool(),
        get_manifest::tool(),
        get_diff::tool(),
        get_reference::tool(),
    ]
}

/// A string argument, when given.
pub fn arg_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A boolean argument, `bool(x)` of whatever was given, else `default`.
pub fn arg_bool(args: &Value, key: &str, default: bool) -> bool {
    args.get(key).map(Value::truthy).unwrap_or(default)
}
