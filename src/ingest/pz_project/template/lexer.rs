//! Scriban's block structure: text, `{{ code }}` and `{%{ escaped }%}` blocks, with the
//! whitespace control markers applied, and code lexed into tokens.

use super::TemplateGap;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Str(String),
    Int(i64),
    Double(f64),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    /// A statement separator: `;`, or an end of line outside brackets.
    Sep,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    pub line: u32,
}

pub(super) enum Block {
    Text(String),
    Code { tokens: Vec<Token>, line: u32 },
}

#[derive(Clone, Copy)]
enum Trim {
    Greedy,
    ToNewline,
}

fn gap(reason: impl Into<String>, line: u32) -> TemplateGap {
    TemplateGap {
        reason: reason.into(),
        line,
    }
}

pub(super) fn split_blocks(text: &str) -> Result<Vec<Block>, TemplateGap> {
    let mut blocks = Vec::new();
    let mut pending = String::new();
    let mut trim_next: Option<Trim> = None;
    let mut pos = 0;
    let mut line = 1u32;
    while pos < text.len() {
        let Some(rel) = find_open(&text[pos..]) else {
            push_text(&mut pending, &text[pos..], &mut trim_next);
            break;
        };
        let start = pos + rel.0;
        push_text(&mut pending, &text[pos..start], &mut trim_next);
        line += count_lines(&text[pos..start]);
        match rel.1 {
            Open::Code => {
                let i = left_control(text, start + 2, &mut pending);
                flush(&mut blocks, &mut pending);
                let block_line = line;
                let (tokens, end, right) = lex_code(text, i, &mut line)?;
                blocks.push(Block::Code {
                    tokens,
                    line: block_line,
                });
                trim_next = right;
                pos = end;
            }
            Open::Escape(percents) => {
                let i = left_control(text, start + 2 + percents, &mut pending);
                let close = format!("}}{}}}", "%".repeat(percents));
                let Some(end_rel) = text[i..].find(&close) else {
                    return Err(gap("an escape block that is never closed", line));
                };
                let mut body = &text[i..i + end_rel];
                let mut right = None;
                if let Some(b) = body.strip_suffix('-') {
                    body = b;
                    right = Some(Trim::Greedy);
                } else if let Some(b) = body.strip_suffix('~') {
                    body = b;
                    right = Some(Trim::ToNewline);
                }
                flush(&mut blocks, &mut pending);
                blocks.push(Block::Text(body.to_string()));
                line += count_lines(&text[start..i + end_rel + close.len()]);
                trim_next = right;
                pos = i + end_rel + close.len();
            }
        }
    }
    flush(&mut blocks, &mut pending);
    Ok(blocks)
}

enum Open {
    Code,
    Escape(usize),
}

/// The next `{{` or `{%...%{`, by byte offset.
fn find_open(s: &str) -> Option<(usize, Open)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'{' {
            if bytes[i + 1] == b'{' {
                return Some((i, Open::Code));
            }
            if bytes[i + 1] == b'%' {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] == b'%' {
                    j += 1;
                }
                if j < bytes.len() && bytes[j] == b'{' {
                    return Some((i, Open::Escape(j - i - 1)));
                }
            }
        }
        i += 1;
    }
    None
}

/// A `-` or `~` right after a block's opening trims the text before it; returns the offset
/// after the marker.
fn left_control(text: &str, at: usize, pending: &mut String) -> usize {
    let trim = match text[at..].chars().next() {
        Some('-') => Trim::Greedy,
        Some('~') => Trim::ToNewline,
        _ => return at,
    };
    trim_end(pending, trim);
    at + 1
}

fn count_lines(s: &str) -> u32 {
    s.bytes().filter(|b| *b == b'\n').count() as u32
}

fn push_text(pending: &mut String, text: &str, trim: &mut Option<Trim>) {
    let text = match trim.take() {
        None => text,
        Some(Trim::Greedy) => text.trim_start(),
        Some(Trim::ToNewline) => {
            let rest =
                text.trim_start_matches(|c: char| c.is_whitespace() && c != '\n' && c != '\r');
            rest.strip_prefix("\r\n")
                .or_else(|| rest.strip_prefix('\n'))
                .unwrap_or(rest)
        }
    };
    pending.push_str(text);
}

fn trim_end(pending: &mut String, trim: Trim) {
    let kept = match trim {
        Trim::Greedy => pending.trim_end().len(),
        Trim::ToNewline => pending
            .trim_end_matches(|c: char| c.is_whitespace() && c != '\n' && c != '\r')
            .len(),
    };
    pending.truncate(kept);
}

fn flush(blocks: &mut Vec<Block>, pending: &mut String) {
    if !pending.is_empty() {
        blocks.push(Block::Text(std::mem::take(pending)));
    }
}

/// Lexes a code block from `start` to its `}}`; returns the tokens, the offset after the
/// block, and the right-hand whitespace control.
fn lex_code(
    text: &str,
    start: usize,
    line: &mut u32,
) -> Result<(Vec<Token>, usize, Option<Trim>), TemplateGap> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = start;
    let mut nesting = 0i32; // ( [ {
    let mut braces = 0i32;
    let opened_at = *line;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("}}") {
            if braces > 0 {
                return Err(gap("an object literal closing as `}}`", *line));
            }
            return Ok((tokens, i + 2, None));
        }
        if (rest.starts_with("-}}") || rest.starts_with("~}}")) && braces == 0 {
            let trim = if rest.starts_with('-') {
                Trim::Greedy
            } else {
                Trim::ToNewline
            };
            return Ok((tokens, i + 3, Some(trim)));
        }
        let c = rest.chars().next().unwrap_or(' ');
        let here = *line;
        let mut push = |tok: Tok| tokens.push(Token { tok, line: here });
        match c {
            '\n' => {
                *line += 1;
                if nesting == 0 {
                    push(Tok::Sep);
                }
                i += 1;
            }
            c if c.is_whitespace() => i += c.len_utf8(),
            '#' => i = skip_comment(text, i, line),
            '\'' | '"' => {
                let (s, end) = lex_string(text, i, line)?;
                push(Tok::Str(s));
                i = end;
            }
            '`' => {
                let Some(end) = text[i + 1..].find('`') else {
                    return Err(gap("an unclosed verbatim string", here));
                };
                let body = &text[i + 1..i + 1 + end];
                *line += count_lines(body);
                push(Tok::Str(body.to_string()));
                i += end + 2;
            }
            '0'..='9' => {
                let (tok, end) = lex_number(text, i, false, here)?;
                push(tok);
                i = end;
            }
            '-' if rest[1..].starts_with(|d: char| d.is_ascii_digit()) => {
                let (tok, end) = lex_number(text, i + 1, true, here)?;
                push(tok);
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let end = rest
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .map_or(text.len(), |n| i + n);
                push(Tok::Ident(text[i..end].to_string()));
                i = end;
            }
            '(' | '[' => {
                nesting += 1;
                push(if c == '(' { Tok::LParen } else { Tok::LBracket });
                i += 1;
            }
            '{' => {
                nesting += 1;
                braces += 1;
                push(Tok::LBrace);
                i += 1;
            }
            ')' | ']' => {
                nesting -= 1;
                push(if c == ')' { Tok::RParen } else { Tok::RBracket });
                i += 1;
            }
            '}' => {
                nesting -= 1;
                braces -= 1;
                push(Tok::RBrace);
                i += 1;
            }
            ',' => {
                push(Tok::Comma);
                i += 1;
            }
            ':' => {
                push(Tok::Colon);
                i += 1;
            }
            ';' => {
                push(Tok::Sep);
                i += 1;
            }
            other => return Err(gap(format!("the Scriban operator `{other}`"), here)),
        }
    }
    Err(gap("a code block that is never closed", opened_at))
}

/// `#` to the end of the line, `##` to the next `##`; either also ends at `}}`.
fn skip_comment(text: &str, start: usize, line: &mut u32) -> usize {
    let multi = text[start..].starts_with("##");
    let mut i = start + if multi { 2 } else { 1 };
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("}}") || rest.starts_with("-}}") || rest.starts_with("~}}") {
            return i;
        }
        if multi && rest.starts_with("##") {
            return i + 2;
        }
        if rest.starts_with('\n') {
            if !multi {
                return i;
            }
            *line += 1;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    i
}

fn lex_string(text: &str, start: usize, line: &mut u32) -> Result<(String, usize), TemplateGap> {
    let quote = text[start..].chars().next().unwrap_or('\'');
    let mut out = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((off, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((out, start + 1 + off + 1)),
            '\n' => {
                *line += 1;
                out.push('\n');
            }
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                out.push(escaped(e, &mut chars, *line)?);
            }
            c => out.push(c),
        }
    }
    Err(gap("an unterminated string", *line))
}

/// The character a backslash escape `\<e>…` stands for, reading the hex digits of a `\u`
/// or `\x` escape from `chars`.
fn escaped(e: char, chars: &mut std::str::CharIndices<'_>, line: u32) -> Result<char, TemplateGap> {
    Ok(match e {
        '\'' | '"' | '\\' => e,
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'u' | 'x' => {
            let width = if e == 'u' { 4 } else { 2 };
            let hex: String = (0..width)
                .filter_map(|_| chars.next().map(|(_, h)| h))
                .collect();
            u32::from_str_radix(&hex, 16)
                .ok()
                .filter(|_| hex.len() == width)
                .and_then(char::from_u32)
                .ok_or_else(|| gap("a string escape pz's renderer must read", line))?
        }
        _ => return Err(gap(format!("the string escape `\\{e}`"), line)),
    })
}

fn lex_number(
    text: &str,
    start: usize,
    negative: bool,
    line: u32,
) -> Result<(Tok, usize), TemplateGap> {
    let bytes = text.as_bytes();
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let mut float = false;
    if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
        float = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E' || bytes[i] == b'_') {
        return Err(gap("a number literal pz's renderer must read", line));
    }
    let digits = &text[start..i];
    let sign = if negative { "-" } else { "" };
    let tok = if float {
        Tok::Double(format!("{sign}{digits}").parse().unwrap_or(0.0))
    } else {
        match format!("{sign}{digits}").parse::<i64>() {
            Ok(v) => Tok::Int(v),
            Err(_) => return Err(gap("an integer beyond 64 bits", line)),
        }
    };
    Ok((tok, i))
}
