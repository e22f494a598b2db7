//! `pz_project_overview`: the project's name, flows, connections (never their config
//! values), pipelines with their refs, sources and sinks, and the DAG's nodes.

use std::borrow::Cow;

use super::Tool;
use crate::mcp::tool_set::ToolSpec;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_project_overview",
            description: "Summarize the pz project: its name, its flows (independent parts of the DAG, labelled by what they write), its connections with the entities each reads or writes (no connection settings), each pipeline's refs, sources and sinks, and the DAG's nodes with their dependencies. A project that loads but does not compile still answers, with the compile errors beside a partial result.",
            params: Vec::new(),
        },
        instruction: None,
        handler: |ctx, args| {
            ctx.project_answer("pz_project_overview", args, |p| Cow::Borrowed(p.overview()))
        },
    }
}
