//! The seam between the server core and a tool set. The core owns the protocol (handshake,
//! tools/list, tools/call, stdio and HTTP); a `ToolSet` says who the server is, which tools
//! it has, how its reference lists and pre-validates them, and how it words a refused or
//! failed call. Two sets implement it: dbprint's (`dbprint/`) and pz's (`pz/`).

use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult,
};
use serde_json::{Map, Value as Json};

use super::protocol::Dialect;

/// One MCP tool: what tools/list shows of it, its line in the server's instructions, and
/// the handler that answers it. Each lives in its own file in its set's folder.
pub struct Tool<H> {
    pub spec: ToolSpec,
    /// Its line under the instructions' routing list; `None` in a set without instructions.
    pub instruction: Option<&'static str>,
    pub handler: H,
}

/// A tool as its input schema declares it; each set renders it in its reference's shape.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub params: Vec<Param>,
}

impl ToolSpec {
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The required parameters' names, in declaration order.
    pub fn required(&self) -> Vec<&'static str> {
        self.params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect()
    }
}

/// A JSON Schema type a parameter declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    String,
    Integer,
    Boolean,
    /// A list of non-empty strings (printdex's own tools only).
    StringList,
}

impl JsonType {
    pub fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::StringList => "array",
        }
    }
}

/// One property of a tool's input schema.
pub struct Param {
    pub name: &'static str,
    pub ty: JsonType,
    pub required: bool,
    /// `minLength: 1` (dbprint's schemas only).
    pub non_empty: bool,
    /// `enum` (dbprint's schemas only).
    pub choices: Option<&'static [&'static str]>,
    pub default: Option<Json>,
    pub description: &'static str,
    /// Bounds: an integer's `minimum`/`maximum`, a list's `minItems`/`maxItems`.
    pub bounds: (Option<i64>, Option<i64>),
}

impl Param {
    fn of(ty: JsonType, name: &'static str, description: &'static str) -> Param {
        Param {
            name,
            ty,
            required: false,
            non_empty: false,
            choices: None,
            default: None,
            description,
            bounds: (None, None),
        }
    }

    pub fn string_list(name: &'static str, description: &'static str) -> Param {
        Param::of(JsonType::StringList, name, description)
    }

    /// At least `min` and at most `max` (an integer's value, a list's items).
    pub fn between(self, min: Option<i64>, max: Option<i64>) -> Param {
        Param {
            bounds: (min, max),
            ..self
        }
    }

    pub fn string(name: &'static str, description: &'static str) -> Param {
        Param::of(JsonType::String, name, description)
    }

    pub fn integer(name: &'static str, description: &'static str) -> Param {
        Param::of(JsonType::Integer, name, description)
    }

    pub fn boolean(name: &'static str, description: &'static str) -> Param {
        Param::of(JsonType::Boolean, name, description)
    }

    pub fn required(self) -> Param {
        Param {
            required: true,
            ..self
        }
    }

    pub fn non_empty(self) -> Param {
        Param {
            non_empty: true,
            ..self
        }
    }

    pub fn choices(self, choices: &'static [&'static str]) -> Param {
        Param {
            choices: Some(choices),
            ..self
        }
    }

    pub fn default(self, default: Json) -> Param {
        Param {
            default: Some(default),
            ..self
        }
    }
}

/// The server's instructions around the tools' own lines: `opening`, then each tool's
/// `instruction` and a newline, then `closing`.
pub struct Instructions {
    pub opening: &'static str,
    pub closing: &'static str,
}

/// A call refused before any handler ran.
pub enum Refusal<'a> {
    /// No tool has this name; `available` in tools/list order.
    UnknownTool {
        name: &'a str,
        available: Vec<&'static str>,
    },
    /// Pre-validation's fault, already in the reference's words.
    InvalidArguments(String),
}

/// A tools/call result as the core sends it: one text block, and whether it is `isError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResult {
    pub text: String,
    pub is_error: bool,
}

impl CallResult {
    pub fn ok(text: String) -> CallResult {
        CallResult {
            text,
            is_error: false,
        }
    }

    pub fn error(text: String) -> CallResult {
        CallResult {
            text,
            is_error: true,
        }
    }
}

/// A failure no handler classified: a panic or a lost task (caught by the core), or an
/// unexpected error a pz handler passes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclassified {
    pub type_name: String,
    pub message: String,
}

/// resources/* of a set that serves them (dbprint's). Called off the async workers.
pub trait Resources: Send + Sync {
    fn list(&self, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData>;
    /// A fixed list: never paged.
    fn templates(&self) -> Result<ListResourceTemplatesResult, ErrorData>;
    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData>;
}

/// A tool set the core serves. The value holds what the handlers read (the store, pz's
/// docs service); handlers run off the async workers, one call at a time each.
pub trait ToolSet: Send + Sync + Sized + 'static {
    /// The arguments a handler takes, once pre-validation has passed them.
    type Args;
    /// How a handler is called (a fn pointer of the set's signature).
    type Handler: Copy + Send + Sync + 'static;

    /// `serverInfo.name`.
    const NAME: &'static str;
    /// How the reference's MCP SDK answers at the protocol level.
    const DIALECT: Dialect;
    /// The instructions text around the tools' lines; `None`: the server sends none.
    const INSTRUCTIONS: Option<Instructions> = None;

    /// Every tool, in tools/list order.
    fn tools() -> Vec<Tool<Self::Handler>>;
    /// A tool's tools/list entry, in the reference's shape.
    fn listing(spec: &ToolSpec) -> Json;
    /// Pre-validation: the handler's arguments, or the first fault in the reference's words.
    fn validate(spec: &ToolSpec, arguments: Map<String, Json>) -> Result<Self::Args, String>;
    /// A refused call: a result (`isError`) or a JSON-RPC error, as the reference answers it.
    fn refused(refusal: Refusal<'_>) -> Result<CallResult, ErrorData>;
    /// Run a tool's handler; its own failures become the result's text.
    fn run(&self, tool: &Tool<Self::Handler>, args: &Self::Args) -> CallResult;
    /// A failure the core caught around a call (a panic, a lost task).
    fn crashed(tool: &str, failure: &Unclassified) -> CallResult;
    /// resources/*, when the set serves any (then the capability is announced too).
    fn resources(&self) -> Option<&dyn Resources> {
        None
    }

    /// tools/list as another server lists it, for a set that fronts one (pz's, when a
    /// `pz` child answers what printdex cannot); `None`: the set's own tools.
    fn listed(&self) -> Option<Vec<Json>> {
        None
    }

    /// A call of a tool the set does not have, passed on to the server it fronts;
    /// `None`: refused as unknown.
    fn forward(
        &self,
        _name: &str,
        _arguments: &Map<String, Json>,
    ) -> Option<Result<CallResult, ErrorData>> {
        None
    }
}
