//! The one table of wire errors: every JSON-RPC code and message shape either server sends.
//! A tool call's failure is a successful reply carrying `isError: true` and the text; a
//! protocol request's failure (resources/*, list cursors, a method or params the SDK does
//! not take, a line that is no request) is a JSON-RPC error built here.

use rmcp::model::{ErrorCode, ErrorData, ServerJsonRpcMessage};
use serde_json::Value as Json;

use crate::error::QueryError;

/// JSON-RPC's codes and texts for a line that is not JSON, and JSON that is no request.
pub const PARSE_ERROR: (i32, &str) = (ErrorCode::PARSE_ERROR.0, "Parse error");
pub const INVALID_REQUEST: (i32, &str) = (ErrorCode::INVALID_REQUEST.0, "Invalid Request");
/// JSON-RPC's text for -32601, as both references send it.
pub const METHOD_NOT_FOUND: &str = "Method not found";
/// The text of -32602 for a request the SDK cannot take, as both references send it.
pub const INVALID_PARAMS: &str = "Invalid request parameters";
/// What the reference answers an exception its handler did not classify: its SDK sends
/// code 0.
const UNCLASSIFIED: i32 = 0;

/// JSON-RPC code for each query error, when it answers a protocol request.
pub fn rpc_code(error: &QueryError) -> i32 {
    let code = match error {
        QueryError::MissingFile { .. }
        | QueryError::YamlParse { .. }
        | QueryError::Malformed { .. }
        | QueryError::NoDiff(_)
        | QueryError::NoReadingGuide(_)
        | QueryError::NoReferenceDocument { .. }
        | QueryError::Internal(_)
        | QueryError::Stale(_) => ErrorCode::INTERNAL_ERROR,
        // The reference lets a non-YAML exception reach its SDK, which answers code 0.
        QueryError::Other(_) => return UNCLASSIFIED,
        QueryError::UnknownTool { .. } => ErrorCode::METHOD_NOT_FOUND,
        QueryError::UnknownTable { .. }
        | QueryError::UnprofiledTable { .. }
        | QueryError::UnknownColumn { .. }
        | QueryError::UnknownPart { .. }
        | QueryError::UnknownConnection { .. }
        | QueryError::UnservedConnection { .. }
        | QueryError::NoDefaultConnection { .. }
        | QueryError::MalformedCursor(_)
        | QueryError::ForeignCursor(_)
        | QueryError::StaleCursor(_)
        | QueryError::InvalidArgument(_)
        | QueryError::MalformedUri(_)
        | QueryError::PageOutOfRange { .. }
        | QueryError::MissingPageVersion(_)
        | QueryError::StalePageVersion(_)
        | QueryError::OptionalNotAuthored { .. }
        | QueryError::OptionalNotAuthoredForConnection { .. }
        | QueryError::UndeclaredKind { .. }
        | QueryError::UnknownSection { .. } => ErrorCode::INVALID_PARAMS,
    };
    code.0
}

/// The JSON-RPC error object for a protocol request: `{code, message}`, no data.
pub fn rpc_error(error: &QueryError) -> ErrorData {
    ErrorData::new(ErrorCode(rpc_code(error)), error.to_string(), None)
}

/// -32603 with the failure's text: the server's own fault, never the client's.
pub fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

/// -32602 with `message` and, when the SDK sends one, `data`.
pub fn invalid_params(message: impl Into<String>, data: Option<&str>) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        message.into(),
        data.map(|d| serde_json::json!(d)),
    )
}

/// The references' method-not-found: `{"code":-32601,"message":"Method not found","data":
/// "<method>"}`.
pub fn method_not_found(method: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        METHOD_NOT_FOUND,
        Some(serde_json::json!(method)),
    )
}

/// The error object refusing a request a server made of printdex (a child's request
/// other than ping): `{"code":-32601,"message":"Method not found"}`.
pub fn method_not_found_object() -> Json {
    serde_json::json!({"code": ErrorCode::METHOD_NOT_FOUND.0, "message": METHOD_NOT_FOUND})
}

/// rmcp's own method-not-found (a method it has no handler for, or a capability not
/// announced) carries the method as its message and no data; it is put in the references'
/// shape (`method_not_found`) on the way out. Any other message goes as it is.
pub fn method_not_found_shape(mut message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    if let ServerJsonRpcMessage::Error(e) = &mut message {
        let error = &mut e.error;
        if error.code == ErrorCode::METHOD_NOT_FOUND
            && error.data.is_none()
            && error.message != METHOD_NOT_FOUND
        {
            error.data = Some(serde_json::json!(error.message));
            error.message = METHOD_NOT_FOUND.into();
        }
    }
    message
}

/// An error pz itself answered (its JSON-RPC `error` object), passed on as it came: its
/// code (-32603 when it has none), its message and its data.
pub fn from_child(error: &Json) -> ErrorData {
    let code = error["code"]
        .as_i64()
        .map_or(ErrorCode::INTERNAL_ERROR.0, |c| c as i32);
    let message = error["message"]
        .as_str()
        .unwrap_or("pz refused the call")
        .to_string();
    ErrorData::new(ErrorCode(code), message, error.get("data").cloned())
}

/// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}`, the id already
/// written as JSON text (`null` when there is none).
pub fn error_line(id_json: &str, (code, message): (i32, &str), data: &str) -> String {
    let error = serde_json::json!({"code": code, "message": message, "data": data});
    format!(r#"{{"jsonrpc":"2.0","id":{id_json},"error":{error}}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    #[test]
    fn rmcp_method_not_found_takes_the_references_shape() {
        let rmcp = ErrorData::method_not_found::<rmcp::model::ListPromptsRequestMethod>();
        let shaped = method_not_found_shape(ServerJsonRpcMessage::error(
            rmcp,
            Some(NumberOrString::Number(3)),
        ));
        assert_eq!(
            serde_json::to_value(&shaped).unwrap(),
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "error":
                {"code": -32601, "message": "Method not found", "data": "prompts/list"}})
        );
        // Any other error goes as it is.
        let other = ErrorData::invalid_params("Invalid request parameters", None);
        let kept = method_not_found_shape(ServerJsonRpcMessage::error(
            other,
            Some(NumberOrString::Number(4)),
        ));
        assert_eq!(
            serde_json::to_value(&kept).unwrap()["error"],
            serde_json::json!({"code": -32602, "message": "Invalid request parameters"})
        );
    }

    #[test]
    fn the_codes_are_json_rpcs() {
        assert_eq!(PARSE_ERROR, (-32700, "Parse error"));
        assert_eq!(INVALID_REQUEST, (-32600, "Invalid Request"));
        assert_eq!(
            serde_json::to_value(method_not_found("x/y")).unwrap(),
            serde_json::json!({"code": -32601, "message": "Method not found", "data": "x/y"})
        );
        assert_eq!(
            method_not_found_object(),
            serde_json::json!({"code": -32601, "message": "Method not found"})
        );
        assert_eq!(rpc_code(&QueryError::Other("x".into())), 0);
        assert_eq!(rpc_code(&QueryError::Internal("x".into())), -32603);
        assert_eq!(rpc_code(&QueryError::MalformedUri("x".into())), -32602);
    }

    #[test]
    fn a_childs_error_passes_as_it_came() {
        let passed = from_child(&serde_json::json!({"code": -32602, "message": "m", "data": 1}));
        assert_eq!(
            serde_json::to_value(passed).unwrap(),
            serde_json::json!({"code": -32602, "message": "m", "data": 1})
        );
        let bare = from_child(&serde_json::json!({}));
        assert_eq!(
            serde_json::to_value(bare).unwrap(),
            serde_json::json!({"code": -32603, "message": "pz refused the call"})
        );
    }
}
