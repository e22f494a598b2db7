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
    let header = compose::compose_split(text, key, &mut |doc| {
        construct::construct(doc).is_ok_and(&mut *item)
    })?;
    construct::construct(header).ok()
}
