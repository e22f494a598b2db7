//! `.pz/runs/<id>/run_results.json`, read as pz's `RunResultsReader.TryParse` reads it
//! (the `PriorRun` model): `status`, and per node `id`, `name`, `status` are required
//! (a JSON null passes through as null), `kind`/`rows`/`error` are optional, and any
//! lookup that throws in .NET makes the whole file unparseable, so the reader falls back
//! to an older run.

use super::json::{parse_json, JsonNode};

/// One parsed run; `run_id` is the directory name.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub run_id: String,
    pub status: Option<String>,
    pub nodes: Vec<RunNode>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunNode {
    pub id: Option<String>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub kind: String,
    pub rows: i64,
    pub error: Option<(String, String)>,
}

/// The run id of a `.pz/runs/<id>/run_results.json` path.
pub fn run_id_of(rel: &str) -> Option<&str> {
    rel.strip_prefix(".pz/runs/")?
        .strip_suffix("/run_results.json")
        .filter(|id| !id.is_empty() && !id.contains('/'))
}

/// `None` when pz's reader would skip this file.
pub fn parse_run_results(run_id: &str, bytes: &[u8]) -> Option<RunRecord> {
    let root = parse_json(bytes)?;
    let status = get_string(&root, "status")?;
    let Some(JsonNode::Arr(nodes)) = root.property("nodes").ok()? else {
        return None;
    };
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        out.push(parse_node(node)?);
    }
    Some(RunRecord {
        run_id: run_id.to_string(),
        status,
        nodes: out,
    })
}

fn parse_node(node: &JsonNode) -> Option<RunNode> {
    // The optional blocks are read first in pz, and a wrong shape inside them throws too.
    if let Some(wm) = node.property("watermark").ok()? {
        if wm.is_object() {
            for key in ["cursor", "type", "value"] {
                get_string(wm, key)?;
            }
        }
    }
    if let Some(obs) = node.property("observed_schema").ok()? {
        if obs.is_object() {
            let hints = optional_string(obs, "hintsHash")?;
            if hints.is_some() {
                if let Some(JsonNode::Arr(cols)) = obs.property("columns").ok()? {
                    for col in cols {
                        optional_string(col, "name")?;
                        optional_string(col, "type")?;
                    }
                }
            }
        }
    }
    let mut error = None;
    if let Some(err) = node.property("error").ok()? {
        if err.is_object() {
            let code = optional_string(err, "code")?;
            let message = optional_string(err, "message")?;
            if let (Some(code), Some(message)) = (code, message) {
                error = Some((code, message));
            }
        }
    }
    let id = get_string(node, "id")?;
    let name = get_string(node, "name")?;
    let status = get_string(node, "status")?;
    let kind = match node.property("kind").ok()? {
        None => String::new(),
        Some(k) => k.string().ok()?.unwrap_or_default().to_string(),
    };
    let rows = match node.property("rows").ok()? {
        None => 0,
        Some(JsonNode::Int(i)) => *i,
        // TryGetInt64 is false for a fraction or an out-of-range integer ...
        Some(JsonNode::Num(_)) => 0,
        // ... and throws for a value that is not a number at all.
        Some(_) => return None,
    };
    Some(RunNode {
        id,
        name,
        status,
        kind,
        rows,
        error,
    })
}

/// `GetProperty(name).GetString()`: missing or non-string throws (`None`); null is `Some(None)`.
fn get_string(node: &JsonNode, name: &str) -> Option<Option<String>> {
    let value = node.property(name).ok()??;
    Some(value.string().ok()?.map(str::to_string))
}

/// `TryGetProperty(name, out v) ? v.GetString() : null`.
fn optional_string(node: &JsonNode, name: &str) -> Option<Option<String>> {
    match node.property(name).ok()? {
        None => Some(None),
        Some(v) => Some(v.string().ok()?.map(str::to_string)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_parse_as_prior_run() {
        let text = br#"{"version":1,"runId":"x","status":"completed_with_failures","nodes":[
            {"id":"a","kind":"SourceLoad","name":"src","status":"success","rows":5,"error":null},
            {"id":"b","kind":"Pipeline","name":"p","status":"failed","rows":0,"error":{"code":"PZ0501","message":"boom"}},
            {"id":"c","name":"q","status":"skipped","rows":1.5}]}"#;
        let run = parse_run_results("r1", text).unwrap();
        assert_eq!(run.run_id, "r1");
        assert_eq!(run.nodes[0].rows, 5);
        assert_eq!(run.nodes[1].error, Some(("PZ0501".into(), "boom".into())));
        assert_eq!(run.nodes[2].kind, "");
        assert_eq!(run.nodes[2].rows, 0);
        for bad in [
            &br#"{"nodes":[]}"#[..],
            br#"{"status":"success","nodes":{}}"#,
            br#"{"status":"success","nodes":[{"id":"a","name":"n"}]}"#,
            br#"{"status":"success","nodes":[{"id":"a","name":"n","status":"s","rows":"5"}]}"#,
            br#"{"status":"success","nodes":[{"id":"a","name":"n","status":"s","kind":1}]}"#,
            b"{\"status\":",
        ] {
            assert!(parse_run_results("r", bad).is_none());
        }
        assert_eq!(run_id_of(".pz/runs/abc/run_results.json"), Some("abc"));
        assert_eq!(run_id_of(".pz/runs/abc/x.json"), None);
    }
}
