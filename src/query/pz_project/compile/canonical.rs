//! pz's content addressing: `CanonicalJson` (object keys sorted ordinal, compact, the
//! default `Utf8JsonWriter` escaping) and `NodeId` (the first 8 bytes of the SHA-256 of a
//! canonical string, lowercase hex).

use sha2::{Digest, Sha256};

use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::query::pz_project::model::Check;
use compat::dotnet::ordinal_cmp;
use compat::dotnet::Json;

pub fn json_of(value: &PzValue) -> Json {
    match value {
        PzValue::Null => Json::Null,
        PzValue::Bool(b) => Json::Bool(*b),
        PzValue::Long(l) => Json::Int(*l),
        PzValue::Double(d) => Json::Double(*d),
        PzValue::Str(s) => Json::str(s),
        PzValue::List(items) => Json::Arr(items.iter().map(json_of).collect()),
        PzValue::Map(m) => map_json(m),
    }
}

fn map_json(map: &PzMap) -> Json {
    let mut entries: Vec<(String, Json)> = map
        .entries
        .iter()
        .map(|(k, v)| (k.clone(), json_of(v)))
        .collect();
    entries.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    Json::Map(entries)
}

/// `CanonicalJson.Serialize` of an options dictionary.
pub fn options_json(map: &PzMap) -> String {
    map_json(map).to_text()
}

/// `CanonicalJson.Serialize` of a columns contract (`null` when there is none).
pub fn columns_json(columns: Option<&[(String, String)]>) -> String {
    match columns {
        None => "null".into(),
        Some(cols) => {
            let mut entries: Vec<(String, Json)> = cols
                .iter()
                .map(|(k, v)| (k.clone(), Json::str(v)))
                .collect();
            entries.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
            Json::Map(entries).to_text()
        }
    }
}

/// `CheckIdentity.Canonical`.
pub fn check_identity(check: &Check) -> String {
    format!(
        "{}\n{}\n{}",
        check.check_type,
        check.columns.join(","),
        options_json(&check.options)
    )
}

/// `NodeId.Compute`.
pub fn node_id(canonical: &str) -> String {
    let digest = Sha256::digest(canonical.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_and_escapes() {
        let doc = compat::yaml::load("z: 1\na: [x, 2.5, true]\n\u{e9}: '<'\n").unwrap();
        let map = crate::ingest::pz_project::value::convert_map(doc.as_map().unwrap());
        assert_eq!(
            options_json(&map),
            r#"{"a":["x",2.5,true],"z":1,"\u00E9":"\u003C"}"#
        );
        assert_eq!(columns_json(None), "null");
        assert_eq!(options_json(&PzMap::new()), "{}");
        // SHA-256("abc") = ba7816bf8f01cfea...
        assert_eq!(node_id("abc"), "ba7816bf8f01cfea");
    }
}
