//! The few Python `repr`s that appear inside exception texts.

/// `repr(s)` for a `str`. Printability of non-ASCII characters follows
/// `str.isprintable` for the categories that matter in practice (controls,
/// format characters, separators, surrogates, private use); unassigned code
/// points are treated as printable.
pub(crate) fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x7f => out.push(c),
            c if is_printable(c) => out.push(c),
            c => out.push_str(&escape_code_point(c)),
        }
    }
    out.push(quote);
    out
}

/// `%.200R` in a C-level format: the repr cut to 200 characters.
pub(crate) fn repr_str_200(s: &str) -> String {
    let r = repr_str(s);
    match r.char_indices().nth(200) {
        Some((i, _)) => r[..i].to_string(),
        None => r,
    }
}

/// How a codec error names one character: `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub(crate) fn escape_code_point(c: char) -> String {
    let n = c as u32;
    if n <= 0xff {
        format!("\\x{n:02x}")
    } else if n <= 0xffff {
        format!("\\u{n:04x}")
    } else {
        format!("\\U{n:08x}")
    }
}

fn is_printable(c: char) -> bool {
    let n = c as u32;
    !matches!(n,
        0x80..=0xa0
        | 0xad
        | 0x600..=0x605
        | 0x61c
        | 0x6dd
        | 0x70f
        | 0x890..=0x891
        | 0x8e2
        | 0x1680
        | 0x180e
        | 0x2000..=0x200f
        | 0x2028..=0x202f
        | 0x205f..=0x206f
        | 0x3000
        | 0xd800..=0xf8ff
        | 0xfeff
        | 0xfff0..=0xfffb
        | 0xfffe..=0xffff
        | 0x110bd
        | 0x110cd
        | 0x13430..=0x1343f
        | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a
        | 0xe0000..=0xe0fff
        | 0xf0000..=0x10ffff)
}

/// `repr(datetime.timedelta(seconds=total))` as 3.13 prints it.
pub(crate) fn repr_timedelta_seconds(total: i64) -> String {
    let days = total.div_euclid(86_400);
    let seconds = total.rem_euclid(86_400);
    let mut parts = Vec::new();
    if days != 0 {
        parts.push(format!("days={days}"));
    }
    if seconds != 0 {
        parts.push(format!("seconds={seconds}"));
    }
    if parts.is_empty() {
        "datetime.timedelta(0)".to_string()
    } else {
        format!("datetime.timedelta({})", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs() {
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr_str("t\n\x01é\u{a0}"), "'t\\n\\x01é\\xa0'");
        assert_eq!(repr_timedelta_seconds(86_400), "datetime.timedelta(days=1)");
        assert_eq!(
            repr_timedelta_seconds(-(99 * 3600 + 99 * 60)),
            "datetime.timedelta(days=-5, seconds=69660)"
        );
    }
}
