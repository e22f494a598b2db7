//! `.pz/state/*.json`, read as pz's `KeyedJsonStateStore.ListAll` reads them: a missing
//! file has no entries; a file that does not parse, has the wrong root, lacks its section
//! object, or holds one entry its reader refuses is corrupt as a whole. Entries come back
//! sorted by key, ordinal.

use super::json::{parse_json, JsonNode};
use compat::dotnet::ordinal_cmp;

/// What one state file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum StateRead<T> {
    Absent,
    Corrupt,
    Entries(Vec<(String, T)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Watermark {
    pub cursor: String,
    pub type_name: String,
    pub value: String,
    pub run_id: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SyncState {
    pub token: String,
    pub run_id: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SchemaBaseline {
    pub columns: Vec<(String, String)>,
    pub hints_hash: String,
    pub run_id: String,
}

/// The three local state files.
#[derive(Debug, Clone, PartialEq)]
pub struct StateFiles {
    pub watermarks: StateRead<Watermark>,
    pub sync_state: StateRead<SyncState>,
    pub schemas: StateRead<SchemaBaseline>,
}

pub const WATERMARKS_PATH: &str = ".pz/state/watermarks.json";
pub const SYNC_STATE_PATH: &str = ".pz/state/sync-state.json";
pub const SCHEMAS_PATH: &str = ".pz/state/schemas.json";

pub fn read_watermarks(bytes: Option<&[u8]>) -> StateRead<Watermark> {
    read_section(bytes, "watermarks", |e| {
        // WatermarkStore.ReadEntry: four required properties; null in any refuses the entry.
        Some(Watermark {
            cursor: required(e, "cursor")?,
            type_name: required(e, "type")?,
            value: required(e, "value")?,
            run_id: required(e, "runId")?,
        })
    })
}

pub fn read_sync_state(bytes: Option<&[u8]>) -> StateRead<SyncState> {
    read_section(bytes, "syncState", |e| {
        Some(SyncState {
            token: required(e, "token")?,
            run_id: required(e, "runId")?,
        })
    })
}

pub fn read_schemas(bytes: Option<&[u8]>) -> StateRead<SchemaBaseline> {
    read_section(bytes, "schemas", |e| {
        // SchemaBaselineStore.ReadEntry: optional-looking lookups, but every part is required.
        let hints_hash = optional(e, "hintsHash")?;
        let run_id = optional(e, "runId")?;
        let cols = e.property("columns").ok()?;
        let (Some(hints_hash), Some(run_id), Some(JsonNode::Arr(cols))) =
            (hints_hash, run_id, cols)
        else {
            return None;
        };
        let mut columns = Vec::new();
        for col in cols {
            let name = optional(col, "name")??;
            let ty = optional(col, "type")??;
            columns.push((name, ty));
        }
        Some(SchemaBaseline {
            columns,
            hints_hash,
            run_id,
        })
    })
}

/// `GetProperty(name).GetString()`, none when missing, mistyped, or null.
fn required(entry: &JsonNode, name: &str) -> Option<String> {
    let value = entry.property(name).ok()??;
    value.string().ok()?.map(str::to_string)
}

/// `TryGetProperty(name, out v) ? v.GetString() : null`: `Some(None)` for missing or null,
/// `None` when the lookup or the string read throws.
fn optional(entry: &JsonNode, name: &str) -> Option<Option<String>> {
    match entry.property(name).ok()? {
        None => Some(None),
        Some(v) => Some(v.string().ok()?.map(str::to_string)),
    }
}

fn read_section<T>(
    bytes: Option<&[u8]>,
    section: &str,
    read_entry: impl Fn(&JsonNode) -> Option<T>,
) -> StateRead<T> {
    let Some(bytes) = bytes else {
        return StateRead::Absent;
    };
    let Some(root) = parse_json(bytes) else {
        return StateRead::Corrupt;
    };
    let Ok(Some(JsonNode::Obj(members))) = root.property(section) else {
        return StateRead::Corrupt;
    };
    let mut entries: Vec<(String, T)> = Vec::new();
    for (key, value) in members {
        let Some(entry) = read_entry(value) else {
            return StateRead::Corrupt;
        };
        match entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = entry,
            None => entries.push((key.clone(), entry)),
        }
    }
    entries.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    StateRead::Entries(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_reads_leniently() {
        assert_eq!(read_watermarks(None), StateRead::Absent);
        let good = br#"{"version":1,"watermarks":{"z.b":{"cursor":"u","type":"timestamp","value":"v","runId":"r"},"a.b":{"cursor":"u","type":"t","value":"1","runId":"r","extra":1}}}"#;
        let StateRead::Entries(e) = read_watermarks(Some(good)) else {
            panic!("entries expected")
        };
        assert_eq!(e[0].0, "a.b");
        assert_eq!(e[1].1.type_name, "timestamp");
        for bad in [
            &br#"{"watermarks":{"a":{"cursor":null,"type":"t","value":"v","runId":"r"}}}"#[..],
            br#"{"watermarks":{"a":{"cursor":"c","type":"t","value":"v"}}}"#,
            br#"{"watermarks":{"a":{"cursor":1,"type":"t","value":"v","runId":"r"}}}"#,
            br#"{"watermarks":[]}"#,
            br#"{"other":{}}"#,
            br#"[]"#,
            b"not json",
        ] {
            assert_eq!(read_watermarks(Some(bad)), StateRead::Corrupt);
        }
        let schemas = br#"{"schemas":{"a.b":{"columns":[{"name":"id","type":"BIGINT"}],"hintsHash":"h","runId":"r"}}}"#;
        let StateRead::Entries(s) = read_schemas(Some(schemas)) else {
            panic!("entries expected")
        };
        assert_eq!(
            s[0].1.columns,
            vec![("id".to_string(), "BIGINT".to_string())]
        );
        let bad_col =
            br#"{"schemas":{"a.b":{"columns":[{"name":"id"}],"hintsHash":"h","runId":"r"}}}"#;
        assert_eq!(read_schemas(Some(bad_col)), StateRead::Corrupt);
        assert_eq!(
            read_sync_state(Some(br#"{"syncState":{}}"#)),
            StateRead::Entries(vec![])
        );
    }
}
