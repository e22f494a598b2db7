//! YAML exactly as PyYAML reads it: libyaml's tokens (the scanner of
//! `unsafe-libyaml`, a mechanical port of libyaml 0.2.5), libyaml 0.2.6's
//! parser (ported here, as the reference bundles 0.2.6), composed and
//! resolved with PyYAML's SafeLoader rules (YAML 1.1 implicit resolvers,
//! SafeConstructor).
//!
//! Where Python's objects have no `Value` of their own, the nearest is used:
//! `!!set` becomes a `Map` whose values are all `Null`, and `!!omap` /
//! `!!pairs` (lists of 2-tuples) become `Seq`s of 2-item `Seq`s. A collection
//! an alias reaches is one shared allocation, as PyYAML's is one object: an
//! alias structure costs what its text holds, whatever it expands to.
//!
//! Known differences from the reference, all far from what print files
//! hold: a collection that contains itself through an alias (Python builds
//! a cyclic object) fails with `LoadError::Other`; integers of more than
//! 2^18 bits in base 2, 8 or 16 are refused.

mod compose;
mod construct;
pub mod emit;
mod error;
mod events;
#[allow(unsafe_code)] // the one binding to `unsafe-libyaml`'s scanner
mod libyaml;
mod parser;
mod scalars;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::value::pydict::{Key, PyDict};
use crate::value::Value;

/// Why a text did not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// A `yaml.YAMLError`: the text is `str(exc)`, PyYAML's MarkedYAMLError
    /// rendering (context, marks, problem). Callers render it as
    /// `{path}: YAML parse error: {text}`.
    #[error("{0}")]
    Yaml(String),
    /// Any other exception the constructor raises (e.g. `ValueError: day is
    /// out of range for month` for `2024-02-30`); the text is `str(exc)`.
    #[error("{0}")]
    Other(String),
}

/// `yaml.load(text, Loader=yaml.CSafeLoader)`: the only document, `Null` for
/// an empty stream. `text` is the `str` Python would hold, i.e. already
/// decoded and with universal newlines applied if it came from a text-mode
/// read.
pub fn load(text: &str) -> Result<Value, LoadError> {
    let doc = compose::compose(text)?;
    construct::construct(doc)
}

/// [`load`] of a mapping that holds a long list under `key`, without ever holding the
/// list whole: each item goes to `item` as soon as it is built, in order, and the mapping
/// comes back with `key` bound to an empty list (in its own place). `item` answers whether
/// to go on.
///
/// `None` when the text is not of that plain shape (anchors or aliases, tags on the root
/// or the list, `key` twice, a merge key in the root), does not load, or `item` stopped:
/// the caller drops the items it was given and uses [`load`], which gives the exact value
/// or error.
pub fn load_split(text: &str, key: &str, item: &mut dyn FnMut(Value) -> bool) -> Option<Value> {
    // An item that does not construct stops the split, which then answers `None`.
    let header = compose::compose_split(text, key, compose::Shape::List, &mut |doc| {
        construct::construct(doc).is_ok_and(&mut *item)
    })?;
    construct::construct(header).ok()
}

/// [`load`] of a mapping whose value under `key` is a large mapping (a manifest's
/// `tables`), built one entry at a time: the composed nodes of the whole text (several
/// times the size of the value they make) are never held at once. The same value as
/// [`load`] or the same error: a text of another shape, or one this cannot build
/// faithfully (anchors or aliases, a tag on the root or on that mapping, a merge key in
/// either, `key` twice, a NaN key), is loaded whole.
pub fn load_keyed(text: &str, key: &str) -> Result<Value, LoadError> {
    match keyed_split(text, key) {
        Some(value) => Ok(value),
        None => load(text),
    }
}

/// [`load_keyed`] when it builds the value entry by entry; `None` when it declines.
fn keyed_split(text: &str, key: &str) -> Option<Value> {
    let mut entries: PyDict<Value> = PyDict::new();
    let header = compose::compose_split(text, key, compose::Shape::Map, &mut |doc| {
        let Ok(Value::Map(entry)) = construct::construct(doc) else {
            return false;
        };
        let Ok([(k, v)]) = <[(Value, Value); 1]>::try_from(Arc::unwrap_or_clone(entry)) else {
            return false;
        };
        // Python tells NaN keys apart by object; one entry's construction cannot.
        if matches!(k, Value::Float(f) if f.is_nan()) {
            return false;
        }
        entries.insert(
            Key {
                value: k,
                nan_id: 0,
            },
            v,
        );
        true
    })
    .and_then(|doc| construct::construct(doc).ok());
    let Some(Value::Map(mut header)) = header else {
        return None;
    };
    let built: Vec<(Value, Value)> = entries
        .entries
        .into_iter()
        .map(|(k, v)| (k.value, v))
        .collect();
    // Without `key` nothing was handed out, and the header is the whole document.
    if let Some((_, slot)) = Arc::make_mut(&mut header)
        .iter_mut()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
    {
        *slot = Value::Map(Arc::new(built));
    }
    Some(Value::Map(header))
}
