//! The one integration-test binary: every test drives the real `printdex` binary.

mod get_reference;
mod reference;
mod util;
