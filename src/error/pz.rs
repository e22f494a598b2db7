//! pz's errors, as its envelope carries them: every code printdex raises (`PzCode`, the one
//! table of them), `PzError` (one entry of `errors[]`), the fixed texts and next steps, and
//! every way a docs request can fail (`DocsError`). The envelope writer
//! (`render::pz_envelope`) spells them; `mcp::pz` sends them.

/// Declares `PzCode`: each variant named as pz's `PzErrorCode` names it (the error table
/// of pz's documentation), with its wire spelling.
macro_rules! pz_codes {
    ($($(#[$doc:meta])* $name:ident = $code:literal,)*) => {
        /// A pz error or warning code: the ones printdex raises, no others.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum PzCode {
            $($(#[$doc])* $name,)*
        }

        impl PzCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [PzCode] = &[$(PzCode::$name,)*];

            /// The code as the envelope spells it: `PZ0101`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(PzCode::$name => $code,)*
                }
            }
        }
    };
}

pz_codes! {
    YamlShape = "PZ0101",
    VarsInvalid = "PZ0102",
    UndeclaredEnvVar = "PZ0103",
    TemplateError = "PZ0104",
    DuplicateName = "PZ0110",
    SidecarUnknownPipeline = "PZ0111",
    RemovedInputField = "PZ0112",
    InvalidCheck = "PZ0113",
    InvalidEngineConfig = "PZ0120",
    RetryConfigInvalid = "PZ0121",
    ConcurrencyConfigInvalid = "PZ0122",
    RetentionConfigInvalid = "PZ0123",
    StateBackendConfigInvalid = "PZ0124",
    StateConnectionInvalid = "PZ0125",
    DriftPolicyInvalid = "PZ0126",
    /// A warning: an `entities:` option holding `${VAR}`, which pz never substitutes
    /// there. pz's name for it is not in its table; this one is ours.
    UninterpolatedEntityOption = "PZ0133",
    UnresolvedRef = "PZ0201",
    Cycle = "PZ0202",
    EphemeralChain = "PZ0204",
    ChecksOnEphemeral = "PZ0205",
    SinkBindingConflict = "PZ0206",
    InvalidSinkCall = "PZ0208",
    MergeRequiresKeys = "PZ0209",
    KeysWithoutMerge = "PZ0211",
    CursorInvalid = "PZ0212",
    IncrementalAppendUnacknowledged = "PZ0214",
    FilesPerPartitionInvalid = "PZ0222",
    DeadLeafPipeline = "PZ0223",
    DescendingCursorTruncatable = "PZ0229",
    RateLimitConfigInvalid = "PZ0318",
    ConnectionCheckFailed = "PZ0330",
    RetiredReadSurface = "PZ0332",
    RetiredWriteSurface = "PZ0333",
    SyncModeInvalid = "PZ0334",
    IncompatiblePair = "PZ0335",
    CdcConsentMissing = "PZ0336",
    CdcDeleteRouteInvalid = "PZ0337",
    WriteSurfaceSplit = "PZ0341",
    EntityNameInvalid = "PZ0344",
    RetiredConnectionDirectory = "PZ0346",
    RetiredOutputsBlock = "PZ0347",
    RetiredEntityQualifier = "PZ0348",
    SourceReadByMultiplePipelines = "PZ0349",
    FeedsRemoved = "PZ0352",
    NoPriorRun = "PZ0502",
    StateStoreUnavailable = "PZ0518",
    McpPathEscapesProject = "PZ0606",
    McpDocsUnavailable = "PZ0607",
    McpDocsRequestInvalid = "PZ0608",
    McpToolFailed = "PZ0609",
    /// A documentation file over pz's size cap. pz's name for it is not in its table;
    /// this one is ours.
    McpDocsTooLarge = "PZ0610",
}

impl std::fmt::Display for PzCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code compares with its spelling, so a test can say `assert_eq!(e.code, "PZ0101")`.
impl PartialEq<&str> for PzCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One entry of `errors[]`: pz's `PzError`, whose JSON keys are `code`, `message`, `file`?,
/// `line`?, `next_step` (JSON null when there is no hint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PzError {
    pub code: PzCode,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub next_step: Option<String>,
}

impl PzError {
    pub fn new(code: PzCode, message: impl Into<String>, next_step: &str) -> PzError {
        PzError {
            code,
            message: message.into(),
            file: None,
            line: None,
            next_step: Some(next_step.to_string()),
        }
    }
}

// The fixed texts and next steps: those a code always carries, whoever raises it.

pub const PZ0607_NEXT_STEP: &str = "The documentation tools need network access; every other pz tool works offline. Set PZ_DOCS_URL to a reachable mirror of the site if this machine cannot reach the public one.";
pub const EMPTY_QUERY_MESSAGE: &str = "search query was empty";
pub const EMPTY_QUERY_NEXT_STEP: &str =
    "Pass a query \u{2014} a term, an error code like PZ0214, or an option name like force_universal.";
pub const UNKNOWN_SLUG_NEXT_STEP: &str =
    "Call pz_docs_list for the available slugs, or pz_docs_search to find one by keyword.";
/// pz's PZ0610 hint is not known; this one is ours.
pub const PZ0610_NEXT_STEP: &str = "The documentation source served a file larger than pz accepts. Point PZ_DOCS_URL at a mirror that serves the site's own llms.txt and llms-full.txt.";
/// The PZ0609 backstop's next step. pz's asks for a report; this server is printdex's, so it
/// says whose defect it is.
pub const PZ0609_NEXT_STEP: &str = "This is a defect in the server (printdex's pz surface), not a bad argument: report it with this message. Retrying the same call will fail the same way.";
/// PZ0609 for a tool printdex passes to pz, when pz did not answer.
pub const PZ0609_CHILD_NEXT_STEP: &str = "printdex passes this tool to pz (`pz mcp`), and pz did not answer; its own messages are on printdex's stderr. The next call starts pz again.";

/// The PZ0609 backstop: `'{tool}' failed: {type}: {message}`.
pub fn tool_failed(tool: &str, type_name: &str, message: &str, next_step: &str) -> PzError {
    PzError::new(
        PzCode::McpToolFailed,
        format!("'{tool}' failed: {type_name}: {message}"),
        next_step,
    )
}

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
                PzCode::McpDocsUnavailable,
                format!("could not reach the documentation at {url}"),
                PZ0607_NEXT_STEP,
            ),
            DocsError::TooLarge { url, limit, size } => PzError::new(
                PzCode::McpDocsTooLarge,
                format!("the documentation response from {url} is over pz's {limit}-byte limit ({size} bytes and counting)"),
                PZ0610_NEXT_STEP,
            ),
            DocsError::EmptyQuery => {
                PzError::new(
                PzCode::McpDocsRequestInvalid,
                EMPTY_QUERY_MESSAGE,
                EMPTY_QUERY_NEXT_STEP,
            )
            }
            DocsError::UnknownSlug { slug } => PzError::new(
                PzCode::McpDocsRequestInvalid,
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
