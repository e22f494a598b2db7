//! `fnmatch.fnmatchcase`: the pattern is translated with CPython 3.13's
//! `fnmatch._translate` rules (including its handling of hyphens and empty
//! ranges inside `[...]`) and the resulting character class is read with
//! `re`'s class grammar, then matched over code points without a regex.

/// One pattern item; every item but `Star` consumes exactly one char.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(char),
    /// `?`, or a negated set emptied by a reversed range (`[!z-a]`): any char.
    Any,
    /// An empty set: matches nothing.
    Never,
    Set {
        negate: bool,
        ranges: Vec<(char, char)>,
    },
    Star,
}

impl Tok {
    fn matches(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::Any => true,
            Tok::Never | Tok::Star => false,
            Tok::Set { negate, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negate
            }
        }
    }
}

/// A compiled `fnmatch.fnmatchcase` pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: String,
    toks: Vec<Tok>,
}

impl Glob {
    /// Compiles a `fnmatch` pattern.
    pub fn new(pattern: &str) -> Glob {
        Glob {
            pattern: pattern.to_string(),
            toks: translate(pattern),
        }
    }

    /// The pattern text this was compiled from.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// `fnmatch.fnmatchcase(name, pattern)`.
    pub fn matches(&self, name: &str) -> bool {
        let toks = &self.toks;
        // Classic glob backtracking: on a mismatch, let the most recent star
        // swallow one more char. Every other item is one char wide, so only
        // the last star ever needs retrying (as the atomic groups in
        // fnmatch's regex also assume): O(len(name) * len(pattern)).
        let mut pos = 0; // byte offset into name
        let mut p = 0; // item index
        let mut star: Option<(usize, usize)> = None; // (star item, resume offset)
        while let Some(c) = name[pos..].chars().next() {
            match toks.get(p) {
                Some(Tok::Star) => {
                    star = Some((p, pos));
                    p += 1;
                }
                Some(t) if t.matches(c) => {
                    p += 1;
                    pos += c.len_utf8();
                }
                _ => match star {
                    Some((sp, spos)) => {
                        let swallowed = name[spos..].chars().next().map_or(1, char::len_utf8);
                        star = Some((sp, spos + swallowed));
                        p = sp + 1;
                        pos = spos + swallowed;
                    }
                    None => return false,
                },
            }
        }
        toks.get(p..).unwrap_or(&[]).iter().all(|t| *t == Tok::Star)
    }
}

/// fnmatch._translate, producing items instead of regex text.
fn translate(pattern: &str) -> Vec<Tok> {
    let pat: Vec<char> = pattern.chars().collect();
    let n = pat.len();
    let mut res: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < n {
        let c = pat[i];
        i += 1;
        match c {
            '*' => {
                if res.last() != Some(&Tok::Star) {
                    res.push(Tok::Star);
                }
            }
            '?' => res.push(Tok::Any),
            '[' => {
                let mut j = i;
                if j < n && pat[j] == '!' {
                    j += 1;
                }
                if j < n && pat[j] == ']' {
                    j += 1;
                }
                while j < n && pat[j] != ']' {
                    j += 1;
                }
                if j >= n {
                    res.push(Tok::Lit('['));
                } else {
                    res.push(class_tok(&pat, i, j));
                    i = j + 1;
                }
            }
            c => res.push(Tok::Lit(c)),
        }
    }
    res
}

/// `[` pat[i..j] `]` as fnmatch translates it and `re` then parses it.
fn class_tok(pat: &[char], mut i: usize, j: usize) -> Tok {
    let stuff: Vec<char> = if !pat[i..j].contains(&'-') {
        escape_backslashes(&pat[i..j])
    } else {
        let mut chunks: Vec<Vec<char>> = Vec::new();
        let mut k = if pat[i] == '!' { i + 2 } else { i + 1 };
        // pat.find('-', k, j)
        while let Some(pos) = (k < j)
            .then(|| pat[k..j].iter().position(|&c| c == '-'))
            .flatten()
        {
            let hy = k + pos;
            chunks.push(pat[i..hy].to_vec());
            i = hy + 1;
            k = hy + 3;
        }
        let chunk = &pat[i..j];
        if !chunk.is_empty() {
            chunks.push(chunk.to_vec());
        } else if let Some(last) = chunks.last_mut() {
            last.push('-');
        }
        // Remove empty ranges (a > b), merging the chunks around them.
        let mut k = chunks.len();
        while k > 1 {
            k -= 1;
            let (prev_last, next_first) = (chunks[k - 1].last(), chunks[k].first());
            if let (Some(a), Some(b)) = (prev_last, next_first) {
                if a > b {
                    let next = chunks.remove(k);
                    let prev = &mut chunks[k - 1];
                    prev.pop();
                    prev.extend_from_slice(&next[1..]);
                }
            }
        }
        let mut stuff = Vec::new();
        for (idx, ch) in chunks.iter().enumerate() {
            if idx > 0 {
                stuff.push('-');
            }
            for &c in ch {
                if c == '\\' || c == '-' {
                    stuff.push('\\');
                }
                stuff.push(c);
            }
        }
        stuff
    };
    // Escape set operations (&&, ~~ and ||).
    let mut esc = Vec::with_capacity(stuff.len());
    for &c in &stuff {
        if matches!(c, '&' | '~' | '|') {
            esc.push('\\');
        }
        esc.push(c);
    }
    let mut stuff = esc;
    if stuff.is_empty() {
        return Tok::Never;
    }
    if stuff == ['!'] {
        return Tok::Any;
    }
    if stuff[0] == '!' {
        stuff[0] = '^';
    } else if stuff[0] == '^' || stuff[0] == '[' {
        stuff.insert(0, '\\');
    }
    stuff.push(']');
    parse_re_class(&stuff)
}

fn escape_backslashes(s: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `re`'s parse of a class from just after its `[` through the closing `]`.
/// Only literals and `\X` escapes of non-letters occur in translated text.
fn parse_re_class(body: &[char]) -> Tok {
    let mut src = body.iter().copied().peekable();
    let negate = src.next_if_eq(&'^').is_some();
    let mut ranges: Vec<(char, char)> = Vec::new();
    // Next class item: a literal, the escaped char, or the closing `]`.
    fn item(src: &mut std::iter::Peekable<impl Iterator<Item = char>>) -> Option<(char, bool)> {
        let c = src.next()?;
        if c == '\\' {
            Some((src.next()?, true))
        } else {
            Some((c, false))
        }
    }
    // (Running out of input means unterminated, which translate never makes.)
    while let Some((lo, escaped)) = item(&mut src) {
        if lo == ']' && !escaped && !ranges.is_empty() {
            break;
        }
        if src.next_if_eq(&'-').is_some() {
            let Some((hi, hi_escaped)) = item(&mut src) else {
                break;
            };
            if hi == ']' && !hi_escaped {
                ranges.push((lo, lo));
                ranges.push(('-', '-'));
                break;
            }
            if hi >= lo {
                ranges.push((lo, hi));
            }
        } else {
            ranges.push((lo, lo));
        }
    }
    Tok::Set { negate, ranges }
}
