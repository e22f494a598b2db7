//! The protocol as the references' SDKs speak it: the versions, the one an `initialize`
//! agrees to, and where the two SDKs (dbprint's Python, pz's C#) answer differently.

use std::borrow::Cow;

use rmcp::model::{InitializeRequestParams, InitializeResult, ProtocolVersion};

use super::errors;

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
        errors::invalid_params(errors::INVALID_PARAMS, self.invalid_params_data)
    }
}
