//! A pz read-side answer (`query::pz_project::PzAnswer`) as `pz mcp`'s envelope: `ok`, `errors`
//! (omitted when empty), then `result`, compact, in .NET's escaping.

#[cfg(test)]
mod fixtures_tests;

use crate::query::pz_project::PzAnswer;
use crate::render::pz_envelope as envelope;

/// The envelope text of `answer`.
pub fn envelope(answer: &PzAnswer) -> String {
    let Some(result) = &answer.result else {
        return envelope::failure(None, &answer.errors);
    };
    // Written in place: a 500-pipeline overview is not copied to be framed.
    let mut out = String::with_capacity(256);
    out.push_str("{\"ok\":true");
    if !answer.errors.is_empty() {
        out.push_str(",\"errors\":");
        compat::dotnet::Json::Arr(answer.errors.iter().map(envelope::error_json).collect())
            .write(&mut out);
    }
    out.push_str(",\"result\":");
    result.write(&mut out);
    out.push('}');
    out
}
