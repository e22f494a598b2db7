//! .NET string conventions pz's docs code relies on, as the docs oracle reproduces them:
//! `char.IsWhiteSpace`, `Trim`, `ToLowerInvariant`, OrdinalIgnoreCase, regex `\w`, UTF-16
//! lengths and ordinal (UTF-16) ordering.

use std::cmp::Ordering;

use super::unicode_tables::{LOWER, UPPER, WORD};

/// The Unicode version of the oracle's tables (and so of these rules).
pub const UNICODE_VERSION: &str = super::unicode_tables::UNICODE_VERSION;

/// `char.IsWhiteSpace` (also .NET regex `\s`). Unlike Python's `isspace`, U+001C..U+001F are not.
pub fn is_ws(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// The same set as a regex character class body.
/// The characters of [`is_ws`] as a regex character class body.
pub const WS_CLASS: &str =
    r"\t\n\x0B\x0C\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

/// `Trim()`: [`is_ws`] cut from both ends.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_ws)
}

/// `TrimStart()`.
pub fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_ws)
}

/// `string.IsNullOrWhiteSpace`.
pub fn is_null_or_white_space(s: Option<&str>) -> bool {
    s.is_none_or(|s| s.chars().all(is_ws))
}

fn lookup(table: &[(u32, u32)], c: char) -> char {
    match table.binary_search_by_key(&(c as u32), |&(from, _)| from) {
        Ok(i) => char::from_u32(table[i].1).unwrap_or(c),
        Err(_) => c,
    }
}

/// `ToLowerInvariant` of one character: its simple mapping, or itself.
pub fn lower_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    lookup(LOWER, c)
}

/// `ToUpperInvariant` of one character: its simple mapping, or itself.
pub fn upper_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    lookup(UPPER, c)
}

/// `ToLowerInvariant`: character by character, no context rules (no final sigma).
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars().map(lower_char).collect()
}

/// The key OrdinalIgnoreCase compares by.
pub fn upper(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    s.chars().map(upper_char).collect()
}

/// `string.Equals(a, b, StringComparison.OrdinalIgnoreCase)`.
pub fn eq_ignore_case(a: &str, b: &str) -> bool {
    a.chars().map(upper_char).eq(b.chars().map(upper_char))
}

/// .NET regex `\w` (categories L*, Mn, Nd, Pc) on one character. .NET sees a non-BMP
/// character as a surrogate pair, and neither half is `\w`.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let cp = c as u32;
    if cp > 0xFFFF {
        return false;
    }
    WORD.binary_search_by(|&(lo, hi)| {
        if hi < cp {
            Ordering::Less
        } else if lo > cp {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
    .is_ok()
}

/// `s.Length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The first `units` UTF-16 code units of `s`. When the cut falls inside a surrogate pair,
/// the high surrogate that .NET's `Substring` would keep is returned apart.
pub fn utf16_prefix(s: &str, units: usize) -> (&str, Option<u16>) {
    let mut used = 0usize;
    for (i, c) in s.char_indices() {
        let n = c.len_utf16();
        if used + n > units {
            if used < units {
                let mut buf = [0u16; 2];
                c.encode_utf16(&mut buf);
                return (&s[..i], Some(buf[0]));
            }
            return (&s[..i], None);
        }
        used += n;
    }
    (s, None)
}

/// `File.ReadAllText`/`StreamReader`: a UTF-8 byte-order mark is dropped and invalid bytes
/// become U+FFFD. (A UTF-16/32 byte-order mark would switch .NET's decoder; such files are
/// read as UTF-8 here, a difference far from real projects.)
pub fn read_all_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Ordinal string order as .NET compares strings: by UTF-16 code unit.
pub fn ordinal_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_dotnets() {
        assert!(is_ws('\u{85}') && is_ws('\u{3000}'));
        assert!(!is_ws('\u{1c}') && !is_ws('\u{200b}'));
        assert!(is_null_or_white_space(Some(" \t\n")));
        assert!(!is_null_or_white_space(Some("\u{1f}")));
    }

    #[test]
    fn utf16_cuts() {
        assert_eq!(utf16_len("a\u{10400}"), 3);
        assert_eq!(utf16_prefix("a\u{10400}b", 2), ("a", Some(0xD801)));
        assert_eq!(utf16_prefix("a\u{10400}b", 3), ("a\u{10400}", None));
        assert_eq!(ordinal_cmp("\u{ff61}", "\u{10400}"), Ordering::Greater);
    }

    #[test]
    fn files_decode_as_read_all_text() {
        assert_eq!(read_all_text(b"\xEF\xBB\xBFx\xFF"), "x\u{FFFD}");
        assert_eq!(read_all_text(b"a\xEF\xBB\xBF"), "a\u{FEFF}");
    }
}
