//! The fault matrix of issue 16: each fault a hostile environment can cause, then the
//! answers that must still come, equal to a fresh index's.
//!
//! - `wire`: stdio framing and the `/mcp` sessions (items 7 and 8).
//! - `aliases`: YAML alias structures that expand far beyond their text (item 6).
//! - `index`: a damaged, locked, lost or unusable index location (items 1 to 5).

mod aliases;
mod index;
mod wire;
