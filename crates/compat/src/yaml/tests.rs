//! Differential tests against PyYAML: `fixtures/yaml-pyyaml/cases.jsonl` holds
//! what `yaml.load(text, Loader=yaml.CSafeLoader)` gave for each text
//! (written by `gen/yaml_pyyaml_expectations.py`), and every case must
//! load to the same value or fail with the same text.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value as Json;

use super::{load, LoadError};
use crate::value::Value;

/// Cases known to differ from the reference, each with the reason.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

fn cases() -> Vec<Json> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/yaml-pyyaml/cases.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("cases.jsonl is committed");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn tag_of(j: &Json) -> Option<(&str, &Json)> {
    let obj = j.as_object()?;
    let (k, v) = obj.iter().next()?;
    Some((k.as_str(), v))
}

fn float_matches(repr: &str, f: f64) -> bool {
    match repr.parse::<f64>() {
        Ok(e) if e.is_nan() => f.is_nan(),
        Ok(e) => e.to_bits() == f.to_bits(),
        Err(_) => false,
    }
}

/// A scalar's expectation against the loaded value.
fn leaf_matches(tag: &str, e: &Json, v: &Value) -> bool {
    match (tag, v) {
        ("none", Value::Null) => true,
        ("bool", Value::Bool(b)) => e.as_bool() == Some(*b),
        ("int", Value::Int(i)) => e.as_str() == Some(i.to_string().as_str()),
        ("int", Value::BigInt(s)) => e.as_str() == Some(s.as_str()),
        ("float", Value::Float(f)) => e.as_str().is_some_and(|r| float_matches(r, *f)),
        ("str", Value::Str(s)) => e.as_str() == Some(s.as_str()),
        ("bytes", Value::Bytes(b)) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            e.as_str() == Some(hex.as_str())
        }
        ("date", Value::Date(d)) => {
            e.as_str() == Some(format!("{:04}-{:02}-{:02}", d.year, d.month, d.day).as_str())
        }
        ("datetime", Value::DateTime(dt)) => {
            let off = match dt.offset_seconds {
                Some(o) => Json::from(o),
                None => Json::Null,
            };
            let got = Json::Array(vec![
                dt.date.year.into(),
                dt.date.month.into(),
                dt.date.day.into(),
                dt.hour.into(),
                dt.minute.into(),
                dt.second.into(),
                dt.microsecond.into(),
                off,
            ]);
            *e == got
        }
        _ => false,
    }
}

fn matches(e: &Json, v: &Value) -> Result<(), String> {
    let Some((tag, inner)) = tag_of(e) else {
        return Err(format!("bad expectation {e}"));
    };
    let mismatch = || Err(format!("expected {e}, got {v:?}"));
    match (tag, v) {
        ("list" | "tuple", Value::Seq(items)) => {
            let exp = inner.as_array().map(Vec::as_slice).unwrap_or_default();
            if exp.len() != items.len() {
                return mismatch();
            }
            for (a, b) in exp.iter().zip(items.iter()) {
                matches(a, b)?;
            }
            Ok(())
        }
        ("map", Value::Map(pairs)) => {
            let exp = inner.as_array().map(Vec::as_slice).unwrap_or_default();
            if exp.len() != pairs.len() {
                return mismatch();
            }
            for (pair, (k, val)) in exp.iter().zip(pairs.iter()) {
                let p = pair.as_array().map(Vec::as_slice).unwrap_or_default();
                if p.len() != 2 {
                    return Err(format!("bad pair {pair}"));
                }
                matches(&p[0], k)?;
                matches(&p[1], val)?;
            }
            Ok(())
        }
        // A set is loaded as a map of its members to None, in no fixed order.
        ("set", Value::Map(pairs)) => {
            let exp = inner.as_array().map(Vec::as_slice).unwrap_or_default();
            if exp.len() != pairs.len() || pairs.iter().any(|(_, v)| *v != Value::Null) {
                return mismatch();
            }
            let mut used = vec![false; pairs.len()];
            for item in exp {
                let found = pairs
                    .iter()
                    .enumerate()
                    .position(|(i, (k, _))| !used[i] && matches(item, k).is_ok());
                match found {
                    Some(i) => used[i] = true,
                    None => return mismatch(),
                }
            }
            Ok(())
        }
        (t, v) if leaf_matches(t, inner, v) => Ok(()),
        _ => mismatch(),
    }
}

/// The loaded value in the generator's flat prefix form, for deep cases.
fn flat_matches(expected: &[Json], v: &Value) -> Result<(), String> {
    let mut stack = vec![v];
    let mut i = 0;
    while let Some(v) = stack.pop() {
        let Some(e) = expected.get(i) else {
            return Err("flat expectation too short".into());
        };
        i += 1;
        let (tag, inner) = tag_of(e).ok_or("bad flat token")?;
        match (tag, v) {
            ("list" | "tuple", Value::Seq(items)) if inner.as_u64() == Some(items.len() as u64) => {
                stack.extend(items.iter().rev());
            }
            ("map", Value::Map(pairs)) if inner.as_u64() == Some(pairs.len() as u64) => {
                for (k, val) in pairs.iter().rev() {
                    stack.push(val);
                    stack.push(k);
                }
            }
            (t, v) if leaf_matches(t, inner, v) => {}
            _ => return Err(format!("flat token {i}: expected {e}, got {v:?}")),
        }
    }
    if i == expected.len() {
        Ok(())
    } else {
        Err("flat expectation too long".into())
    }
}

fn check(case: &Json) -> Result<(), String> {
    let text = case["yaml"].as_str().ok_or("no yaml")?;
    let got = catch_unwind(AssertUnwindSafe(|| load(text))).map_err(|_| "panicked".to_string())?;
    if let Some(err) = case.get("error") {
        let want = err["text"].as_str().unwrap_or_default();
        return match (err["kind"].as_str(), &got) {
            (Some("yaml"), Err(LoadError::Yaml(t))) if t == want => Ok(()),
            (Some("other"), Err(LoadError::Other(t))) if t == want => Ok(()),
            _ => Err(format!(
                "expected {} error {want:?}, got {got:?}",
                err["kind"]
            )),
        };
    }
    if case.get("recursive").is_some() {
        // Python builds a self-containing object; a tree cannot hold one.
        return match got {
            Err(LoadError::Other(t)) if t.contains("contains itself") => Ok(()),
            other => Err(format!("expected the recursion error, got {other:?}")),
        };
    }
    let value = got.map_err(|e| format!("expected a value, got error {e:?}"))?;
    if let Some(flat) = case.get("expect_flat") {
        return flat_matches(
            flat.as_array().map(Vec::as_slice).unwrap_or_default(),
            &value,
        );
    }
    matches(&case["expect"], &value)
}

#[test]
fn differential_against_pyyaml() {
    let cases = cases();
    assert!(
        cases.len() > 1000,
        "the fixture holds {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let expected_to_fail = EXPECTED_FAILURES.iter().any(|(n, _)| *n == name);
        match (check(case), expected_to_fail) {
            (Ok(()), false) => passed += 1,
            (Ok(()), true) => failures.push(format!("{name}: passes but is listed as failing")),
            (Err(_), true) => {}
            (Err(e), false) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "yaml differential: {passed} passed, {} known failures, {} unexpected",
        EXPECTED_FAILURES.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Run by hand on a larger random set: write it with
/// `gen/yaml_pyyaml_expectations.py --extra COUNT FILE`, then
/// `YAML_EXTRA_CASES=FILE cargo test -p compat yaml::tests::extra -- --ignored --nocapture`.
#[test]
#[ignore = "needs YAML_EXTRA_CASES, a file of extra PyYAML differential cases"]
fn extra_differential_cases() {
    let path = std::env::var("YAML_EXTRA_CASES")
        .expect("YAML_EXTRA_CASES names the file of extra cases this test checks");
    let text = std::fs::read_to_string(path).expect("readable");
    let mut failures = Vec::new();
    let mut total = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("valid JSON line");
        total += 1;
        if let Err(e) = check(&case) {
            failures.push(format!("{}: {e}\n    yaml: {}", case["name"], case["yaml"]));
        }
    }
    eprintln!("extra: {} of {total} differ", failures.len());
    for f in failures.iter().take(30) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty());
}

/// xorshift64*: deterministic noise without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn never_panics_on_noise_and_truncations() {
    const PIECES: &[&str] = &[
        "-",
        ":",
        "?",
        "[",
        "]",
        "{",
        "}",
        ",",
        "#",
        "&a",
        "*a",
        "!",
        "!!",
        "|",
        ">",
        "'",
        "\"",
        "%",
        "@",
        "`",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "a",
        "1",
        "0x",
        ".5",
        "~",
        "<<",
        "=",
        "é",
        "😀",
        "\\",
        "\\u",
        "---",
        "...",
        "\u{85}",
        "\u{feff}",
        "!!binary",
        "!!omap",
        "!!set",
        "2024-01-01",
        "\0",
        "\x01",
    ];
    // YAML_FUZZ_ITERS raises the count for a longer run by hand.
    let iters: usize = std::env::var("YAML_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..iters {
        let mut text = String::new();
        for _ in 0..rng.below(40) {
            if rng.below(8) == 0 {
                // Any code point at all.
                text.extend(char::from_u32(rng.below(0x11_0000) as u32));
            } else {
                text.push_str(PIECES[rng.below(PIECES.len())]);
            }
        }
        let r = catch_unwind(AssertUnwindSafe(|| load(&text)));
        assert!(r.is_ok(), "panicked on {text:?}");
    }
    for case in cases().iter().step_by(3) {
        let text = case["yaml"].as_str().unwrap_or_default();
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &cut in cuts.iter().step_by(cuts.len() / 8 + 1) {
            let r = catch_unwind(AssertUnwindSafe(|| load(&text[..cut])));
            assert!(r.is_ok(), "panicked on {:?}", &text[..cut]);
        }
    }
}

/// A statistics-like document of about `columns * 600` bytes.
fn statistics_text(columns: usize) -> String {
    let mut s = String::from(
        "format_version: 1\ntable: dev.sales.orders\ntype: table\nprofiled_at: '2026-11-29T18:27:31Z'\nrow_count: 3400\ncolumns:\n",
    );
    for c in 0..columns {
        s.push_str(&format!(
            "  col_{c}:\n    type: VARCHAR(255)\n    nullable: true\n    null_count: {c}\n    distinct_count: {}\n    min: -{c}.25\n    max: 2099-12-31\n    mean: {}.123456\n    top:\n    - value: N\n      count: 800\n    - value: 'café'\n      count: 12\n    values: AA3r33rVyTAAD9mHo8n4ewAzjCU9nBdwADbb2DE+0FUARAQSYrOsdACCXIyHXE7dAKgzrIKM1jUA43XqoDbS8QD/6KTwPus4AQ9TkJuWHbMBOipR1N/3AgFJFgaTaUU2AVs+3JoRNnsBZEKrYEsEiAFqz7kn\n",
            c * 7,
            c % 1000
        ));
    }
    s
}

#[test]
fn nesting_scan_skipped_for_ordinary_documents() {
    use super::events::may_reach_nesting_limit;
    assert!(!may_reach_nesting_limit(statistics_text(50).as_bytes()));
    assert!(!may_reach_nesting_limit(
        format!("a: {}\n", "x".repeat(5000)).as_bytes()
    ));
    assert!(may_reach_nesting_limit("- ".repeat(999).as_bytes()));
    assert!(may_reach_nesting_limit("[".repeat(999).as_bytes()));
    let nel_lines: String = (0..999)
        .map(|i| format!("{}a:\u{85}", " ".repeat(i)))
        .collect();
    assert!(may_reach_nesting_limit(nel_lines.as_bytes()));
}

/// Texts of the pieces the prescans look at (indentation, indicators, openers, every
/// line break, a BOM, characters beyond ASCII, long runs), from a fixed seed.
fn prescan_texts() -> Vec<String> {
    const PIECES: &[&str] = &[
        " ",
        "\t",
        "- ",
        "? ",
        ": ",
        "-",
        "[",
        "{",
        "\n",
        "\r",
        "\r\n",
        "a",
        "caf\u{e9}",
        "\u{feff}",
        "\u{85}",
        "\u{2028}",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..3000)
        .map(|n| {
            // Every other text without NEL and LINE SEPARATOR (the last two pieces).
            let pieces = PIECES.len() - if n % 2 == 0 { 2 } else { 0 };
            let mut text = String::new();
            for _ in 0..rng.below(400) {
                // Now and then a run long enough for a line to pass 1024 bytes.
                if rng.below(97) == 0 {
                    text.push_str(&"x".repeat(1100));
                }
                text.push_str(PIECES[rng.below(pieces)]);
            }
            text
        })
        .collect()
}

#[test]
fn nesting_prescan_counts_alike_on_both_paths() {
    use super::events::{counted_by_lines, openers_and_deepest_column};
    let mut by_lines = 0;
    for text in prescan_texts() {
        let bytes = text.as_bytes();
        if let Some(counts) = counted_by_lines(bytes) {
            by_lines += 1;
            assert_eq!(counts, openers_and_deepest_column(bytes), "{text:?}");
        } else {
            assert!(text.contains(['\u{85}', '\u{2028}']), "{text:?}");
        }
    }
    assert!(by_lines > 100, "texts counted line by line: {by_lines}");
}

#[test]
fn shadow_prescan_finds_exactly_the_long_lines_beyond_ascii() {
    use super::events::some_long_line_is_not_ascii;
    let by_bytes = |bytes: &[u8]| {
        bytes
            .split(|&b| b == b'\n' || b == b'\r')
            .any(|line| line.len() > 1024 && !line.is_ascii())
    };
    let mut long = 0;
    for text in prescan_texts() {
        let expected = by_bytes(text.as_bytes());
        long += usize::from(expected);
        assert_eq!(
            some_long_line_is_not_ascii(text.as_bytes()),
            expected,
            "{text:?}"
        );
    }
    assert!(long > 10, "the texts hold long lines beyond ASCII ({long})");
    // At the edge: 1,024 bytes are counted alike, 1,025 may not be.
    let line = |bytes: usize| format!("a: {}\u{e9}\nb: c\n", "x".repeat(bytes - 5));
    assert!(!some_long_line_is_not_ascii(line(1024).as_bytes()));
    assert!(some_long_line_is_not_ascii(line(1025).as_bytes()));
    assert!(some_long_line_is_not_ascii(
        format!("\r{}", line(1025)).as_bytes()
    ));
}

#[test]
fn statistics_like_document_loads() {
    let v = load(&statistics_text(3)).expect("loads");
    let col = v
        .get("columns")
        .and_then(|c| c.get("col_1"))
        .expect("col_1");
    assert_eq!(col.get("nullable"), Some(&Value::Bool(true)));
    assert_eq!(col.get("min"), Some(&Value::Float(-1.25)));
    assert!(matches!(col.get("max"), Some(Value::Date(_))));
}

/// `text` with every line indented by `by`: a document nested in another.
fn indented(text: &str, by: &str) -> String {
    let lines: Vec<String> = text.lines().map(|l| format!("{by}{l}")).collect();
    lines.join("\n")
}

/// `load_split`'s items put back into the mapping it returns.
fn split_joined(text: &str, key: &str) -> Option<Value> {
    let mut items = Vec::new();
    let header = super::load_split(text, key, &mut |v| {
        items.push(v);
        true
    })?;
    let Value::Map(mut pairs) = header else {
        panic!("a split header is a mapping");
    };
    let (_, list) = std::sync::Arc::make_mut(&mut pairs)
        .iter_mut()
        .find(|(k, _)| k.as_str() == Some(key))
        .expect("the split key stays in its place");
    assert_eq!(
        *list,
        Value::seq(Vec::new()),
        "the split list comes back empty"
    );
    *list = Value::seq(items);
    Some(Value::Map(pairs))
}

#[test]
fn a_split_load_equals_the_whole_load_wherever_it_splits() {
    // Every corpus document that loads to a mapping, split at each of its str keys that
    // holds a list: the split either declines or gives exactly what `load` gives.
    let mut split = 0;
    for case in cases() {
        let text = case["yaml"].as_str().unwrap_or_default();
        let Ok(Value::Map(pairs)) = load(text) else {
            continue;
        };
        for (k, v) in pairs.iter() {
            let (Some(key), Value::Seq(_)) = (k.as_str(), v) else {
                continue;
            };
            if let Some(joined) = split_joined(text, key) {
                let whole = load(text).expect("loaded above");
                assert_eq!(
                    format!("{joined:?}"),
                    format!("{whole:?}"),
                    "{text:?} at {key:?}"
                );
                split += 1;
            }
        }
    }
    assert!(split >= 20, "only {split} corpus documents split");
    // And every corpus document as one item among others of a diff-like list.
    let mut split = 0;
    for case in cases() {
        let text = case["yaml"].as_str().unwrap_or_default();
        let text = format!(
            "head: 1\nchanges:\n- 0\n-\n{}\n- last\ntail: 2\n",
            indented(text, "  ")
        );
        if let Some(joined) = split_joined(&text, "changes") {
            let whole = load(&text).expect("a split text loads whole");
            assert_eq!(format!("{joined:?}"), format!("{whole:?}"), "{text:?}");
            split += 1;
        }
    }
    assert!(split > 500, "only {split} wrapped corpus documents split");
}

#[test]
fn a_diff_splits_event_by_event() {
    let text = "format_version: 1\nsummary:\n  tables_added: 1\nchanges:\n- kind: table_added\n  table: main.a\n- kind: column_added\n  table: main.b\n  column: x\n- 3\nafter: true\n";
    let mut seen = Vec::new();
    let header = super::load_split(text, "changes", &mut |v| {
        seen.push(v);
        true
    })
    .expect("a plain diff splits");
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].get("table").and_then(Value::as_str), Some("main.a"));
    assert_eq!(seen[2], Value::Int(3));
    let keys: Vec<_> = header
        .as_map()
        .unwrap()
        .iter()
        .map(|(k, _)| k.as_str().unwrap())
        .collect();
    assert_eq!(keys, ["format_version", "summary", "changes", "after"]);
    assert_eq!(split_joined(text, "changes"), load(text).ok());
}

#[test]
fn a_split_declines_what_it_cannot_split_faithfully() {
    for text in [
        // An anchor in one item and its alias in another.
        "changes:\n- &a {kind: x}\n- *a\n",
        // The key twice: Python keeps the later list.
        "changes: [1]\nchanges: [2]\n",
        // A merge key could bring in another `changes`.
        "<<: {changes: [1]}\nchanges: [2]\n",
        // Tags on the list or the root.
        "changes: !!set {a: null}\n",
        "!!map {changes: [1]}\n",
        // Not a list, not a mapping, not loadable.
        "changes: 1\n",
        "- 1\n",
        "changes:\n- [1\n",
        "changes:\n- 2024-02-30\n",
    ] {
        let mut given = 0;
        let split = super::load_split(text, "changes", &mut |_| {
            given += 1;
            true
        });
        assert_eq!(split, None, "{text:?} splits");
    }
    // The item callback can stop it.
    assert_eq!(
        super::load_split("changes: [1, 2]\n", "changes", &mut |_| false),
        None
    );
}

/// An alias structure of 6 levels: 9 items a level, 531,441 leaves once expanded.
fn alias_structure(levels: usize) -> String {
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let mut text = "a: &a [x, x, x, x, x, x, x, x, x]\n".to_string();
    for i in 1..levels {
        let items = vec![format!("*{}", names[i - 1]); 9].join(", ");
        text.push_str(&format!("{0}: &{0} [{items}]\n", names[i]));
    }
    text
}

/// The collections a value holds, each counted once however often it stands in it.
fn allocations(v: &Value, seen: &mut std::collections::HashSet<usize>) {
    let (id, children): (usize, Vec<&Value>) = match v {
        Value::Seq(a) => (std::sync::Arc::as_ptr(a) as usize, a.iter().collect()),
        Value::Map(a) => (
            std::sync::Arc::as_ptr(a) as usize,
            a.iter().flat_map(|(k, v)| [k, v]).collect(),
        ),
        _ => return,
    };
    if seen.insert(id) {
        children.into_iter().for_each(|c| allocations(c, seen));
    }
}

fn leaves(v: &Value) -> u64 {
    match v {
        Value::Seq(items) => items.iter().map(leaves).sum(),
        Value::Map(pairs) => pairs.iter().map(|(_, v)| leaves(v)).sum(),
        _ => 1,
    }
}

#[test]
fn aliased_collections_stay_one_allocation() {
    let v = load(&alias_structure(6)).unwrap();
    let f = v.get("f").unwrap();
    assert_eq!(leaves(f), 531_441);
    let mut seen = std::collections::HashSet::new();
    allocations(&v, &mut seen);
    // The mapping and its six lists.
    assert_eq!(seen.len(), 7);
    let (Some(Value::Seq(e)), Value::Seq(f)) = (v.get("e"), f) else {
        panic!("{v:?}")
    };
    assert!(f
        .iter()
        .all(|item| matches!(item, Value::Seq(x) if std::sync::Arc::ptr_eq(x, e))));
    // Seven levels load too: 4,782,969 leaves, still seven allocations.
    let v = load(&alias_structure(7)).unwrap();
    let mut seen = std::collections::HashSet::new();
    allocations(&v, &mut seen);
    assert_eq!(seen.len(), 8);
}

#[test]
fn a_collection_reached_through_an_alias_in_a_merge_is_still_loaded() {
    let v = load("base: &b {k: 1}\nx:\n  <<: *b\n  l: 2\ny: *b\n").unwrap();
    let (Some(Value::Map(b)), Some(Value::Map(y))) = (v.get("base"), v.get("y")) else {
        panic!("{v:?}")
    };
    assert!(std::sync::Arc::ptr_eq(b, y));
    assert_eq!(v.get("x").and_then(|x| x.get("k")), Some(&Value::Int(1)));
}

#[test]
fn a_keyed_load_equals_the_whole_load_and_builds_entry_by_entry() {
    // Every corpus document as one entry's value among others of a manifest-like
    // mapping, and every corpus document that loads to a mapping keyed at each of its
    // str keys holding a mapping: `load_keyed` gives exactly what `load` gives, value or
    // error, and builds most of them entry by entry.
    let mut keyed = 0;
    let mut tried = 0;
    for case in cases() {
        let text = case["yaml"].as_str().unwrap_or_default();
        let wrapped = format!(
            "format_version: 1\ntables:\n  first.t: 0\n  it.t:\n{}\n  last.t: {{a: 1}}\ntail: 2\n",
            indented(text, "    ")
        );
        for (text, key) in [(wrapped.as_str(), "tables"), (text, "tables")] {
            tried += 1;
            assert_eq!(
                format!("{:?}", super::load_keyed(text, key)),
                format!("{:?}", load(text)),
                "{text:?}"
            );
            keyed += usize::from(super::keyed_split(text, key).is_some());
        }
        if let Ok(Value::Map(pairs)) = load(text) {
            for (k, v) in pairs.iter() {
                let (Some(key), Value::Map(_)) = (k.as_str(), v) else {
                    continue;
                };
                assert_eq!(
                    format!("{:?}", super::load_keyed(text, key)),
                    format!("{:?}", load(text)),
                    "{text:?} at {key:?}"
                );
            }
        }
    }
    assert!(
        keyed >= 1000,
        "only {keyed} of {tried} texts built entry by entry"
    );
}

#[test]
fn a_keyed_load_keeps_python_dict_rules_and_declines_what_it_cannot_build() {
    for (text, splits) in [
        // Duplicates: the first key keeps its place and takes the later value, and
        // 1, 1.0 and true are one key, as in a Python dict.
        ("tables:\n  a: 1\n  b: 2\n  a: 3\n", true),
        ("tables:\n  1: x\n  1.0: y\n  true: z\n  c: w\n", true),
        ("tables: {b: 1, a: 2}\nafter: 3\n", true),
        ("tables: {}\n", true),
        ("other: 1\n", true),
        // Two NaN keys are two keys to Python.
        ("tables:\n  .nan: 1\n  .nan: 2\n", false),
        // A merge or value key acts on the whole mapping.
        ("tables:\n  <<: {a: 1}\n  b: 2\n", false),
        ("tables:\n  =: 1\n", false),
        // Anchors, tags, the key twice, another shape, errors.
        ("tables:\n  a: &x {c: 1}\n  b: *x\n", false),
        ("tables: !!map {a: 1}\n", false),
        ("tables: {a: 1}\ntables: {b: 2}\n", false),
        ("tables: [1]\n", false),
        ("tables:\n  [1]: 2\n", false),
        ("tables:\n  a: 2024-02-30\n", false),
        ("tables:\n  a: [1\n", false),
    ] {
        assert_eq!(
            super::keyed_split(text, "tables").is_some(),
            splits,
            "{text:?}"
        );
        assert_eq!(
            format!("{:?}", super::load_keyed(text, "tables")),
            format!("{:?}", load(text)),
            "{text:?}"
        );
    }
}
