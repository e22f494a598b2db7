//! pz_compile (`VerifyTools.CompileAsync`): `{nodes[], notices[], warnings[]}`, or the
//! load/compile errors.

use crate::ingest::pz::ParsedProject;
use crate::pz::envelope::{self, Json};
use crate::query::pz::compile::ids::IdSource;
use crate::query::pz::compile::CompileFailure;
use crate::query::pz::{Env, PzAnswer};

use super::{
    compile_loaded, dag_reasons, gap_error, load, nodes_json, strings_json, warnings_json,
};

pub fn compile_answer(parsed: &ParsedProject, env: &Env) -> PzAnswer {
    let phase = load(parsed, env);
    let project = match phase.project {
        Ok(p) => p,
        Err(errors) => return PzAnswer::new(envelope::failure(None, &errors), phase.reasons),
    };
    match compile_loaded(parsed, &project, env, &phase.inexact_checks) {
        Err(CompileFailure::Errors(errors)) => {
            PzAnswer::new(envelope::failure(None, &errors), phase.reasons)
        }
        Err(CompileFailure::Gap(reason)) => {
            PzAnswer::needs_pz(envelope::failure(None, &[gap_error(&reason)]), reason)
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
            let reasons = dag_reasons(&compiled, phase.reasons);
            PzAnswer::new(envelope::ok(None, vec![("result", result)]), reasons)
        }
    }
}
