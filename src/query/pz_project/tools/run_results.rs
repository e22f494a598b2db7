//! pz_run_results (`ExecutionTools.RunResults`): the latest parseable run, or the one with
//! the given id, from `.pz/runs`; PZ0502 when there is none.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::runs::RunRecord;
use crate::query::pz_project::PzAnswer;
use compat::dotnet::Json;

use super::Ctx;

pub(in crate::query::pz_project) fn answer(ctx: &Ctx, run_id: Option<&str>) -> PzAnswer {
    let parsed = ctx.parsed;
    let (project, reasons) = match ctx.project() {
        Ok(loaded) => loaded,
        Err(answer) => return answer,
    };
    if !project.state.local_artifacts() {
        let reason =
            "state backend 'sqlserver' keeps run artifacts in its database; reading them needs pz"
                .to_string();
        let error = PzError {
            code: PzCode::StateStoreUnavailable,
            message: "printdex cannot reach the 'sqlserver' run-artifact store offline".into(),
            file: Some("project.yml".into()),
            line: None,
            next_step: Some(
                "make pz available to printdex (--pz, PZ_BIN or PATH), or set state.artifacts: false to keep run artifacts under .pz/runs".into(),
            ),
        };
        return PzAnswer::needs_pz(vec![error], reason);
    }
    let mut parsed_runs = parsed.runs.iter().filter_map(|r| r.run.as_ref());
    let run = match run_id {
        None => parsed_runs.next(),
        Some(id) => parsed_runs.find(|r| r.run_id == id),
    };
    let Some(run) = run else {
        let error = PzError {
            code: PzCode::NoPriorRun,
            message: format!(
                "no run found for id '{}' under .pz/runs",
                run_id.unwrap_or("latest")
            ),
            file: None,
            line: None,
            next_step: Some("call pz_run first, or omit run_id to read the latest run".into()),
        };
        return PzAnswer::failed(vec![error], reasons);
    };
    let result = Json::Obj(run_fields(run));
    PzAnswer::result(result, reasons)
}

/// `ExecutionTools.WriteRun`.
fn run_fields(run: &RunRecord) -> Vec<(&'static str, Json)> {
    let text = |s: &Option<String>| s.as_ref().map_or(Json::Null, Json::str);
    let nodes = run
        .nodes
        .iter()
        .map(|n| {
            let mut fields = vec![
                ("id", text(&n.id)),
                ("name", text(&n.name)),
                ("status", text(&n.status)),
                ("kind", Json::str(&n.kind)),
                ("rows", Json::Int(n.rows)),
            ];
            if let Some((code, message)) = &n.error {
                fields.push((
                    "error",
                    Json::Obj(vec![
                        ("code", Json::str(code)),
                        ("message", Json::str(message)),
                    ]),
                ));
            }
            Json::Obj(fields)
        })
        .collect();
    vec![
        ("run_id", Json::str(&run.run_id)),
        ("status", text(&run.status)),
        ("nodes", Json::Arr(nodes)),
    ]
}
