//! Hand-written tool definitions as the reference lists them: input schemas with its keys,
//! types, enums, defaults and required list, descriptions in our own words.

use serde_json::{json, Map, Value as Json};

use crate::mcp::tool_set::{JsonType, Param, ToolSpec};

const CONNECTION_DESCRIPTION: &str =
    "Connection name to read; only needed when this server serves more than one (the error for a missing one lists them). Omit for the default.";
const CURSOR_DESCRIPTION: &str =
    "The `next_cursor` of the previous page of this same call; omit for page one.";

pub fn connection() -> Param {
    Param::string("connection", CONNECTION_DESCRIPTION)
}

pub fn cursor() -> Param {
    Param::string("cursor", CURSOR_DESCRIPTION).non_empty()
}

/// The input schema as JSON, in the reference's key order.
fn input_schema(spec: &ToolSpec) -> Map<String, Json> {
    let mut props = Map::new();
    for p in &spec.params {
        let mut o = Map::new();
        o.insert("type".into(), json!(p.ty.name()));
        if p.non_empty {
            o.insert("minLength".into(), json!(1));
        }
        if p.ty == JsonType::StringList {
            o.insert("items".into(), json!({"type": "string", "minLength": 1}));
        }
        let (min, max) = match p.ty {
            JsonType::StringList => ("minItems", "maxItems"),
            _ => ("minimum", "maximum"),
        };
        if let Some(n) = p.bounds.0 {
            o.insert(min.into(), json!(n));
        }
        if let Some(n) = p.bounds.1 {
            o.insert(max.into(), json!(n));
        }
        if let Some(e) = p.choices {
            o.insert("enum".into(), json!(e));
        }
        if let Some(d) = &p.default {
            o.insert("default".into(), d.clone());
        }
        o.insert("description".into(), json!(p.description));
        props.insert(p.name.into(), Json::Object(o));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("additionalProperties".into(), json!(false));
    schema.insert("properties".into(), Json::Object(props));
    let required = spec.required();
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema
}

/// The tools/list entry.
pub fn listing(spec: &ToolSpec) -> Json {
    json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": Json::Object(input_schema(spec)),
        "annotations": {
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        }
    })
}
