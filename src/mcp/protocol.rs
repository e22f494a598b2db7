//! Protocol-version negotiation shared by both servers (dbprint's and pz's): the
//! versions the reference SDK speaks, and the one an `initialize` agrees to.

use std::borrow::Cow;

use rmcp::model::{InitializeRequestParams, InitializeResult, ProtocolVersion};

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
