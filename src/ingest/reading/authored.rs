//! Admission of a human-written annotation file (format spec §2.7): a reader uses one only
//! when it matches its packaged JSON Schema. The three schemas are small and fixed, so they
//! are validated by hand here, with Python `jsonschema`'s messages (Draft 2020-12) and the
//! reference's choice of the one problem to report: the first in document order, a
//! non-string mapping key ahead of the schema's own error at its mapping.

use compat::py::{date_str, datetime_str, py_eq, repr, repr_str, str_of};
use compat::value::Value;

/// The annotation kinds with a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Statistics,
    Relationships,
    Manifest,
}

impl Kind {
    pub fn from_name(kind: &str) -> Option<Kind> {
        match kind {
            "statistics_annotations" => Some(Kind::Statistics),
            "relationships_annotations" => Some(Kind::Relationships),
            "manifest_annotations" => Some(Kind::Manifest),
            _ => None,
        }
    }
}

/// `None` when `data` is admitted; else its first problem, `<address>: <why>`.
pub fn malformation(kind: Kind, data: &Value) -> Option<String> {
    if !matches!(data, Value::Map(_)) {
        return Some(format!("root: a {}, not a mapping", data.py_type_name()));
    }
    let data = iso_dates(data);
    // (pointer whose document position orders the problem, rank at that position, text)
    let mut problems: Vec<(Vec<Value>, u8, String)> = Vec::new();
    non_string_keys(&data, &mut Vec::new(), &mut |pointer, key| {
        let (owner, _) = pointer.split_at(pointer.len() - 1);
        let mut shown = owner.to_vec();
        shown.push(Value::Str(str_of(key)));
        problems.push((
            owner.to_vec(),
            0,
            format!("{}: {}", address(&shown), key_problem(key)),
        ));
    });
    let mut errors = Vec::new();
    validate(&schema(kind), &data, &mut Vec::new(), &mut errors);
    for (pointer, message) in errors {
        let shown = match address(&pointer) {
            a if a.is_empty() => "root".to_string(),
            a => a,
        };
        problems.push((pointer, 1, format!("{shown}: {message}")));
    }
    // `min` keeps the first of equal keys, so ties fall to collection order.
    problems
        .into_iter()
        .enumerate()
        .min_by_key(|(i, (pointer, rank, _))| (position(&data, pointer), *rank, *i))
        .map(|(_, (_, _, text))| text)
}

/// `data` as a reader uses it (dates as ISO text) when admitted; else `None`.
pub fn admitted(kind: Kind, data: &Value) -> Option<Value> {
    malformation(kind, data).is_none().then(|| iso_dates(data))
}

/// Every date or timestamp value read as its ISO 8601 text, as a schema sees it; keys stay.
pub fn iso_dates(node: &Value) -> Value {
    match node {
        Value::Date(d) => Value::Str(date_str(d)),
        Value::DateTime(dt) => Value::Str(
            datetime_str(dt)
                .replacen(' ', "T", 1)
                .replace("+00:00", "Z"),
        ),
        Value::Map(pairs) => Value::map(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), iso_dates(v)))
                .collect(),
        ),
        Value::Seq(items) => Value::seq(items.iter().map(iso_dates).collect()),
        other => other.clone(),
    }
}

/// Why a non-string mapping key is refused: its repr and its builtin type.
fn key_problem(key: &Value) -> String {
    // The first builtin class in the key's MRO: dates come from the datetime module.
    let kind = match key {
        Value::Date(_) | Value::DateTime(_) => "object",
        other => other.py_type_name(),
    };
    format!(
        "mapping key {} ({kind}) is not a string; quote it",
        repr(key)
    )
}

fn non_string_keys(
    data: &Value,
    prefix: &mut Vec<Value>,
    found: &mut impl FnMut(&[Value], &Value),
) {
    match data {
        Value::Map(pairs) => {
            for (k, v) in pairs.iter() {
                prefix.push(k.clone());
                if !matches!(k, Value::Str(_)) {
                    found(prefix, k);
                }
                non_string_keys(v, prefix, found);
                prefix.pop();
            }
        }
        Value::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                prefix.push(Value::Int(i as i64));
                non_string_keys(v, prefix, found);
                prefix.pop();
            }
        }
        _ => {}
    }
}

/// `.name` / `[i]` spelling of a pointer; an int segment (index or int key) is `[i]`.
fn address(pointer: &[Value]) -> String {
    let mut out = String::new();
    for segment in pointer {
        match segment {
            Value::Int(i) => out.push_str(&format!("[{i}]")),
            other => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&str_of(other));
            }
        }
    }
    out
}

fn subtree_size(v: &Value) -> usize {
    1 + match v {
        Value::Map(pairs) => pairs.iter().map(|(_, v)| subtree_size(v)).sum(),
        Value::Seq(items) => items.iter().map(subtree_size).sum(),
        _ => 0,
    }
}

/// The pre-order index of the node `pointer` names (or of its deepest existing ancestor).
fn position(data: &Value, pointer: &[Value]) -> usize {
    let mut node = data;
    let mut index = 0;
    for segment in pointer {
        let children: Vec<(&Value, bool)> = match node {
            Value::Map(pairs) => pairs.iter().map(|(k, v)| (v, py_eq(k, segment))).collect(),
            Value::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (v, matches!(segment, Value::Int(n) if *n == i as i64)))
                .collect(),
            _ => return index,
        };
        let Some(at) = children.iter().position(|(_, hit)| *hit) else {
            return index;
        };
        index += 1 + children[..at]
            .iter()
            .map(|(v, _)| subtree_size(v))
            .sum::<usize>();
        node = children[at].0;
    }
    index
}

/// `jsonschema._utils.equal`: `bool` never equals a number; containers compare deeply.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Str(_), _) | (_, Value::Str(_)) => false,
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(i, j)| json_equal(i, j))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && json_equal(v, v2)))
        }
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Bool(_), _) | (_, Value::Bool(_)) => false,
        _ => py_eq(a, b),
    }
}

// --- The three schemas, in their own keyword order -------------------------------------

enum Schema {
    ConstOne,
    Str {
        min_length: usize,
    },
    EnumOf(&'static [&'static str]),
    /// `{"not": {"type": ["array", "object"]}}`
    NotContainer,
    Array {
        min_items: usize,
        unique: bool,
        items: Box<Schema>,
    },
    Object {
        required: &'static [&'static str],
        additional: Additional,
        properties: Vec<(&'static str, Schema)>,
        /// `additionalProperties` is written before `required` in this object's schema.
        additional_first: bool,
    },
}

enum Additional {
    Any,
    Forbidden,
    Each(Box<Schema>),
}

fn object(
    required: &'static [&'static str],
    additional: Additional,
    properties: Vec<(&'static str, Schema)>,
) -> Schema {
    Schema::Object {
        required,
        additional,
        properties,
        additional_first: false,
    }
}

fn string(min_length: usize) -> Schema {
    Schema::Str { min_length }
}

fn array(items: Schema, min_items: usize, unique: bool) -> Schema {
    Schema::Array {
        min_items,
        unique,
        items: Box::new(items),
    }
}

fn claims() -> Schema {
    object(&[], Additional::Any, Vec::new())
}

fn schema(kind: Kind) -> Schema {
    match kind {
        Kind::Statistics => {
            let value = object(
                &["value", "note"],
                Additional::Forbidden,
                vec![("value", Schema::NotContainer), ("note", string(0))],
            );
            let source = object(
                &["table", "column"],
                Additional::Forbidden,
                vec![("table", string(1)), ("column", string(1))],
            );
            let column = object(
                &[],
                Additional::Forbidden,
                vec![
                    ("note", string(0)),
                    ("claims", claims()),
                    ("values", array(value, 0, false)),
                    ("derived_from", array(source, 0, false)),
                ],
            );
            let key = Schema::Object {
                required: &["columns"],
                additional: Additional::Forbidden,
                properties: vec![("columns", array(string(1), 1, true)), ("note", string(0))],
                additional_first: true,
            };
            object(
                &["format_version", "columns"],
                Additional::Forbidden,
                vec![
                    ("format_version", Schema::ConstOne),
                    (
                        "columns",
                        object(&[], Additional::Each(Box::new(column)), Vec::new()),
                    ),
                    (
                        "grain",
                        object(
                            &[],
                            Additional::Forbidden,
                            vec![("keys", array(key, 0, false))],
                        ),
                    ),
                ],
            )
        }
        Kind::Relationships => {
            let columns = || array(string(1), 1, false);
            let edge = object(
                &["column", "target_table", "target_column"],
                Additional::Forbidden,
                vec![
                    ("column", columns()),
                    ("path", columns()),
                    ("target_table", string(1)),
                    ("target_column", columns()),
                    ("target_path", columns()),
                    ("note", string(0)),
                    ("verdict", Schema::EnumOf(&["rejected"])),
                    ("claims", claims()),
                ],
            );
            object(
                &["format_version", "refers_to"],
                Additional::Forbidden,
                vec![
                    ("format_version", Schema::ConstOne),
                    ("refers_to", array(edge, 0, false)),
                ],
            )
        }
        Kind::Manifest => object(
            &["format_version"],
            Additional::Forbidden,
            vec![("format_version", Schema::ConstOne), ("notes", string(0))],
        ),
    }
}

fn type_error(instance: &Value, name: &str) -> String {
    format!("{} is not of type '{name}'", repr(instance))
}

fn push(out: &mut Vec<(Vec<Value>, String)>, path: &[Value], message: String) {
    out.push((path.to_vec(), message));
}

/// Every error of `instance` against `schema`, in `iter_errors` order, with its path.
fn validate(
    schema: &Schema,
    instance: &Value,
    path: &mut Vec<Value>,
    out: &mut Vec<(Vec<Value>, String)>,
) {
    match schema {
        Schema::ConstOne => {
            if !json_equal(instance, &Value::Int(1)) {
                push(out, path, "1 was expected".into());
            }
        }
        Schema::Str { min_length } => match instance {
            Value::Str(s) => {
                if s.chars().count() < *min_length {
                    push(out, path, format!("{} should be non-empty", repr(instance)));
                }
            }
            _ => push(out, path, type_error(instance, "string")),
        },
        Schema::EnumOf(options) => {
            if !options
                .iter()
                .any(|o| json_equal(&Value::Str(o.to_string()), instance))
            {
                let listed: Vec<String> = options.iter().map(|o| repr_str(o)).collect();
                let text = format!("{} is not one of [{}]", repr(instance), listed.join(", "));
                push(out, path, text);
            }
        }
        Schema::NotContainer => {
            if matches!(instance, Value::Seq(_) | Value::Map(_)) {
                let text = format!(
                    "{} should not be valid under {{'type': ['array', 'object']}}",
                    repr(instance)
                );
                push(out, path, text);
            }
        }
        Schema::Array {
            min_items,
            unique,
            items,
        } => {
            let Value::Seq(elements) = instance else {
                push(out, path, type_error(instance, "array"));
                return;
            };
            if elements.len() < *min_items {
                push(out, path, format!("{} should be non-empty", repr(instance)));
            }
            let repeated = elements
                .iter()
                .enumerate()
                .any(|(i, a)| elements[..i].iter().any(|b| json_equal(a, b)));
            if *unique && repeated {
                push(
                    out,
                    path,
                    format!("{} has non-unique elements", repr(instance)),
                );
            }
            for (i, element) in elements.iter().enumerate() {
                path.push(Value::Int(i as i64));
                validate(items, element, path, out);
                path.pop();
            }
        }
        Schema::Object {
            required,
            additional,
            properties,
            additional_first,
        } => {
            let Value::Map(pairs) = instance else {
                push(out, path, type_error(instance, "object"));
                return;
            };
            if *additional_first {
                unexpected(additional, properties, pairs, path, out);
                missing(required, pairs, path, out);
            } else {
                missing(required, pairs, path, out);
                unexpected(additional, properties, pairs, path, out);
            }
            for (name, sub) in properties {
                if let Some((k, v)) = pairs.iter().find(|(k, _)| k.as_str() == Some(name)) {
                    path.push(k.clone());
                    validate(sub, v, path, out);
                    path.pop();
                }
            }
        }
    }
}

/// `required`: each absent name, in the schema's order.
fn missing(
    required: &[&str],
    pairs: &[(Value, Value)],
    path: &[Value],
    out: &mut Vec<(Vec<Value>, String)>,
) {
    for name in required {
        if !pairs.iter().any(|(k, _)| k.as_str() == Some(name)) {
            push(
                out,
                path,
                format!("{} is a required property", repr_str(name)),
            );
        }
    }
}

/// `additionalProperties`: the keys `properties` does not name, refused together (sorted
/// by `str`) or each checked against the schema every extra key must match.
fn unexpected(
    additional: &Additional,
    properties: &[(&str, Schema)],
    pairs: &[(Value, Value)],
    path: &mut Vec<Value>,
    out: &mut Vec<(Vec<Value>, String)>,
) {
    let extras: Vec<&(Value, Value)> = pairs
        .iter()
        .filter(|(k, _)| !properties.iter().any(|(name, _)| k.as_str() == Some(name)))
        .collect();
    match additional {
        Additional::Any => {}
        Additional::Forbidden if extras.is_empty() => {}
        Additional::Forbidden => {
            let mut keys: Vec<&Value> = extras.iter().map(|(k, _)| k).collect();
            keys.sort_by_key(|k| str_of(k));
            let listed: Vec<String> = keys.iter().map(|k| repr(k)).collect();
            let verb = if keys.len() == 1 { "was" } else { "were" };
            let text = format!(
                "Additional properties are not allowed ({} {verb} unexpected)",
                listed.join(", ")
            );
            push(out, path, text);
        }
        Additional::Each(each) => {
            for (k, v) in extras {
                path.push(k.clone());
                validate(each, v, path, out);
                path.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests;
