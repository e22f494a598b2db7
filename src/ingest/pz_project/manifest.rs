//! `.pz/target/manifest.json`, as `pz compile` writes it (`ManifestWriter`): the project's
//! nodes with their ids, snake_case kinds, names and sorted dependencies. pz's MCP tools
//! never read it; printdex reads it only for node ids it cannot compute itself.

use super::json::{parse_json, JsonNode};

pub const MANIFEST_PATH: &str = ".pz/target/manifest.json";

#[derive(Debug, Clone, PartialEq)]
pub struct ManifestNode {
    pub id: String,
    /// `source_load`, `pipeline`, `check` or `sink_write`.
    pub kind: String,
    pub name: String,
    pub depends_on: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompiledManifest {
    pub project: String,
    pub nodes: Vec<ManifestNode>,
    pub mtime_ns: i64,
}

/// `None` when the file is not a manifest of the shape `pz compile` writes.
pub fn parse_manifest(bytes: &[u8], mtime_ns: i64) -> Option<CompiledManifest> {
    let root = parse_json(bytes)?;
    let text = |node: &JsonNode, key: &str| -> Option<String> {
        node.property(key).ok()??.string().ok()?.map(str::to_string)
    };
    let project = text(&root, "project")?;
    let Some(JsonNode::Arr(items)) = root.property("nodes").ok()? else {
        return None;
    };
    let mut nodes = Vec::with_capacity(items.len());
    for item in items {
        let Some(JsonNode::Arr(deps)) = item.property("dependsOn").ok()? else {
            return None;
        };
        let depends_on = deps
            .iter()
            .map(|d| d.string().ok().flatten().map(str::to_string))
            .collect::<Option<Vec<_>>>()?;
        nodes.push(ManifestNode {
            id: text(item, "id")?,
            kind: text(item, "kind")?,
            name: text(item, "name")?,
            depends_on,
        });
    }
    Some(CompiledManifest {
        project,
        nodes,
        mtime_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_parses() {
        let text = br#"{
  "project": "p",
  "version": "0.1.0",
  "generatedBy": "pz",
  "nodes": [
    {"id": "aa", "kind": "source_load", "name": "src_a__b", "dependsOn": [], "tags": [], "file": "connections.yml"},
    {"id": "bb", "kind": "pipeline", "name": "p", "dependsOn": ["aa"], "tags": [], "file": "pipelines/p.sql"}
  ]
}
"#;
        let m = parse_manifest(text, 7).unwrap();
        assert_eq!(m.nodes[1].depends_on, vec!["aa".to_string()]);
        assert_eq!(m.mtime_ns, 7);
        assert!(parse_manifest(br#"{"project":"p","nodes":[{"id":"a"}]}"#, 0).is_none());
    }
}
