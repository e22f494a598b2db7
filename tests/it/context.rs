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

#[test]
fn a_cursor_is_refused_once_a_file_the_reply_read_changes() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("context");
    crate::util::copy_dir(&fixtures().join("edge").join("context"), &project);
    let mut s = Server::start(&project, &[]);
    let args = json!({"table": t("wide"), "format": "yaml"});
    let (first, _) = s.call("get_table_context", args.clone());
    let cursor = cursor_of(&first).expect("wide yaml pages");
    // Another table's statistics are not pinned: its change leaves the cursor valid.
    let other = project.join("prints/library/stacks/ctx/scoped/statistics.yaml");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&other, format!("{text}# edited\n")).unwrap();
    let mut next = args.clone();
    next["cursor"] = json!(cursor);
    let (_, error) = s.call("get_table_context", next.clone());
    assert!(!error, "a file the reply never read moved the cursor");
    // The table's own statistics are: the next page is refused, the first page answers anew.
    let own = project.join("prints/library/stacks/ctx/wide/statistics.yaml");
    let text = std::fs::read_to_string(&own).unwrap();
    std::fs::write(&own, format!("{text}# edited\n")).unwrap();
    let (text, error) = s.call("get_table_context", next);
    assert!(error);
    assert!(text.starts_with("the print changed on disk since this cursor was issued"));
    let (again, error) = s.call("get_table_context", args.clone());
    assert!(!error);
    assert_eq!(again.len(), first.len());
    // Every relationships annotation file is pinned, another table's too. The reply does
    // not read that one, so its change comes through the watcher: asked until it has.
    let mut next = args.clone();
    next["cursor"] = json!(cursor_of(&again).expect("wide yaml pages"));
    let notes = project.join("prints/library/stacks/ctx/refs/relationships.annotations.yaml");
    let text = std::fs::read_to_string(&notes).unwrap();
    std::fs::write(&notes, format!("{text}# edited\n")).unwrap();
    let waited = std::time::Instant::now();
    let refused = loop {
        let (text, error) = s.call("get_table_context", next.clone());
        if error || waited.elapsed() > std::time::Duration::from_secs(10) {
            break error.then_some(text);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let text = refused.expect("another table's annotation file moved and the cursor held");
    assert!(text.starts_with("the print changed on disk since this cursor was issued"));
}

/// The words `## Terms` definitions are written in (the unit tests hold the list to them).
const TERMS_VOCABULARY: &str = include_str!("../../src/render/context/terms_vocabulary.txt");

/// The definition in a legend line `- LABEL: DEFINITION (json/yaml ...; search_columns ...)`.
fn definition_of(line: &str) -> &str {
    let (_, rest) = line
        .strip_prefix("- ")
        .and_then(|l| l.split_once(": "))
        .unwrap_or_else(|| panic!("not a legend line: {line:?}"));
    let end = [" (json/yaml `", " (search_columns `"]
        .iter()
        .filter_map(|s| rest.rfind(s))
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The words of a definition, lowercased, hyphenated ones split and `'s` dropped; notation
/// (figures, `row_count`, `relationships.yaml`, `->`) is no word and left out. A token that is
/// neither (`w/`, `column(s)`) comes back whole, to fail the lookup.
fn words_of(definition: &str) -> Vec<String> {
    let mut words = Vec::new();
    for raw in definition.split(' ') {
        let token = raw
            .trim_start_matches('(')
            .trim_end_matches(['.', ',', ';', ':', ')']);
        let notation = token == "->"
            || token == "/"
            || token.bytes().any(|b| b.is_ascii_digit())
            || token.contains('_')
            || token.contains('.');
        if token.is_empty() || notation {
            continue;
        }
        let token = token.strip_suffix("'s").unwrap_or(token);
        words.extend(token.split('-').map(str::to_lowercase));
    }
    words
}

/// The legend lines of one page.
fn legend_lines(page: &str) -> Vec<&str> {
    let Some((_, after)) = page.split_once("## Terms\n\n") else {
        return Vec::new();
    };
    after.lines().take_while(|l| l.starts_with("- ")).collect()
}

#[test]
fn every_legend_line_the_fixtures_print_defines_in_whole_words() {
    let vocabulary: std::collections::BTreeSet<&str> = TERMS_VOCABULARY.lines().collect();
    let mut defined = std::collections::BTreeSet::new();
    for project in [
        fixtures().join("edge").join("context"),
        fixtures().join("library"),
    ] {
        let mut s = Server::start(&project, &[]);
        let tables: Vec<String> = crate::util::all_pages(&mut s, "list_tables", json!({}))
            .iter()
            .flat_map(|p| p["tables"].as_array().unwrap().clone())
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        for table in &tables {
            for purpose in ["profile", "query"] {
                let arguments = json!({"table": table, "purpose": purpose});
                for page in crate::util::all_markdown_pages(&mut s, "get_table_context", arguments)
                {
                    for line in legend_lines(&page) {
                        let definition = definition_of(line);
                        assert!(
                            definition.ends_with('.')
                                && !definition.ends_with("..")
                                && !definition.contains("  "),
                            "{table} {purpose}: {line:?}"
                        );
                        for word in words_of(definition) {
                            assert!(
                                vocabulary.contains(word.as_str()),
                                "{table} {purpose}: {word:?} in {line:?}"
                            );
                        }
                        defined.insert(line[2..].split(": ").next().unwrap().to_string());
                    }
                }
            }
        }
    }
    // The fixtures print most of the legend (107 distinct labels), so the check covers it.
    assert!(
        defined.len() > 100,
        "only {} terms printed: {defined:?}",
        defined.len()
    );
}
