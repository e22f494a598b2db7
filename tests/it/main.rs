//! The one integration-test binary: every test drives the real `printdex` binary.

mod cli;
mod context;
mod daemon;
mod get_diff;
mod get_reference;
mod git_project;
mod housekeeping;
mod http;
mod paging;
mod pz_docs;
mod pz_util;
mod reference;
mod reference_discovery;
mod resources;
mod search;
mod serve;
mod util;
mod watch;
