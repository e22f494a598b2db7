//! pz's tool envelope, written as its `ToolEnvelope` writes it: compact JSON in a fixed key
//! order (`ok`, `applied`?, `errors`?, then the payload), error objects
//! (`crate::error::pz::PzError`) keyed `code`, `message`, `file`?, `line`?, `next_step`
//! (JSON null when there is no hint), written by [`compat::dotnet::Json`] (.NET's
//! `Utf8JsonWriter` escaping).

use crate::error::pz::PzError;
use compat::dotnet::Json;

/// An error object, keys in pz's order.
pub fn error_json(e: &PzError) -> Json {
    let mut fields = vec![
        ("code", Json::str(e.code.as_str())),
        ("message", Json::str(&e.message)),
    ];
    if let Some(f) = &e.file {
        fields.push(("file", Json::str(f)));
    }
    if let Some(l) = e.line {
        fields.push(("line", Json::Int(i64::from(l))));
    }
    fields.push((
        "next_step",
        e.next_step.as_ref().map(Json::str).unwrap_or(Json::Null),
    ));
    Json::Obj(fields)
}

/// A success: `ok:true`, `applied` when given, then the payload's keys.
pub fn ok(applied: Option<bool>, payload: Vec<(&'static str, Json)>) -> String {
    let mut fields = vec![("ok", Json::Bool(true))];
    if let Some(a) = applied {
        fields.push(("applied", Json::Bool(a)));
    }
    fields.extend(payload);
    Json::Obj(fields).to_text()
}

/// A failure: `ok:false`, `applied` when given, `errors` (omitted when empty).
pub fn failure(applied: Option<bool>, errors: &[PzError]) -> String {
    let mut fields = vec![("ok", Json::Bool(false))];
    if let Some(a) = applied {
        fields.push(("applied", Json::Bool(a)));
    }
    if !errors.is_empty() {
        fields.push(("errors", Json::Arr(errors.iter().map(error_json).collect())));
    }
    Json::Obj(fields).to_text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::pz::PzCode;

    #[test]
    fn envelopes_match_pz_tests() {
        // ToolEnvelopeTests: an error with file and line, and an applied success.
        let e = PzError {
            code: PzCode::YamlShape,
            message: "m".into(),
            file: Some("connections.yml".into()),
            line: Some(12),
            next_step: Some("n".into()),
        };
        assert_eq!(
            failure(None, &[e]),
            r#"{"ok":false,"errors":[{"code":"PZ0101","message":"m","file":"connections.yml","line":12,"next_step":"n"}]}"#
        );
        assert_eq!(
            ok(
                Some(true),
                vec![("result", Json::Obj(vec![("nodes", Json::Int(3))]))]
            ),
            r#"{"ok":true,"applied":true,"result":{"nodes":3}}"#
        );
        let bare = PzError {
            code: PzCode::UnresolvedRef,
            message: "x".into(),
            file: None,
            line: None,
            next_step: None,
        };
        assert_eq!(
            failure(None, &[bare]),
            r#"{"ok":false,"errors":[{"code":"PZ0201","message":"x","next_step":null}]}"#
        );
    }
}
