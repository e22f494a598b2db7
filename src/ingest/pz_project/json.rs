//! JSON as `System.Text.Json.JsonDocument` holds it for pz's lenient readers: every member
//! kept in order (duplicates included: a reader enumerating an object sees each one, a
//! property lookup finds the last), integers told apart from other numbers (what
//! `TryGetInt64` accepts), and the default 64-level depth limit.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

#[derive(Debug, Clone, PartialEq)]
pub enum JsonNode {
    Null,
    Bool(bool),
    /// An integer literal that fits in 64 bits.
    Int(i64),
    /// Any other number.
    Num(f64),
    Str(String),
    Arr(Vec<JsonNode>),
    Obj(Vec<(String, JsonNode)>),
}

const MAX_DEPTH: usize = 64;

/// `JsonDocument.Parse(bytes)`: `None` for anything it would refuse.
pub fn parse_json(bytes: &[u8]) -> Option<JsonNode> {
    let node: JsonNode = serde_json::from_slice(bytes).ok()?;
    (node.depth() <= MAX_DEPTH).then_some(node)
}

impl JsonNode {
    fn depth(&self) -> usize {
        match self {
            JsonNode::Arr(items) => 1 + items.iter().map(JsonNode::depth).max().unwrap_or(0),
            JsonNode::Obj(members) => 1 + members.iter().map(|(_, v)| v.depth()).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// `GetProperty`/`TryGetProperty` on an object (the last duplicate wins); `Err` when
    /// the node is not an object (`InvalidOperationException`).
    pub fn property(&self, name: &str) -> Result<Option<&JsonNode>, NotAnObject> {
        match self {
            JsonNode::Obj(members) => Ok(members
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v)),
            _ => Err(NotAnObject),
        }
    }

    /// `GetString()`: `Ok(None)` for JSON null, `Err` for any other non-string.
    pub fn string(&self) -> Result<Option<&str>, NotAString> {
        match self {
            JsonNode::Null => Ok(None),
            JsonNode::Str(s) => Ok(Some(s)),
            _ => Err(NotAString),
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, JsonNode::Obj(_))
    }
}

/// A property lookup on a non-object.
#[derive(Debug)]
pub struct NotAnObject;

/// `GetString()` on a value that is neither a string nor null.
#[derive(Debug)]
pub struct NotAString;

impl<'de> Deserialize<'de> for JsonNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JsonNode, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = JsonNode;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<JsonNode, E> {
        Ok(JsonNode::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<JsonNode, E> {
        Ok(JsonNode::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<JsonNode, E> {
        Ok(JsonNode::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<JsonNode, E> {
        Ok(i64::try_from(u).map_or(JsonNode::Num(u as f64), JsonNode::Int))
    }

    fn visit_f64<E>(self, f: f64) -> Result<JsonNode, E> {
        Ok(JsonNode::Num(f))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<JsonNode, E> {
        Ok(JsonNode::Str(s.to_string()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<JsonNode, E> {
        Ok(JsonNode::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonNode, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(JsonNode::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonNode, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, JsonNode>()? {
            members.push((k, v));
        }
        Ok(JsonNode::Obj(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reads_as_json_document() {
        let n = parse_json(br#"{"a":1,"a":"x","b":1.0,"c":null}"#).unwrap();
        assert_eq!(n.property("a").unwrap(), Some(&JsonNode::Str("x".into())));
        assert_eq!(n.property("b").unwrap(), Some(&JsonNode::Num(1.0)));
        assert_eq!(n.property("c").unwrap().unwrap().string().unwrap(), None);
        assert!(JsonNode::Int(1).property("a").is_err());
        assert!(parse_json(b"{\"a\":1,}").is_none());
        assert!(parse_json(b"\xEF\xBB\xBF{}").is_none());
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert!(parse_json(deep.as_bytes()).is_none());
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse_json(ok.as_bytes()).is_some());
    }
}
