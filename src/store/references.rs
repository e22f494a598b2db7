//! The reference documents get_reference and the `dbprint:///reference/*` resources
//! serve, loaded once from where `config::reference` finds them: packaged files do not
//! change under a running server. Decoded as Python's `read_text` decodes.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::config::reference::{self, Document};
use crate::error::QueryError;

#[derive(Debug, Default)]
pub struct ReferenceDocs {
    /// `--reference-dir`: the dbprint package directory to read first.
    explicit: Option<PathBuf>,
    loaded: [OnceLock<Arc<str>>; 3],
}

impl ReferenceDocs {
    pub fn new(explicit: Option<PathBuf>) -> ReferenceDocs {
        ReferenceDocs {
            explicit,
            loaded: Default::default(),
        }
    }

    /// Where `document` would be read from, if anywhere.
    pub fn locate(&self, document: Document) -> Option<PathBuf> {
        reference::locate(self.explicit.as_deref(), document)
    }

    /// The documents found nowhere: get_reference cannot answer for them.
    pub fn missing(&self) -> Vec<Document> {
        Document::ALL
            .into_iter()
            .filter(|d| self.locate(*d).is_none())
            .collect()
    }

    /// The document's text, read on first use.
    pub fn text(&self, document: Document) -> Result<Arc<str>, QueryError> {
        let slot = &self.loaded[document.index()];
        if let Some(text) = slot.get() {
            return Ok(text.clone());
        }
        let path = self
            .locate(document)
            .ok_or_else(|| QueryError::NoReferenceDocument {
                document: document.name().to_string(),
            })?;
        let bytes = std::fs::read(&path).map_err(|e| QueryError::Other(e.to_string()))?;
        let text: Arc<str> =
            universal_newlines(decode_utf8(&bytes).map_err(QueryError::Other)?).into();
        // A concurrent first use may have read it too; either copy is the same text.
        Ok(slot.get_or_init(|| text).clone())
    }
}

/// Python's text-mode read: `\r\n` and lone `\r` become `\n`.
fn universal_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// UTF-8 decoding, failing with the message Python's `read_text` raises.
fn decode_utf8(bytes: &[u8]) -> Result<String, String> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let at = e.valid_up_to();
            let (len, reason) = match e.error_len() {
                None => (bytes.len() - at, "unexpected end of data"),
                Some(n) if (0x80..0xc2).contains(&bytes[at]) || bytes[at] > 0xf4 => {
                    (n, "invalid start byte")
                }
                Some(n) => (n, "invalid continuation byte"),
            };
            Err(if len == 1 {
                format!(
                    "'utf-8' codec can't decode byte 0x{:02x} in position {at}: {reason}",
                    bytes[at]
                )
            } else {
                format!(
                    "'utf-8' codec can't decode bytes in position {at}-{}: {reason}",
                    at + len - 1
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_errors_read_as_python_words_them() {
        assert_eq!(
            decode_utf8(b"ab\xff").unwrap_err(),
            "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"
        );
        assert_eq!(
            decode_utf8(b"\xe2\x82x").unwrap_err(),
            "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"
        );
        assert_eq!(
            decode_utf8(b"a\xe2\x82").unwrap_err(),
            "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data"
        );
    }
}
