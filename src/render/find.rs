//! find's reply: short by design. Markdown is a head line and one line per hit (kind,
//! what it is, why it matched, the call to make next); JSON and YAML carry the same as a
//! dict. A reply never exceeds [`MAX_REPLY`] characters: hits that would not fit are left
//! out and the reply says how many.

use compat::py::{json_compact, json_indent2, repr_str};
use compat::value::Value;

use super::Reply;
use crate::query::find::{Found, Hit, Next};
use crate::query::value::dict;

/// The longest reply, in characters.
pub const MAX_REPLY: usize = 8_000;
/// The query as the head line shows it, at most.
const MAX_SHOWN_QUERY: usize = 100;

/// How the reply is spelled.
pub use super::Format;

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn shown_query(query: &str) -> String {
    match query.char_indices().nth(MAX_SHOWN_QUERY) {
        Some((at, _)) => format!("{}...", &query[..at]),
        None => query.to_string(),
    }
}

fn arguments(next: &Next) -> Value {
    Value::map(next.arguments.iter().map(|(k, v)| (s(k), s(v))).collect())
}

/// A hit as Markdown's one line shows what it is.
fn subject(hit: &Hit) -> String {
    let column = hit.column.as_deref().unwrap_or("");
    match (&hit.value, hit.kind.name()) {
        (Some(v), _) => format!("value {} of `{}.{column}`", repr_str(v), hit.table),
        (None, "table") => format!("table `{}`", hit.table),
        (None, "note") => format!("note on `{}` ({column})", hit.table),
        (None, kind) => format!("{kind} `{}.{column}`", hit.table),
    }
}

fn line(n: usize, hit: &Hit) -> String {
    format!(
        "{n}. {} - {} -> {} {}",
        subject(hit),
        hit.why,
        hit.next.tool,
        json_compact(&arguments(&hit.next))
    )
}

fn hit_dict(hit: &Hit) -> Value {
    let mut pairs = vec![("kind", s(hit.kind.name())), ("table", s(&hit.table))];
    if let Some(c) = &hit.column {
        pairs.push(("column", s(c)));
    }
    if let Some(v) = &hit.value {
        pairs.push(("value", s(v)));
    }
    pairs.push(("why", s(&hit.why)));
    pairs.push((
        "next",
        dict([
            ("tool", s(hit.next.tool)),
            ("arguments", arguments(&hit.next)),
        ]),
    ));
    dict(pairs)
}

fn head(found: &Found, shown: usize) -> String {
    let query = repr_str(&shown_query(&found.query));
    match (shown, found.total) {
        (0, _) => format!(
            "find {query}: nothing matched. Try other words, or search_columns for a name pattern."
        ),
        (n, total) if total > n => format!("find {query}: the best {n} of {total} matches"),
        (n, _) => format!("find {query}: {n} matches"),
    }
}

fn markdown(found: &Found, shown: usize) -> String {
    let mut out = head(found, shown);
    for (i, hit) in found.hits.iter().take(shown).enumerate() {
        out.push('\n');
        out.push_str(&line(i + 1, hit));
    }
    let cut = found.hits.len() - shown;
    if cut > 0 {
        out.push_str(&format!("\n({cut} more hits left out to keep this reply short: ask for fewer kinds or a lower limit.)"));
    }
    out
}

fn structured(found: &Found, shown: usize) -> Value {
    dict([
        ("query", s(&shown_query(&found.query))),
        ("total", Value::Int(found.total as i64)),
        ("shown", Value::Int(shown as i64)),
        (
            "hits",
            Value::seq(found.hits.iter().take(shown).map(hit_dict).collect()),
        ),
    ])
}

fn spelled(found: &Found, shown: usize, format: Format) -> String {
    match format {
        Format::Md => markdown(found, shown),
        Format::Json => json_indent2(&structured(found, shown)),
        Format::Yaml => compat::yaml::emit::safe_dump(&structured(found, shown)),
    }
}

/// The most hits whose reply fits in [`MAX_REPLY`], and that reply. A reply grows with
/// each hit it shows, so the count is found by halving (a few spellings, not one per hit).
fn most_that_fit(found: &Found, format: Format) -> (usize, String) {
    let spell = |n: usize| {
        let text = spelled(found, n, format);
        let fits = text.chars().count() <= MAX_REPLY;
        (fits, text)
    };
    let all = found.hits.len();
    let (fits, text) = spell(all);
    if fits {
        return (all, text);
    }
    // `fitting` fits (none always does: its head line is short), `over` does not.
    let (mut fitting, mut over) = (0, all);
    let mut best = spell(0).1;
    while over - fitting > 1 {
        let mid = (fitting + over) / 2;
        match spell(mid) {
            (true, text) => (fitting, best) = (mid, text),
            (false, _) => over = mid,
        }
    }
    (fitting, best)
}

/// find's reply in `format`: as many of the hits, in order, as fit in [`MAX_REPLY`].
pub fn reply(found: &Found, format: Format) -> Reply {
    let (shown, text) = most_that_fit(found, format);
    match format {
        Format::Json => Reply::Dict(structured(found, shown)),
        _ => Reply::Text(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::search::find::FindKind;

    fn hit(i: usize, why: &str) -> Hit {
        Hit {
            kind: FindKind::Column,
            table: format!("billing.t{i:02}"),
            column: Some("fee_amount".into()),
            value: None,
            why: why.to_string(),
            next: Next {
                tool: "get_table_context",
                arguments: vec![("table", format!("billing.t{i:02}"))],
            },
        }
    }

    #[test]
    fn markdown_gives_one_line_per_hit_with_the_next_call() {
        let found = Found {
            query: "late fees".into(),
            hits: vec![hit(1, "name matches `fees`")],
            total: 7,
        };
        let Reply::Text(text) = reply(&found, Format::Md) else {
            panic!("md is text")
        };
        insta::assert_snapshot!(text, @r#"
        find 'late fees': the best 1 of 7 matches
        1. column `billing.t01.fee_amount` - name matches `fees` -> get_table_context {"table": "billing.t01"}
        "#);
    }

    #[test]
    fn a_reply_never_exceeds_eight_thousand_characters_in_any_format() {
        let found = Found {
            query: "x".repeat(10_000),
            hits: (0..50).map(|i| hit(i, &"long why ".repeat(30))).collect(),
            total: 500,
        };
        for format in [Format::Md, Format::Json, Format::Yaml] {
            let text = match reply(&found, format) {
                Reply::Text(t) => t,
                Reply::Dict(v) => json_indent2(&v),
            };
            assert!(
                text.chars().count() <= MAX_REPLY,
                "{format:?}: {}",
                text.len()
            );
            assert!(
                text.contains("billing.t00"),
                "{format:?} keeps the first hits"
            );
            // As many as fit: one more would not.
            let (shown, _) = most_that_fit(&found, format);
            assert!(shown < 50);
            assert!(spelled(&found, shown + 1, format).chars().count() > MAX_REPLY);
            assert!(spelled(&found, shown, format).chars().count() <= MAX_REPLY);
        }
    }
}
