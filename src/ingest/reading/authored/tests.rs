//! Compares admission with what dbprint 0.15.0 (Python jsonschema 4.26) answered for the
//! same files: fixtures/authored/admission.jsonl, written by tests/authored/gen_expectations.py.

use super::*;

#[test]
fn malformation_and_admission_match_the_reference() {
    let path = format!(
        "{}/fixtures/authored/admission.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut failures = Vec::new();
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("json line");
        let kind = Kind::from_name(case["kind"].as_str().unwrap()).unwrap();
        let data: Value = serde_json::from_value(case["data"].clone()).expect("tagged value");
        let want = case["malformation"].as_str().map(str::to_string);
        let got = malformation(kind, &data);
        if got != want {
            failures.push(format!("{}: got {got:?}, want {want:?}", case["yaml"]));
        }
        let want_admitted: Option<Value> = serde_json::from_value(case["admitted"].clone()).ok();
        let got_admitted = admitted(kind, &data);
        if got_admitted != want_admitted {
            failures.push(format!(
                "{}: admitted {got_admitted:?}, want {want_admitted:?}",
                case["yaml"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
