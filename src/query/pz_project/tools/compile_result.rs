//! pz_compile (`VerifyTools.CompileAsync`): `{nodes[], notices[], warnings[]}`, or the
//! load/compile errors.

use crate::query::pz_project::compile::ids::IdSource;
use crate::query::pz_project::compile::CompileFailure;
use crate::query::pz_project::PzAnswer;
use compat::dotnet::Json;

use super::{dag_reasons, gap_error, nodes_json, strings_json, warnings_json, Ctx};

pub(in crate::query::pz_project) fn answer(ctx: &Ctx) -> PzAnswer {
    let (project, reasons) = match ctx.project() {
        Ok(loaded) => loaded,
        Err(answer) => return answer,
    };
    match ctx.compiled(project) {
        Err(CompileFailure::Errors(errors)) => PzAnswer::failed(errors.clone(), reasons),
        Err(CompileFailure::Gap(reason)) => {
            PzAnswer::needs_pz(vec![gap_error(reason)], reason.clone())
        }
        Ok(compiled) => {
            let mut notices = compiled.dag.notices.clone();
            if let IdSource::Approximate { notice, .. } = &compiled.ids {
                notices.push(notice.clone());
            }
            let result = Json::Obj(vec![
                ("nodes", nodes_json(&compiled.dag)),
                ("notices", strings_json(&notices)),
                ("warnings", warnings_json(&compiled.dag.warnings)),
            ]);
            let reasons = dag_reasons(compiled, reasons);
            PzAnswer::result(result, reasons)
        }
    }
}
