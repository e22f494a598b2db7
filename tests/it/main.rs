//! The one integration-test binary: every test drives the real `printdex` binary.

mod get_reference;
mod paging;
mod pz_docs;
mod pz_util;
mod reference;
mod serve;
mod util;
