//! The one integration-test binary: every test drives the real `printdex` binary.

mod get_reference;
mod http;
mod paging;
mod reference;
mod resources;
mod search;
mod serve;
mod util;
mod watch;
