//! The one integration-test binary: the tests drive the real `printdex` binary (and one
//! reads the sources for the stage order).

mod architecture;
mod boundaries;
mod cli;
mod client_config;
mod code_shape;
mod context;
mod daemon;
mod faults;
mod find;
mod get_diff;
mod get_reference;
mod git_project;
mod head;
mod housekeeping;
mod http;
#[cfg(unix)]
mod kept;
mod paging;
mod plan_joins;
mod pz_docs;
mod pz_project;
mod pz_util;
mod reference;
mod reference_discovery;
mod resources;
mod search;
mod serve;
mod shared_index;
#[cfg(unix)]
mod shared_server;
#[cfg(unix)]
mod soak;
mod util;
mod validate_sql;
mod watch;
