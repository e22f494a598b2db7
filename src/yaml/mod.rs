//! YAML exactly as PyYAML reads it: libyaml's events (via `unsafe-libyaml`, a
//! mechanical port of libyaml 0.2.5) composed and resolved with PyYAML's
//! SafeLoader rules (YAML 1.1 implicit resolvers, SafeConstructor).

pub mod emit;
pub mod value;

pub use value::{Date, DateTime, Value};

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

/// `yaml.safe_load(text)` (CSafeLoader): the first document, `Null` for an
/// empty stream.
pub fn load(text: &str) -> Result<Value, LoadError> {
    let _ = text;
    Err(LoadError::Other("yaml loader not implemented yet".into()))
}
