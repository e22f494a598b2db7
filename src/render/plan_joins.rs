//! plan_joins' reply: one plan in three spellings. The dict (JSON, YAML) carries the
//! connection, dialect and method, the requested and added tables, the cost, `hops` (each
//! with both tables, the key column pairs in order, cardinality, detection, what was
//! observed, the join to write and the verdict in words), the SQL skeleton and the
//! alternatives; Markdown says the same for a reader and ends with the plan's own Mermaid
//! diagram. A reply longer than a page is paged (spec §4.8): Markdown by its blocks, the
//! dict by its head entries and hops.

use compat::value::Value;

use super::cursor::Call;
use super::document::{markdown_marker, text_page};
use super::erd;
use super::paging::{self, Unit, UnitKey};
use super::Reply;
use crate::error::QueryError;
use crate::query::plan_joins::erd::Diagram;
use crate::query::plan_joins::{short, Hop, Plan, Planned};
use crate::query::value;

/// How the reply is spelled.
pub use super::Format;

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn names(v: &[String]) -> Value {
    Value::seq(v.iter().map(|x| s(x)).collect())
}

/// A cost as the reply shows it: two decimals.
fn cost(c: f64) -> Value {
    Value::Float((c * 100.0).round() / 100.0)
}

/// What a hop joins: its two tables and the key columns on each side, in pair order.
fn ends(plan: &Plan, h: &Hop) -> [(&'static str, Value); 4] {
    let g = &plan.graph;
    [
        ("from", s(&g.tables[h.from])),
        ("to", s(&g.tables[h.to])),
        (
            "from_columns",
            names(&h.keys.iter().map(|k| k.0.clone()).collect::<Vec<_>>()),
        ),
        (
            "to_columns",
            names(&h.keys.iter().map(|k| k.1.clone()).collect::<Vec<_>>()),
        ),
    ]
}

fn hop(plan: &Plan, h: &Hop) -> Value {
    let g = &plan.graph;
    let e = &g.edges[h.edge];
    let mut pairs = Vec::from(ends(plan, h));
    pairs.push(("cardinality", s(h.cardinality.name())));
    pairs.push(("detection", s(e.detection.name())));
    if e.confirmed {
        pairs.push(("confirmed", Value::Bool(true)));
    }
    if let Some(o) = &e.observed {
        for (k, v) in [
            ("fanout_avg", o.fanout_avg),
            ("fanout_max", o.fanout_max),
            ("target_coverage", o.target_coverage),
            ("containment", o.containment),
        ] {
            if let Some(v) = v {
                pairs.push((k, Value::Float(v)));
            }
        }
    }
    pairs.push(("join", s(if h.left_join { "LEFT JOIN" } else { "JOIN" })));
    pairs.push(("cost", cost(h.cost)));
    pairs.push(("verdict", s(&h.verdict)));
    if let Some(note) = &e.note {
        pairs.push(("note", s(note)));
    }
    value::dict(pairs)
}

/// An alternative's hop, briefly: what it joins and how (the verdicts are the best
/// plan's to give).
fn brief_hop(plan: &Plan, h: &Hop) -> Value {
    let g = &plan.graph;
    let mut pairs = Vec::from(ends(plan, h));
    pairs.push(("detection", s(g.edges[h.edge].detection.name())));
    pairs.push(("join", s(if h.left_join { "LEFT JOIN" } else { "JOIN" })));
    value::dict(pairs)
}

fn alternative(plan: &Plan, p: &Planned, why: &str) -> Value {
    value::dict([
        ("cost", cost(p.cost)),
        ("why", s(why)),
        (
            "hops",
            Value::seq(p.hops.iter().map(|h| brief_hop(plan, h)).collect()),
        ),
        ("sql", s(&p.sql)),
    ])
}

/// The plan's own diagram: its tables and the edges of its best tree.
pub fn diagram(plan: &Plan) -> Diagram {
    let mut tables: Vec<usize> = plan.requested.clone();
    tables.extend(&plan.added);
    let edges: Vec<usize> = plan.best.hops.iter().map(|h| h.edge).collect();
    Diagram::of(plan.graph.clone(), plan.catalog.as_deref(), tables, edges)
}

/// Named entries of a dict, in order.
type Entries = Vec<(String, Value)>;

/// The head entries of the dict, in order (`hops` goes between `cost` and `sql`).
fn head(plan: &Plan) -> (Entries, Entries) {
    let g = &plan.graph;
    let fqns = |vs: &[usize]| names(&vs.iter().map(|&v| g.tables[v].clone()).collect::<Vec<_>>());
    let columns: Vec<String> = plan
        .columns
        .iter()
        .map(|(v, c)| format!("{}.{c}", g.tables[*v]))
        .collect();
    let before = vec![
        ("connection".to_string(), s(&plan.connection)),
        ("dialect".into(), s(plan.dialect)),
        ("method".into(), s(plan.method.name())),
        ("root".into(), s(&g.tables[plan.root()])),
        ("tables".into(), fqns(&plan.requested)),
        ("added".into(), fqns(&plan.added)),
        ("columns".into(), names(&columns)),
        ("cost".into(), cost(plan.best.cost)),
    ];
    let after = vec![
        ("sql".to_string(), s(&plan.best.sql)),
        (
            "alternatives".into(),
            Value::seq(
                plan.alternatives
                    .iter()
                    .map(|a| alternative(plan, &a.planned, &a.why))
                    .collect(),
            ),
        ),
        ("mermaid".into(), s(&erd::mermaid(&diagram(plan)))),
    ];
    (before, after)
}

/// The whole reply as a dict (the first page of a short one).
pub fn dict(plan: &Plan) -> Value {
    let (before, after) = head(plan);
    let mut pairs: Vec<(Value, Value)> = before
        .into_iter()
        .map(|(k, v)| (Value::Str(k), v))
        .collect();
    pairs.push((
        s("hops"),
        Value::seq(plan.best.hops.iter().map(|h| hop(plan, h)).collect()),
    ));
    pairs.extend(after.into_iter().map(|(k, v)| (Value::Str(k), v)));
    Value::map(pairs)
}

/// One page of the reply in `format`.
pub fn page(
    plan: &Plan,
    format: Format,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<Reply, QueryError> {
    let call = Call::pinned("plan_joins", arguments, &plan.pins);
    if format == Format::Md {
        return text_page(&call, &blocks(plan), cursor, markdown_marker).map(Reply::Text);
    }
    let (before, after) = head(plan);
    let order: Vec<String> = before
        .iter()
        .map(|(k, _)| k.clone())
        .chain(["hops".to_string()])
        .chain(after.iter().map(|(k, _)| k.clone()))
        .collect();
    let heads: Vec<(UnitKey, Value)> = before
        .into_iter()
        .chain(after)
        .map(|(k, v)| (UnitKey::Head(k), v))
        .collect();
    let yaml = format == Format::Yaml;
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut hops = Vec::new();
        let mut found: Vec<(String, Value)> = Vec::new();
        for u in run {
            match u.key() {
                UnitKey::Head(k) => found.push((k.clone(), u.value())),
                UnitKey::Item(_) => hops.push(u.value()),
            }
        }
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        for k in &order {
            if k == "hops" {
                if !hops.is_empty() || !found.is_empty() {
                    pairs.push((s("hops"), Value::seq(std::mem::take(&mut hops))));
                }
            } else if let Some((_, v)) = found.iter().find(|(f, _)| f == k) {
                pairs.push((s(k), v.clone()));
            }
        }
        if yaml {
            let text = compat::yaml::emit::safe_dump(&Value::map(pairs));
            return Value::Str(match next {
                Some(c) => format!("{text}# next_cursor: {c}\n"),
                None => text,
            });
        }
        if let Some(c) = next {
            pairs.push((s("next_cursor"), s(c)));
        }
        Value::map(pairs)
    };
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        let h = plan
            .best
            .hops
            .get(i)
            .ok_or_else(|| QueryError::Internal("plan_joins: a hop past the end".into()))?;
        Ok((UnitKey::Item(Value::Int(i as i64)), hop(plan, h)))
    };
    let page = paging::lazy_page(
        &call,
        heads,
        plan.best.hops.len(),
        &mut item,
        &shape,
        cursor,
    )?;
    Ok(match page {
        Value::Str(text) => Reply::Text(text),
        dict => Reply::Dict(dict),
    })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A hop as Markdown lines, numbered `n`.
fn hop_lines(plan: &Plan, n: usize, h: &Hop) -> String {
    let g = &plan.graph;
    let e = &g.edges[h.edge];
    let keys: Vec<String> = h.keys.iter().map(|(f, t)| format!("{f} = {t}")).collect();
    let mut evidence = vec![
        h.cardinality.name().to_string(),
        e.detection.name().to_string(),
    ];
    if e.confirmed {
        evidence.push("confirmed by a person".into());
    }
    if let Some(o) = &e.observed {
        let mut measured = Vec::new();
        if let Some(x) = o.fanout_avg {
            measured.push(format!("fanout_avg {x}"));
        }
        if let Some(x) = o.fanout_max {
            measured.push(format!("fanout_max {x}"));
        }
        if let Some(x) = o.target_coverage {
            measured.push(format!("target_coverage {x}"));
        }
        if let Some(x) = o.containment {
            measured.push(format!("containment {x}"));
        }
        evidence.extend(measured);
    }
    let mut text = format!(
        "{n}. `{}` -> `{}` on {} ({}; {})\n   {}.",
        short(g, h.from),
        short(g, h.to),
        keys.join(" and "),
        evidence.join(", "),
        if h.left_join { "LEFT JOIN" } else { "JOIN" },
        capitalized(&h.verdict)
    );
    if let Some(note) = &e.note {
        text.push_str(&format!("\n   Note: {note}"));
    }
    text
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The Markdown reply as blocks (each a page cut's unit).
pub fn blocks(plan: &Plan) -> Vec<String> {
    let g = &plan.graph;
    let list = |vs: &[usize]| {
        vs.iter()
            .map(|&v| format!("`{}`", short(g, v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    let mut intro = format!(
        "# plan_joins: {}, {}\n\nConnection `{}`, {} dialect, {} search. Root: `{}` (the first table asked for). Cost {:.2}.",
        plural(plan.requested.len() + plan.added.len(), "table", "tables"),
        plural(plan.best.hops.len(), "join", "joins"),
        plan.connection,
        plan.dialect,
        plan.method.name(),
        short(g, plan.root()),
        plan.best.cost
    );
    if !plan.added.is_empty() {
        intro.push_str(&format!(
            " Passes through {}, which you did not ask for.",
            list(&plan.added)
        ));
    }
    out.push(intro);
    out.push("## Joins".to_string());
    for (i, h) in plan.best.hops.iter().enumerate() {
        out.push(hop_lines(plan, i + 1, h));
    }
    out.push(format!("## SQL\n\n```sql\n{}\n```", plan.best.sql));
    if plan.alternatives.is_empty() {
        out.push("## Alternatives\n\nNone within 10% of this plan's cost.".to_string());
    } else {
        out.push("## Alternatives".to_string());
        for (i, a) in plan.alternatives.iter().enumerate() {
            out.push(format!(
                "{}. Cost {:.2}: {}.\n\n```sql\n{}\n```",
                i + 1,
                a.planned.cost,
                capitalized(&a.why),
                a.planned.sql
            ));
        }
    }
    out.push(format!(
        "## Diagram\n\n```mermaid\n{}```",
        erd::mermaid(&diagram(plan))
    ));
    out
}
