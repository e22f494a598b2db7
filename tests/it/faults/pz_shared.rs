//! Two `printdex pz serve` and one `printdex serve` on overlapping paths: one index
//! directory for all three, and one directory that is both the pz project and the dbprint
//! project holding the print. Files of both are edited while the three serve (their
//! watchers writing the shared mirror under its one writer lock); at every checkpoint each
//! server's answers equal a fresh index's, and so do those of servers started afterwards
//! on what the three left in the shared index.

use std::path::Path;

use serde_json::{json, Value};

use super::pz::{fresh_pz, initialize, pz_answers, start_pz};
use crate::util::write_atomically;
use crate::util::{copy_dir, fixtures, Server};

const TABLE: &str = "stacks.catalog.series";
const STATS: &str = "prints/library/stacks/catalog/series/statistics.yaml";

/// The library print's project with the sample pz project laid over the same directory.
fn overlapping_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("library"), dir.path());
    copy_dir(&fixtures().join("pz-projects/sample/project"), dir.path());
    assert!(dir.path().join(".dbprint.yaml").is_file() && dir.path().join("project.yml").is_file());
    dir
}

fn answer(server: &mut Server, tool: &str, arguments: Value) -> String {
    let (text, is_error) = server.call(tool, arguments);
    assert!(!is_error, "{tool} failed: {text}");
    text
}

/// The dbprint answers compared: list_tables (without the ages, which move with the
/// clock), search_columns over every table, resolve_value over the edited table.
fn dbprint_answers(server: &mut Server) -> Vec<String> {
    let mut listed: Value =
        serde_json::from_str(&answer(server, "list_tables", json!({"detail": true}))).unwrap();
    for table in listed["tables"].as_array_mut().into_iter().flatten() {
        table.as_object_mut().unwrap().remove("age_days");
    }
    vec![
        serde_json::to_string_pretty(&listed).unwrap(),
        answer(server, "search_columns", json!({"text": "id"})),
        answer(
            server,
            "resolve_value",
            json!({"table": TABLE, "column": "series_id", "text": "1040"}),
        ),
    ]
}

fn fresh_dbprint(project: &Path) -> Vec<String> {
    let mut server = Server::start(project, &[]);
    dbprint_answers(&mut server)
}

/// Round `round`'s edit of the pz project.
fn edit_project(project: &Path, round: usize) {
    let pipeline = project.join("pipelines/order_count.sql");
    match round {
        1 => write_atomically(
            &pipeline,
            "select count(*) as n from {{ ref('stg_orders') }}\n",
        ),
        // Rewritten in place.
        2 => std::fs::write(
            &pipeline,
            "select count(*) as n, 2 as m from {{ ref('order_totals') }}\n",
        )
        .unwrap(),
        3 => {
            std::fs::remove_file(&pipeline).unwrap();
            let yml = project.join("project.yml");
            let text = std::fs::read_to_string(&yml).unwrap();
            write_atomically(&yml, &format!("{text}\n# edited in round {round}\n"));
        }
        _ => {}
    }
}

/// Round `round`'s edit of the print: a row count and a listed value, put back, changed
/// again.
fn edit_print(project: &Path, round: usize, original: &str) {
    let stats = project.join(STATS);
    match round {
        1 => {
            let edited = original
                .replace("\nrow_count: 40\n", "\nrow_count: 1040\n")
                .replacen("\n    - value: 1\n", "\n    - value: 1040\n", 1);
            assert_ne!(edited, original);
            write_atomically(&stats, &edited);
        }
        2 => write_atomically(&stats, original),
        3 => write_atomically(
            &stats,
            &original.replace("\nrow_count: 40\n", "\nrow_count: 2040\n"),
        ),
        _ => {}
    }
}

#[test]
fn two_pz_servers_and_a_dbprint_server_on_one_index_answer_as_a_fresh_index() {
    let project = overlapping_project();
    let root = project.path();
    let shared = tempfile::tempdir().unwrap();
    let index = shared.path();
    let original_stats = std::fs::read_to_string(root.join(STATS)).unwrap();
    let mut dbprint = Server::start_in(root, &[], Some(index));
    let mut pz: Vec<Server> = (0..2).map(|_| start_pz(root, index, |_| {})).collect();
    for server in &mut pz {
        initialize(server);
    }
    for round in 0..4 {
        // Each edit lands while the servers are answering: one asked between them.
        edit_project(root, round);
        pz_answers(&mut pz[0]);
        edit_print(root, round, &original_stats);
        dbprint_answers(&mut dbprint);
        pz_answers(&mut pz[1]);
        let expected_pz = fresh_pz(root);
        let expected_dbprint = fresh_dbprint(root);
        for (n, server) in pz.iter_mut().enumerate() {
            assert_eq!(
                pz_answers(server),
                expected_pz,
                "pz server {n}, round {round}"
            );
        }
        assert_eq!(
            dbprint_answers(&mut dbprint),
            expected_dbprint,
            "dbprint server, round {round}"
        );
        if round == 1 {
            assert!(expected_pz[0].contains("order_count"), "{}", expected_pz[0]);
            assert!(
                expected_dbprint[2].contains("1040"),
                "{}",
                expected_dbprint[2]
            );
        }
    }
    let (expected_pz, expected_dbprint) = (fresh_pz(root), fresh_dbprint(root));
    for server in pz {
        assert!(server.close().success());
    }
    assert!(dbprint.close().success());
    // What the three left in the shared index serves new servers as a fresh index would.
    let mut again = start_pz(root, index, |_| {});
    initialize(&mut again);
    assert_eq!(pz_answers(&mut again), expected_pz);
    let mut dbprint = Server::start_in(root, &[], Some(index));
    assert_eq!(dbprint_answers(&mut dbprint), expected_dbprint);
}
