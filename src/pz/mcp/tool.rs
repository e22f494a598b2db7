//! A pz tool: its published definition (hand-written input schema) and its handler.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::pz::docs::service::DocsService;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    String,
    Integer,
    Boolean,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::String => "string",
            Ty::Integer => "integer",
            Ty::Boolean => "boolean",
        }
    }
}

pub struct Param {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub default: Option<Value>,
    pub description: &'static str,
}

pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    pub params: Vec<Param>,
}

impl ToolDef {
    /// The tool as tools/list shows it.
    pub fn wire(&self) -> Value {
        let mut props = Map::new();
        for p in &self.params {
            let mut o = Map::new();
            o.insert("type".into(), json!(p.ty.name()));
            o.insert("description".into(), json!(p.description));
            if let Some(d) = &p.default {
                o.insert("default".into(), d.clone());
            }
            props.insert(p.name.into(), Value::Object(o));
        }
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": {"type": "object", "properties": props, "required": required},
            "annotations": {"readOnlyHint": true, "openWorldHint": true},
        })
    }
}

/// What every handler may use. The docs tools need no project.
pub struct Context {
    pub docs: Arc<DocsService>,
    pub project: Option<PathBuf>,
}

/// A failure no handler classified: the PZ0609 backstop reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclassified {
    pub type_name: String,
    pub message: String,
}

pub type Args = Map<String, Value>;
pub type Handler = fn(&Context, &Args) -> Result<String, Unclassified>;

pub struct Tool {
    pub def: ToolDef,
    pub handler: Handler,
}

/// An argument as a string; absent or null is `None`.
pub fn str_arg<'a>(args: &'a Args, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// An integer argument (validated already); absent or null is `None`.
pub fn int_arg(args: &Args, name: &str) -> Option<i64> {
    let v = args.get(name)?;
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
}
