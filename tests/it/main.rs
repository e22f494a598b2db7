//! The one integration-test binary: the tests drive the real `printdex` binary (and one
//! reads the sources for the stage order).

mod architecture;
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
