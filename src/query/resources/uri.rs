//! Resource URIs: what a `dbprint://` URI names (`parse_uri`) and the page and version its
//! query asks for (`page_query`), with Python's `unquote_plus` for the query's fields.

use super::{CONNECTION_KINDS, REFERENCE_DOCUMENTS, TABLE_KINDS};
use crate::error::QueryError;
use percent_encoding::percent_decode;

/// What a URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    Reference(&'static str),
    Resource {
        connection: String,
        kind: &'static str,
        /// `None` for a connection-grain kind.
        fqn: Option<String>,
    },
}

/// `parse_uri`: `dbprint:///reference/<doc>` (checked first, so an empty authority is never
/// a connection), `dbprint://<conn>/<kind>`, or `dbprint://<conn>/<segments...>/<kind>` whose
/// middle segments join with `.` into the FQN. No percent-decoding of the path.
pub fn parse_uri(uri: &str) -> Result<Ref, QueryError> {
    let malformed = || QueryError::MalformedUri(uri.to_string());
    let rest = uri.strip_prefix("dbprint://").ok_or_else(malformed)?;
    if rest.is_empty() {
        return Err(malformed());
    }
    let parts: Vec<&str> = rest.split('/').collect();
    if parts[0].is_empty() {
        if parts.len() == 3 && parts[1] == "reference" {
            if let Some(doc) = REFERENCE_DOCUMENTS.iter().find(|d| **d == parts[2]) {
                return Ok(Ref::Reference(doc));
            }
        }
        return Err(malformed());
    }
    let connection = parts[0].to_string();
    if parts.len() == 2 {
        if let Some(kind) = CONNECTION_KINDS.iter().find(|k| **k == parts[1]) {
            return Ok(Ref::Resource {
                connection,
                kind,
                fqn: None,
            });
        }
    }
    if parts.len() >= 3 {
        let last = parts[parts.len() - 1];
        if let Some(kind) = TABLE_KINDS.iter().find(|k| **k == last) {
            return Ok(Ref::Resource {
                connection,
                kind,
                fqn: Some(parts[1..parts.len() - 1].join(".")),
            });
        }
    }
    Err(malformed())
}

/// A read's URI split into the bare URI, the page asked for (as written) and the version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageQuery {
    pub bare: String,
    pub page: String,
    pub version: Option<String>,
}

/// `_page_query`: the query after the first `?` read as `parse_qs(strict_parsing=True,
/// keep_blank_values=True)`; keys other than `page`/`version`, a repeated key, or a field
/// without `=` make the URI malformed. An empty query is page 1.
pub fn page_query(uri: &str) -> Result<PageQuery, QueryError> {
    let (bare, query) = match uri.split_once('?') {
        Some((bare, query)) => (bare, query),
        None => (uri, ""),
    };
    let mut page = None;
    let mut version = None;
    if !query.is_empty() {
        let malformed = || QueryError::MalformedUri(uri.to_string());
        for field in query.split('&') {
            let (name, value) = field.split_once('=').ok_or_else(malformed)?;
            let slot = match unquote_plus(name).as_str() {
                "page" => &mut page,
                "version" => &mut version,
                _ => return Err(malformed()),
            };
            if slot.is_some() {
                return Err(malformed());
            }
            *slot = Some(unquote_plus(value));
        }
    }
    Ok(PageQuery {
        bare: bare.to_string(),
        page: page.unwrap_or_else(|| "1".into()),
        version,
    })
}

/// `urllib.parse.unquote_plus` (UTF-8, errors='replace'): `+` is a space; `%XX` runs decode
/// as UTF-8 with U+FFFD for invalid bytes; a `%` not followed by two hex digits stays.
pub(super) fn unquote_plus(text: &str) -> String {
    let text = text.replace('+', " ");
    if !text.contains('%') {
        return text;
    }
    // Python decodes each ASCII run separately; non-ASCII characters pass through.
    let mut out = String::new();
    let mut run: Vec<u8> = Vec::new();
    let flush = |run: &mut Vec<u8>, out: &mut String| {
        out.push_str(&percent_decode(run).decode_utf8_lossy());
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii() {
            run.push(c as u8);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}
