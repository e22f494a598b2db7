//! Reading a statistics file the way every surface of the reference reads it: fields by
//! dotted path (an absent field reads as nothing; the absence model's implied values are all
//! falsy, so nothing here needs them), the scan scope, value lists with their spelling groups
//! and notes, SQL type families and part paths.

use std::collections::HashMap;

use super::R;
use crate::error::QueryError;
use crate::ingest::reading;
pub use crate::ingest::reading::is_number;
use compat::value::Value;

/// A field by dotted path (`inferred.looks_like`, `range.min`); a stored null reads as none.
pub fn cv<'a>(col: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = col;
    for segment in path.split('.') {
        current = current.get(segment)?;
    }
    (*current != Value::Null).then_some(current)
}

/// Whether the field is written at all (a stored null counts).
pub fn present(col: &Value, path: &str) -> bool {
    let mut current = col;
    for segment in path.split('.') {
        match current.get(segment) {
            Some(v) => current = v,
            None => return false,
        }
    }
    true
}

pub fn str_at<'a>(col: &'a Value, path: &str) -> Option<&'a str> {
    cv(col, path).and_then(Value::as_str)
}

/// `isinstance(v, int) and not isinstance(v, bool)`.
pub fn as_int(v: Option<&Value>) -> Option<i64> {
    match v {
        Some(Value::Int(i)) => Some(*i),
        _ => None,
    }
}

/// A number as a float (`int` or `float`, never `bool`), when there is a value.
pub fn as_f64(v: Option<&Value>) -> Option<f64> {
    v.and_then(reading::as_f64)
}

/// Python truthiness of an optional value.
pub fn truthy(v: Option<&Value>) -> bool {
    v.is_some_and(Value::truthy)
}

/// Python `v == 1.0` for a loaded value (`True == 1.0` as well).
pub fn is_one(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Int(1)) | Some(Value::Bool(true)) => true,
        Some(Value::Float(f)) => *f == 1.0,
        _ => false,
    }
}

/// Python `int(x or 0)` for a count field: a non-number cannot be counted.
pub fn count_or_zero(v: Option<&Value>) -> R<i64> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Int(i)) => Ok(*i),
        Some(Value::Bool(b)) => Ok(i64::from(*b)),
        Some(Value::Float(f)) if *f == 0.0 => Ok(0),
        Some(Value::Float(f)) if f.is_finite() => Ok(f.trunc() as i64),
        Some(Value::Str(s)) if s.is_empty() => Ok(0),
        Some(Value::Str(s)) => s.trim().parse::<i64>().map_err(|_| {
            QueryError::Other(format!(
                "invalid literal for int() with base 10: {}",
                compat::py::repr_str(s)
            ))
        }),
        Some(other) => Err(QueryError::Other(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            other.py_type_name()
        ))),
    }
}

/// `" ".join(text.split())`: a note as every reply shows it.
pub fn collapse(text: &str) -> String {
    compat::py::split_whitespace(text).join(" ")
}

/// `value_key`: `str(value)`, so `1` and `'1'` meet.
pub fn value_key(v: &Value) -> String {
    compat::py::str_of(v)
}

/// The scan scope of a statistics file (SPEC 2.2.8), read by the shared `reading::scope`,
/// with its counts as the renderers use them.
#[derive(Debug, Clone)]
pub struct ScanScope {
    pub block: Value,
    pub rows_scanned: Option<i64>,
    pub row_count: Option<i64>,
    pub sample: Option<f64>,
    pub filter: Option<String>,
    pub share: Option<f64>,
    inner: crate::ingest::reading::scope::ScanScope,
}

/// `scope_of`: `None` when every row was read.
pub fn scope_of(statistics: Option<&Value>) -> Option<ScanScope> {
    let inner = crate::ingest::reading::scope::scope_of(statistics?)?;
    Some(ScanScope {
        block: inner.block.clone(),
        rows_scanned: as_int(inner.rows_scanned.as_ref()),
        row_count: as_int(inner.row_count.as_ref()),
        sample: as_f64(inner.sample.as_ref()),
        filter: inner.filter.clone(),
        share: inner.share(),
        inner,
    })
}

/// `rows_scanned`: a scoped column's own echo, else the file's; none unscoped.
pub fn rows_scanned(col: &Value, scope: Option<&ScanScope>) -> Option<i64> {
    as_int(crate::ingest::reading::scope::rows_scanned(col, scope.map(|s| &s.inner)).as_ref())
}

/// `list_is_complete`: values lists every distinct value over what was read.
pub fn list_is_complete(col: &Value) -> bool {
    crate::ingest::reading::scope::list_is_complete(col)
}

/// A value list entry's `spelling_of`, when set.
fn spelling_of(entry: &Value) -> Option<&Value> {
    entry.get("spelling_of").filter(|v| **v != Value::Null)
}

/// `grouped_values`: canonical entries in list order, each with its lesser spellings; a
/// member naming a value the list lacks stands alone.
pub fn grouped_values(entries: &[Value]) -> Vec<(&Value, Vec<&Value>)> {
    let listed: std::collections::HashSet<String> = entries
        .iter()
        .filter(|e| matches!(e, Value::Map(_)) && spelling_of(e).is_none())
        .map(|e| value_key(e.get("value").unwrap_or(&Value::Null)))
        .collect();
    let mut members: HashMap<String, Vec<&Value>> = HashMap::new();
    for e in entries {
        if let (Value::Map(_), Some(of)) = (e, spelling_of(e)) {
            members.entry(value_key(of)).or_default().push(e);
        }
    }
    entries
        .iter()
        .filter(|e| {
            matches!(e, Value::Map(_))
                && spelling_of(e).is_none_or(|of| !listed.contains(&value_key(of)))
        })
        .map(|e| {
            let key = value_key(e.get("value").unwrap_or(&Value::Null));
            (e, members.get(&key).cloned().unwrap_or_default())
        })
        .collect()
}

/// `value_notes`: a column's per-value notes by `value_key`, whitespace collapsed.
pub fn value_notes(annotation: Option<&Value>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Some(entries) = annotation
        .and_then(|a| a.get("values"))
        .and_then(Value::as_seq)
    else {
        return out;
    };
    for e in entries {
        if let Some(note) = e.get("note").and_then(Value::as_str) {
            if matches!(e, Value::Map(_)) && !compat::py::strip(note).is_empty() {
                out.insert(
                    value_key(e.get("value").unwrap_or(&Value::Null)),
                    collapse(note),
                );
            }
        }
    }
    out
}

/// `compute_null_rate`: rounded to six places, never onto 0.0 or 1.0 for a partial share.
pub fn compute_null_rate(null_count: i64, rows: i64) -> f64 {
    if rows == 0 {
        return 0.0;
    }
    let rounded = compat::py::py_round(null_count as f64 / rows as f64, 6);
    if rows - null_count > 0 && rounded == 1.0 {
        return 0.999999;
    }
    if null_count > 0 && rounded == 0.0 {
        0.000001
    } else {
        rounded
    }
}

// SQL type families (spec/classification.py), only those the Notes consult.

const INTEGER_TYPES: &[&str] = &[
    "smallint",
    "integer",
    "bigint",
    "int",
    "tinyint",
    "mediumint",
    "int8",
    "int16",
    "int32",
    "int64",
    "int128",
    "int256",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uint128",
    "uint256",
    "hugeint",
    "uhugeint",
    "ubigint",
    "uinteger",
    "usmallint",
    "utinyint",
];
const SCALED_DECIMAL_TYPES: &[&str] = &["decimal", "numeric", "number", "dec", "fixed"];
const SCALE_ONLY_DECIMAL_TYPES: &[&str] = &["decimal32", "decimal64", "decimal128", "decimal256"];
const BINARY_TYPES: &[&str] = &[
    "bytea",
    "blob",
    "tinyblob",
    "mediumblob",
    "longblob",
    "binary",
    "varbinary",
    "varbyte",
    "binary varying",
    "bytes",
    "image",
];

fn closer(c: char) -> Option<char> {
    match c {
        '(' => Some(')'),
        '<' => Some('>'),
        _ => None,
    }
}

/// What one character of an SQL type is to [`scan_groups`].
#[derive(Clone, Copy, PartialEq)]
enum Mark {
    /// A quote, or a character a quote hides.
    Quoted,
    Open,
    Close,
    Plain,
}

/// Walk `text` as the reference's SQL type helpers do: a quote (`"` `'` `` ` ``) hides
/// everything up to its twin; outside quotes `(` and `<` open a group that their twin
/// closes. `each` gets every character, its mark, and the group depth after it.
fn scan_groups(text: &str, mut each: impl FnMut(char, Mark, usize)) {
    let mut closers: Vec<char> = Vec::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        let mark = if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            Mark::Quoted
        } else if matches!(c, '"' | '\'' | '`') {
            quote = Some(c);
            Mark::Quoted
        } else if let Some(cl) = closer(c) {
            closers.push(cl);
            Mark::Open
        } else if closers.last() == Some(&c) {
            closers.pop();
            Mark::Close
        } else {
            Mark::Plain
        };
        each(c, mark, closers.len());
    }
}

/// `top_level_arguments`: split at commas outside groups and quotes.
fn top_level_arguments(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    scan_groups(text, |c, mark, depth| {
        if mark == Mark::Plain && c == ',' && depth == 0 {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    });
    parts
}

/// `_unwrapped`: the type a ClickHouse wrapper holds.
fn unwrapped(lowered: &str) -> Option<String> {
    for wrapper in ["nullable", "lowcardinality", "simpleaggregatefunction"] {
        let Some(rest) = lowered.strip_prefix(wrapper) else {
            continue;
        };
        let Some(inner) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
            continue;
        };
        if inner.is_empty() || inner.contains('\n') {
            continue;
        }
        if wrapper != "simpleaggregatefunction" {
            return Some(inner.to_string());
        }
        let args = top_level_arguments(inner);
        return (args.len() > 1).then(|| args[1].trim().to_string());
    }
    None
}

/// `t` without its groups (and the brackets that make them).
fn without_groups(t: &str) -> String {
    let mut out = String::new();
    scan_groups(t, |c, mark, depth| {
        if matches!(mark, Mark::Plain | Mark::Quoted) && depth == 0 {
            out.push(c);
        }
    });
    out
}

fn strip_mysql_qualifiers(t: &str) -> String {
    // `\b(unsigned|zerofill|signed)\b` removed.
    let mut out = String::new();
    let chars: Vec<char> = t.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    'outer: while i < chars.len() {
        let boundary_before = i == 0 || !word(chars[i - 1]);
        if boundary_before {
            for q in ["unsigned", "zerofill", "signed"] {
                let n = q.chars().count();
                if i + n <= chars.len()
                    && chars[i..i + n].iter().collect::<String>() == q
                    && (i + n == chars.len() || !word(chars[i + n]))
                {
                    i += n;
                    continue 'outer;
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn lowered_unwrapped(sql_type: &str) -> String {
    let mut lowered = compat::py::lower(sql_type);
    while let Some(inner) = unwrapped(&lowered) {
        lowered = inner;
    }
    lowered
}

/// `base_type`: lowercase, unwrapped, groups and MySQL qualifiers gone.
pub fn base_type(sql_type: &str) -> String {
    let stripped = strip_mysql_qualifiers(&without_groups(&lowered_unwrapped(sql_type)));
    compat::py::split_whitespace(&stripped).join(" ")
}

pub fn is_binary_type(sql_type: &str) -> bool {
    BINARY_TYPES.contains(&base_type(sql_type).as_str())
}

/// `is_integer_type`: an integer family, or a decimal of scale 0.
pub fn is_integer_type(sql_type: &str) -> bool {
    let lowered = lowered_unwrapped(sql_type);
    let base = base_type(&lowered);
    if INTEGER_TYPES.contains(&base.as_str()) {
        return true;
    }
    // The first innermost `(...)` group's arguments.
    let arguments: Vec<String> = first_group(&lowered)
        .map(|g| {
            g.split(',')
                .map(|a| compat::py::strip(a).to_string())
                .collect()
        })
        .unwrap_or_default();
    if SCALED_DECIMAL_TYPES.contains(&base.as_str()) {
        return arguments.len() == 1 || (arguments.len() == 2 && arguments[1] == "0");
    }
    SCALE_ONLY_DECIMAL_TYPES.contains(&base.as_str()) && arguments == ["0"]
}

/// `re.search(r"\(([^()]*)\)", t)`: the first group holding no parenthesis.
fn first_group(t: &str) -> Option<String> {
    let chars: Vec<char> = t.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '(' {
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && chars[j] != '(' && chars[j] != ')' {
            j += 1;
        }
        if j < chars.len() && chars[j] == ')' {
            return Some(chars[i + 1..j].iter().collect());
        }
    }
    None
}

// Part paths (SPEC 2.2.18).

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Member(String),
    Element,
    Keys,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `member`: `.name` for a plain name, else `["json text"]`.
pub fn member(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(is_name_start) && chars.all(is_name_char);
    if plain {
        format!(".{name}")
    } else {
        format!("[{}]", compat::py::json_str(name, false))
    }
}

fn path_error(path: &str, what: &str, offset: usize) -> QueryError {
    QueryError::Other(format!(
        "part path {}: {what} at offset {offset}",
        compat::py::repr_str(path)
    ))
}

/// `parse`: the steps of a part path, or the reference's ValueError text.
pub fn parse_path(path: &str) -> R<Vec<Step>> {
    let chars: Vec<char> = path.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    let starts = |i: usize, s: &str| {
        let n = s.chars().count();
        i + n <= chars.len() && chars[i..i + n].iter().copied().eq(s.chars())
    };
    while i < chars.len() {
        if starts(i, "[*]") {
            steps.push(Step::Element);
            i += 3;
        } else if starts(i, "[keys]") {
            steps.push(Step::Keys);
            i += 6;
        } else if chars[i] == '.' {
            let start = i + 1;
            if start >= chars.len() || !is_name_start(chars[start]) {
                return Err(path_error(path, "no member name", i));
            }
            let mut j = start + 1;
            while j < chars.len() && is_name_char(chars[j]) {
                j += 1;
            }
            steps.push(Step::Member(chars[start..j].iter().collect()));
            i = j;
        } else if starts(i, "[\"") {
            let (name, end) = decode_json_string(&chars, i + 1)
                .ok_or_else(|| path_error(path, "unterminated member", i))?;
            if end >= chars.len() || chars[end] != ']' {
                return Err(path_error(path, "unterminated member", i));
            }
            steps.push(Step::Member(name));
            i = end + 1;
        } else {
            return Err(path_error(path, "unexpected text", i));
        }
    }
    if steps.is_empty() {
        return Err(QueryError::Other(
            "a part path holds at least one step".into(),
        ));
    }
    Ok(steps)
}

/// A JSON string starting at `chars[at] == '"'`: its text and the index after it.
fn decode_json_string(chars: &[char], at: usize) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut i = at + 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Some((out, i + 1)),
            '\\' => {
                let c = *chars.get(i + 1)?;
                i += 2;
                match c {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let (c, after) = unicode_escape(chars, i)?;
                        out.push(c);
                        i = after;
                    }
                    _ => return None,
                }
            }
            c if (c as u32) < 0x20 => return None,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// The character of a `\u` escape whose four hex digits start at `chars[at]` (with the
/// low half of a surrogate pair when one follows), and the index after it.
fn unicode_escape(chars: &[char], at: usize) -> Option<(char, usize)> {
    let hex: String = chars.get(at..at + 4)?.iter().collect();
    let mut code = u32::from_str_radix(&hex, 16).ok()?;
    let mut i = at + 4;
    if (0xD800..0xDC00).contains(&code)
        && chars.get(i) == Some(&'\\')
        && chars.get(i + 1) == Some(&'u')
    {
        let low: String = chars.get(i + 2..i + 6)?.iter().collect();
        if let Ok(low) = u32::from_str_radix(&low, 16) {
            if (0xDC00..0xE000).contains(&low) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }
        }
    }
    Some((char::from_u32(code).unwrap_or('\u{fffd}'), i))
}

fn spelled(step: &Step) -> String {
    match step {
        Step::Element => "[*]".into(),
        Step::Keys => "[keys]".into(),
        Step::Member(name) => member(name),
    }
}

/// `parent`: the part a path sits inside, none for a top-level part.
pub fn parent(path: &str) -> R<Option<String>> {
    let steps = parse_path(path)?;
    let up: String = steps[..steps.len() - 1].iter().map(spelled).collect();
    Ok((!up.is_empty()).then_some(up))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_families() {
        assert!(is_integer_type("INTEGER"));
        assert!(is_integer_type("DECIMAL(10,0)"));
        assert!(!is_integer_type("DECIMAL(10,2)"));
        assert!(is_integer_type("Nullable(Int32)"));
        assert!(is_integer_type("bigint unsigned"));
        assert!(!is_integer_type("DOUBLE"));
        assert!(is_binary_type("BLOB"));
        assert!(is_binary_type("varbinary(16)"));
        assert!(!is_binary_type("VARCHAR"));
    }

    #[test]
    fn part_paths() {
        assert_eq!(member("a"), ".a");
        assert_eq!(member("a b"), "[\"a b\"]");
        assert_eq!(parent(".a.b").unwrap(), Some(".a".into()));
        assert_eq!(parent(".a").unwrap(), None);
        assert_eq!(parent(".a[*]").unwrap(), Some(".a".into()));
        assert_eq!(parent("[\"x y\"].b").unwrap(), Some("[\"x y\"]".into()));
        assert!(parse_path("oops").is_err());
        assert_eq!(
            parse_path(".a[keys]").unwrap(),
            vec![Step::Member("a".into()), Step::Keys]
        );
    }

    #[test]
    fn null_rates_stay_off_the_ends() {
        assert_eq!(compute_null_rate(1, 10_000_000), 0.000001);
        assert_eq!(compute_null_rate(9_999_999, 10_000_000), 0.999999);
        assert_eq!(compute_null_rate(0, 0), 0.0);
        assert_eq!(compute_null_rate(1, 4), 0.25);
    }
}
