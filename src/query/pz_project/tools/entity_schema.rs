//! pz_entity_schema (`IntrospectTools.EntitySchemaAsync`) after a compile: PZ0330 for an
//! unknown connection (ordinal match), the declared `columns:` contract (YAML, or the
//! `source()` call site's `columns:` kwarg) sorted by name. pz also probes the connection
//! live first; offline that probe is assumed clean and finds no extra columns. An entity
//! without a contract can only be fetched live: that answer needs pz.

use crate::error::pz::{PzCode, PzError};
use crate::query::pz_project::compile::CompileFailure;
use crate::query::pz_project::PzAnswer;
use compat::dotnet::ordinal_cmp;
use compat::dotnet::Json;

use super::{gap_error, Ctx};

pub(in crate::query::pz_project) fn answer(ctx: &Ctx, connection: &str, entity: &str) -> PzAnswer {
    let (project, mut reasons) = match ctx.project() {
        Ok(loaded) => loaded,
        Err(answer) => return answer,
    };
    let compiled = match ctx.compiled(project) {
        Ok(c) => c,
        Err(CompileFailure::Errors(errors)) => return PzAnswer::failed(errors.clone(), reasons),
        Err(CompileFailure::Gap(reason)) => {
            return PzAnswer::needs_pz(vec![gap_error(reason)], reason.clone())
        }
    };
    let Some(conn) = compiled
        .dag
        .connections
        .iter()
        .find(|c| c.name == connection)
    else {
        let error = PzError {
            code: PzCode::ConnectionCheckFailed,
            message: format!("no connection named '{connection}' exists"),
            file: Some("connections.yml".into()),
            line: None,
            next_step: Some("check pz_project_overview for the declared connection names".into()),
        };
        return PzAnswer::failed(vec![error], reasons);
    };
    let contract = conn
        .datasets
        .iter()
        .find(|d| d.name == entity)
        .and_then(|d| d.columns.as_ref())
        .filter(|c| !c.is_empty());
    let Some(contract) = contract else {
        let error = PzError {
            code: PzCode::ConnectionCheckFailed,
            message: format!(
                "entity '{entity}' on connection '{connection}' declares no columns: contract; its schema comes from a live probe, which only pz can run"
            ),
            file: Some("connections.yml".into()),
            line: None,
            next_step: Some(
                "make pz available to printdex (--pz, PZ_BIN or PATH), or declare the entity's columns: contract".into(),
            ),
        };
        let reason =
            format!("'{connection}.{entity}' has no declared contract; pz fetches its schema live");
        return PzAnswer::needs_pz(vec![error], reason);
    };
    let mut columns = contract.clone();
    columns.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    let result = Json::Obj(vec![
        (
            "columns",
            Json::Arr(
                columns
                    .iter()
                    .map(|(n, t)| Json::Obj(vec![("name", Json::str(n)), ("type", Json::str(t))]))
                    .collect(),
            ),
        ),
        ("source", Json::str("declared_contract")),
        ("differs_from_contract", Json::Bool(false)),
    ]);
    reasons.push(format!(
        "pz probes '{connection}' live before answering: an unreachable connection is an error there, and extra live columns set differs_from_contract"
    ));
    PzAnswer::result(result, reasons)
}
