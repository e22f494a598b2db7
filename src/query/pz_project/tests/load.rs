//! The loader's rules: project.yml, connections.yml, pipelines and their sidecars, and
//! the path guard, each refusal with pz's code.

use super::*;

/// A select over crm.orders, which every load test's project can carry.
const SELECT: &str = "select id from {{ source('crm', 'orders') }}";

#[test]
fn a_project_without_project_yml_is_pz0101_and_every_tool_fails_alike() {
    let mut files = ProjectFiles::new("/work/project");
    files.insert("connections.yml", Arc::<[u8]>::from(&b"{}"[..]), 1);
    let parsed = parse_project(&files);
    let env = Env::new();
    let compiled = super::super::compile_answer(&parsed, &env);
    let e = fails_with(&compiled, "PZ0101", "project.yml is missing");
    assert!(
        e.next_step.unwrap().contains("pz_init_project"),
        "the MCP hint"
    );
    let overview = super::super::project_overview(&parsed, &env);
    assert_eq!(overview.errors, compiled.errors);
    assert!(!overview.ok());
}

#[test]
fn project_yml_names_each_missing_field_and_unknown_key_as_pz0101() {
    let answer = compile(&[("project.yml", "name: p\ntags: [x]\n")]);
    fails_with(&answer, "PZ0101", "missing required field 'version'");
    assert!(answer
        .errors
        .iter()
        .any(|e| e.code == "PZ0101" && e.message == "project.yml: unknown key 'tags'."));
}

#[test]
fn yaml_that_does_not_parse_is_pz0101_naming_the_file() {
    let e = fails_with(
        &compile(&[("connections.yml", "crm: [unclosed\n")]),
        "PZ0101",
        "",
    );
    assert_eq!(e.file.as_deref(), Some("connections.yml"));
}

#[test]
fn vars_that_are_not_a_mapping_are_pz0102() {
    fails_with(
        &compile(&[("project.yml", "name: p\nversion: 1\nvars: [a, b]\n")]),
        "PZ0102",
        "'vars' must be a mapping",
    );
}

#[test]
fn an_undeclared_variable_in_connections_yml_is_pz0103_with_the_mcp_hint() {
    let connections = "crm:\n  connector: postgres\n  host: ${PG_HOST}\n";
    let answer = compile(&[("connections.yml", connections)]);
    let e = fails_with(&answer, "PZ0103", "'PG_HOST'");
    assert!(e.next_step.unwrap().contains("restart the pz MCP server"));
    // Set in the environment, it loads.
    let parsed = project(&[("connections.yml", connections)]);
    let answer = super::super::compile_answer(&parsed, &env(&[("PG_HOST", "db")]));
    assert!(
        !answer.errors.iter().any(|e| e.code == "PZ0103"),
        "{:?}",
        answer.errors
    );
}

#[test]
fn two_pipelines_of_one_name_are_pz0110() {
    let answer = compile(&[("pipelines/a.sql", SELECT), ("pipelines/sub/a.sql", SELECT)]);
    fails_with(&answer, "PZ0110", "Duplicate pipeline name 'a'");
}

#[test]
fn a_sidecar_for_no_pipeline_is_pz0111() {
    let answer = compile(&[
        ("pipelines/a.sql", SELECT),
        ("pipelines/configs/ghost.yml", "pipeline: ghost\n"),
    ]);
    let e = fails_with(&answer, "PZ0111", "unknown pipeline 'ghost'");
    assert_eq!(e.file.as_deref(), Some("pipelines/configs/ghost.yml"));
}

#[test]
fn a_check_entry_that_is_not_a_one_key_mapping_is_pz0113() {
    let answer = compile(&[
        ("pipelines/a.sql", SELECT),
        (
            "pipelines/configs/a.yml",
            "pipeline: a\nchecks:\n  - not_null: [id]\n    unique: [id]\n",
        ),
    ]);
    fails_with(&answer, "PZ0113", "one check per list item");
}

#[test]
fn an_engine_setting_of_the_wrong_type_is_pz0120() {
    fails_with(
        &compile(&[(
            "project.yml",
            "name: p\nversion: 1\nengine:\n  threads: banana\n",
        )]),
        "PZ0120",
        "engine.threads must be an integer (got 'banana')",
    );
}

#[test]
fn a_connection_retry_that_is_not_a_mapping_is_pz0121() {
    let connections = "crm:\n  connector: localfiles\n  root: data\n  retry: 5\n";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0121",
        "retry",
    );
}

#[test]
fn a_max_concurrency_below_one_is_pz0122() {
    let connections = "crm:\n  connector: localfiles\n  root: data\n  max_concurrency: 0\n";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0122",
        "'max_concurrency' must be an integer >= 1 (got '0')",
    );
}

#[test]
fn a_retention_that_is_neither_off_nor_a_mapping_is_pz0123() {
    fails_with(
        &compile(&[("project.yml", "name: p\nversion: 1\nretention: forever\n")]),
        "PZ0123",
        "got 'forever'",
    );
}

#[test]
fn an_unknown_state_backend_is_pz0124() {
    fails_with(
        &compile(&[(
            "project.yml",
            "name: p\nversion: 1\nstate:\n  backend: redis\n",
        )]),
        "PZ0124",
        "unknown state backend 'redis'",
    );
}

#[test]
fn a_sqlserver_state_backend_without_credentials_is_pz0125() {
    let parsed = project(&[]);
    let answer = super::super::compile_answer(&parsed, &env(&[("PZ_STATE_BACKEND", "sqlserver")]));
    fails_with(
        &answer,
        "PZ0125",
        "state backend 'sqlserver' has no credentials",
    );
}

#[test]
fn an_unknown_on_source_drift_is_pz0126() {
    fails_with(
        &compile(&[(
            "project.yml",
            "name: p\nversion: 1\non_source_drift: loud\n",
        )]),
        "PZ0126",
        "(got 'loud')",
    );
}

#[test]
fn a_variable_under_entities_is_a_pz0133_warning_not_an_error() {
    let connections = "\
crm:
  connector: localfiles
  root: data
  entities:
    orders:
      read:
        path: orders.csv
        token: ${TOKEN}
";
    let answer = compile(&[
        ("connections.yml", connections),
        ("pipelines/a.sql", SELECT),
    ]);
    warns_with(&answer, "PZ0133", "never interpolated");
}

#[test]
fn a_rate_limit_on_an_entity_is_pz0318() {
    let connections = "\
crm:
  connector: localfiles
  root: data
  entities:
    orders:
      read:
        path: orders.csv
        rate_limit:
          requests_per_minute: 60
";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0318",
        "'rate_limit' is instance-level",
    );
}

#[test]
fn an_entity_incremental_block_is_pz0332() {
    let connections = "\
crm:
  connector: localfiles
  root: data
  entities:
    orders:
      read:
        path: orders.csv
        incremental:
          cursor: updated_at
";
    let e = fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0332",
        "replaced by the unified 'sync:' block",
    );
    assert!(e.next_step.unwrap().contains("cursor: updated_at"));
}

#[test]
fn an_unknown_sync_mode_is_pz0334() {
    let connections = "\
crm:
  connector: localfiles
  root: data
  entities:
    orders:
      read:
        path: orders.csv
        sync:
          mode: sometimes
";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0334",
        "sometimes",
    );
}

#[test]
fn an_entity_name_with_whitespace_is_pz0344() {
    let connections = "\
crm:
  connector: localfiles
  root: data
  entities:
    \"bad name\":
      read:
        path: x.csv
";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0344",
        "entity 'bad name': name contains whitespace",
    );
}

#[test]
fn a_leftover_sources_file_is_pz0346_with_its_connections_yml_block() {
    let answer = compile(&[(
        "sources/crm.yml",
        "source: crm\nconnector: localfiles\nroot: data\n",
    )]);
    let e = fails_with(&answer, "PZ0346", "`sources/` is retired");
    assert_eq!(e.file.as_deref(), Some("sources/crm.yml"));
    assert!(e.next_step.unwrap().contains("connections.yml"));
}

#[test]
fn an_outputs_block_is_pz0347_in_either_file() {
    fails_with(
        &compile(&[("project.yml", "name: p\nversion: 1\noutputs:\n  x: 1\n")]),
        "PZ0347",
        "project.yml: the 'outputs' block is retired",
    );
    let connections = format!("{CONNECTIONS}outputs:\n  a: 1\n");
    fails_with(
        &compile(&[("connections.yml", &connections)]),
        "PZ0347",
        "connections.yml: the 'outputs' block is retired",
    );
}

#[test]
fn an_entity_table_key_is_pz0348() {
    let connections = "\
crm:
  connector: postgres
  entities:
    orders:
      read:
        table: orders
";
    fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0348",
        "'schema'/'table' are retired",
    );
}

#[test]
fn a_feeds_field_is_pz0352() {
    fails_with(
        &compile(&[("project.yml", "name: p\nversion: 1\nfeeds: [a]\n")]),
        "PZ0352",
        "field 'feeds' was removed",
    );
}

#[test]
fn a_path_outside_the_project_is_pz0606() {
    let connections = "crm:\n  connector: localfiles\n  root: ../../elsewhere\n";
    let e = fails_with(
        &compile(&[("connections.yml", connections)]),
        "PZ0606",
        "resolves outside the project directory",
    );
    assert_eq!(e.file.as_deref(), Some("connections.yml"));
}
