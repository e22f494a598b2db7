//! validate_sql: an agent's SQL checked against the print before it runs (printdex's own
//! tool, beyond dbprint's seven).
//!
//! tools/list is one page however long the listings grow (`Server::tools_page`), so this
//! description need not be cut to fit the reference's 20,000-character page.

use super::schema::connection;
use super::{arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::validate_sql;
use crate::render::validate_sql as render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "validate_sql",
            description: "Checks SQL against the print before you run it, offline, in the dialect and naming rules of the connection's adapter. Each finding has `kind` (`unknown_table`, `unknown_column`, `ambiguous_column`, `unknown_join`: no known edge, `unknown_value`: not in a complete value list, `type_mismatch`, `parse_error`), `line`, `column`, `text`, `message` and `suggestions` (replacements for `text`). `ok: true`: nothing found.",
            params: vec![
                Param::string("sql", "The SQL: one statement, or several separated by `;`.").non_empty().required(),
                connection(),
                Param::string("format", "md (default), json or yaml.")
                    .choices(&["md", "json", "yaml"])
                    .default(serde_json::json!("md")),
            ],
        },
        instruction: Some("- validate_sql: before running SQL you wrote, to catch tables, columns, joins and filter values the print does not support."),
        handler: |store, args| {
            // The tables the SQL names must be current; every table, only when a join path
            // was planned over the whole print.
            let sql = arg_str(args, "sql").unwrap_or_default();
            let connection = Connection(arg_str(args, "connection"));
            let named = store.answer(connection, Reads::NamedTables, |state, strict| {
                validate_sql::answer_named(state, sql, strict)
            })?;
            let report = match named {
                Some(report) => report,
                None => store.answer(connection, Reads::EveryFile, |state, _| validate_sql::answer(state, sql))?,
            };
            Ok(match arg_str(args, "format") {
                Some("json") => Reply::Dict(render::dict(&report)),
                Some("yaml") => Reply::Text(render::yaml(&report)),
                _ => Reply::Text(render::markdown(&report)),
            })
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use compat::value::Value;

    use crate::store::Store;

    /// A copy of the library fixture project served by a store without a change feed, so
    /// only a call's own checks can see an edit.
    fn library_store() -> (tempfile::TempDir, tempfile::TempDir, Store) {
        let project = tempfile::tempdir().unwrap();
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/library");
        crate::store::snapshot::tests::copy_dir(&fixture, project.path());
        let config = crate::config::load_at(&project.path().display().to_string()).unwrap();
        let served = crate::config::Served::resolve(&config, None).unwrap();
        let index = tempfile::tempdir().unwrap();
        let store = Store::open_unwatched(served, index.path()).unwrap();
        (project, index, store)
    }

    /// The findings of the handler's answer to `sql`: (kind, text, suggestions).
    fn validate(store: &Store, sql: &str) -> Vec<(String, String, Vec<String>)> {
        let args = Value::map(vec![
            (Value::Str("sql".into()), Value::Str(sql.into())),
            (Value::Str("format".into()), Value::Str("json".into())),
        ]);
        let super::Reply::Dict(reply) = (super::tool().handler)(store, &args).unwrap() else {
            panic!("json answers a dict");
        };
        let reply: serde_json::Value =
            serde_json::from_str(&compat::py::json_indent2(&reply)).unwrap();
        reply["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let text = |k: &str| f[k].as_str().unwrap().to_string();
                let suggestions = f["suggestions"].as_array().unwrap();
                let suggestions = suggestions.iter().map(|s| s.as_str().unwrap().to_string());
                (text("kind"), text("text"), suggestions.collect())
            })
            .collect()
    }

    /// The connection's published snapshot.
    fn current(store: &Store) -> Arc<crate::store::Snapshot> {
        let manifest = crate::store::Reads::Manifest;
        store
            .fresh(crate::store::Connection(None), manifest)
            .unwrap()
    }

    fn kinds(store: &Store, sql: &str) -> Vec<String> {
        validate(store, sql).into_iter().map(|f| f.0).collect()
    }

    #[test]
    fn a_check_reads_the_files_of_the_tables_it_names_as_they_are_now_and_sweeps_none() {
        let (project, _index, store) = library_store();
        let table = |t: &str| project.path().join("prints/library/stacks").join(t);
        let authors = "SELECT author_key FROM stacks.catalog.authors";
        assert_eq!(kinds(&store, authors), ["unknown_column"]);
        // In place, with no feed to tell of it: the next check reads the named table again.
        let stats = table("catalog/authors/statistics.yaml");
        let text = std::fs::read_to_string(&stats).unwrap();
        assert!(text.contains("\ncolumns:\n  author_id:\n"));
        let renamed = text.replace("\ncolumns:\n  author_id:\n", "\ncolumns:\n  author_key:\n");
        std::fs::write(&stats, renamed).unwrap();
        assert_eq!(kinds(&store, authors), Vec::<String>::new());
        // A file of a table the SQL does not name is not read: the snapshot stays as it was.
        let before = current(&store);
        let other = table("members/patrons/statistics.yaml");
        let text = std::fs::read_to_string(&other).unwrap();
        assert!(text.contains("\ncolumns:\n  patron_id:\n"));
        let added = text.replace("\ncolumns:\n  patron_id:\n", "\ncolumns:\n  patron_key:\n");
        std::fs::write(&other, added).unwrap();
        let loans = "SELECT l.loan_id FROM lending.loans l";
        assert_eq!(kinds(&store, loans), Vec::<String>::new());
        assert!(Arc::ptr_eq(&before, &current(&store)));
        assert_eq!(store.whole_sweeps_made(), 0, "no check swept every file");
        // Naming it reads it.
        let patrons = "SELECT patron_key FROM members.patrons";
        assert_eq!(kinds(&store, patrons), Vec::<String>::new());
        assert!(!Arc::ptr_eq(&before, &current(&store)));
        assert_eq!(store.whole_sweeps_made(), 0);
    }

    #[test]
    fn a_check_that_plans_a_join_path_sweeps_every_file_first() {
        let (_project, _index, store) = library_store();
        let known =
            "SELECT 1 FROM lending.loans l JOIN members.patrons p ON p.patron_id = l.patron_id";
        assert_eq!(kinds(&store, known), Vec::<String>::new());
        assert_eq!(store.whole_sweeps_made(), 0);
        // No edge joins fines to authors: the path through loans, copies and books is
        // planned over every table's edges, so every file is checked first.
        let unplanned =
            "SELECT 1 FROM lending.fines f JOIN catalog.authors a ON a.author_id = f.fine_id";
        let found = validate(&store, unplanned);
        let planned = found
            .iter()
            .find(|f| f.0 == "unknown_join")
            .map(|f| f.2.clone())
            .unwrap_or_default();
        assert!(planned.iter().any(|s| s.starts_with("JOIN ")), "{found:?}");
        assert_eq!(store.whole_sweeps_made(), 1);
    }
}
