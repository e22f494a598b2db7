//! Python's text conventions, reproduced byte for byte: `json.dumps`
//! (ensure_ascii, indent, `default=str`), `repr`, `str`, float repr,
//! `fnmatch.fnmatchcase` and `str.casefold`.

use crate::yaml::Value;

/// `json.dumps(v, indent=2, default=str)` (ensure_ascii=True).
pub fn json_indent2(v: &Value) -> String {
    let _ = v;
    String::new()
}

/// `json.dumps(v, default=str)`: separators `", "` and `": "`, no indent.
pub fn json_compact(v: &Value) -> String {
    let _ = v;
    String::new()
}

/// `repr(f)` for a Python float.
pub fn float_repr(f: f64) -> String {
    format!("{f}")
}

/// `repr(v)`.
pub fn repr(v: &Value) -> String {
    let _ = v;
    String::new()
}

/// `repr(s)` for a `str`.
pub fn repr_str(s: &str) -> String {
    format!("'{s}'")
}

/// `str(v)`.
pub fn str_of(v: &Value) -> String {
    let _ = v;
    String::new()
}

/// A compiled `fnmatch.fnmatchcase` pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: String,
}

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        Glob { pattern: pattern.to_string() }
    }

    pub fn matches(&self, name: &str) -> bool {
        self.pattern == "*" || self.pattern == name
    }
}

/// `str.casefold()`.
pub fn casefold(s: &str) -> String {
    s.to_lowercase()
}

/// `str.lower()`.
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Python `round(x, ndigits)`.
pub fn py_round(x: f64, ndigits: i32) -> f64 {
    let m = 10f64.powi(ndigits);
    (x * m).round() / m
}
