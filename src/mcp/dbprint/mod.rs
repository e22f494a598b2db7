//! dbprint's tool set: the print tools over the store, one file per tool (its definition,
//! its line of the instructions and the glue from validated arguments to the store's
//! answer), the reference's schemas and argument texts, and the resources. Tools appear
//! here (and in tools/list) only once they work.

pub mod find;
pub mod get_diff;
pub mod get_manifest;
pub mod get_reference;
pub mod get_table_context;
pub mod list_tables;
pub mod plan_joins;
pub mod resolve_value;
pub mod resources;
pub mod schema;
pub mod search_columns;
pub mod validate;
pub mod validate_sql;

use std::sync::Arc;

use rmcp::model::ErrorData;
use serde_json::{Map, Value as Json};

use super::protocol::{Dialect, PYTHON_SDK};
use super::tool_set::{self, CallResult, Instructions, Refusal, ToolSet, ToolSpec, Unclassified};
use super::Server;
use crate::error::QueryError;
use crate::store::Store;
use compat::py::json_indent2;
use compat::value::Value;

/// Tools printdex serves beyond the reference's seven.
pub const OWN_TOOLS: [&str; 3] = ["validate_sql", "plan_joins", "find"];

pub use crate::render::Reply;

pub type Handler = fn(&Store, &Value) -> Result<Reply, QueryError>;
pub type Tool = tool_set::Tool<Handler>;

/// The dbprint tools over one store.
pub struct DbprintTools {
    store: Arc<Store>,
}

impl DbprintTools {
    pub fn new(store: Arc<Store>) -> DbprintTools {
        DbprintTools { store }
    }
}

/// The server `printdex serve` runs.
pub fn server(store: Arc<Store>) -> Server<DbprintTools> {
    Server::new(DbprintTools::new(store))
}

impl ToolSet for DbprintTools {
    type Args = Value;
    type Handler = Handler;

    const NAME: &'static str = "dbprint";
    const DIALECT: Dialect = PYTHON_SDK;
    const INSTRUCTIONS: Option<Instructions> = Some(Instructions {
        opening: "Answers questions about a database from its print: the schema, statistics, value lists and joins dbprint recorded and committed, read without touching the database. Use the tools, not the print's files: a file read directly lacks the interpretation each tool applies.\n\nWhich tool:\n",
        closing: "\nReading answers: every number describes a population - the whole table, or only the rows scanned when a scope block is present. Inferred fields and inferred or measured joins are guesses, not declarations. A field that is absent means not recorded, never zero or none. The print says which values the data holds, not what its codes, units or defaults mean. Long replies are paged: pass next_cursor back unchanged.",
    });

    /// Every implemented tool, in the reference's tools/list order.
    fn tools() -> Vec<Tool> {
        vec![
            get_table_context::tool(),
            list_tables::tool(),
            search_columns::tool(),
            resolve_value::tool(),
            get_manifest::tool(),
            get_diff::tool(),
            get_reference::tool(),
            // printdex's own, after the reference's seven.
            validate_sql::tool(),
            plan_joins::tool(),
            find::tool(),
        ]
    }

    fn listing(spec: &ToolSpec) -> Json {
        schema::listing(spec)
    }

    fn validate(spec: &ToolSpec, arguments: Map<String, Json>) -> Result<Value, String> {
        validate::validate(spec, &super::json::from_json(&Json::Object(arguments)))
    }

    /// Every refusal is the call's `isError` text, as the reference's tool wrapper raises it.
    /// An unknown tool's error lists the reference's tools, as the reference words it:
    /// printdex's own are in tools/list.
    fn refused(refusal: Refusal<'_>) -> Result<CallResult, ErrorData> {
        let text = match refusal {
            Refusal::UnknownTool { name, available } => {
                let mut available: Vec<String> = available
                    .iter()
                    .filter(|n| !OWN_TOOLS.contains(n))
                    .map(|n| n.to_string())
                    .collect();
                available.sort();
                QueryError::UnknownTool {
                    name: name.to_string(),
                    available,
                }
                .to_string()
            }
            Refusal::InvalidArguments(text) => text,
        };
        Ok(CallResult::error(text))
    }

    fn run(&self, tool: &Tool, args: &Value) -> CallResult {
        // A failure of the index itself (never the print's): once the store has repaired
        // or replaced the location it read, the call is asked again.
        let answered = match (tool.handler)(&self.store, args) {
            Err(QueryError::Internal(_)) if self.store.recover_after_failure() => {
                (tool.handler)(&self.store, args)
            }
            other => other,
        };
        match answered {
            Ok(Reply::Dict(v)) => CallResult::ok(json_indent2(&v)),
            Ok(Reply::Text(t)) => CallResult::ok(t),
            Err(e) => CallResult::error(e.to_string()),
        }
    }

    fn crashed(_tool: &str, failure: &Unclassified) -> CallResult {
        CallResult::error(format!("internal error: {}", failure.message))
    }

    fn resources(&self) -> Option<&dyn tool_set::Resources> {
        Some(self)
    }
}

/// A string argument, when given.
pub fn arg_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A boolean argument, `bool(x)` of whatever was given, else `default`.
pub fn arg_bool(args: &Value, key: &str, default: bool) -> bool {
    args.get(key).map(Value::truthy).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_routes_itself_in_the_instructions() {
        for tool in DbprintTools::tools() {
            let line = tool.instruction.unwrap_or_default();
            assert!(
                line.starts_with(&format!("- {}: ", tool.spec.name)),
                "{}: {line:?}",
                tool.spec.name
            );
            assert!(!line.contains('\n'), "{}", tool.spec.name);
        }
    }
}
