//! dbprint's readings of a table's statistics file, shared by the stages that read one:
//! the search index derives its records through them at ingest, and the engine's
//! questions (value resolution, get_table_context) answer through them. Below both, so
//! that neither depends on the other for what a statistics field means.
//!
//! - `absence`: the absence model (`read_column_field`, `read_table_block`, the §2.2.3
//!   forbidden-field matrix);
//! - `authored`: which entries of a human-authored annotation file are admitted;
//! - `scope`: the scan scope and whether a column's value list is complete.

pub mod absence;
pub mod authored;
pub mod scope;

use compat::value::Value;

/// A real number as Python sees one (`isinstance(v, (int, float)) and not
/// isinstance(v, bool)`).
pub fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Float(_))
}

/// A number as a float (`int` or `float`, never `bool`).
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::BigInt(s) => s.parse().ok(),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
