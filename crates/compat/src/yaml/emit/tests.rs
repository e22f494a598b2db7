//! Compares the emitters with what the reference wrote for the same values, recorded by
//! `gen/yaml_emit_expectations.py` into `fixtures/yaml-emit/cases.jsonl`.

use super::{safe_dump, try_dbprint_dump, try_flow_inline};
use crate::value::{Date, DateTime, Value};
use base64::Engine as _;
use serde_json::Value as J;

/// Decodes the generator's tagged JSON (see its docstring) into a Value.
fn decode(j: &J) -> Value {
    let v = &j["v"];
    let int = |x: &J| x.as_i64().unwrap_or_else(|| panic!("bad int {x}"));
    match j["t"].as_str().unwrap_or_default() {
        "null" => Value::Null,
        "bool" => Value::Bool(v.as_bool().expect("bool")),
        "int" => {
            let text = v.as_str().expect("int text");
            text.parse::<i64>()
                .map(Value::Int)
                .unwrap_or_else(|_| Value::BigInt(text.to_string()))
        }
        "float" => Value::Float(match v.as_str().expect("float text") {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            text => text.parse().expect("float"),
        }),
        "str" => Value::Str(v.as_str().expect("str").to_string()),
        "bytes" => Value::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(v.as_str().expect("bytes"))
                .expect("base64"),
        ),
        "date" => Value::Date(Date {
            year: int(&v[0]) as i32,
            month: int(&v[1]) as u8,
            day: int(&v[2]) as u8,
        }),
        "datetime" => Value::DateTime(DateTime {
            date: Date {
                year: int(&v[0]) as i32,
                month: int(&v[1]) as u8,
                day: int(&v[2]) as u8,
            },
            hour: int(&v[3]) as u8,
            minute: int(&v[4]) as u8,
            second: int(&v[5]) as u8,
            microsecond: int(&v[6]) as u32,
            offset_seconds: v[7].as_i64().map(|o| o as i32),
        }),
        "list" => Value::seq(v.as_array().expect("list").iter().map(decode).collect()),
        "dict" => Value::map(
            v.as_array()
                .expect("dict")
                .iter()
                .map(|pair| (decode(&pair[0]), decode(&pair[1])))
                .collect(),
        ),
        other => panic!("unknown tag {other}"),
    }
}

/// Compares one output; a JSON null means the reference raised.
fn check(
    failures: &mut Vec<String>,
    name: &str,
    what: &str,
    want: &J,
    got: Result<String, impl std::fmt::Debug>,
) {
    let ok = match (want.as_str(), &got) {
        (Some(w), Ok(g)) => w == g,
        (None, Err(_)) => true,
        _ => false,
    };
    if !ok {
        failures.push(format!(
            "{name} [{what}]\n--- want\n{}\n--- got\n{:?}",
            want.as_str().unwrap_or("<raises>"),
            got
        ));
    }
}

/// Runs every row of a cases file; returns (rows, failures).
fn run_cases(text: &str, expect_file_text: bool) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        rows += 1;
        let row: J = serde_json::from_str(line).expect("json row");
        let name = row["name"].as_str().unwrap_or("?");
        let value = decode(&row["value"]);
        check(
            &mut failures,
            name,
            "safe_dump",
            &row["safe_dump"],
            Ok::<_, ()>(safe_dump(&value)),
        );
        check(
            &mut failures,
            name,
            "dbprint_dump",
            &row["dbprint_dump"],
            try_dbprint_dump(&value),
        );
        check(
            &mut failures,
            name,
            "inline",
            &row["inline"],
            try_flow_inline(&value),
        );
        if expect_file_text && row["file_text"].is_string() {
            check(
                &mut failures,
                name,
                "file round-trip",
                &row["file_text"],
                try_dbprint_dump(&value),
            );
        }
    }
    (rows, failures)
}

fn report(rows: usize, failures: &[String]) {
    if !failures.is_empty() {
        for f in failures.iter().take(15) {
            eprintln!("{f}\n");
        }
        panic!("{} of {} rows x outputs differ", failures.len(), rows);
    }
}

#[test]
fn recorded_cases_match_the_reference() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/yaml-emit/cases.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("fixtures/yaml-emit/cases.jsonl");
    let (rows, failures) = run_cases(&text, false);
    assert!(rows > 500, "only {rows} rows recorded");
    report(rows, &failures);
}

/// The real print files, recorded outside the repository with
/// `gen/yaml_emit_expectations.py --real DIR OUT`; run with `PRINTDEX_EMIT_REAL_CASES=OUT
/// cargo test -p compat yaml::emit -- --ignored`.
#[test]
#[ignore = "needs PRINTDEX_EMIT_REAL_CASES, recorded real print files"]
fn real_print_files_round_trip() {
    let path = std::env::var("PRINTDEX_EMIT_REAL_CASES")
        .expect("PRINTDEX_EMIT_REAL_CASES names the recorded real cases this test checks");
    let text = std::fs::read_to_string(path).expect("real cases file");
    let (rows, failures) = run_cases(&text, true);
    eprintln!("{rows} real files checked");
    report(rows, &failures);
}

#[test]
fn spot_checks() {
    let s = |x: &str| Value::Str(x.to_string());
    assert_eq!(safe_dump(&s("a")), "a\n...\n");
    assert_eq!(safe_dump(&Value::Float(1e16)), "1.0e+16\n...\n");
    assert_eq!(
        try_dbprint_dump(&Value::Float(1e-5)).unwrap(),
        "0.00001\n...\n"
    );
    assert_eq!(
        safe_dump(&Value::map(vec![(s("k"), Value::seq(vec![s("a")]))])),
        "k:\n- a\n"
    );
    assert_eq!(try_flow_inline(&s("a b")).unwrap(), "'a b'");
    assert!(try_dbprint_dump(&Value::Bytes(vec![1])).is_err());
}

fn shared_sample() -> Value {
    let a = Value::seq(vec![Value::Int(1), Value::Int(2)]);
    let e = Value::map(vec![]);
    Value::map(vec![
        (Value::Str("k".into()), a.clone()),
        (Value::Str("l".into()), a.clone()),
        (
            Value::Str("m".into()),
            Value::seq(vec![a, Value::map(vec![])]),
        ),
        (Value::Str("n".into()), e.clone()),
        (Value::Str("o".into()), e),
    ])
}

/// What PyYAML 6.0.3 writes for the same objects (`a = [1, 2]` standing in three places,
/// `e = {}` in two).
#[test]
fn a_shared_collection_is_written_with_an_anchor_and_aliases() {
    let b = shared_sample();
    assert_eq!(
        safe_dump(&b),
        "k: &id001\n- 1\n- 2\nl: *id001\nm:\n- *id001\n- {}\nn: &id002 {}\no: *id002\n"
    );
    let Some(Value::Seq(a)) = b.get("k") else {
        panic!()
    };
    let outer = Value::seq(vec![
        Value::Seq(a.clone()),
        Value::Seq(a.clone()),
        Value::seq(vec![b.clone()]),
    ]);
    assert_eq!(
        safe_dump(&outer),
        "- &id001\n  - 1\n  - 2\n- *id001\n- - k: *id001\n    l: *id001\n    m:\n    - *id001\n    - {}\n    n: &id002 {}\n    o: *id002\n"
    );
}

#[test]
fn an_alias_structure_is_written_as_its_text_not_its_expansion() {
    let text = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n";
    let v = crate::yaml::load(text).unwrap();
    let dumped = safe_dump(&v);
    assert_eq!(
        dumped,
        "a: &id001\n- x\n- x\nb: &id002\n- *id001\n- *id001\nc:\n- *id002\n- *id002\n"
    );
    // The same value without sharing writes the expansion, and both read back equal.
    let unshared = crate::yaml::load(
        "a: [x, x]\nb: [[x, x], [x, x]]\nc: [[[x, x], [x, x]], [[x, x], [x, x]]]\n",
    )
    .unwrap();
    assert_eq!(unshared, v);
    assert_eq!(crate::yaml::load(&dumped).unwrap(), unshared);
    assert!(!safe_dump(&unshared).contains('&'));
}
