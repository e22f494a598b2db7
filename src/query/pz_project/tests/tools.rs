//! The tools' own answers and refusals over a project that loads: pz_entity_schema,
//! pz_run_results and pz_state.

use super::*;
use crate::query::pz_project::Fidelity;

#[test]
fn entity_schema_answers_a_declared_contract_and_refuses_the_rest_with_pz0330() {
    let parsed = project(&[]);
    let env = Env::new();
    let known = super::super::entity_schema(&parsed, &env, "crm", "orders");
    assert!(known.ok(), "{:?}", known.errors);
    let text = known.result.unwrap().to_text();
    assert!(
        text.contains("updated_at") && text.contains("timestamp"),
        "{text}"
    );

    let no_connection = super::super::entity_schema(&parsed, &env, "nowhere", "orders");
    let e = fails_with(
        &no_connection,
        "PZ0330",
        "no connection named 'nowhere' exists",
    );
    assert_eq!(e.file.as_deref(), Some("connections.yml"));
    // Case matters, as in pz.
    fails_with(
        &super::super::entity_schema(&parsed, &env, "CRM", "orders"),
        "PZ0330",
        "'CRM'",
    );
    let no_contract = super::super::entity_schema(&parsed, &env, "lake", "ids");
    fails_with(&no_contract, "PZ0330", "declares no columns: contract");
}

#[test]
fn run_results_without_such_a_run_is_pz0502() {
    let parsed = project(&[]);
    let env = Env::new();
    fails_with(
        &super::super::run_results(&parsed, &env, None),
        "PZ0502",
        "no run found for id 'latest' under .pz/runs",
    );
    fails_with(
        &super::super::run_results(&parsed, &env, Some("r42")),
        "PZ0502",
        "no run found for id 'r42'",
    );
}

#[test]
fn state_on_a_remote_backend_needs_pz_and_falls_back_to_pz0518() {
    let parsed = project(&[(
        "project.yml",
        "name: p\nversion: 1\nstate:\n  backend: http\n  url: https://state.example/api/runs/1/state\n",
    )]);
    let answer = super::super::state(&parsed, &Env::new());
    fails_with(&answer, "PZ0518", "'http' state backend");
    assert!(
        matches!(answer.fidelity, Fidelity::NeedsPz(_)),
        "{:?}",
        answer.fidelity
    );
    // The local backend answers from .pz/state.
    let local = super::super::state(&project(&[]), &Env::new());
    assert!(local.ok(), "{:?}", local.errors);
}

#[test]
fn run_results_kept_in_a_sqlserver_database_need_pz_and_fall_back_to_pz0518() {
    let parsed = project(&[
        (
            "project.yml",
            "name: p\nversion: 1\nstate:\n  backend: sqlserver\n  connection: ops\n",
        ),
        (
            "connections.yml",
            "ops:\n  connector: sqlserver\n  server: db\n",
        ),
    ]);
    let answer = super::super::run_results(&parsed, &Env::new(), None);
    fails_with(&answer, "PZ0518", "'sqlserver' run-artifact store");
    assert!(matches!(answer.fidelity, Fidelity::NeedsPz(_)));
}
