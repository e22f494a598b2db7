//! `pz_compile`: the DAG's nodes in run order, with pz's notices and warnings, or the
//! errors that stop the compile. Writes nothing.

use std::borrow::Cow;

use super::Tool;
use crate::mcp::tool_set::ToolSpec;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_compile",
            description: "Compile the pz project without running it: every node of the DAG (source loads, pipelines, checks, sink writes) in the order a run takes them, each with its id and the ids it depends on, plus notices and warnings (such as a pipeline whose result nothing consumes). A broken project answers with its errors (unknown connection, dependency cycle, misplaced sink, ...). Never writes .pz/target.",
            params: Vec::new(),
        },
        instruction: None,
        handler: |ctx, args| ctx.project_answer("pz_compile", args, |p| Cow::Borrowed(p.compile())),
    }
}
