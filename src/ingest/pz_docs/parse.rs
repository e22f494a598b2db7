//! Reading the site's two files the way pz's `DocsCatalog` does: `llms.txt` gives the pages
//! (`- [Title](url): description` lines under `## Group` headings), `llms-full.txt` their
//! bodies (after `===== pz-doc: <slug> | <url> =====` lines).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use compat::dotnet::{self, trim, upper, WS_CLASS};

/// One page of the index, joined to its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub slug: String,
    pub title: String,
    /// Empty when the index line has none.
    pub description: String,
    /// Empty before the first `## ` heading.
    pub group: String,
    pub url: String,
    /// The page's markdown: a range of the full text, or empty when no section names it.
    pub body: Range<usize>,
}

fn index_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(
            r"^-[{WS_CLASS}]+\[(?P<title>[^\]]+)\]\((?P<url>[^)]+)\)(?::[{WS_CLASS}]*(?P<desc>.*))?$"
        ))
        .expect("index line pattern compiles")
    })
}

fn delimiter() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // .NET `\s` spans newlines, so a delimiter may too; `$` ends a line only before `\n`.
        Regex::new(&format!(
            r"(?m)^=====[{WS_CLASS}]+pz-doc:[{WS_CLASS}]*(?P<slug>[^{WS_CLASS}]+)[{WS_CLASS}]*\|[{WS_CLASS}]*(?P<url>[^{WS_CLASS}]+)[{WS_CLASS}]+=====$"
        ))
        .expect("delimiter pattern compiles")
    })
}

/// The base URL as pz holds it: trailing slashes trimmed.
pub fn normalize_base(base: &str) -> String {
    base.trim_end_matches('/').to_string()
}

/// Text as `ReadAsStringAsync` yields it: UTF-8, a leading BOM dropped.
pub fn decode(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    match s.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => s.into_owned(),
    }
}

/// `llms.txt` → pages in index order (bodies not yet attached).
pub fn parse_index(text: &str, base: &str) -> Vec<Page> {
    let base = normalize_base(base);
    let mut pages = Vec::new();
    let mut group = String::new();
    for raw in text.split('\n') {
        let line = raw.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix("## ") {
            group = trim(rest).to_string();
            continue;
        }
        let Some(m) = index_line().captures(trim(line)) else {
            continue;
        };
        let url = trim(&m["url"]).to_string();
        let slug = slug_for(&url, &base);
        if slug.is_empty() {
            continue;
        }
        pages.push(Page {
            slug,
            title: trim(&m["title"]).to_string(),
            description: m
                .name("desc")
                .map(|d| trim(d.as_str()))
                .unwrap_or("")
                .to_string(),
            group: group.clone(),
            url,
            body: 0..0,
        });
    }
    pages
}

/// `llms-full.txt` → body range per slug (upper-cased key; the last section wins).
pub fn parse_full_text(text: &str) -> HashMap<String, Range<usize>> {
    let found: Vec<(usize, usize, String)> = delimiter()
        .captures_iter(text)
        .map(|c| {
            let whole = c.get(0).expect("group 0");
            (whole.start(), whole.end(), c["slug"].to_string())
        })
        .collect();
    let mut bodies = HashMap::new();
    for (i, (_, end, slug)) in found.iter().enumerate() {
        let stop = found.get(i + 1).map(|n| n.0).unwrap_or(text.len());
        let section = &text[*end..stop];
        let lead = section.len() - section.trim_start_matches(dotnet::is_ws).len();
        let body = trim(section);
        let start = end + lead;
        bodies.insert(upper(slug), start..start + body.len());
    }
    bodies
}

/// Both files → pages with bodies.
pub fn parse(index: &str, full: &str, base: &str) -> Vec<Page> {
    let mut pages = parse_index(index, base);
    let bodies = parse_full_text(full);
    for p in &mut pages {
        if let Some(r) = bodies.get(&upper(&p.slug)) {
            p.body = r.clone();
        }
    }
    pages
}

/// A page's slug: the URL past the base (case-insensitive), else an absolute URL's path
/// (so a mirror whose files still link to the canonical host yields the same slugs), else
/// the URL itself; slashes trimmed. `.txt` targets and empty slugs are not pages.
pub fn slug_for(url: &str, base: &str) -> String {
    let head: String = url.chars().take(base.chars().count()).collect();
    let path = if url.chars().count() >= base.chars().count() && dotnet::eq_ignore_case(&head, base)
    {
        url[head.len()..].to_string()
    } else {
        absolute_path(url).unwrap_or_else(|| url.to_string())
    };
    let path = path.trim_matches('/');
    if upper(path).ends_with(".TXT") {
        String::new()
    } else {
        path.to_string()
    }
}

/// `Uri.TryCreate(url, Absolute).AbsolutePath`, as far as the oracle models it: `None` when
/// the URL is not absolute. On Unix a rooted path is an implicit file URI.
fn absolute_path(url: &str) -> Option<String> {
    if url.starts_with('/') && !url.starts_with("//") {
        return Some(remove_dot_segments(url));
    }
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic()
        || scheme.len() < 2
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
    {
        return None;
    }
    // urlsplit: tabs and newlines are dropped, leading C0 controls and spaces stripped.
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let rest = match cleaned.find(':') {
        Some(i) => &cleaned[i + 1..],
        None => return None,
    };
    let (netloc, rest) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?', '#']).unwrap_or(r.len());
            (&r[..end], &r[end..])
        }
        None => ("", rest),
    };
    let rest = rest.split('#').next().unwrap_or("");
    let mut path = rest.split('?').next().unwrap_or("").to_string();
    if !netloc.is_empty() && path.is_empty() {
        path = "/".to_string();
    }
    Some(remove_dot_segments(&quote_path(&path)))
}

/// Python's `quote(path, safe="/%:@!$&'()*+,;=-._~")`.
fn quote_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let safe = b.is_ascii_alphanumeric() || b"_.-~/%:@!$&'()*+,;=".contains(&b);
        if safe {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn remove_dot_segments(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').collect();
    let last = segs.len() - 1;
    let mut out: Vec<&str> = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "# PipelineZ (pz)\n\n> A summary.\n\n## Concepts\n\n- [The data plane](https://pipelinez.dev/concepts/data-plane/): How bytes move through pz.\n- [Delivery](https://pipelinez.dev/concepts/delivery-guarantees/)\n\n## How-to guides\n\n- [GCS](https://pipelinez.dev/how-to/gcs/)\n- [Bad] (x)\n- [A]b](https://pipelinez.dev/x/)\n\n## Full text\n\n- [All pages, full markdown](https://pipelinez.dev/llms-full.txt)\n";

    #[test]
    fn index_lines() {
        let pages = parse_index(INDEX, "https://pipelinez.dev/");
        let slugs: Vec<&str> = pages.iter().map(|p| p.slug.as_str()).collect();
        assert_eq!(
            slugs,
            [
                "concepts/data-plane",
                "concepts/delivery-guarantees",
                "how-to/gcs"
            ]
        );
        assert_eq!(pages[0].title, "The data plane");
        assert_eq!(pages[0].description, "How bytes move through pz.");
        assert_eq!(pages[0].group, "Concepts");
        assert_eq!(pages[2].description, "");
        assert_eq!(pages[2].group, "How-to guides");
    }

    #[test]
    fn mirrors_keep_relative_slugs() {
        assert_eq!(
            slug_for(
                "https://pipelinez.dev/concepts/x/",
                "https://mirror.internal/docs"
            ),
            "concepts/x"
        );
        assert_eq!(
            slug_for("HTTPS://PIPELINEZ.DEV/a/", "https://pipelinez.dev"),
            "a"
        );
        assert_eq!(slug_for("/a/./b/../c/", "file:///d"), "a/c");
        assert_eq!(slug_for("relative/x", "https://p.dev"), "relative/x");
        assert_eq!(slug_for("https://h/a b/", "https://p.dev"), "a%20b");
        assert_eq!(slug_for("https://h/llms.TXT", "https://p.dev"), "");
    }

    #[test]
    fn full_text_sections() {
        let full = "# header\n\n===== pz-doc: a | https://x/a/ =====\n\n# A\n\nbody a\n\n===== pz-doc: B | https://x/b/ =====\n# B\r\n===== pz-doc: a | u =====\n\nsecond a\n";
        let bodies = parse_full_text(full);
        assert_eq!(&full[bodies["A"].clone()], "second a");
        assert_eq!(&full[bodies["B"].clone()], "# B");
        // CRLF after the closing ===== does not end a delimiter line.
        assert!(parse_full_text("===== pz-doc: a | u =====\r\nx").is_empty());
    }
}
