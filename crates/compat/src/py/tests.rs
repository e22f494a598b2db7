//! Compares `py` against what Python 3.13 answered for the same inputs:
//! fixtures/py/*.jsonl, written by `gen/py_expectations.py`.

use super::*;
use crate::value::{Date, DateTime};
use serde_json::Value as J;
use sha2::{Digest, Sha256};

fn fixture(name: &str) -> Vec<J> {
    let path = format!("{}/fixtures/py/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}: {l}")))
        .collect()
}

fn s(j: &J) -> &str {
    j.as_str().expect("string in fixture")
}

fn f64_of_hex(j: &J) -> f64 {
    f64::from_bits(u64::from_str_radix(s(j), 16).expect("hex bits"))
}

/// Collects mismatches so one run shows many of them.
#[derive(Default)]
struct Failures {
    count: usize,
    shown: Vec<String>,
}

impl Failures {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.count += 1;
            if self.shown.len() < 25 {
                self.shown.push(what());
            }
        }
    }

    fn eq(&mut self, ctx: &str, got: &str, want: &str) {
        self.check(got == want, || {
            format!("{ctx}\n   got: {got:?}\n  want: {want:?}")
        });
    }

    fn finish(self, total: usize) {
        assert!(
            self.count == 0,
            "{} of {total} checks failed:\n{}",
            self.count,
            self.shown.join("\n")
        );
    }
}

fn exc_text(e: &PyException) -> String {
    format!("!{}: {}", e.type_name, e.message)
}

#[test]
fn float_repr_matches_python() {
    let rows = fixture("floats.jsonl");
    assert!(rows.len() > 5000);
    let mut f = Failures::default();
    for r in &rows {
        let x = f64_of_hex(&r[0]);
        f.eq(
            &format!("repr({x:e}) bits {}", s(&r[0])),
            &float_repr(x),
            s(&r[1]),
        );
    }
    f.finish(rows.len());
}

#[test]
fn round_matches_python() {
    let rows = fixture("round.jsonl");
    let mut f = Failures::default();
    let mut total = 0;
    for r in &rows {
        let row = r.as_array().expect("row");
        let x = f64_of_hex(&row[0]);
        let got = match py_round_int(x) {
            Ok(Value::Int(i)) => i.to_string(),
            Ok(Value::BigInt(b)) => b,
            Ok(other) => format!("{other:?}"),
            Err(e) => exc_text(&e),
        };
        total += 1;
        f.eq(&format!("round({x:e})"), &got, s(&row[1]));
        for pair in &row[2..] {
            total += 1;
            let nd = pair[0].as_i64().expect("ndigits") as i32;
            let want = s(&pair[1]);
            let ctx = format!("round({x:e}, {nd}) bits {}", s(&row[0]));
            match try_py_round(x, nd) {
                Err(e) => f.eq(&ctx, &exc_text(&e), want),
                Ok(got) => {
                    let w: f64 = want.parse().unwrap_or(f64::NAN);
                    let same = got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan());
                    f.check(!want.starts_with('!') && same, || {
                        format!("{ctx}\n   got: {}\n  want: {want}", float_repr(got))
                    });
                }
            }
        }
    }
    f.finish(total);
}

#[test]
fn strings_match_python() {
    let rows = fixture("strings.jsonl");
    let mut f = Failures::default();
    for r in &rows {
        let st = s(&r["s"]);
        let ctx = |what: &str| format!("{what} of {st:?}");
        f.eq(&ctx("repr"), &repr_str(st), s(&r["repr"]));
        f.eq(
            &ctx("repr(Value)"),
            &repr(&Value::Str(st.into())),
            s(&r["repr"]),
        );
        f.eq(
            &ctx("json"),
            &json_compact(&Value::Str(st.into())),
            s(&r["json"]),
        );
        f.eq(
            &ctx("json length"),
            &json_indent2_len(&Value::Str(st.into())).to_string(),
            &s(&r["json"]).chars().count().to_string(),
        );
        f.eq(&ctx("lower"), &lower(st), s(&r["lower"]));
        f.eq(&ctx("casefold"), &casefold(st), s(&r["fold"]));
        f.eq(&ctx("strip"), strip(st), s(&r["strip"]));
        let want_split: Vec<&str> = r["split"]
            .as_array()
            .expect("split")
            .iter()
            .map(s)
            .collect();
        f.eq(
            &ctx("split"),
            &format!("{:?}", split_whitespace(st)),
            &format!("{want_split:?}"),
        );
        let want_lines: Vec<&str> = r["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(s)
            .collect();
        f.eq(
            &ctx("splitlines"),
            &format!("{:?}", splitlines_keepends(st)),
            &format!("{want_lines:?}"),
        );
    }
    f.finish(rows.len() * 8);
}

#[test]
fn final_sigma_matches_python() {
    let rows = fixture("sigma.jsonl");
    let mut f = Failures::default();
    for r in &rows {
        f.eq(
            &format!("lower({:?})", s(&r[0])),
            &lower(s(&r[0])),
            s(&r[1]),
        );
    }
    f.finish(rows.len());
}

/// Every code point's lower/casefold/isprintable/isspace/line-break/repr/json
/// against Python, as per-block digests (the same text hashed on both sides).
#[test]
fn every_code_point_matches_python() {
    let rows = fixture("unicode_digest.jsonl");
    assert_eq!(rows.len(), 0x110);
    let mut f = Failures::default();
    for r in &rows {
        let block = u32::from_str_radix(s(&r[0]), 16).expect("block");
        let mut h = Sha256::new();
        let mut text = String::new();
        for cp in block << 12..(block + 1) << 12 {
            let Some(c) = char::from_u32(cp) else {
                continue; // surrogates: skipped on both sides
            };
            let one = c.to_string();
            // The counted length agrees with the text written (checked against Python
            // by the digest below).
            assert_eq!(
                json_indent2_len(&Value::Str(one.clone())),
                json_compact(&Value::Str(one.clone())).len(),
                "json length of {cp:#x}"
            );
            text.clear();
            text.push_str(&format!(
                "{cp:x}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                lower(&one),
                casefold(&one),
                u8::from(is_printable(c)),
                u8::from(is_space(c)),
                u8::from(splitlines_keepends(&format!("a{c}b")).len() == 2),
                repr_str(&one),
                json_compact(&Value::Str(one.clone())),
            ));
            h.update(text.as_bytes());
        }
        let got: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        f.eq(&format!("block {block:#x}"), &got, s(&r[1]));
    }
    f.finish(rows.len());
}

#[test]
fn fnmatchcase_matches_python() {
    let rows = fixture("glob.jsonl");
    let mut f = Failures::default();
    let mut total = 0;
    for r in &rows {
        let pat = s(&r["p"]);
        let g = Glob::new(pat);
        let names = r["n"].as_array().expect("names");
        for (name, want) in names.iter().zip(s(&r["m"]).chars()) {
            total += 1;
            let name = s(name);
            f.check(g.matches(name) == (want == '1'), || {
                format!("fnmatchcase({name:?}, {pat:?}) should be {}", want == '1')
            });
        }
    }
    assert!(total > 20_000);
    f.finish(total);
}

/// The tagged form gen_expectations.py writes values in.
fn value_of(j: &J) -> Value {
    let a = j.as_array().expect("tagged value");
    let n = |i: usize| a[i].as_i64().expect("number");
    match s(&a[0]) {
        "N" => Value::Null,
        "B" => Value::Bool(a[1].as_bool().expect("bool")),
        "I" => match s(&a[1]).parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(s(&a[1]).to_string()),
        },
        "F" => Value::Float(f64_of_hex(&a[1])),
        "S" => Value::Str(s(&a[1]).to_string()),
        "Y" => {
            let h = s(&a[1]);
            Value::Bytes(
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex"))
                    .collect(),
            )
        }
        "D" => Value::Date(Date {
            year: n(1) as i32,
            month: n(2) as u8,
            day: n(3) as u8,
        }),
        "T" => Value::DateTime(DateTime {
            date: Date {
                year: n(1) as i32,
                month: n(2) as u8,
                day: n(3) as u8,
            },
            hour: n(4) as u8,
            minute: n(5) as u8,
            second: n(6) as u8,
            microsecond: n(7) as u32,
            offset_seconds: a[8].as_i64().map(|o| o as i32),
        }),
        "L" => Value::seq(
            a[1].as_array()
                .expect("list")
                .iter()
                .map(value_of)
                .collect(),
        ),
        "M" => Value::map(
            a[1].as_array()
                .expect("dict")
                .iter()
                .map(|kv| (value_of(&kv[0]), value_of(&kv[1])))
                .collect(),
        ),
        t => panic!("unknown tag {t}"),
    }
}

#[test]
fn values_match_python() {
    let rows = fixture("values.jsonl");
    let mut f = Failures::default();
    let mut errors_seen = 0;
    for r in &rows {
        let v = value_of(&r["v"]);
        let ctx = |what: &str| format!("{what} of {}", s(&r["repr"]));
        let text = |res: Result<String, PyException>| res.unwrap_or_else(|e| exc_text(&e));
        let want_indent = s(&r["indent"]);
        errors_seen += usize::from(want_indent.starts_with('!'));
        f.eq(
            &ctx("json indent"),
            &text(try_json_indent2(&v)),
            want_indent,
        );
        f.eq(
            &ctx("json compact"),
            &text(try_json_compact(&v)),
            s(&r["compact"]),
        );
        if !want_indent.starts_with('!') {
            f.eq(&ctx("json_indent2"), &json_indent2(&v), want_indent);
            f.eq(&ctx("json_compact"), &json_compact(&v), s(&r["compact"]));
            f.eq(
                &ctx("json_indent2_len"),
                &json_indent2_len(&v).to_string(),
                &want_indent.chars().count().to_string(),
            );
        }
        f.eq(&ctx("repr"), &repr(&v), s(&r["repr"]));
        f.eq(&ctx("str"), &str_of(&v), s(&r["str"]));
    }
    assert!(errors_seen > 5, "fixtures should exercise key TypeErrors");
    f.finish(rows.len() * 6);
}

#[test]
fn hand_picked() {
    assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(float_repr(1e16), "1e+16");
    assert_eq!(float_repr(1e-5), "1e-05");
    assert_eq!(float_repr(5e-324), "5e-324");
    assert_eq!(py_round(2.675, 2), 2.67);
    assert_eq!(py_round(0.125, 2), 0.12);
    assert_eq!(py_round(0.375, 2), 0.38);
    assert_eq!(py_round_int(2.5), Ok(Value::Int(2)));
    assert_eq!(py_round(1.7976931348623157e308, -308), f64::INFINITY);
    assert_eq!(casefold("Straße ﬁ"), "strasse fi");
    assert_eq!(lower("ΟΔΥΣΣΕΥΣ"), "οδυσσευς");
    assert_eq!(lower("İ"), "i\u{307}");
    let v = Value::map(vec![
        (Value::Str("a".into()), Value::seq(vec![])),
        (Value::Int(1), Value::map(vec![])),
    ]);
    assert_eq!(json_indent2(&v), "{\n  \"a\": [],\n  \"1\": {}\n}");
    assert_eq!(json_compact(&v), "{\"a\": [], \"1\": {}}");
    let date_key = Value::map(vec![(
        Value::Date(Date {
            year: 2024,
            month: 1,
            day: 1,
        }),
        Value::Int(1),
    )]);
    assert_eq!(
        try_json_compact(&date_key).unwrap_err().message,
        "keys must be str, int, float, bool or None, not datetime.date"
    );
    assert_eq!(json_compact(&date_key), "{\"2024-01-01\": 1}");
    assert_eq!(UNICODE_VERSION, "15.1.0");
}

#[test]
fn str_methods_by_hand() {
    let text = "a\r\nb\x1cc\u{2028}\n";
    let lines: Vec<&str> = splitlines_ranges(text)
        .into_iter()
        .map(|r| &text[r])
        .collect();
    assert_eq!(lines, ["a", "b", "c", ""]);
    assert_eq!(
        splitlines_keepends(text),
        ["a\r\n", "b\x1c", "c\u{2028}", "\n"]
    );
    assert_eq!(splitlines_ranges("x y"), vec![0..3]);
    assert_eq!(
        splitlines_keepends("a\r\nb\rc\nd\u{2028}e\u{c}f"),
        ["a\r\n", "b\r", "c\n", "d\u{2028}", "e\u{c}", "f"]
    );
    assert_eq!(splitlines_keepends(""), Vec::<&str>::new());
    assert_eq!(splitlines_keepends("\n\n"), ["\n", "\n"]);
    assert_eq!(rstrip(" a \x1f\u{3000}"), " a");
    assert_eq!(strip("\u{85} a\t"), "a");
    // U+200B is not whitespace to Python.
    assert_eq!(strip("\u{200b}a"), "\u{200b}a");
    assert_eq!(len("aé\u{1F600}"), 3);
    let s = "a\"é\u{1}\u{7f}\u{1F600}";
    assert_eq!(json_str(s, false), "\"a\\\"é\\u0001\u{7f}\u{1F600}\"");
    assert_eq!(
        json_str(s, true),
        "\"a\\\"\\u00e9\\u0001\\u007f\\ud83d\\ude00\""
    );
}

/// The reprs that exception texts carry.
#[test]
fn exception_reprs() {
    assert_eq!(repr_str("it's"), "\"it's\"");
    assert_eq!(repr_str("a'b\"c"), "'a\\'b\"c'");
    assert_eq!(repr_str("t\n\x01\x7fé\u{a0}"), "'t\\n\\x01\\x7fé\\xa0'");
    // Unassigned code points are not printable (U+0378 is unassigned in Unicode 15.1).
    assert_eq!(repr_str("\u{378}\u{e0000}"), "'\\u0378\\U000e0000'");
    assert_eq!(repr_str_200(&"x".repeat(300)).chars().count(), 200);
    assert_eq!(repr_str_200("ab"), "'ab'");
    assert_eq!(hex04(0x1f), "001f");
    assert_eq!(hex04(-1), "-001");
    assert_eq!(hex04(0x10ffff), "10ffff");
    assert_eq!(timedelta_repr(0), "datetime.timedelta(0)");
    assert_eq!(timedelta_repr(86_400), "datetime.timedelta(days=1)");
    assert_eq!(
        timedelta_repr(-(99 * 3600 + 99 * 60)),
        "datetime.timedelta(days=-5, seconds=69660)"
    );
}

/// Many stars against a long near-miss must stay polynomial.
#[test]
fn glob_has_no_exponential_blowup() {
    let g = Glob::new(&"a*".repeat(40).replace("*a*", "*a*?"));
    let name = "a".repeat(5000);
    let start = std::time::Instant::now();
    let _ = g.matches(&name);
    let g = Glob::new(&format!("{}b", "*a".repeat(30)));
    assert!(!g.matches(&name));
    assert!(start.elapsed().as_secs() < 5);
    assert!(Glob::new("*").matches("x/y\nz.w"));
    assert!(Glob::new("[!a]").matches("\u{1F600}"));
    assert!(!Glob::new("[z-a]").matches("m"));
    assert!(Glob::new("[").matches("["));
}
