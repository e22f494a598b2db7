//! Template rendering: `source()`, `sink()`, `ref()`, `var()` and `env()` evaluated as
//! pz's renderer evaluates them, and each refused call argument with pz's code.

use super::*;
use crate::query::pz_project::Fidelity;

/// pz_compile over one pipeline `a.sql` holding `sql`.
fn compile_sql(sql: &str) -> PzAnswer {
    compile(&[("pipelines/a.sql", sql)])
}

/// pz_compile over `sink_call` as the leading INSERT of a pipeline reading crm.orders.
fn compile_sink(sink_call: &str) -> PzAnswer {
    compile_sql(&format!(
        "INSERT INTO {{{{ {sink_call} }}}}\nselect id from {{{{ source('crm', 'orders') }}}}"
    ))
}

#[test]
fn a_rendered_pipeline_compiles_with_its_source_and_sink_as_nodes() {
    let answer = compile_sink("sink('lake', 'ids', format: 'csv', strategy: 'replace')");
    assert!(answer.ok(), "{:?}", answer.errors);
    let text = answer.result.unwrap().to_text();
    for name in [
        r#""name":"src_crm__orders","kind":"SourceLoad""#,
        r#""name":"a","kind":"Pipeline""#,
        r#""name":"lake.ids","kind":"SinkWrite""#,
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
}

#[test]
fn a_var_declared_in_project_yml_is_rendered_and_an_unknown_one_is_pz0104() {
    let project_yml = "name: p\nversion: 1\nvars:\n  floor: 10\n";
    let known = compile(&[
        ("project.yml", project_yml),
        (
            "pipelines/a.sql",
            "select id from {{ source('crm', 'orders') }} where id > {{ var('floor') }}",
        ),
    ]);
    assert!(known.ok(), "{:?}", known.errors);
    let unknown = compile(&[
        ("project.yml", project_yml),
        (
            "pipelines/a.sql",
            "select id from {{ source('crm', 'orders') }} where id > {{ var('ceiling') }}",
        ),
    ]);
    let e = fails_with(&unknown, "PZ0104", "unknown var 'ceiling'");
    assert_eq!(e.file.as_deref(), Some("pipelines/a.sql"));
}

#[test]
fn a_var_holding_a_list_needs_pz_to_render_and_falls_back_to_pz0104() {
    let answer = compile(&[
        (
            "project.yml",
            "name: p\nversion: 1\nvars:\n  statuses: [a, b]\n",
        ),
        (
            "pipelines/a.sql",
            "select id from {{ source('crm', 'orders') }} where s in {{ var('statuses') }}",
        ),
    ]);
    fails_with(&answer, "PZ0104", "cannot render this template offline");
    assert!(
        matches!(answer.fidelity, Fidelity::NeedsPz(_)),
        "{:?}",
        answer.fidelity
    );
}

#[test]
fn env_of_an_unset_variable_in_a_template_is_pz0103() {
    let sql = "select id from {{ source('crm', 'orders') }} where r = '{{ env('REGION') }}'";
    fails_with(
        &compile_sql(sql),
        "PZ0103",
        "environment variable 'REGION' is not set",
    );
    let parsed = project(&[("pipelines/a.sql", sql)]);
    let set = super::super::compile_answer(&parsed, &env(&[("REGION", "eu")]));
    assert!(set.ok(), "{:?}", set.errors);
}

#[test]
fn a_source_argument_passed_twice_is_pz0201() {
    fails_with(
        &compile_sql("select * from {{ source('crm', 'orders', format: 'csv', format: 'csv') }}"),
        "PZ0201",
        "passes 'format' more than once",
    );
}

#[test]
fn a_source_columns_argument_that_is_not_a_mapping_is_pz0101() {
    fails_with(
        &compile_sql("select * from {{ source('crm', 'orders', columns: ['id']) }}"),
        "PZ0101",
        "'columns' must be a mapping of column to type",
    );
}

#[test]
fn retired_source_arguments_are_refused_with_their_own_codes() {
    for (argument, code) in [
        ("rate_limit: 5", "PZ0318"),
        ("table: 'orders'", "PZ0348"),
        ("incremental: true", "PZ0332"),
    ] {
        let sql = format!("select * from {{{{ source('crm', 'orders', {argument}) }}}}");
        fails_with(&compile_sql(&sql), code, "source('crm', 'orders')");
    }
}

#[test]
fn an_entity_name_with_whitespace_in_a_call_is_pz0344() {
    fails_with(
        &compile_sql("select * from {{ source('crm', 'bad name') }}"),
        "PZ0344",
        "source('crm', 'bad name'): entity name contains whitespace",
    );
}

#[test]
fn a_sink_argument_passed_twice_is_pz0208() {
    fails_with(
        &compile_sink("sink('lake', 'ids', format: 'csv', format: 'csv')"),
        "PZ0208",
        "passes 'format' more than once",
    );
}

#[test]
fn retired_and_misplaced_sink_arguments_are_refused_with_their_own_codes() {
    for (argument, code) in [
        ("mode: 'merge'", "PZ0333"),
        ("input: 'x'", "PZ0112"),
        ("max_concurrency: 2", "PZ0122"),
        ("rate_limit: 5", "PZ0318"),
        ("schema: 'dbo'", "PZ0348"),
    ] {
        let call = format!("sink('lake', 'ids', {argument})");
        fails_with(&compile_sink(&call), code, "sink('lake', 'ids')");
    }
}

#[test]
fn an_unknown_sink_strategy_is_pz0334() {
    fails_with(
        &compile_sink("sink('lake', 'ids', strategy: 'upsert')"),
        "PZ0334",
        "sink('lake', 'ids')",
    );
}

#[test]
fn a_sink_retry_that_is_not_a_mapping_is_pz0121() {
    fails_with(
        &compile_sink("sink('lake', 'ids', retry: 3)"),
        "PZ0121",
        "'retry' must be a mapping with max_attempts/base_delay/max_delay",
    );
}
