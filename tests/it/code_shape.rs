//! The size rules of the brief, measured on every source file under `src/`: no function
//! over 120 lines, no block nested deeper than 6 inside a function, no file over 1,000
//! lines. A function's body is found by matching its braces, with comments, strings and
//! character literals blanked first so a brace inside one does not count.

use std::path::Path;

const MAX_FUNCTION_LINES: usize = 120;
const MAX_NESTING: usize = 6;
const MAX_FILE_LINES: usize = 1000;

/// Files allowed past `MAX_FILE_LINES`, each with the reason: generated tables only.
const LONG_FILES: &[(&str, &str)] = &[];

/// The byte length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) starting at `at`.
fn raw_string_len(text: &[u8], at: usize) -> Option<usize> {
    if at > 0 && (text[at - 1].is_ascii_alphanumeric() || text[at - 1] == b'_') {
        return None;
    }
    let mut i = at + usize::from(text[at] == b'b');
    if text.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = text[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    if text.get(i) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let end = text[i + 1..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(i + 1 + end + close.len() - at)
}

/// The byte length of a character literal starting at `at` (`'a'`, `'\n'`, `'\u{1F600}'`),
/// or `None` for a lifetime or a label.
fn char_literal_len(text: &[u8], at: usize) -> Option<usize> {
    let rest = &text[at + 1..];
    if rest.first() == Some(&b'\\') {
        // The escaped character, then up to the closing quote (`'\''` escapes a quote).
        let end = rest.iter().skip(2).position(|&c| c == b'\'')?;
        return Some(end + 4);
    }
    // One character of up to four UTF-8 bytes, then the closing quote.
    let width = match rest.first()? {
        c if *c < 0x80 => 1,
        c if *c >= 0xF0 => 4,
        c if *c >= 0xE0 => 3,
        _ => 2,
    };
    (rest.get(width) == Some(&b'\'')).then_some(width + 2)
}

/// The source with every comment, string and character literal replaced by spaces (line
/// breaks kept, so line numbers still hold).
fn code_only(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let skip = if rest.starts_with(b"//") {
            rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            block_comment_len(rest)
        } else if let Some(n) = (matches!(rest[0], b'r' | b'b'))
            .then(|| raw_string_len(bytes, i))
            .flatten()
        {
            n
        } else if rest[0] == b'"' {
            string_len(rest)
        } else if rest[0] == b'\'' {
            char_literal_len(bytes, i).unwrap_or(1)
        } else {
            1
        };
        if skip > 1 || matches!(rest[0], b'"' | b'\'') {
            blank(&mut out, i, i + skip);
        }
        i += skip;
    }
    out
}

fn block_comment_len(rest: &[u8]) -> usize {
    let (mut depth, mut i) = (0usize, 0);
    while i < rest.len() {
        if rest[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if rest[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    rest.len()
}

fn string_len(rest: &[u8]) -> usize {
    let mut i = 1;
    while i < rest.len() && rest[i] != b'"' {
        i += if rest[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// One function: its name, first line, length in lines and deepest block inside it.
struct Function {
    name: String,
    line: usize,
    lines: usize,
    nesting: usize,
}

/// Every `fn` with a body in `code` (comments and literals already blanked).
fn functions(code: &[u8]) -> Vec<Function> {
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].windows(3).position(|w| w == b"fn ") {
        let start = at + found;
        at = start + 3;
        if start > 0 && is_word(code[start - 1]) {
            continue;
        }
        let name: String = code[at..]
            .iter()
            .skip_while(|c| c.is_ascii_whitespace())
            .take_while(|&&c| is_word(c))
            .map(|&c| c as char)
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` of the signature; a `;` first means none.
        let Some(open) = code[at..].iter().position(|&c| c == b'{' || c == b';') else {
            break;
        };
        let open = at + open;
        if code[open] == b';' {
            continue;
        }
        let (mut depth, mut deepest, mut close) = (0usize, 0usize, open);
        for (i, &c) in code[open..].iter().enumerate() {
            match c {
                b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = line_of(start);
        out.push(Function {
            name,
            line,
            lines: line_of(close) - line_of(open) + 1,
            nesting: deepest - 1,
        });
    }
    out
}

fn shape_problems(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    crate::util::rust_sources(src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES && !LONG_FILES.iter().any(|(f, _)| *f == rel) {
            problems.push(format!(
                "src/{rel}: {lines} lines (at most {MAX_FILE_LINES})"
            ));
        }
        for f in functions(&code_only(&text)) {
            let at = format!("src/{rel}:{} fn {}", f.line, f.name);
            if f.lines > MAX_FUNCTION_LINES {
                problems.push(format!(
                    "{at}: {} lines (at most {MAX_FUNCTION_LINES})",
                    f.lines
                ));
            }
            if f.nesting > MAX_NESTING {
                problems.push(format!(
                    "{at}: blocks nested {} deep (at most {MAX_NESTING})",
                    f.nesting
                ));
            }
        }
    }
    problems
}

#[test]
fn no_source_file_breaks_the_size_rules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = shape_problems(&src);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn each_long_file_exception_is_still_a_long_file() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, why) in LONG_FILES {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        assert!(
            text.lines().count() > MAX_FILE_LINES,
            "src/{file} is listed as a long file ({why}) but is not one: take it off the list"
        );
    }
}

#[test]
fn the_measure_sees_bodies_through_comments_strings_and_lifetimes() {
    let text = r##"
fn short<'a>(x: &'a str) -> char {
    // a } in a comment
    let _ = "a } in a string";
    let _ = r#"a raw } string"#;
    let _ = '}';
    '{'
}

trait Declared {
    fn only_declared(&self);
}

fn deep() {
    if a { if b { if c { if d { if e { if f { if g { } } } } } } }
}
"##;
    let found = functions(&code_only(text));
    let names: Vec<(&str, usize, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines, f.nesting))
        .collect();
    assert_eq!(names, [("short", 2, 7, 0), ("deep", 14, 3, 7)]);
}
