//! The text of PyYAML's exceptions, as `str(exc)` prints them when the input
//! was a `str` read by CSafeLoader (marks carry no snippet).

use super::events::Mark;
use crate::py::hex04;

/// Every text the reference loads is a Python `str`, which CParser names so.
const STREAM_NAME: &str = "<unicode string>";

/// PyYAML's MarkedYAMLError fields (ScannerError, ParserError,
/// ComposerError, ConstructorError all print alike).
#[derive(Debug, Clone, Default)]
pub(crate) struct MarkedError {
    pub context: Option<String>,
    pub context_mark: Option<Mark>,
    pub problem: Option<String>,
    pub problem_mark: Option<Mark>,
}

impl MarkedError {
    pub(crate) fn problem(problem: impl Into<String>, mark: Mark) -> Self {
        MarkedError {
            problem: Some(problem.into()),
            problem_mark: Some(mark),
            ..Default::default()
        }
    }

    pub(crate) fn with_context(
        context: impl Into<String>,
        context_mark: Mark,
        problem: impl Into<String>,
        problem_mark: Mark,
    ) -> Self {
        MarkedError {
            context: Some(context.into()),
            context_mark: Some(context_mark),
            problem: Some(problem.into()),
            problem_mark: Some(problem_mark),
        }
    }

    /// `MarkedYAMLError.__str__`: the context mark is left out when it is
    /// the problem mark's position.
    pub(crate) fn render(&self) -> String {
        let mut lines: Vec<String> = Vec::with_capacity(4);
        if let Some(c) = &self.context {
            lines.push(c.clone());
        }
        if let Some(cm) = self.context_mark {
            let same = match (&self.problem, self.problem_mark) {
                (Some(_), Some(pm)) => pm.line == cm.line && pm.column == cm.column,
                _ => false,
            };
            if !same {
                lines.push(mark_line(cm));
            }
        }
        if let Some(p) = &self.problem {
            lines.push(p.clone());
        }
        if let Some(pm) = self.problem_mark {
            lines.push(mark_line(pm));
        }
        lines.join("\n")
    }
}

/// CParser's `Mark.__str__` (one-based line and column, no snippet).
fn mark_line(m: Mark) -> String {
    format!(
        "  in \"{STREAM_NAME}\", line {}, column {}",
        m.line + 1,
        m.column + 1
    )
}

/// `ReaderError.__str__` for the integer character CParser passes.
pub(crate) fn reader_error(value: i32, reason: &str, offset: u64) -> String {
    format!(
        "unacceptable character #x{}: {reason}\n  in \"{STREAM_NAME}\", position {offset}",
        hex04(value)
    )
}
