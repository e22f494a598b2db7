//! The Markdown sections of both purposes, in the order paging ranks them, each line
//! carrying the term keys its labels print. Profile: identity and qualifiers, connection
//! notes, DDL, description, annotations, the column catalog or the statistics sections,
//! relationships, parts (`header`, `profile`, `relationships`). Query: identity and scope,
//! DDL, connection notes, the value table, Joins, data dictionary (`values`).

mod header;
mod profile;
mod relationships;
mod values;

pub use values::{null_shares, referencing_null_share};

use header::{profile_header, query_header};
use profile::{
    annotation_has_content, annotations_text, cardinality_lines, catalog_only_text, disabled_text,
    null_patterns_lines, parts_lines, physical_layout_text, unmeasured_text,
};
use relationships::{joins_lines, relationships_lines};
use values::{column_values_lines, dictionary_text};

use crate::error::QueryError;
use crate::query::context::facts::{effective_profile, referencing_columns};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{as_f64, cv};
use crate::query::edges::iterate;
use crate::render::context::notes::Rendered;
use crate::render::context::spell::{self, R};
use crate::render::context::terms::Keys;
use crate::render::context::Options;
use compat::py::rstrip;
use compat::value::Value;

/// One Markdown section: its text and the term keys of each of its lines.
#[derive(Debug, Clone)]
pub struct Section {
    /// The reference's section name (`header`, `ddl`, `values`...), for tests and debugging.
    #[allow(dead_code)]
    pub name: &'static str,
    pub text: String,
    pub line_terms: Vec<Keys>,
}

fn section(name: &'static str, lines: Vec<Rendered>) -> Section {
    let text = lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Section {
        name,
        text,
        line_terms: lines.into_iter().map(|l| l.terms).collect(),
    }
}

fn plain_section(name: &'static str, text: String) -> Section {
    Section {
        name,
        text,
        line_terms: Vec::new(),
    }
}

pub(super) const FREQUENT_STATEMENT: &str = "frequent values, not a domain";

fn disabled_label(name: &str) -> &'static str {
    match name {
        "looks_like" => "value shapes (looks like)",
        "null_patterns" => "columns null on the same rows",
        "parts" => "parts of nested columns",
        "relationships.infer" => "inferred relationships",
        "sketches" => "value sketches and measured joins",
        _ => "timeline",
    }
}

pub fn unprofiled_message(fqn: &str) -> String {
    format!(
        "the last generate run could not profile {}; run dbprint generate to see the cause",
        compat::py::repr_str(fqn)
    )
}

fn join_strs(v: Option<&Value>) -> R<String> {
    let mut out = Vec::new();
    for item in iterate(v)? {
        match item {
            Value::Str(s) => out.push(s),
            other => {
                return Err(QueryError::Other(format!(
                    "sequence item {}: expected str instance, {} found",
                    out.len(),
                    other.py_type_name()
                )))
            }
        }
    }
    Ok(out.join(", "))
}

fn scanned_row_share(coverage: Option<&Value>) -> Option<String> {
    let c = match coverage {
        Some(v @ (Value::Int(_) | Value::Float(_) | Value::BigInt(_))) => v,
        _ => return None,
    };
    Some(if as_f64(Some(c)).unwrap_or(0.0) >= 1.0 {
        "every scanned row".into()
    } else {
        format!(
            "{} of scanned rows",
            spell::spell_percent(c).unwrap_or_default()
        )
    })
}

fn connection_notes_text(a: &Artifacts) -> String {
    format!(
        "## Connection notes\n\n{}",
        a.connection_notes.as_deref().unwrap_or_default()
    )
}

fn ddl_text(a: &Artifacts) -> String {
    format!("## DDL\n\n```sql\n{}\n```", rstrip(&a.ddl))
}

/// The profile sections, ranked as paging keeps them.
fn profile_sections(
    a: &Artifacts,
    options: &Options,
    connection_profile: &Value,
    adapter: Option<&str>,
) -> R<Vec<Section>> {
    let stats = a.statistics().filter(|s| s.truthy());
    let include_qualifiers = options.include_stats && stats.is_some();
    let mut out = vec![section(
        "header",
        profile_header(a, include_qualifiers, connection_profile, adapter)?,
    )];
    if options.include_annotations && a.connection_notes.is_some() {
        out.push(plain_section("connection_notes", connection_notes_text(a)));
    }
    out.push(plain_section("ddl", ddl_text(a)));
    if let Some(d) = a.description.as_deref().filter(|d| !d.is_empty()) {
        if options.include_description {
            out.push(plain_section(
                "description",
                format!("## Description\n\n{}", rstrip(d)),
            ));
        }
    }
    if options.include_annotations && a.annotations.iter().any(|(_, e)| annotation_has_content(e)) {
        out.push(plain_section("annotations", annotations_text(a)?));
    }
    if let (true, Some(statistics)) = (options.include_stats, stats) {
        if cv(statistics, "catalog_only") == Some(&Value::Bool(true)) {
            out.push(plain_section("columns", catalog_only_text(a)?));
        } else {
            let lost = unmeasured_text(statistics);
            if !lost.is_empty() {
                out.push(plain_section("unmeasured", lost));
            }
            let off = disabled_text(statistics);
            if !off.is_empty() {
                out.push(plain_section("disabled", off));
            }
            if cv(statistics, "physical_layout").is_some_and(Value::truthy) {
                out.push(plain_section(
                    "physical_layout",
                    physical_layout_text(statistics)?,
                ));
            }
            let profile = effective_profile(connection_profile, a.profile_override.as_ref());
            out.push(section("cardinality", cardinality_lines(a, &profile)?));
            if cv(statistics, "null_patterns").is_some_and(Value::truthy) {
                out.push(section("null_patterns", null_patterns_lines(statistics)?));
            }
        }
    }
    if options.include_relationships && a.relationships.as_ref().is_some_and(Value::truthy) {
        out.push(section("relationships", relationships_lines(a)?));
    }
    if options.include_stats && stats.is_some() {
        let parts = parts_lines(a)?;
        if !parts.is_empty() {
            out.push(section("parts", parts));
        }
    }
    Ok(out)
}

/// The query sections in ranked order: header, DDL, connection notes, values, Joins,
/// dictionary.
fn query_sections(a: &Artifacts, options: &Options, adapter: Option<&str>) -> R<Vec<Section>> {
    let dictionary = dictionary_text(a, options)?;
    let joined = if options.include_relationships {
        referencing_columns(a)?
    } else {
        Vec::new()
    };
    let header = query_header(a, adapter)?;
    let joins = if options.include_relationships {
        joins_lines(a)?
    } else {
        Vec::new()
    };
    let values = column_values_lines(a, &joined)?;
    let mut out = vec![section("header", header)];
    out.push(section("ddl", vec![Rendered::plain(ddl_text(a))]));
    if options.include_annotations && a.connection_notes.is_some() {
        out.push(section(
            "connection_notes",
            vec![Rendered::plain(connection_notes_text(a))],
        ));
    }
    if !values.is_empty() {
        out.push(section("values", values));
    }
    if !joins.is_empty() {
        out.push(section("joins", joins));
    }
    if !dictionary.is_empty() {
        out.push(section("dictionary", vec![Rendered::plain(dictionary)]));
    }
    Ok(out)
}

/// `ranked_sections`: one table's Markdown sections, none dropped, in paging order.
/// `adapter` and `connection_profile` are the manifest's.
pub fn sections(
    a: &Artifacts,
    options: &Options,
    adapter: Option<&str>,
    connection_profile: &Value,
) -> R<Vec<Section>> {
    if options.query {
        query_sections(a, options, adapter)
    } else {
        profile_sections(a, options, connection_profile, adapter)
    }
}
