//! pz's errors, as its envelope carries them: `PzError` (one entry of `errors[]`) and every
//! way a docs request can fail (`DocsError`), with pz's codes and hints. The envelope writer
//! (`render::pz_envelope`) spells them; `mcp::pz` sends them.

/// One entry of `errors[]`: pz's `PzError`, whose JSON keys are `code`, `message`, `file`?,
/// `line`?, `next_step` (JSON null when there is no hint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PzError {
    pub code: &'static str,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub next_step: Option<String>,
}

impl PzError {
    pub fn new(code: &'static str, message: impl Into<String>, next_step: &str) -> PzError {
        PzError {
            code,
            message: message.into(),
            file: None,
            line: None,
            next_step: Some(next_step.to_string()),
        }
    }
}

pub const PZ0607_NEXT_STEP: &str = "The documentation tools need network access; every other pz tool works offline. Set PZ_DOCS_URL to a reachable mirror of the site if this machine cannot reach the public one.";
pub const EMPTY_QUERY_MESSAGE: &str = "search query was empty";
pub const EMPTY_QUERY_NEXT_STEP: &str =
    "Pass a query \u{2014} a term, an error code like PZ0214, or an option name like force_universal.";
pub const UNKNOWN_SLUG_NEXT_STEP: &str =
    "Call pz_docs_list for the available slugs, or pz_docs_search to find one by keyword.";
/// pz's PZ0610 hint is not known; this one is ours.
pub const PZ0610_NEXT_STEP: &str = "The documentation source served a file larger than pz accepts. Point PZ_DOCS_URL at a mirror that serves the site's own llms.txt and llms-full.txt.";

/// Every way a docs request can fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocsError {
    /// PZ0607: the source could not be read (and no synced corpus stands in for it).
    /// `cause` says why in a person's words (`printdex pz docs sync` prints it); pz's
    /// message carries only the URL.
    Unreachable { url: String, cause: String },
    /// PZ0610: a file over the cap.
    TooLarge { url: String, limit: u64, size: u64 },
    /// PZ0608: an empty query.
    EmptyQuery,
    /// PZ0608: no page carries this slug (as received).
    UnknownSlug { slug: String },
    /// The docs index could not be written or read: not a bad argument, a local fault.
    Store {
        type_name: &'static str,
        message: String,
    },
}

impl DocsError {
    pub fn store(type_name: &'static str, e: impl std::fmt::Display) -> DocsError {
        DocsError::Store {
            type_name,
            message: e.to_string(),
        }
    }

    /// The envelope error, or `None` for a failure only the PZ0609 backstop may report.
    pub fn to_pz(&self) -> Option<PzError> {
        Some(match self {
            DocsError::Unreachable { url, .. } => PzError::new(
                "PZ0607",
                format!("could not reach the documentation at {url}"),
                PZ0607_NEXT_STEP,
            ),
            DocsError::TooLarge { url, limit, size } => PzError::new(
                "PZ0610",
                format!("the documentation response from {url} is over pz's {limit}-byte limit ({size} bytes and counting)"),
                PZ0610_NEXT_STEP,
            ),
            DocsError::EmptyQuery => {
                PzError::new("PZ0608", EMPTY_QUERY_MESSAGE, EMPTY_QUERY_NEXT_STEP)
            }
            DocsError::UnknownSlug { slug } => PzError::new(
                "PZ0608",
                format!("no documentation page with slug '{slug}'"),
                UNKNOWN_SLUG_NEXT_STEP,
            ),
            DocsError::Store { .. } => return None,
        })
    }
}

impl std::fmt::Display for DocsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_pz() {
            Some(e) => write!(f, "{}: {}", e.code, e.message),
            None => match self {
                DocsError::Store { type_name, message } => write!(f, "{type_name}: {message}"),
                _ => Ok(()),
            },
        }
    }
}

impl std::error::Error for DocsError {}
