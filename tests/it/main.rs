//! The one integration-test binary: every test drives the real `printdex` binary.

// Shared helpers: not every test module uses every one.
#[allow(dead_code)]
mod util;

mod get_reference;
