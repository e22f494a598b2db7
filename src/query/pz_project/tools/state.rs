//! pz_state (`IntrospectTools.State`): after a full project load, the three local state
//! files (a corrupt one reports `corrupt: true` and no entries) and the latest run's
//! status counts. A non-local backend keeps state in a store only pz can reach.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::runs::RunRecord;
use crate::ingest::pz_project::state::StateRead;
use crate::query::pz_project::PzAnswer;
use compat::dotnet::ordinal_cmp;
use compat::dotnet::Json;

use super::Ctx;

pub(in crate::query::pz_project) fn answer(ctx: &Ctx) -> PzAnswer {
    let parsed = ctx.parsed;
    let (project, mut reasons) = match ctx.project() {
        Ok(loaded) => loaded,
        Err(answer) => return answer,
    };
    if !project.state.is_local() {
        let backend = &project.state.backend;
        let reason = format!(
            "state backend '{backend}' keeps watermarks and sync state on a server; reading them needs pz (printdex reads only backend: local from .pz/state)"
        );
        let error = PzError {
            code: PzCode::StateStoreUnavailable,
            message: format!("printdex cannot reach the '{backend}' state backend offline"),
            file: Some("project.yml".into()),
            line: None,
            next_step: Some(
                "make pz available to printdex (--pz, PZ_BIN or PATH) so pz_state is answered by pz, or use `state: {backend: local}`".into(),
            ),
        };
        return PzAnswer::needs_pz(vec![error], reason);
    }
    let s = &parsed.state;
    let watermarks = section(&s.watermarks, |(key, w)| {
        Json::Obj(vec![
            ("key", Json::str(key)),
            ("cursor", Json::str(&w.cursor)),
            ("type", Json::str(&w.type_name)),
            ("value", Json::str(&w.value)),
            ("run_id", Json::str(&w.run_id)),
        ])
    });
    let sync = section(&s.sync_state, |(key, t)| {
        Json::Obj(vec![
            ("key", Json::str(key)),
            ("token", Json::str(&t.token)),
            ("run_id", Json::str(&t.run_id)),
        ])
    });
    let schemas = section(&s.schemas, |(key, b)| {
        let columns = b
            .columns
            .iter()
            .map(|(n, t)| Json::Obj(vec![("name", Json::str(n)), ("type", Json::str(t))]))
            .collect();
        Json::Obj(vec![
            ("key", Json::str(key)),
            ("hints_hash", Json::str(&b.hints_hash)),
            ("run_id", Json::str(&b.run_id)),
            ("columns", Json::Arr(columns)),
        ])
    });

    let latest = parsed.runs.iter().find_map(|r| r.run.as_ref());
    let latest_run = match latest {
        None => Json::Null,
        Some(run) => latest_json(run, &mut reasons),
    };
    let result = Json::Obj(vec![
        ("watermarks", watermarks),
        ("sync_state", sync),
        ("schema_baselines", schemas),
        ("latest_run", latest_run),
    ]);
    PzAnswer::result(result, reasons)
}

fn section<T>(read: &StateRead<T>, entry: impl Fn(&(String, T)) -> Json) -> Json {
    let (corrupt, entries) = match read {
        StateRead::Absent => (false, Vec::new()),
        StateRead::Corrupt => (true, Vec::new()),
        StateRead::Entries(e) => (false, e.iter().map(entry).collect()),
    };
    Json::Obj(vec![
        ("corrupt", Json::Bool(corrupt)),
        ("entries", Json::Arr(entries)),
    ])
}

fn latest_json(run: &RunRecord, reasons: &mut Vec<String>) -> Json {
    let mut counts: Vec<(String, i64)> = Vec::new();
    for node in &run.nodes {
        let Some(status) = &node.status else {
            // pz writes a null group key and fails (PZ0609); such a run file is not pz's.
            reasons.push(format!(
                "run '{}' has a node with a null status",
                run.run_id
            ));
            continue;
        };
        match counts.iter_mut().find(|(s, _)| s == status) {
            Some(slot) => slot.1 += 1,
            None => counts.push((status.clone(), 1)),
        }
    }
    counts.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    Json::Obj(vec![
        ("run_id", Json::str(&run.run_id)),
        ("status", run.status.as_ref().map_or(Json::Null, Json::str)),
        (
            "node_counts",
            Json::Map(counts.into_iter().map(|(s, n)| (s, Json::Int(n))).collect()),
        ),
    ])
}
