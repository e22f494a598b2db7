//! The server's lifecycle and robustness over stdio: handshake, EOF, garbage input,
//! files changing underneath, warm restarts.

use serde_json::{json, Value};

use crate::util::{fixtures, Server};

#[test]
fn handshake_names_dbprint_with_the_reference_capabilities() {
    let server = Server::start(&fixtures().join("library"), &[]);
    let result = &server.init["result"];
    assert_eq!(result["serverInfo"]["name"], json!("dbprint"));
    assert_eq!(result["protocolVersion"], json!("2025-11-25"));
    assert_eq!(
        result["capabilities"],
        json!({"experimental": {}, "resources": {"subscribe": false, "listChanged": false}, "tools": {"listChanged": false}})
    );
    let instructions = result["instructions"].as_str().unwrap();
    assert!(instructions.chars().count() < 2048);
    assert!(instructions.contains("list_tables"));
}

#[test]
fn conformance_md_lists_what_the_server_says_about_itself() {
    let server = Server::start(&fixtures().join("library"), &[]);
    let version = server.init["result"]["serverInfo"]["version"]
        .as_str()
        .unwrap()
        .to_string();
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance.md"),
    )
    .unwrap();
    let row = |place: &str| {
        doc.lines()
            .find(|l| l.starts_with("| ") && l.contains(place))
            .unwrap_or_else(|| panic!("docs/conformance.md has no row for {place}"))
    };
    assert!(
        row("`serverInfo.version`").contains(&format!("printdex's version (`{version}`)")),
        "the serverInfo.version row does not name {version}"
    );
    row("`instructions`");
    let descriptions = row("each tool's `description`");
    assert!(
        descriptions.contains("each parameter's `description`")
            && descriptions.contains("each resource's `description`")
    );
    row("get_table_context `## Terms`");
}

#[test]
fn eof_on_stdin_exits_zero() {
    let server = Server::start(&fixtures().join("library"), &[]);
    assert!(server.close().success());
}

#[test]
fn garbage_lines_and_unknown_methods_do_not_stop_the_server() {
    let mut server = Server::start(&fixtures().join("library"), &[]);
    server.send_line("this is not json");
    server.send_line("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\":");
    let r = server.request("nosuch/method", json!({}));
    assert_eq!(
        r["error"],
        json!({"code": -32601, "message": "Method not found", "data": "nosuch/method"})
    );
    let r = server.request("tools/call", json!({"arguments": {}}));
    assert_eq!(
        r["error"],
        json!({"code": -32602, "message": "Invalid request parameters", "data": ""})
    );
    let (text, is_error) = server.call("drop_table", json!({}));
    assert!(is_error);
    assert!(
        text.starts_with("unknown tool 'drop_table'. Available: ["),
        "{text}"
    );
    let (_, is_error) = server.call("list_tables", json!({}));
    assert!(!is_error);
}

#[test]
fn a_manifest_broken_mid_run_is_reported_then_served_again_once_fixed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let root = dir.path().join("prints/c");
    std::fs::create_dir_all(&root).unwrap();
    let good = "format_version: 1\ntables:\n  a.b:\n    type: table\n";
    std::fs::write(root.join("manifest.yaml"), good).unwrap();
    let mut server = Server::start(dir.path(), &[]);
    assert_eq!(
        server.call("list_tables", json!({})).0,
        "{\n  \"tables\": [\n    \"a.b\"\n  ],\n  \"total\": 1\n}"
    );

    std::fs::write(root.join("manifest.yaml"), "tables: [\n").unwrap();
    let (text, is_error) = server.call("list_tables", json!({}));
    assert!(is_error);
    let path = root.join("manifest.yaml").canonicalize().unwrap();
    assert!(
        text.starts_with(&format!(
            "{}: YAML parse error: while parsing a flow",
            path.display()
        )),
        "{text}"
    );

    std::fs::write(
        root.join("manifest.yaml"),
        format!("{good}  a.c:\n    type: view\n"),
    )
    .unwrap();
    let (text, is_error) = server.call("list_tables", json!({}));
    assert!(!is_error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["total"],
        json!(2)
    );
}

#[test]
fn a_warm_restart_answers_from_the_same_index() {
    let index = tempfile::tempdir().unwrap();
    let project = fixtures().join("library");
    let mut first = Server::start_in(&project, &[], Some(index.path()));
    let before = first.call("get_manifest", json!({})).0;
    assert!(first.close().success());
    let mut second = Server::start_in(&project, &[], Some(index.path()));
    assert_eq!(second.call("get_manifest", json!({})).0, before);
}

/// A table directory turned into a link out of the print while no server ran: the next
/// start must not trust what the last walk of the directories found (the walk memo), and
/// answers as a fresh index does.
#[cfg(unix)]
#[test]
fn a_link_out_of_the_print_made_while_down_is_seen_at_the_next_start() {
    let project = tempfile::tempdir().unwrap();
    crate::util::copy_dir(&fixtures().join("library"), project.path());
    // Directories settle (a walk keeps what it saw only then).
    std::thread::sleep(std::time::Duration::from_millis(200));
    let index = tempfile::tempdir().unwrap();
    let tables = |server: &mut Server| server.call("list_tables", json!({})).0;
    let mut first = Server::start_in(project.path(), &[], Some(index.path()));
    let listed = tables(&mut first);
    assert!(listed.contains("stacks.catalog.books"), "{listed}");
    assert!(first.close().success());
    // Restarted with nothing changed: the same answer.
    let mut again = Server::start_in(project.path(), &[], Some(index.path()));
    assert_eq!(tables(&mut again), listed);
    assert!(again.close().success());

    let outside = tempfile::tempdir().unwrap();
    let books = project.path().join("prints/library/stacks/catalog/books");
    std::fs::rename(&books, outside.path().join("books")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("books"), &books).unwrap();
    let mut warm = Server::start_in(project.path(), &[], Some(index.path()));
    let mut fresh = Server::start(project.path(), &[]);
    let now = tables(&mut warm);
    assert!(!now.contains("stacks.catalog.books"), "{now}");
    assert_eq!(now, tables(&mut fresh));
    let context = json!({"table": "stacks.catalog.books"});
    assert_eq!(
        warm.call("get_table_context", context.clone()),
        fresh.call("get_table_context", context)
    );
}

#[test]
fn sigterm_and_sigint_exit_zero() {
    for signal in ["-TERM", "-INT"] {
        let mut server = Server::start(&fixtures().join("library"), &[]);
        let (_, is_error) = server.call("list_tables", json!({}));
        assert!(!is_error);
        server.signal(signal);
        assert_eq!(server.wait().code(), Some(0), "{signal}");
    }
}

#[test]
fn two_servers_share_one_index_and_both_follow_changes() {
    let dir = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let root = dir.path().join("prints/c");
    std::fs::create_dir_all(&root).unwrap();
    let manifest = |n: usize| {
        let mut t = String::from("format_version: 1\ntables:\n");
        for i in 0..n {
            t.push_str(&format!("  s.t{i}:\n    type: table\n"));
        }
        t
    };
    std::fs::write(root.join("manifest.yaml"), manifest(3)).unwrap();
    let mut a = Server::start_in(dir.path(), &[], Some(index.path()));
    let mut b = Server::start_in(dir.path(), &[], Some(index.path()));
    let total = |s: &mut Server| {
        serde_json::from_str::<Value>(&s.call("list_tables", json!({})).0).unwrap()["total"].clone()
    };
    assert_eq!((total(&mut a), total(&mut b)), (json!(3), json!(3)));
    std::fs::write(root.join("manifest.yaml"), manifest(5)).unwrap();
    assert_eq!((total(&mut a), total(&mut b)), (json!(5), json!(5)));
    // One of them dies; the other keeps serving from the shared index.
    drop(a);
    std::fs::write(root.join("manifest.yaml"), manifest(4)).unwrap();
    assert_eq!(total(&mut b), json!(4));
}

#[test]
fn one_startup_line_names_project_connections_tables_and_index_state() {
    let index = tempfile::tempdir().unwrap();
    let project = crate::util::fixtures().join("edge/multi-auto");
    let start = || {
        let mut command = std::process::Command::new(crate::util::bin());
        command
            .arg("serve")
            .arg("--project")
            .arg(&project)
            .arg("--index-dir")
            .arg(index.path())
            .arg("--reference-dir")
            .arg(crate::util::fixtures().join("reference-docs/dbprint"));
        let s = crate::util::session(command, &[]);
        assert!(s.status.success(), "{}", s.stderr);
        s.stderr
    };
    let line = |state: &str| {
        format!(
            "printdex: serving {} over stdio: north (2 tables), south (2 tables); index {state} at {}\n",
            project.display(),
            index.path().display()
        )
    };
    assert_eq!(start(), line("built"));
    assert_eq!(start(), line("warm"));
    // An index another version wrote is discarded and built again.
    std::fs::write(index.path().join("mirror.sqlite"), b"not this printdex's").unwrap();
    assert_eq!(start(), line("rebuilt"));
}
