//! pz's tool definitions as its SDK lists them: properties with type, description and
//! default only, `required` always present, and pz's annotations.

use serde_json::{json, Map, Value as Json};

use crate::mcp::tool_set::ToolSpec;

/// The tool as tools/list shows it.
pub fn listing(spec: &ToolSpec) -> Json {
    let mut props = Map::new();
    for p in &spec.params {
        let mut o = Map::new();
        o.insert("type".into(), json!(p.ty.name()));
        o.insert("description".into(), json!(p.description));
        if let Some(d) = &p.default {
            o.insert("default".into(), d.clone());
        }
        props.insert(p.name.into(), Json::Object(o));
    }
    json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": {"type": "object", "properties": props, "required": spec.required()},
        "annotations": {"readOnlyHint": true, "openWorldHint": true},
    })
}
