//! Argument pre-validation, as the reference runs it: `format`/`purpose` fold case,
//! then the arguments are checked against the tool's own schema and the first
//! violation (root faults first, then by key name) is reported in its exact words.

use crate::error::repr_str_list;
use crate::mcp::tool_set::{JsonType, Param, ToolSpec};
use compat::py::{lower, repr};
use compat::value::Value;

const CASE_FOLDED: [&str; 2] = ["format", "purpose"];

/// The validated (folded) arguments, or the first violation's text.
pub fn validate(spec: &ToolSpec, arguments: &Value) -> Result<Value, String> {
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
    let mut unknown: Vec<&String> = keys.iter().filter(|k| spec.param(k).is_none()).collect();
    if !unknown.is_empty() {
        unknown.sort();
        let mut accepted: Vec<String> = spec.params.iter().map(|p| p.name.to_string()).collect();
        accepted.sort();
        return Err(format!(
            "{} takes no argument {}. Accepted: {}.",
            spec.name,
            compat::py::repr_str(unknown[0]),
            repr_str_list(&accepted)
        ));
    }
    if let Some(missing) = spec
        .required()
        .iter()
        .find(|r| !keys.iter().any(|k| k == *r))
    {
        return Err(format!(
            "{} requires {}.",
            spec.name,
            compat::py::repr_str(missing)
        ));
    }
    // Then per property, by key name; within one, type before enum and minLength.
    let mut sorted: Vec<&(Value, Value)> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.0.as_str().cmp(&b.0.as_str()));
    for (k, v) in sorted {
        let Some(key) = k.as_str() else { continue };
        let Some(param) = spec.param(key) else {
            continue;
        };
        let type_ok = match param.ty {
            JsonType::String => matches!(v, Value::Str(_)),
            JsonType::Boolean => matches!(v, Value::Bool(_)),
            // JSON Schema's integer: a number with no fraction (a bool is not one).
            JsonType::Integer => match v {
                Value::Int(_) | Value::BigInt(_) => true,
                Value::Float(f) => f.fract() == 0.0,
                _ => false,
            },
            JsonType::StringList => matches!(v, Value::Seq(_)),
        };
        if !type_ok {
            return Err(format!(
                "{key} {} must be of type {}.",
                repr(v),
                param.ty.name()
            ));
        }
        if let (Some(allowed), Value::Str(s)) = (param.choices, v) {
            if !allowed.contains(&s.as_str()) {
                let allowed: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
                return Err(format!(
                    "{key} {} must be one of {}.",
                    repr(v),
                    repr_str_list(&allowed)
                ));
            }
        }
        if let (true, Value::Str(s)) = (param.non_empty, v) {
            if s.is_empty() {
                return Err(format!("{key} {} must be a non-empty string.", repr(v)));
            }
        }
        if let Some(fault) = bounds_fault(key, param, v) {
            return Err(fault);
        }
    }
    Ok(Value::map(pairs))
}

/// A list's items (each a non-empty string) and count, or an integer's value, outside what
/// the parameter allows.
fn bounds_fault(key: &str, param: &Param, v: &Value) -> Option<String> {
    let (min, max) = param.bounds;
    if let Value::Seq(items) = v {
        if let Some(item) = items.iter().find(|i| !matches!(i, Value::Str(_))) {
            return Some(format!("{key} item {} must be of type string.", repr(item)));
        }
        if let Some(item) = items.iter().find(|i| i.as_str() == Some("")) {
            return Some(format!(
                "{key} item {} must be a non-empty string.",
                repr(item)
            ));
        }
        let n = items.len() as i64;
        if min.is_some_and(|m| n < m) {
            return Some(format!(
                "{key} {} must hold at least {} items.",
                repr(v),
                min.unwrap_or_default()
            ));
        }
        if max.is_some_and(|m| n > m) {
            return Some(format!(
                "{key} {} must hold at most {} items.",
                repr(v),
                max.unwrap_or_default()
            ));
        }
        return None;
    }
    let n = match v {
        Value::Int(n) => *n as f64,
        Value::Float(f) => *f,
        _ => return None,
    };
    if min.is_some_and(|m| n < m as f64) {
        return Some(format!(
            "{key} {} must be at least {}.",
            repr(v),
            min.unwrap_or_default()
        ));
    }
    if max.is_some_and(|m| n > m as f64) {
        return Some(format!(
            "{key} {} must be at most {}.",
            repr(v),
            max.unwrap_or_default()
        ));
    }
    None
}
