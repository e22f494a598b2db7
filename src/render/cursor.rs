//! Cursors: opaque tokens that resume a call, pinned to the tool, its validated
//! arguments and the content versions (blake3) of every file its reply read (`Pins`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::error::QueryError;
use crate::query::pins::Pins;
use compat::py::json_compact;
use compat::value::Value;

/// Positions are zero-padded so a page measured with a placeholder cursor measures
/// the same as with the real one.
const POSITION_DIGITS: usize = 10;
const DIGEST_CHARS: usize = 16;

/// What a cursor continues.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    args_digest: String,
    files_digest: String,
}

impl Call {
    /// `arguments` are the validated (case-folded) arguments; `cursor` is left out.
    /// `files` are (path, content version) pairs of every file the reply read.
    pub fn new(tool: &str, arguments: &Value, files: &[(String, String)]) -> Call {
        Call::pinned(tool, arguments, &Pins::of(files))
    }

    /// [`Call::new`] over the files an answer pinned.
    pub fn pinned(tool: &str, arguments: &Value, pins: &Pins) -> Call {
        Call {
            tool: tool.to_string(),
            args_digest: arguments_digest(arguments),
            files_digest: pins.digest().to_string(),
        }
    }

    /// The cursor resuming this call at `position`.
    pub fn cursor(&self, position: usize) -> String {
        let token = format!(
            "{{\"t\":{},\"p\":\"{:0width$}\",\"a\":\"{}\",\"f\":\"{}\"}}",
            json_compact(&Value::Str(self.tool.clone())),
            position,
            self.args_digest,
            self.files_digest,
            width = POSITION_DIGITS
        );
        URL_SAFE_NO_PAD.encode(token.as_bytes())
    }

    /// Where a call resumes: 0 without a cursor, else the cursor's position, or the
    /// exact error for a cursor this call did not issue.
    pub fn position(&self, cursor: Option<&str>) -> Result<usize, QueryError> {
        let Some(cursor) = cursor else { return Ok(0) };
        let malformed = || QueryError::MalformedCursor(cursor.to_string());
        let trimmed = cursor.trim_end_matches('=');
        let bytes = URL_SAFE_NO_PAD
            .decode(trimmed.as_bytes())
            .map_err(|_| malformed())?;
        let token: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| malformed())?;
        let field = |k: &str| {
            token
                .get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        let (Some(tool), Some(position), Some(args), Some(files)) =
            (field("t"), field("p"), field("a"), field("f"))
        else {
            return Err(malformed());
        };
        let index: usize = position.trim().parse().map_err(|_| malformed())?;
        if tool != self.tool || args != self.args_digest {
            return Err(QueryError::ForeignCursor(self.tool.clone()));
        }
        if files != self.files_digest {
            return Err(QueryError::StaleCursor(self.tool.clone()));
        }
        Ok(index)
    }
}

/// sha256 of `json.dumps(arguments, sort_keys=True, default=str)`, first 16 hex.
fn arguments_digest(arguments: &Value) -> String {
    let sorted = match arguments {
        Value::Map(pairs) => {
            let mut pairs: Vec<(Value, Value)> = pairs
                .iter()
                .filter(|(k, _)| k.as_str() != Some("cursor"))
                .cloned()
                .collect();
            pairs.sort_by(|a, b| a.0.as_str().unwrap_or("").cmp(b.0.as_str().unwrap_or("")));
            Value::map(pairs)
        }
        other => other.clone(),
    };
    let digest = Sha256::digest(json_compact(&sorted).as_bytes());
    format!("{digest:x}")[..DIGEST_CHARS].to_string()
}
