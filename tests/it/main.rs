//! The one integration-test binary: every test drives the real `printdex` binary.

mod reference;
mod resources;
mod util;
