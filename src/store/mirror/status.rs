//! What a stored file row says its file parsed as (`files.parse_status`): one spelling per
//! outcome, read and written only through `ParseStatus`.

use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A stored file's parse outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseStatus {
    /// YAML, stored whole in `parsed`.
    Ok,
    /// YAML read in pieces: `parsed` holds the document with its list emptied, the items
    /// are in `file_items` under the row's hash.
    Split,
    /// The YAML did not parse; `parse_error` holds why.
    YamlError,
    /// Reading or constructing failed otherwise; `parse_error` holds why.
    OtherError,
    /// Not a YAML kind: only its identity and hash are kept.
    Text,
    /// Prose (a table's description.md): `parsed` holds the text as written, not JSON,
    /// since only find reads it.
    Prose,
    /// No file there.
    Absent,
}

impl ParseStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            ParseStatus::Ok => "ok",
            ParseStatus::Split => "split",
            ParseStatus::YamlError => "yaml_error",
            ParseStatus::OtherError => "other_error",
            ParseStatus::Text => "text",
            ParseStatus::Prose => "prose",
            ParseStatus::Absent => "absent",
        }
    }

    /// A stored spelling; one this version does not write reads as absent (the file is
    /// read again), since the mirror is only a cache.
    pub fn from_stored(text: &str) -> ParseStatus {
        match text {
            "ok" => ParseStatus::Ok,
            "split" => ParseStatus::Split,
            "yaml_error" => ParseStatus::YamlError,
            "other_error" => ParseStatus::OtherError,
            "text" => ParseStatus::Text,
            "prose" => ParseStatus::Prose,
            _ => ParseStatus::Absent,
        }
    }
}

impl ToSql for ParseStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for ParseStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        value.as_str().map(ParseStatus::from_stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_as_written() {
        use ParseStatus::*;
        for status in [Ok, Split, YamlError, OtherError, Text, Prose, Absent] {
            assert_eq!(ParseStatus::from_stored(status.as_str()), status);
        }
        assert_eq!(ParseStatus::from_stored("unknown"), Absent);
    }
}
