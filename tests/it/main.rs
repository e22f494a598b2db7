//! The one integration-test binary: every test drives the real `printdex` binary.

mod context;
mod daemon;
mod get_diff;
mod get_reference;
mod http;
mod paging;
mod pz_docs;
mod pz_util;
mod reference;
mod resources;
mod search;
mod serve;
mod util;
mod validate_sql;
mod watch;
