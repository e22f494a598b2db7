//! Argument pre-validation, as the reference runs it: `format`/`purpose` fold case,
//! then the arguments are checked against the tool's own schema and the first
//! violation (root faults first, then by key name) is reported in its exact words.

use super::schema::ToolSpec;
use crate::error::{repr_str_list, QueryError};
use compat::py::{lower, repr};
use compat::value::Value;

const CASE_FOLDED: [&str; 2] = ["format", "purpose"];

fn fault(text: String) -> QueryError {
    QueryError::InvalidArgument(text)
}

/// The validated (folded) arguments, or the first violation.
pub fn validate(spec: &ToolSpec, arguments: &Value) -> Result<Value, QueryError> {
    let pairs: Vec<(Value, Value)> = arguments
        .as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| match (k.as_str(), v) {
            (Some(key), Value::Str(s)) if CASE_FOLDED.contains(&key) => {
                (k.clone(), Value::Str(lower(s)))
            }
            _ => (k.clone(), v.clone()),
        })
        .collect();
    let keys: Vec<String> = pairs
        .iter()
        .filter_map(|(k, _)| k.as_str().map(str::to_string))
        .collect();

    // Root faults, in schema keyword order: additionalProperties, then required.
    let mut unknown: Vec<&String> = keys.iter().filter(|k| spec.property(k).is_none()).collect();
    if !unknown.is_empty() {
        unknown.sort();
        let mut accepted: Vec<String> =
            spec.properties.iter().map(|p| p.name.to_string()).collect();
        accepted.sort();
        return Err(fault(format!(
            "{} takes no argument {}. Accepted: {}.",
            spec.name,
            compat::py::repr_str(unknown[0]),
            repr_str_list(&accepted)
        )));
    }
    if let Some(missing) = spec.required.iter().find(|r| !keys.iter().any(|k| k == *r)) {
        return Err(fault(format!(
            "{} requires {}.",
            spec.name,
            compat::py::repr_str(missing)
        )));
    }
    // Then per property, by key name; within one, type before enum and minLength.
    let mut sorted: Vec<&(Value, Value)> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.0.as_str().cmp(&b.0.as_str()));
    for (k, v) in sorted {
        let Some(key) = k.as_str() else { continue };
        let Some(prop) = spec.property(key) else {
            continue;
        };
        let type_ok = match prop.ty {
            "string" => matches!(v, Value::Str(_)),
            "boolean" => matches!(v, Value::Bool(_)),
            _ => true,
        };
        if !type_ok {
            return Err(fault(format!(
                "{key} {} must be of type {}.",
                repr(v),
                prop.ty
            )));
        }
        if let (Some(allowed), Value::Str(s)) = (prop.enumeration, v) {
            if !allowed.contains(&s.as_str()) {
                let allowed: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
                return Err(fault(format!(
                    "{key} {} must be one of {}.",
                    repr(v),
                    repr_str_list(&allowed)
                )));
            }
        }
        if let (true, Value::Str(s)) = (prop.min_length, v) {
            if s.is_empty() {
                return Err(fault(format!(
                    "{key} {} must be a non-empty string.",
                    repr(v)
                )));
            }
        }
    }
    Ok(Value::Map(pairs))
}

/// A JSON argument value as Python's `json.loads` builds it.
pub fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::BigInt(u.to_string())
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => Value::Seq(a.iter().map(from_json).collect()),
        serde_json::Value::Object(o) => Value::Map(
            o.iter()
                .map(|(k, v)| (Value::Str(k.clone()), from_json(v)))
                .collect(),
        ),
    }
}
