//! Python's text conventions, reproduced byte for byte: `json.dumps`
//! (ensure_ascii, indent, `default=str`), `repr`, `str`, float repr,
//! `round`, `fnmatch.fnmatchcase`, `str.casefold`/`lower`/`split`/`splitlines`.
//!
//! Character properties come from tables generated out of the Python that
//! dbprint runs on (3.13, Unicode 15.1.0; see `tests/pyfmt/gen_tables.py`),
//! not from Rust's std, whose Unicode version differs.

mod float;
mod glob;
mod json;
mod repr;
mod text;
#[rustfmt::skip] // generated; byte-identical to gen_tables.py output
mod unicode_tables;

#[cfg(test)]
mod tests;

use crate::yaml::Value;

pub use float::{py_round_int, try_py_round};
pub use glob::Glob;
pub use json::{try_json_compact, try_json_indent2};
pub use repr::{bytes_repr, date_str, datetime_repr, datetime_str};
pub use text::{
    casefold, is_printable, is_space, lower, split_whitespace_py, splitlines_keepends, strip_py,
};

/// The Unicode version Python's (and so printdex's) character tables follow.
pub const UNICODE_VERSION: &str = unicode_tables::UNICODE_VERSION;

/// A Python exception, as far as printdex needs one: its class name and
/// `str(exc)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PyException {
    /// `type(exc).__name__`, e.g. `TypeError`.
    pub type_name: &'static str,
    /// `str(exc)`.
    pub message: String,
}

impl PyException {
    pub(crate) fn new(type_name: &'static str, message: impl Into<String>) -> PyException {
        PyException {
            type_name,
            message: message.into(),
        }
    }
}

/// `json.dumps(v, indent=2, default=str)` (ensure_ascii=True).
///
/// Python raises `TypeError` for a dict key that is not str, int, float, bool
/// or None (`default=str` does not apply to keys); use [`try_json_indent2`]
/// to get that error. This infallible form instead writes such a key as the
/// JSON string of `str(key)`, which Python never produces.
pub fn json_indent2(v: &Value) -> String {
    json::dumps(v, Some(2), true).unwrap_or_default()
}

/// `json.dumps(v, default=str)`: separators `", "` and `": "`, no indent.
///
/// Same key caveat as [`json_indent2`]; the exact form is [`try_json_compact`].
pub fn json_compact(v: &Value) -> String {
    json::dumps(v, None, true).unwrap_or_default()
}

/// `repr(f)` for a Python float (also `str(f)`).
pub fn float_repr(f: f64) -> String {
    float::float_repr(f)
}

/// `repr(v)`.
pub fn repr(v: &Value) -> String {
    repr::repr(v)
}

/// `repr(s)` for a `str`.
pub fn repr_str(s: &str) -> String {
    repr::repr_str(s)
}

/// `str(v)`.
pub fn str_of(v: &Value) -> String {
    repr::str_of(v)
}

/// `round(x, ndigits)` for a float: the exactly rounded (half-even on the
/// exact binary value) result. Where Python raises `OverflowError` ("rounded
/// value too large to represent", only for huge `x` and `ndigits` near -308)
/// this returns the infinity of the same sign; [`try_py_round`] reports it.
pub fn py_round(x: f64, ndigits: i32) -> f64 {
    match try_py_round(x, ndigits) {
        Ok(r) => r,
        Err(_) => f64::INFINITY.copysign(x),
    }
}
