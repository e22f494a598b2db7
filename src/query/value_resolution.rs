//! Resolving a phrase against one column's published values (spec §4.7), as dbprint's
//! `engine/value_resolution.py` does: stored spelling (normalization fold), definition
//! (value notes on word boundaries, either way round), nearest (character-trigram Jaccard
//! above a floor), none; or unavailable with its reason.

use std::collections::{HashMap, HashSet};

use crate::ingest::reading::scope::{reply_scope, ScanScope, SCANNED_DOMAIN_STATEMENT};
use compat::py::{is_word_char, lower, py_round, split_whitespace, str_of, strip};
use compat::value::Value;

/// Jaccard over character trigrams; below this a "nearest" is noise.
pub const NEAREST_FLOOR: f64 = 0.3;
pub const NEAREST_LIMIT: usize = 5;
/// A complete list this short rides along as `domain`, so one call answers everything.
pub const DOMAIN_LIMIT: usize = 50;

pub fn sample_caveat(listed: usize) -> String {
    format!("the print lists {listed} of the column's values; a spelling absent here is not evidence that it is absent from the column")
}

pub fn scoped_caveat() -> String {
    format!("{SCANNED_DOMAIN_STATEMENT}, not over the table; a spelling absent here is not evidence that it is absent from the column")
}

/// The normalization key (format spec §2.2.4): `LOWER(TRIM(...))`, spaces only.
pub fn fold(text: &str) -> String {
    lower(text.trim_matches(' '))
}

/// A column's per-value notes keyed by `str(value)`: whitespace collapsed, blanks dropped,
/// a later note for the same key replacing an earlier one.
pub fn value_notes(entries: &[(Value, String)]) -> HashMap<String, String> {
    let mut notes = HashMap::new();
    for (value, note) in entries {
        if !strip(note).is_empty() {
            notes.insert(str_of(value), split_whitespace(note).join(" "));
        }
    }
    notes
}

fn key_of(entry: &Value) -> String {
    str_of(entry.get("value").unwrap_or(&Value::Null))
}

fn entry_payload(entry: &Value, notes: &HashMap<String, String>) -> Vec<(String, Value)> {
    let value = entry.get("value").cloned().unwrap_or(Value::Null);
    let mut payload = vec![
        ("value".to_string(), value),
        (
            "count".to_string(),
            entry.get("count").cloned().unwrap_or(Value::Null),
        ),
    ];
    if let Some(note) = notes.get(&key_of(entry)).filter(|n| !n.is_empty()) {
        payload.push(("note".to_string(), Value::Str(note.clone())));
    }
    match entry.get("spelling_of") {
        None | Some(Value::Null) => {}
        Some(of) => payload.push(("spelling_of".to_string(), of.clone())),
    }
    payload
}

fn dict(pairs: Vec<(String, Value)>) -> Value {
    Value::map(pairs.into_iter().map(|(k, v)| (Value::Str(k), v)).collect())
}

/// Whether `needle` occurs in `hay` with no word character right before or after it
/// (`re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", hay)`).
fn on_word_boundaries(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(at) = hay[from..].find(needle) {
        let start = from + at;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        if !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char) {
            return true;
        }
        // Overlapping occurrences count: retry one character further.
        from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        if from > hay.len() {
            break;
        }
    }
    // An empty needle matches at the start.
    needle.is_empty()
}

fn stored(text: &str, listed: &[Value], notes: &HashMap<String, String>) -> Vec<Value> {
    let key = fold(text);
    listed
        .iter()
        .filter(|entry| match entry.get("value") {
            None | Some(Value::Null) => false,
            Some(v) => {
                let s = str_of(v);
                s == text || fold(&s) == key
            }
        })
        .map(|entry| dict(entry_payload(entry, notes)))
        .collect()
}

fn by_definition(text: &str, listed: &[Value], notes: &HashMap<String, String>) -> Vec<Value> {
    let phrase = fold(text);
    if phrase.is_empty() {
        return Vec::new();
    }
    listed
        .iter()
        .filter(|entry| {
            let Some(note) = notes.get(&key_of(entry)).filter(|n| !n.is_empty()) else {
                return false;
            };
            let folded = fold(note);
            on_word_boundaries(&folded, &phrase) || on_word_boundaries(&phrase, &folded)
        })
        .map(|entry| dict(entry_payload(entry, notes)))
        .collect()
}

type Trigram = (char, char, char);

/// Character trigrams over the string padded with two spaces each side.
fn trigram_set(text: &str) -> HashSet<Trigram> {
    let padded: Vec<char> = "  "
        .chars()
        .chain(text.chars())
        .chain("  ".chars())
        .collect();
    padded.windows(3).map(|w| (w[0], w[1], w[2])).collect()
}

fn similarity(left: &HashSet<Trigram>, right: &HashSet<Trigram>) -> f64 {
    if left.is_empty() || right.is_empty() {
        return 0.0;
    }
    let shared = left.intersection(right).count();
    let union = left.len() + right.len() - shared;
    shared as f64 / union as f64
}

fn nearest(text: &str, listed: &[Value], notes: &HashMap<String, String>) -> Vec<Value> {
    let wanted = trigram_set(&fold(text));
    let mut scored: Vec<(f64, String, &Value)> = listed
        .iter()
        .filter_map(|entry| {
            let value = entry.get("value").filter(|v| !matches!(v, Value::Null))?;
            let shown = str_of(value);
            let score = similarity(&wanted, &trigram_set(&fold(&shown)));
            (score >= NEAREST_FLOOR).then_some((score, shown, entry))
        })
        .collect();
    // Best first, ties by the value's text; a stable sort keeps list order beyond that.
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.1.cmp(&b.1))
    });
    scored
        .into_iter()
        .take(NEAREST_LIMIT)
        .map(|(score, _, entry)| {
            let mut payload = entry_payload(entry, notes);
            payload.push(("score".to_string(), Value::Float(py_round(score, 4))));
            dict(payload)
        })
        .collect()
}

/// Answer `text` against one column's listed values (mapping entries, file order), in the
/// order spec §4.7 declares. Under `scope` a complete list is never `exhaustive`.
/// Returns the reply's keys after `table`, `column`, `part` and `text`, lists included.
pub fn resolve(
    text: &str,
    listed: &[Value],
    notes: &HashMap<String, String>,
    coverage: Value,
    complete: bool,
    scope: Option<&ScanScope>,
    unavailable_reason: Option<String>,
) -> Vec<(String, Value)> {
    let mut reply: Vec<(String, Value)> = vec![
        ("coverage".to_string(), coverage),
        (
            "exhaustive".to_string(),
            Value::Bool(complete && scope.is_none()),
        ),
        ("listed".to_string(), Value::Int(listed.len() as i64)),
    ];
    reply.extend(reply_scope(scope));
    if !complete {
        reply.push((
            "sample_caveat".to_string(),
            Value::Str(sample_caveat(listed.len())),
        ));
    } else if scope.is_some() {
        reply.push(("sample_caveat".to_string(), Value::Str(scoped_caveat())));
    }
    if let Some(reason) = unavailable_reason {
        if scope.is_none() {
            reply.retain(|(k, _)| k != "sample_caveat");
        }
        let mut out = vec![
            ("match".to_string(), Value::Str("unavailable".into())),
            ("reason".to_string(), Value::Str(reason)),
        ];
        out.extend(reply);
        return out;
    }
    if complete && listed.len() <= DOMAIN_LIMIT {
        reply.push((
            "domain".to_string(),
            Value::seq(
                listed
                    .iter()
                    .map(|e| dict(entry_payload(e, notes)))
                    .collect(),
            ),
        ));
    }
    let spellings = stored(text, listed, notes);
    let (kind, list) = if !spellings.is_empty() {
        ("stored", Some(("spellings", spellings)))
    } else {
        let defined = by_definition(text, listed, notes);
        if !defined.is_empty() {
            ("definition", Some(("candidates", defined)))
        } else {
            let close = nearest(text, listed, notes);
            if !close.is_empty() {
                ("nearest", Some(("candidates", close)))
            } else {
                ("none", None)
            }
        }
    };
    reply.push(("match".to_string(), Value::Str(kind.into())));
    if let Some((key, items)) = list {
        reply.push((key.to_string(), Value::seq(items)));
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use compat::yaml;

    fn entries(text: &str) -> Vec<Value> {
        yaml::load(text)
            .unwrap()
            .as_seq()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .cloned()
            .collect()
    }

    fn get<'a>(reply: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
        reply.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn keys(reply: &[(String, Value)]) -> Vec<&str> {
        reply.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// `resolve` against a list that is available and unscoped, neither complete.
    fn sampled(
        text: &str,
        listed: &[Value],
        notes: &HashMap<String, String>,
        coverage: Value,
    ) -> Vec<(String, Value)> {
        resolve(text, listed, notes, coverage, false, None, None)
    }

    const LIST: &str = "[{value: active, count: 5}, {value: Active, count: 3, spelling_of: active}, {value: closed, count: 2}, {value: 9, count: 1}]";

    #[test]
    fn stored_finds_every_spelling_that_folds_alike() {
        let listed = entries(LIST);
        let reply = resolve(
            " ACTIVE ",
            &listed,
            &HashMap::new(),
            Value::Float(1.0),
            true,
            None,
            None,
        );
        assert_eq!(get(&reply, "match"), Some(&Value::Str("stored".into())));
        assert_eq!(get(&reply, "spellings").unwrap().as_seq().unwrap().len(), 2);
        assert_eq!(
            keys(&reply),
            [
                "coverage",
                "exhaustive",
                "listed",
                "domain",
                "match",
                "spellings"
            ]
        );
    }

    #[test]
    fn definition_matches_notes_on_word_boundaries_both_ways() {
        let listed = entries(LIST);
        let notes = value_notes(&[(Value::Int(9), "  archived   for good ".to_string())]);
        let reply = sampled("archived", &listed, &notes, Value::Float(0.5));
        assert_eq!(get(&reply, "match"), Some(&Value::Str("definition".into())));
        // The phrase holding the whole note matches too.
        let reply = sampled(
            "is it archived for good?",
            &listed,
            &notes,
            Value::Float(0.5),
        );
        assert_eq!(get(&reply, "match"), Some(&Value::Str("definition".into())));
        // Not inside a word.
        let reply = sampled("chive", &listed, &notes, Value::Float(0.5));
        assert_ne!(get(&reply, "match"), Some(&Value::Str("definition".into())));
        assert!(get(&reply, "sample_caveat").is_some());
    }

    #[test]
    fn nearest_ranks_by_trigram_similarity() {
        let listed = entries(LIST);
        let reply = sampled("activ", &listed, &HashMap::new(), Value::Null);
        assert_eq!(get(&reply, "match"), Some(&Value::Str("nearest".into())));
        let c = get(&reply, "candidates").unwrap().as_seq().unwrap();
        // 'active' and 'Active' tie; the value text breaks it ('Active' < 'active').
        assert_eq!(c[0].get("value"), Some(&Value::Str("Active".into())));
        assert_eq!(c[0].get("score"), Some(&Value::Float(0.5)));
        let reply = sampled("zzzz", &listed, &HashMap::new(), Value::Null);
        assert_eq!(get(&reply, "match"), Some(&Value::Str("none".into())));
    }

    #[test]
    fn unavailable_drops_the_caveat_unscoped() {
        let reply = resolve(
            "x",
            &[],
            &HashMap::new(),
            Value::Null,
            false,
            None,
            Some("why".into()),
        );
        assert_eq!(
            keys(&reply),
            ["match", "reason", "coverage", "exhaustive", "listed"]
        );
    }

    #[test]
    fn word_boundaries() {
        assert!(on_word_boundaries("a b", "b"));
        assert!(!on_word_boundaries("ab", "b"));
        assert!(on_word_boundaries("ab b", "b"));
        assert!(!on_word_boundaries("é1", "1"));
        assert!(on_word_boundaries("x-1", "1"));
        assert!(!on_word_boundaries("aaa a", "a a"));
        assert!(on_word_boundaries("aa a a", "a a"));
    }
}
