//! `pz_run_results(run_id?)`: one run's status and nodes from `.pz/runs` (the latest
//! parseable run by default). Listed only under `--allow-run`, as pz lists it.

use std::borrow::Cow;

use super::{str_arg, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_run_results",
            description: "Read a finished (or crashed) run's results: its id, status and every node's status, kind and row count, with the error of a failed node. Defaults to the latest run; PZ0502 when there is no such run.",
            params: vec![Param::string(
                "run_id",
                "A run id (a directory name under .pz/runs); omit for the latest run.",
            )],
        },
        instruction: None,
        handler: |ctx, args| {
            let run_id = str_arg(args, "run_id");
            ctx.project_answer("pz_run_results", args, |p| Cow::Owned(p.run_results(run_id)))
        },
    }
}
