//! Hand-written tool definitions: input schemas as the reference declares them
//! (keys, types, enums, defaults, required), descriptions in our own words.

use serde_json::{json, Map, Value as Json};

/// One property of a tool's input schema.
pub struct Property {
    pub name: &'static str,
    /// JSON Schema type: "string" or "boolean".
    pub ty: &'static str,
    pub min_length: bool,
    pub enumeration: Option<&'static [&'static str]>,
    pub default: Option<Json>,
    pub description: &'static str,
}

/// A tool as tools/list shows it.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub properties: Vec<Property>,
    pub required: &'static [&'static str],
}

pub const CONNECTION_DESCRIPTION: &str =
    "Connection name to read; only needed when this server serves more than one (the error for a missing one lists them). Omit for the default.";
pub const CURSOR_DESCRIPTION: &str =
    "The `next_cursor` of the previous page of this same call; omit for page one.";

pub fn connection() -> Property {
    Property {
        name: "connection",
        ty: "string",
        min_length: false,
        enumeration: None,
        default: None,
        description: CONNECTION_DESCRIPTION,
    }
}

pub fn cursor() -> Property {
    Property {
        name: "cursor",
        ty: "string",
        min_length: true,
        enumeration: None,
        default: None,
        description: CURSOR_DESCRIPTION,
    }
}

pub fn string(name: &'static str, min_length: bool, description: &'static str) -> Property {
    Property {
        name,
        ty: "string",
        min_length,
        enumeration: None,
        default: None,
        description,
    }
}

impl ToolSpec {
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// The input schema as JSON, in the reference's key order.
    pub fn input_schema(&self) -> Map<String, Json> {
        let mut props = Map::new();
        for p in &self.properties {
            let mut o = Map::new();
            o.insert("type".into(), json!(p.ty));
            if p.min_length {
                o.insert("minLength".into(), json!(1));
            }
            if let Some(e) = p.enumeration {
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
        if !self.required.is_empty() {
            schema.insert("required".into(), json!(self.required));
        }
        schema
    }

    /// The tools/list entry.
    pub fn wire(&self) -> Json {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": Json::Object(self.input_schema()),
            "annotations": {
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })
    }
}
