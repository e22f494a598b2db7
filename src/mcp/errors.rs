//! The one table from query errors to wire errors. A tool call's failure is a
//! successful reply carrying `isError: true` and the text; a protocol request's
//! failure (resources/*, list cursors) is a JSON-RPC error with the code below.

use rmcp::model::{ErrorCode, ErrorData};

use crate::error::QueryError;

/// JSON-RPC code for each query error, when it answers a protocol request.
pub fn rpc_code(error: &QueryError) -> i32 {
    match error {
        QueryError::MissingFile { .. }
        | QueryError::YamlParse { .. }
        | QueryError::Malformed { .. }
        | QueryError::NoDiff(_)
        | QueryError::NoReadingGuide(_)
        | QueryError::NoReferenceDocument { .. }
        | QueryError::Internal(_)
        | QueryError::Stale(_) => -32603,
        // The reference lets a non-YAML exception reach its SDK, which answers code 0.
        QueryError::Other(_) => 0,
        QueryError::UnknownTool { .. } => -32601,
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
        | QueryError::UnknownSection { .. } => -32602,
    }
}

/// The JSON-RPC error object for a protocol request: `{code, message}`, no data.
pub fn rpc_error(error: &QueryError) -> ErrorData {
    ErrorData::new(ErrorCode(rpc_code(error)), error.to_string(), None)
}
