//! The one integration-test binary: every test drives the real `printdex` binary.

mod get_diff;
mod get_reference;
mod paging;
mod reference;
mod resources;
mod serve;
mod util;
mod watch;
