//! validate_sql's reply: one shape in three spellings. The dict (JSON, YAML) is `ok`, the
//! connection and dialect, the statement count, then `findings`, each `{kind, line,
//! column, text, message, suggestions}` in SQL order; Markdown lists the same findings,
//! numbered, for a reader.

use crate::query::validate_sql::{Finding, Report};
use crate::query::value;
use compat::value::Value;

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn finding(f: &Finding) -> Value {
    value::dict([
        ("kind", s(f.kind.name())),
        ("line", Value::Int(f.at.line as i64)),
        ("column", Value::Int(f.at.column as i64)),
        ("text", s(&f.text)),
        ("message", s(&f.message)),
        (
            "suggestions",
            Value::seq(f.suggestions.iter().map(|x| s(x)).collect()),
        ),
    ])
}

/// The reply as a dict (sent as JSON, or dumped as YAML).
pub fn dict(report: &Report) -> Value {
    value::dict([
        ("ok", Value::Bool(report.ok())),
        ("connection", s(&report.connection)),
        ("dialect", s(report.dialect)),
        ("statements", Value::Int(report.statements as i64)),
        (
            "findings",
            Value::seq(report.findings.iter().map(finding).collect()),
        ),
    ])
}

/// The reply as YAML.
pub fn yaml(report: &Report) -> String {
    compat::yaml::emit::safe_dump(&dict(report))
}

/// `text` as inline code on one line: whitespace runs become one space, and the fence is
/// longer than any backtick run inside.
fn code(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let longest = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The reply as Markdown.
pub fn markdown(report: &Report) -> String {
    let context = format!(
        "connection `{}`, {} dialect, {}",
        report.connection,
        report.dialect,
        plural(report.statements, "statement", "statements")
    );
    if report.ok() {
        return format!(
            "# validate_sql: ok\n\nNo findings: every table, column, join and literal checks out against the print ({context}).\n"
        );
    }
    let mut out = format!(
        "# validate_sql: {}\n\n{}.\n",
        plural(report.findings.len(), "finding", "findings"),
        capitalized(&context)
    );
    for (i, f) in report.findings.iter().enumerate() {
        out.push_str(&format!(
            "\n{}. **{}** at line {}, column {}",
            i + 1,
            f.kind.name(),
            f.at.line,
            f.at.column
        ));
        if !f.text.is_empty() {
            out.push_str(&format!(": {}", code(&f.text)));
        }
        out.push_str(&format!("\n   {}\n", f.message));
        if !f.suggestions.is_empty() {
            let listed: Vec<String> = f.suggestions.iter().map(|x| code(x)).collect();
            out.push_str(&format!("   Suggestions: {}\n", listed.join(", ")));
        }
    }
    out
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::validate_sql::{Kind, Position};

    fn report(findings: Vec<Finding>) -> Report {
        Report {
            connection: "library".into(),
            dialect: "duckdb",
            statements: 1,
            findings,
        }
    }

    #[test]
    fn an_empty_report_says_ok_in_every_spelling() {
        let r = report(Vec::new());
        assert!(markdown(&r).starts_with("# validate_sql: ok\n"));
        assert_eq!(dict(&r).get("ok"), Some(&Value::Bool(true)));
        assert!(yaml(&r).starts_with("ok: true\n"));
        assert!(yaml(&r).contains("findings: []"));
    }

    #[test]
    fn findings_carry_kind_position_text_message_and_suggestions() {
        let r = report(vec![Finding {
            kind: Kind::UnknownColumn,
            at: Position { line: 2, column: 8 },
            text: "l.patron_idd".into(),
            message: "no such column".into(),
            suggestions: vec!["l.patron_id".into()],
        }]);
        let md = markdown(&r);
        assert!(
            md.contains("1. **unknown_column** at line 2, column 8: `l.patron_idd`\n"),
            "{md}"
        );
        assert!(md.contains("   Suggestions: `l.patron_id`\n"), "{md}");
        let d = dict(&r);
        let f = &d.get("findings").unwrap().as_seq().unwrap()[0];
        assert_eq!(f.get("line"), Some(&Value::Int(2)));
        assert_eq!(f.get("kind"), Some(&Value::Str("unknown_column".into())));
    }

    #[test]
    fn inline_code_survives_backticks_and_newlines() {
        assert_eq!(code("a\n  AND b"), "`a AND b`");
        assert_eq!(code("`x`.y"), "`` `x`.y ``");
    }
}
