//! The harness of the integration tests, one copy of each helper: a child server driven
//! over stdio (`printdex serve` and, through `PzClient`, `printdex pz serve`) or over
//! HTTP, a whole session run to its end, one-shot commands, and fixture copies.
// Not every test module uses every helper, nor every name of the harness's API.
#![allow(dead_code, unused_imports)]

mod files;
mod http;
mod process;
mod pz;
mod session;
mod stdio;

pub use files::{
    bare_manifest, bare_project, copy_dir, fixture_copy, fixtures, library, relative_files,
    rust_sources, write_atomically,
};
pub use http::{
    initialize, initialized, legacy_session, tools_list, HttpServer, Reply as HttpReply, Sse,
};
pub use process::{
    bin, in_own_mount_namespace, run, send_signal, serve_debug_logged, Process, Ran, EXIT_WITHIN,
};
pub use pz::{pz_command, PzClient, PZ_PROTOCOL_VERSION};
pub use session::{first_difference, session, tool_call, without_age_days, Session};
pub use stdio::{
    all_markdown_pages, all_pages, is_answer_to, Server, ANSWER_WITHIN, NO_HANDSHAKE,
    PROTOCOL_VERSION,
};
