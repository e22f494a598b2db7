//! The one integration-test binary: every test drives the real `printdex` binary.

mod paging;
mod get_reference;
mod reference;
mod serve;
mod util;
