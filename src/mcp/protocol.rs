//! The protocol as the references' SDKs speak it: the versions, the one an `initialize`
//! agrees to, and where the two SDKs (dbprint's Python, pz's C#) answer differently.

use std::borrow::Cow;

use rmcp::model::{
    ErrorCode, InitializeRequestParams, InitializeResult, ProtocolVersion, ServerJsonRpcMessage,
};

/// The protocol versions the reference's SDK speaks; an unknown request gets the newest.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
pub const LATEST_PROTOCOL: &str = "2025-11-25";

/// `PROTOCOL_VERSIONS` as rmcp's type.
pub fn supported() -> Cow<'static, [ProtocolVersion]> {
    Cow::Owned(
        PROTOCOL_VERSIONS
            .iter()
            .filter_map(|v| serde_json::from_value(serde_json::json!(v)).ok())
            .collect(),
    )
}

/// `info` answering `request`: the client's version when we speak it, else the newest.
pub fn negotiate(
    mut info: InitializeResult,
    request: &InitializeRequestParams,
) -> InitializeResult {
    let asked = serde_json::to_value(&request.protocol_version).unwrap_or_default();
    let chosen = match asked.as_str() {
        Some(v) if PROTOCOL_VERSIONS.contains(&v) => v,
        _ => LATEST_PROTOCOL,
    };
    if let Ok(v) = serde_json::from_value(serde_json::json!(chosen)) {
        info.protocol_version = v;
    }
    info
}

/// How a reference's MCP SDK answers where the two differ.
pub struct Dialect {
    /// Methods the SDK knows: one whose params do not parse is -32602, any other -32601.
    pub known_methods: &'static [&'static str],
    /// The `data` of that -32602 (`Invalid request parameters`).
    pub invalid_params_data: Option<&'static str>,
    /// tools/list takes a cursor as every list does (a malformed one is refused, and none
    /// resumes: the list is never cut) or ignores it.
    pub paged_tool_list: bool,
    /// `capabilities.experimental: {}` is announced.
    pub experimental: bool,
}

/// dbprint's SDK (Python `mcp`): every method of the protocol is known.
pub const PYTHON_SDK: Dialect = Dialect {
    known_methods: &[
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
    ],
    invalid_params_data: Some(""),
    paged_tool_list: true,
    experimental: true,
};

/// pz's SDK (C# `ModelContextProtocol`): only the methods a tools-only server registers.
pub const CSHARP_SDK: Dialect = Dialect {
    known_methods: &["initialize", "ping", "tools/list", "tools/call"],
    invalid_params_data: None,
    paged_tool_list: false,
    experimental: false,
};

impl Dialect {
    /// `Invalid request parameters` (-32602), as this SDK sends it.
    pub fn invalid_params(&self) -> rmcp::model::ErrorData {
        rmcp::model::ErrorData::new(
            rmcp::model::ErrorCode::INVALID_PARAMS,
            "Invalid request parameters",
            self.invalid_params_data.map(|d| serde_json::json!(d)),
        )
    }
}

/// The references' method-not-found: `{"code":-32601,"message":"Method not found","data":
/// "<method>"}`. rmcp's own (a method it has no handler for, or a capability not announced)
/// carries the method as its message and no data; it is put in that shape on the way out.
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

/// JSON-RPC's text for -32601, as both references send it.
pub const METHOD_NOT_FOUND: &str = "Method not found";

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ErrorData, NumberOrString};

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
        let sent = method_not_found_shape(ServerJsonRpcMessage::error(other.clone(), None));
        assert!(matches!(sent, ServerJsonRpcMessage::Error(e) if e.error == other));
    }
}
