//! One YAML file loaded as pz's `YamlMapper.LoadFile` loads it: an empty document (or a
//! bare null root) is an empty mapping, any other non-mapping root is PZ0101, and malformed
//! YAML is PZ0101 naming the file.
//!
//! The syntax check is PyYAML's (the repo's loader), not YamlDotNet's: the two accept nearly
//! the same documents but word their errors differently, so a malformed file's message
//! (and the cases where only one of them refuses) is marked inexact.

use compat::value::Value;
use compat::yaml::{self, LoadError};

use super::value::{convert_map, PzMap};
use super::Diag;
use crate::error::pz::PzCode;
use compat::dotnet::read_all_text;

/// A loaded YAML file: its root mapping, or the one error loading it produced.
pub type YamlDoc = Result<PzMap, Diag>;

pub fn load_yaml(bytes: &[u8], rel: &str) -> YamlDoc {
    let text = read_all_text(bytes);
    let root = match yaml::load(&text) {
        Ok(v) => v,
        Err(e) => return Err(malformed(&e, &text, rel)),
    };
    match root {
        Value::Null => Ok(PzMap::new()),
        Value::Map(entries) => Ok(convert_map(&entries)),
        other => {
            let shape = if matches!(other, Value::Seq(_)) {
                "a list"
            } else {
                "a scalar"
            };
            Err(Diag {
                code: PzCode::YamlShape,
                message: format!(
                    "Malformed YAML: the document's root must be a mapping of keys to values (got {shape})."
                ),
                file: Some(rel.to_string()),
                line: first_content_line(&text),
                hint: Some(
                    "start the file with `key: value` pairs, not a list or a bare scalar".into(),
                ),
                exact: true,
            })
        }
    }
}

fn malformed(e: &LoadError, text: &str, rel: &str) -> Diag {
    let detail = e.to_string();
    if detail.contains("expected a single document in the stream") {
        let count = text
            .lines()
            .filter(|l| *l == "---" || l.starts_with("--- "))
            .count()
            .max(2);
        return Diag {
            code: PzCode::YamlShape,
            message: format!(
                "Malformed YAML: this file has {count} YAML documents (separated by '---'); pz reads only one document per file."
            ),
            file: Some(rel.to_string()),
            line: None,
            hint: Some("remove the extra document(s), or split them into separate files".into()),
            exact: false,
        };
    }
    Diag {
        code: PzCode::YamlShape,
        message: format!("Malformed YAML: {detail}"),
        file: Some(rel.to_string()),
        line: first_mark_line(&detail),
        hint: Some("fix the YAML syntax near this location".into()),
        exact: false,
    }
}

/// The 1-based line of PyYAML's first mark (`line N, column M`).
fn first_mark_line(detail: &str) -> Option<u32> {
    let at = detail.find("line ")?;
    let digits: String = detail[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The line YamlDotNet's root node starts on: the first line that is not blank, a
/// comment, a directive, or a document marker.
fn first_content_line(text: &str) -> Option<u32> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') || t == "---" {
            continue;
        }
        return Some(i as u32 + 1);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_load_as_yaml_mapper() {
        assert_eq!(load_yaml(b"", "a.yml").unwrap(), PzMap::new());
        assert_eq!(load_yaml(b"# only\n", "a.yml").unwrap(), PzMap::new());
        let list = load_yaml(b"# c\n- a\n", "a.yml").unwrap_err();
        assert_eq!(
            list.message,
            "Malformed YAML: the document's root must be a mapping of keys to values (got a list)."
        );
        assert_eq!(list.line, Some(2));
        let bad = load_yaml(b"a: [1\n", "c.yml").unwrap_err();
        assert_eq!(bad.code, "PZ0101");
        assert!(!bad.exact);
        assert_eq!(bad.file.as_deref(), Some("c.yml"));
        let two = load_yaml(b"a: 1\n---\nb: 2\n", "d.yml").unwrap_err();
        assert!(
            two.message.contains("has 2 YAML documents"),
            "{}",
            two.message
        );
    }
}
