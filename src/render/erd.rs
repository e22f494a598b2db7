//! A diagram of the join graph in three spellings: Mermaid `erDiagram` text (crow's feet;
//! what Claude, VS Code and GitHub render), Graphviz DOT (arrowheads from the referencing
//! table to the referenced one), and SVG laid out in-process from that DOT by layout-rs,
//! so it opens in any browser without Graphviz. Tables are boxes holding their key
//! columns; each edge is labelled with its keys and cardinality; declared edges are solid,
//! every other edge (inferred, measured, added by a person) dashed.

use layout::backends::svg::SVGWriter;
use layout::gv::{DotParser, GraphBuilder};

use crate::query::plan_joins::cost::{Cardinality, Detection};
use crate::query::plan_joins::erd::{Diagram, KeyColumn};
use crate::query::plan_joins::graph::JoinEdge;
use crate::query::plan_joins::{short, words};

/// A word Mermaid reads as an attribute's type or name: the leading word characters.
fn word(text: &str, fallback: &str) -> String {
    let w = text.replace(|c: char| !(c.is_ascii_alphanumeric() || c == '_'), "_");
    let w = w.trim_matches('_').to_string();
    match w.chars().next() {
        None => fallback.to_string(),
        Some(c) if c.is_ascii_digit() => format!("{fallback}_{w}"),
        Some(_) => w,
    }
}

/// The SQL type's leading word (`DECIMAL(10,2)` -> `DECIMAL`).
fn type_word(sql_type: Option<&str>) -> String {
    let t = sql_type.unwrap_or("").trim();
    let head: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    word(&head, "key")
}

fn marks(k: &KeyColumn) -> &'static str {
    match (k.referenced, k.referencing) {
        (true, true) => "PK, FK",
        (true, false) => "PK",
        _ => "FK",
    }
}

/// An edge's label: its keys (`a, b`, or `a = b` where the names differ) and, unless
/// declared, how it is known.
fn label(e: &JoinEdge) -> String {
    let keys = if e.child_columns == e.parent_columns {
        e.child_columns.join(", ")
    } else {
        e.child_columns
            .iter()
            .zip(&e.parent_columns)
            .map(|(c, p)| format!("{c} = {p}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (e.detection, e.confirmed) {
        (Detection::Declared, _) => keys,
        (d, true) => format!("{keys} ({}, confirmed)", d.name()),
        (d, false) => format!("{keys} ({})", d.name()),
    }
}

fn one_to_one(e: &JoinEdge) -> bool {
    Cardinality::of(false, e.observed.as_ref()) == Cardinality::OneToOne
}

/// The Mermaid `erDiagram` text.
pub fn mermaid(d: &Diagram) -> String {
    let g = &d.graph;
    let name = |v: usize| format!("\"{}\"", short(g, v).replace(['"', '%'], "_"));
    let mut out = String::from("erDiagram\n");
    if d.left_out > 0 {
        out.push_str(&format!(
            "    %% {} more tables within reach are left out\n",
            d.left_out
        ));
    }
    for (i, &v) in d.tables.iter().enumerate() {
        if d.keys[i].is_empty() {
            out.push_str(&format!("    {}\n", name(v)));
            continue;
        }
        out.push_str(&format!("    {} {{\n", name(v)));
        for k in &d.keys[i] {
            out.push_str(&format!(
                "        {} {} {}\n",
                type_word(k.sql_type.as_deref()),
                word(&k.name, "column"),
                marks(k)
            ));
        }
        out.push_str("    }\n");
    }
    for &i in &d.edges {
        let e = &g.edges[i];
        let child_end = if one_to_one(e) { "|o" } else { "}o" };
        let parent_end = if words::lost_share(true, e.observed.as_ref()).is_some() {
            "o|"
        } else {
            "||"
        };
        let line = if e.detection == Detection::Declared {
            "--"
        } else {
            ".."
        };
        out.push_str(&format!(
            "    {} {child_end}{line}{parent_end} {} : \"{}\"\n",
            name(e.child),
            name(e.parent),
            label(e).replace('"', "'")
        ));
    }
    out
}

/// Text inside a DOT record field: its special characters escaped.
fn record_text(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if matches!(c, '{' | '}' | '|' | '<' | '>' | '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The Graphviz DOT text.
pub fn dot(d: &Diagram) -> String {
    let g = &d.graph;
    let mut out = String::from(
        "digraph erd {\n    node [shape=record, fontname=\"Helvetica\"];\n    edge [fontname=\"Helvetica\"];\n",
    );
    if d.left_out > 0 {
        out.push_str(&format!(
            "    // {} more tables within reach are left out\n",
            d.left_out
        ));
    }
    for (i, &v) in d.tables.iter().enumerate() {
        let mut fields = vec![record_text(&short(g, v))];
        for k in &d.keys[i] {
            fields.push(record_text(&format!("{} {}", k.name, marks(k))));
        }
        out.push_str(&format!("    t{v} [label=\"{{{}}}\"];\n", fields.join("|")));
    }
    for &i in &d.edges {
        let e = &g.edges[i];
        let cardinality = if one_to_one(e) { "1:1" } else { "N:1" };
        let style = if e.detection == Detection::Declared {
            ""
        } else {
            ", style=dashed"
        };
        let text = format!("{}  {cardinality}", label(e)).replace(['"', '\\'], "'");
        out.push_str(&format!(
            "    t{} -> t{} [label=\"{text}\"{style}];\n",
            e.child, e.parent
        ));
    }
    out.push_str("}\n");
    out
}

/// The SVG, laid out from [`dot`] in-process; `Err` says why layout-rs refused it.
pub fn svg(d: &Diagram) -> Result<String, String> {
    if d.tables.is_empty() {
        return Err("there is no table to draw".to_string());
    }
    let text = dot(d);
    let mut parser = DotParser::new(&text);
    let graph = parser.process()?;
    // The layout is another crate's: a panic inside it is this call's error, not the
    // process's end.
    std::panic::catch_unwind(move || {
        let mut builder = GraphBuilder::new();
        builder.visit_graph(&graph);
        let mut visual = builder.get();
        let mut writer = SVGWriter::new();
        visual.do_it(false, false, false, &mut writer);
        writer.finalize()
    })
    .map_err(|_| "layout-rs could not lay the diagram out".to_string())
}
