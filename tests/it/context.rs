//! get_table_context snapshots over the fixture prints: every page of a call, cursors masked
//! (they digest absolute paths). The reference's own answers to these calls are replayed in
//! `reference.rs`; these snapshots pin printdex's whole text, legend prose included, so a
//! change to any section shows up as a reviewable diff.

use serde_json::{json, Value};

use crate::util::{fixtures, Server};

fn cursor_of(text: &str) -> Option<String> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v.get("next_cursor")?.as_str().map(str::to_string);
    }
    let last = text.trim_end().lines().last()?;
    last.strip_prefix("<!-- next_cursor: ")
        .and_then(|c| c.strip_suffix(" -->"))
        .or_else(|| last.strip_prefix("# next_cursor: "))
        .map(str::to_string)
}

/// Every page of one call, joined, each page's cursor masked.
fn pages(server: &mut Server, arguments: Value) -> String {
    let mut out = Vec::new();
    let mut args = arguments.clone();
    for n in 1.. {
        let (text, error) = server.call("get_table_context", args.clone());
        let next = if error { None } else { cursor_of(&text) };
        let shown = match &next {
            Some(c) => text.replace(c, "<CURSOR>"),
            None => text.clone(),
        };
        out.push(format!("----- page {n} (isError: {error}) -----\n{shown}"));
        match next {
            Some(c) => args["cursor"] = json!(c),
            None => break,
        }
        assert!(n < 50, "runaway paging");
    }
    out.join("\n")
}

fn context() -> Server {
    Server::start(&fixtures().join("edge").join("context"), &[])
}

fn t(name: &str) -> String {
    format!("stacks.ctx.{name}")
}

#[test]
fn every_classification_and_suffix_in_the_notes() {
    let mut s = context();
    let text = pages(&mut s, json!({"table": t("kinds")}));
    insta::assert_snapshot!("kinds_profile_md", text);
}

#[test]
fn values_spelling_groups_redaction_and_joins_under_query() {
    let mut s = context();
    insta::assert_snapshot!(
        "kinds_query_md",
        pages(&mut s, json!({"table": t("kinds"), "purpose": "query"}))
    );
    insta::assert_snapshot!(
        "kinds_query_json",
        pages(
            &mut s,
            json!({"table": t("kinds"), "purpose": "query", "format": "json"})
        )
    );
}

#[test]
fn rejected_and_added_edges_on_both_tables() {
    let mut s = context();
    insta::assert_snapshot!(
        "refs_profile_json",
        pages(&mut s, json!({"table": t("refs"), "format": "json"}))
    );
    insta::assert_snapshot!(
        "refs_query_md",
        pages(&mut s, json!({"table": t("refs"), "purpose": "query"}))
    );
}

#[test]
fn scoped_and_filtered_reads_say_over_the_rows_scanned() {
    let mut s = context();
    for (name, purpose, format) in [
        ("scoped", "profile", "md"),
        ("scoped", "query", "md"),
        ("scoped", "query", "yaml"),
        ("filtered", "profile", "md"),
    ] {
        insta::assert_snapshot!(
            format!("{name}_{purpose}_{format}"),
            pages(
                &mut s,
                json!({"table": t(name), "purpose": purpose, "format": format})
            )
        );
    }
}

#[test]
fn unreadable_and_missing_artifacts_degrade_only_their_sections() {
    let mut s = context();
    for (name, format) in [
        ("broken", "md"),
        ("broken", "json"),
        ("empty", "md"),
        ("empty", "yaml"),
    ] {
        insta::assert_snapshot!(
            format!("{name}_profile_{format}"),
            pages(&mut s, json!({"table": t(name), "format": format}))
        );
    }
}

#[test]
fn catalog_only_views_and_merging_engines() {
    let mut s = context();
    insta::assert_snapshot!(
        "catalog_view_profile_md",
        pages(&mut s, json!({"table": t("catalog_view")}))
    );
    insta::assert_snapshot!(
        "merging_profile_md",
        pages(&mut s, json!({"table": t("merging")}))
    );
}

#[test]
fn a_table_larger_than_a_page_in_each_format() {
    let mut s = context();
    for format in ["md", "json", "yaml"] {
        let text = pages(&mut s, json!({"table": t("wide"), "format": format}));
        assert!(text.contains("----- page 2"), "{format} fits one page");
        insta::assert_snapshot!(format!("wide_profile_{format}"), text);
    }
}

#[test]
fn library_inherited_notes_parts_and_path_valued_edges() {
    let mut s = Server::start(&fixtures().join("library"), &[]);
    for (table, purpose) in [
        ("stacks.lending.v_open_loans", "query"),
        ("stacks.catalog.books", "profile"),
        ("stacks.lending.activity_log", "query"),
    ] {
        insta::assert_snapshot!(
            format!(
                "library_{}_{purpose}_md",
                table.rsplit('.').next().unwrap_or("")
            ),
            pages(&mut s, json!({"table": table, "purpose": purpose}))
        );
    }
}

#[test]
fn a_cursor_belongs_to_its_call() {
    let mut s = context();
    let (first, _) = s.call(
        "get_table_context",
        json!({"table": t("wide"), "format": "json"}),
    );
    let cursor = cursor_of(&first).expect("wide json pages");
    // Case-folded format and purpose share cursors; other arguments do not.
    let (_, error) = s.call(
        "get_table_context",
        json!({"table": t("wide"), "format": "JSON", "cursor": cursor}),
    );
    assert!(!error);
    let (text, error) = s.call(
        "get_table_context",
        json!({"table": t("wide"), "format": "yaml", "cursor": cursor}),
    );
    assert!(error);
    assert!(text.starts_with("this cursor was not issued by get_table_context"));
}
