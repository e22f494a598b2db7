//! The fault matrix of issue 16: each fault a hostile environment can cause, then the
//! answers that must still come, equal to a fresh index's.
//!
//! - `wire`: stdio framing and the `/mcp` sessions (items 7 and 8).
//! - `aliases`: YAML alias structures that expand far beyond their text (item 6).
//! - `index`: a damaged, locked, lost or unusable index location (items 1 to 5).
//! - `writer`: the writer lock held by another process, live (read around or waited for)
//!   or stopped (a private index).
//! - `pz`: the same faults under `printdex pz serve`; `pz_shared`: two `pz serve` and one
//!   `serve` on one index and one directory.

mod aliases;
mod index;
mod pz;
mod pz_shared;
mod wire;
mod writer;
