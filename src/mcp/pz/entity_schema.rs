//! `pz_entity_schema(connection, entity)`: an entity's columns, from its declared
//! `columns:` contract (YAML or the `source()` call site); a contract-less entity needs
//! pz's live probe.

use std::borrow::Cow;

use super::{str_arg, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_entity_schema",
            description: "Get one entity's columns (name and type) and where they came from: declared_contract when the entity declares a columns: contract, fetched when pz probed the connection live. PZ0330 for a connection or entity the project does not declare.",
            params: vec![
                Param::string("connection", "The connection's name, as in connections.yml.").required(),
                Param::string("entity", "The entity's name under that connection.").required(),
            ],
        },
        instruction: None,
        handler: |ctx, args| {
            let connection = str_arg(args, "connection").unwrap_or_default();
            let entity = str_arg(args, "entity").unwrap_or_default();
            ctx.project_answer("pz_entity_schema", args, |p| {
                Cow::Owned(p.entity_schema(connection, entity))
            })
        },
    }
}
