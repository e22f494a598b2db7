//! The bottom of printdex's dependency graph: what the reference's Python (and pz's .NET)
//! would make of a text, reproduced byte for byte.
//!
//! - [`value`]: [`value::Value`], the Python object a loaded print file is, and the
//!   equality Python's dicts key it by;
//! - [`py`]: Python's text rules over it (`repr`, `str`, `json.dumps`, float repr, `round`,
//!   `fnmatch`, `==`, and the `str` methods with their Unicode tables);
//! - [`yaml`]: YAML as PyYAML's CSafeLoader reads it and as PyYAML / dbprint write it;
//! - [`dotnet`]: the .NET string and JSON conventions pz's code relies on.
//!
//! Imports go down only: `value` < `py` < `yaml`; `dotnet` stands apart.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod dotnet;
pub mod py;
pub mod value;
pub mod yaml;

#[cfg(test)]
mod layering;
