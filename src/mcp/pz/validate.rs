//! pz's `ArgumentValidatingTool`: a shallow check of the arguments against the tool's own
//! input schema before the handler runs, so an agent gets JSON-RPC -32602 naming the argument
//! and the expected type instead of a generic SDK error. JSON null passes through (the
//! handler applies its default).

use serde_json::{Map, Value};

use crate::mcp::tool_set::{JsonType, ToolSpec};

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn fits(ty: JsonType, v: &Value) -> bool {
    match ty {
        JsonType::String => v.is_string(),
        JsonType::Boolean => v.is_boolean(),
        JsonType::StringList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        // Bound to a C# int: integral and within its range.
        JsonType::Integer => {
            v.as_i64().is_some_and(|i| i32::try_from(i).is_ok())
                || v.as_f64().is_some_and(|f| {
                    f.fract() == 0.0 && f >= f64::from(i32::MIN) && f <= f64::from(i32::MAX)
                })
        }
    }
}

/// The first violation as pz words it, or `None` when the call may proceed.
pub fn violation(tool: &ToolSpec, args: &Map<String, Value>) -> Option<String> {
    let prefix = format!("invalid params for '{}'", tool.name);
    for (name, value) in args {
        let Some(param) = tool.params.iter().find(|p| p.name == name) else {
            let accepted: Vec<&str> = tool.params.iter().map(|p| p.name).collect();
            let accepted = if accepted.is_empty() {
                "none".to_string()
            } else {
                accepted.join(", ")
            };
            return Some(format!(
                "{prefix}: unknown argument '{name}' (accepted: {accepted})"
            ));
        };
        if value.is_null() {
            continue;
        }
        if !fits(param.ty, value) {
            return Some(format!(
                "{prefix}: argument '{name}' expects {}, got {}",
                param.ty.name(),
                kind(value)
            ));
        }
    }
    tool.params
        .iter()
        .find(|p| p.required && !args.contains_key(p.name))
        .map(|p| format!("{prefix}: required argument '{}' is missing", p.name))
}
