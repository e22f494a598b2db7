//! `pz_state`: the watermarks, sync tokens and schema baselines under `.pz/state` (a
//! corrupt file says so instead of failing), and the latest run's status counts.

use std::borrow::Cow;

use super::Tool;
use crate::mcp::tool_set::ToolSpec;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_state",
            description: "Show what pz remembers between runs: incremental watermarks, sync tokens and schema baselines (a corrupt state file reports corrupt: true with no entries), and the latest run's id, status and node counts by status (null before the first run).",
            params: Vec::new(),
        },
        instruction: None,
        handler: |ctx, args| ctx.project_answer("pz_state", args, |p| Cow::Borrowed(p.state())),
    }
}
