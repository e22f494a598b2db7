//! A client set up for `dbprint serve` works unchanged: a `.mcp.json` written for dbprint
//! (every flag dbprint accepts, `--project` as a git address) runs as it stands once its
//! `command` names printdex, and the README's set-up command serves the fixture print.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::git_project::Remote;
use crate::util::{bin, session, tool_call, Session};

/// A Claude Code `.mcp.json` as a dbprint user writes it. `{ADDRESS}` stands for the git
/// address of the test's repository, the one thing the test fills in.
const DBPRINT_MCP_JSON: &str = r#"{
  "mcpServers": {
    "every-flag": {
      "command": "dbprint",
      "args": ["--debug", "serve", "--project", "{ADDRESS}", "--transport", "stdio", "--read-only", "library"]
    },
    "defaults": {
      "command": "dbprint",
      "args": ["serve", "--project", "{ADDRESS}"]
    },
    "joined-values-and-http-flags-left-in": {
      "command": "dbprint",
      "args": ["serve", "--project={ADDRESS}", "--transport=stdio", "--host", "127.0.0.1", "--port", "8765", "library"]
    }
  }
}"#;

/// The servers of a `.mcp.json`: (name, command, args).
pub(crate) fn servers(config: &str) -> Vec<(String, String, Vec<String>)> {
    let config: Value = serde_json::from_str(config).expect("the config is JSON");
    config["mcpServers"]
        .as_object()
        .expect("mcpServers")
        .iter()
        .map(|(name, server)| {
            let args = server["args"]
                .as_array()
                .expect("args")
                .iter()
                .map(|a| a.as_str().expect("string args").to_string())
                .collect();
            let command = server["command"].as_str().expect("command").to_string();
            (name.clone(), command, args)
        })
        .collect()
}

/// tools/list, list_tables and one get_table_context over `command`'s stdio.
fn library_session(command: Command) -> Session {
    session(
        command,
        &[
            ("tools/list", json!({})),
            tool_call("list_tables", json!({})),
            tool_call(
                "get_table_context",
                json!({"table": "stacks.catalog.series", "format": "json"}),
            ),
        ],
    )
}

/// The session answered as the library print answers.
fn assert_serves_the_library(name: &str, s: &Session) {
    assert!(s.status.success(), "{name}: {}", s.stderr);
    assert_eq!(
        s.responses[&0]["result"]["serverInfo"]["name"],
        json!("dbprint"),
        "{name}"
    );
    // The reference's seven, then printdex's own validate_sql, plan_joins and find.
    let tools = s.responses[&1]["result"]["tools"].as_array().unwrap().len();
    assert_eq!(tools, 10, "{name}");
    let (text, is_error) = s.call(2);
    assert!(
        !is_error && text.contains("\"total\": 11"),
        "{name}: {text}"
    );
    let (text, is_error) = s.call(3);
    let context: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"));
    assert!(!is_error, "{name}: {text}");
    assert_eq!(context["statistics"]["row_count"], json!(40), "{name}");
}

#[test]
fn a_dbprint_mcp_json_runs_unchanged_with_a_git_address() {
    let remote = Remote::new();
    let config = DBPRINT_MCP_JSON.replace("{ADDRESS}", &remote.address("main"));
    let servers = servers(&config);
    assert_eq!(servers.len(), 3);
    let home = tempfile::tempdir().unwrap();
    for (name, command, args) in servers {
        assert_eq!(command, "dbprint");
        // Only `command` changes; the arguments are the config's, as written.
        let mut printdex = Command::new(bin());
        printdex
            .args(&args)
            .env("XDG_CACHE_HOME", remote.cache())
            .env("HOME", home.path())
            .current_dir(home.path());
        let s = library_session(printdex);
        assert_serves_the_library(&name, &s);
        let startup = s
            .stderr
            .lines()
            .find(|l| l.starts_with("printdex: serving "))
            .unwrap_or_else(|| panic!("{name}: no startup line in {}", s.stderr));
        assert!(
            startup.starts_with(&format!(
                "printdex: serving {} (checked out at ",
                remote.address("main")
            )),
            "{name}: {startup}"
        );
        let warned = s
            .stderr
            .contains("warning: --port applies only to --transport http");
        assert_eq!(
            warned,
            args.iter().any(|a| a == "--port"),
            "{name}: {}",
            s.stderr
        );
    }
}

/// The README's first set-up command, `cargo run -- ARGS`, as the ARGS it runs the binary with.
fn readme_set_up_args(readme: &str) -> Vec<String> {
    let set_up = readme
        .split("## Set up")
        .nth(1)
        .expect("README has a Set up section");
    let line = set_up
        .lines()
        .find_map(|l| l.strip_prefix("cargo run -- "))
        .expect("the set-up block runs `cargo run -- ...`");
    let command = line.split('#').next().unwrap();
    command.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_readmes_set_up_command_serves_the_fixture_print() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let args = readme_set_up_args(&readme);
    assert_eq!(args[0], "serve", "{args:?}");
    // The other set-up command is `cargo test`: this very run.
    assert!(
        readme.contains("\ncargo test "),
        "README's set-up runs the tests"
    );
    let cache = tempfile::tempdir().unwrap();
    let mut printdex = Command::new(bin());
    printdex
        .args(&args)
        .env("XDG_CACHE_HOME", cache.path())
        .current_dir(root);
    let s = library_session(printdex);
    assert_serves_the_library("README", &s);
    assert!(
        s.stderr.contains("printdex: serving ")
            && s.stderr.contains("over stdio: library (11 tables)"),
        "{}",
        s.stderr
    );
}
