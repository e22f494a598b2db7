//! The DAG compiler's stages: references resolved, sinks bound, ephemeral rules, the
//! write-option and sync checks, the delivery matrix, cycles and dead leaves.

use super::*;

const READ_ORDERS: &str = "select id from {{ source('crm', 'orders') }}";

/// connections.yml with `raw.orders` read as `read` (indented under `read:`) and `lake`
/// writing `out` as `write` (indented under `write:`), either left out when empty.
fn connections(read: &str, write: &str) -> String {
    let mut text = String::from(
        "raw:\n  connector: localfiles\n  root: data\n  entities:\n    orders:\n      read:\n        path: orders.csv\n",
    );
    for line in read.lines() {
        text.push_str(&format!("        {line}\n"));
    }
    text.push_str("lake:\n  connector: localfiles\n  root: out\n");
    if !write.is_empty() {
        text.push_str("  entities:\n    out:\n      write:\n");
        for line in write.lines() {
            text.push_str(&format!("        {line}\n"));
        }
    }
    text
}

/// One pipeline loading raw.orders into lake.out with `sink_args` at the call site.
fn load_into_out(conns: &str, sink_args: &str) -> PzAnswer {
    let sql = format!(
        "INSERT INTO {{{{ sink('lake', 'out'{sink_args}) }}}} select * from {{{{ source('raw', 'orders') }}}}"
    );
    compile(&[("connections.yml", conns), ("pipelines/load.sql", &sql)])
}

#[test]
fn a_ref_to_no_pipeline_and_a_source_on_no_connection_are_pz0201() {
    let answer = compile(&[
        ("pipelines/a.sql", "select * from {{ ref('ghost') }}"),
        (
            "pipelines/b.sql",
            "select * from {{ source('nowhere', 'x') }}",
        ),
    ]);
    fails_with(
        &answer,
        "PZ0201",
        "calls ref('ghost') but no pipeline named 'ghost' exists",
    );
    fails_with(&answer, "PZ0201", "no connection named 'nowhere' exists");
}

#[test]
fn a_sink_on_no_connection_is_pz0201() {
    fails_with(
        &compile(&[(
            "pipelines/a.sql",
            "INSERT INTO {{ sink('nowhere', 'x') }} select 1",
        )]),
        "PZ0201",
        "no sink named 'nowhere' exists",
    );
}

#[test]
fn a_reference_cycle_is_pz0202_naming_its_path() {
    let e = fails_with(
        &compile(&[
            ("pipelines/a.sql", "select * from {{ ref('b') }}"),
            ("pipelines/b.sql", "select * from {{ ref('c') }}"),
            ("pipelines/c.sql", "select * from {{ ref('a') }}"),
        ]),
        "PZ0202",
        "dependency cycle: a -> b -> c -> a",
    );
    assert_eq!(e.file, None);
}

fn ephemeral(name: &str) -> (String, String) {
    (
        format!("pipelines/configs/{name}.yml"),
        format!("pipeline: {name}\nmaterialization: ephemeral\n"),
    )
}

#[test]
fn an_ephemeral_pipeline_referencing_another_is_pz0204() {
    let (a_cfg, a_yml) = ephemeral("a");
    let (b_cfg, b_yml) = ephemeral("b");
    let answer = compile(&[
        ("pipelines/a.sql", READ_ORDERS),
        ("pipelines/b.sql", "select * from {{ ref('a') }}"),
        ("pipelines/c.sql", "select * from {{ ref('b') }}"),
        (&a_cfg, &a_yml),
        (&b_cfg, &b_yml),
    ]);
    fails_with(
        &answer,
        "PZ0204",
        "ephemeral pipeline 'b' references another ephemeral pipeline 'a'",
    );
}

#[test]
fn an_ephemeral_pipeline_with_checks_is_pz0205() {
    let answer = compile(&[
        ("pipelines/a.sql", READ_ORDERS),
        ("pipelines/b.sql", "select * from {{ ref('a') }}"),
        (
            "pipelines/configs/a.yml",
            "pipeline: a\nmaterialization: ephemeral\nchecks:\n  - not_null: [id]\n",
        ),
    ]);
    fails_with(
        &answer,
        "PZ0205",
        "pipeline 'a' is ephemeral but declares 1 check(s)",
    );
}

#[test]
fn one_sink_output_claimed_by_two_pipelines_is_pz0206() {
    let conns = connections("", "");
    let sql = "INSERT INTO {{ sink('lake', 'out') }} select 1";
    let answer = compile(&[
        ("connections.yml", &conns),
        ("pipelines/a.sql", sql),
        ("pipelines/b.sql", sql),
    ]);
    fails_with(
        &answer,
        "PZ0206",
        "sink 'lake.out' is claimed by multiple pipelines' sink() calls: a, b",
    );
}

#[test]
fn a_sink_that_is_not_the_leading_insert_or_is_bound_twice_or_sits_on_an_ephemeral_is_pz0208() {
    let conns = connections("", "");
    let (cfg, yml) = ephemeral("eph");
    let answer = compile(&[
        ("connections.yml", &conns),
        (
            "pipelines/late.sql",
            "select 1\n-- writes\nINSERT INTO {{ sink('lake', 'late') }} select 1",
        ),
        (
            "pipelines/twice.sql",
            "INSERT INTO [ {{ sink('lake', 'a') }}, {{ sink('lake', 'a') }} ] select 3",
        ),
        (
            "pipelines/eph.sql",
            "INSERT INTO {{ sink('lake', 'eph') }} select 2",
        ),
        (&cfg, &yml),
    ]);
    fails_with(
        &answer,
        "PZ0208",
        "not as the pipeline's leading INSERT INTO",
    );
    fails_with(&answer, "PZ0208", "binds sink('lake', 'a') more than once");
    fails_with(
        &answer,
        "PZ0208",
        "pipeline 'eph' is ephemeral but calls sink('lake', 'eph')",
    );
}

#[test]
fn a_sink_option_pz_does_not_know_is_a_pz0208_warning_naming_the_near_miss() {
    let answer = load_into_out(
        &connections("", ""),
        ", format: 'csv', strategyy: 'replace'",
    );
    warns_with(&answer, "PZ0208", "Did you mean 'strategy'?");
}

#[test]
fn merge_without_keys_is_pz0209_and_keys_without_merge_is_pz0211() {
    fails_with(
        &load_into_out(&connections("", "strategy: merge"), ""),
        "PZ0209",
        "sink 'lake.out' has strategy: 'merge' but declares no keys",
    );
    fails_with(
        &load_into_out(&connections("", "strategy: replace\nkeys: [id]"), ""),
        "PZ0211",
        "sink 'lake.out' declares keys: [id] but strategy is 'replace'",
    );
}

#[test]
fn an_incremental_cursor_missing_from_the_columns_contract_is_pz0212() {
    let read = "sync:\n  mode: incremental\n  cursor: updated_at\ncolumns:\n  id: bigint";
    fails_with(
        &load_into_out(&connections(read, "strategy: merge\nkeys: [id]"), ""),
        "PZ0212",
        "declares incremental cursor 'updated_at' but it is not in the dataset's columns",
    );
}

#[test]
fn append_fed_by_an_incremental_source_is_pz0214_and_replace_is_pz0335() {
    let read = "sync:\n  mode: incremental\n  cursor: updated_at\ncolumns:\n  id: bigint\n  updated_at: timestamp";
    fails_with(
        &load_into_out(&connections(read, ""), ", strategy: 'append'"),
        "PZ0214",
        "has write.strategy: append and is fed by incremental dataset 'raw.orders'",
    );
    fails_with(
        &load_into_out(&connections(read, ""), ", strategy: 'replace'"),
        "PZ0335",
        "write.strategy 'replace' fed by incremental dataset 'raw.orders'",
    );
}

#[test]
fn a_files_per_partition_that_is_not_positive_is_pz0222() {
    fails_with(
        &load_into_out(&connections("files_per_partition: 0", ""), ""),
        "PZ0222",
        "files_per_partition '0' must be a positive integer",
    );
}

#[test]
fn a_result_nothing_consumes_is_a_pz0223_warning() {
    let answer = compile(&[("pipelines/dead.sql", READ_ORDERS)]);
    warns_with(
        &answer,
        "PZ0223",
        "pipeline 'dead' computes a result nothing consumes",
    );
}

#[test]
fn max_pages_on_a_descending_incremental_feed_is_pz0229() {
    let read = "sync:\n  mode: incremental\n  cursor: ts\nmax_pages: 5\ncursor_order: desc";
    fails_with(
        &load_into_out(&connections(read, "strategy: merge\nkeys: [id]"), ""),
        "PZ0229",
        "'max_pages' on a descending incremental feed",
    );
}

#[test]
fn merge_fed_by_cdc_without_on_delete_is_pz0336() {
    let read = "sync:\n  mode: cdc";
    fails_with(
        &load_into_out(&connections(read, "strategy: merge\nkeys: [id]"), ""),
        "PZ0336",
        "has not declared write.on_delete",
    );
}

#[test]
fn on_delete_without_a_cdc_input_is_pz0337() {
    fails_with(
        &load_into_out(
            &connections("", "strategy: merge\nkeys: [id]\non_delete: delete"),
            "",
        ),
        "PZ0337",
        "write.on_delete 'delete' is declared but no upstream dataset declares sync",
    );
}

#[test]
fn options_declared_in_connections_yml_and_at_the_call_site_are_pz0341() {
    let conns = connections("", "strategy: replace");
    fails_with(
        &load_into_out(&conns, ", strategy: 'append'"),
        "PZ0341",
        "sink 'lake.out' declares write options in connections.yml AND at its sink() call site",
    );
}

#[test]
fn one_source_read_by_two_pipelines_is_pz0349() {
    let conns = connections("", "");
    let read = "select * from {{ source('raw', 'orders') }}";
    let answer = compile(&[
        ("connections.yml", &conns),
        ("pipelines/a.sql", read),
        ("pipelines/b.sql", read),
    ]);
    fails_with(
        &answer,
        "PZ0349",
        "source 'raw.orders' is read by 2 pipelines: a, b",
    );
}

#[test]
fn two_datasets_that_stage_under_one_name_are_pz0110() {
    let conns = "\
raw:
  connector: localfiles
  root: data
  entities:
    a.b:
      read:
        path: x.csv
    a_b:
      read:
        path: y.csv
";
    let answer = compile(&[
        ("connections.yml", conns),
        (
            "pipelines/x.sql",
            "select * from {{ source('raw', 'a.b') }}",
        ),
        (
            "pipelines/y.sql",
            "select * from {{ source('raw', 'a_b') }}",
        ),
    ]);
    fails_with(&answer, "PZ0110", "cannot be told apart in staging");
}
