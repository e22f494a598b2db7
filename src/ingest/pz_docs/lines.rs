//! A page's lines as pz's ranking weighs them: titles, descriptions, headings, code and body
//! lines, fence markers never scored. `LineTable` holds every line that can match a term, in
//! document order; its ids are the docs index's documents.

use super::parse::Page;
use compat::dotnet::{lower, trim_start};

pub const TITLE_WEIGHT: u32 = 10;
pub const DESCRIPTION_WEIGHT: u32 = 8;
pub const HEADING_WEIGHT: u32 = 6;
pub const CODE_WEIGHT: u32 = 5;
pub const BODY_WEIGHT: u32 = 1;

/// Each body line with its weight, or `None` for a fence line (never scored or excerpted).
/// A line whose left-trimmed text starts with three backticks toggles the fence.
pub fn body_lines(body: &str) -> impl Iterator<Item = (&str, Option<u32>)> {
    let mut in_fence = false;
    body.split('\n').map(move |raw| {
        let line = raw.trim_end_matches('\r');
        if trim_start(line).starts_with("```") {
            in_fence = !in_fence;
            return (line, None);
        }
        let weight = if in_fence {
            CODE_WEIGHT
        } else if line.starts_with('#') {
            HEADING_WEIGHT
        } else {
            BODY_WEIGHT
        };
        (line, Some(weight))
    })
}

/// One scorable line.
#[derive(Debug, Clone)]
pub struct Line {
    pub page: u32,
    pub weight: u32,
    /// Body lines are excerpted; titles and descriptions only score.
    pub excerptable: bool,
    /// Range of the lower-cased text in `LineTable::lowered`.
    low: (u32, u32),
    /// Range of the original line in the full text (body lines only).
    pub orig: (u32, u32),
}

/// Every line that can match a term (two or more characters), in document order.
#[derive(Debug, Default)]
pub struct LineTable {
    lowered: String,
    lines: Vec<Line>,
}

impl LineTable {
    pub fn build(pages: &[Page], full: &str) -> LineTable {
        let mut table = LineTable::default();
        for (p, page) in pages.iter().enumerate() {
            table.push(p, &page.title, TITLE_WEIGHT, None);
            table.push(p, &page.description, DESCRIPTION_WEIGHT, None);
            for (line, weight) in body_lines(&full[page.body.clone()]) {
                if let Some(w) = weight {
                    // `line` is a slice of `full`: its offset is the pointer difference.
                    let start = line.as_ptr() as usize - full.as_ptr() as usize;
                    table.push(p, line, w, Some((start, start + line.len())));
                }
            }
        }
        table
    }

    fn push(&mut self, page: usize, text: &str, weight: u32, orig: Option<(usize, usize)>) {
        let low = lower(text);
        if low.chars().nth(1).is_none() {
            return;
        }
        let start = self.lowered.len();
        self.lowered.push_str(&low);
        let end = self.lowered.len();
        self.lowered.push('\n');
        let (os, oe) = orig.unwrap_or((0, 0));
        self.lines.push(Line {
            page: page as u32,
            weight,
            excerptable: orig.is_some(),
            low: (start as u32, end as u32),
            orig: (os as u32, oe as u32),
        });
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn get(&self, id: usize) -> Option<&Line> {
        self.lines.get(id)
    }

    /// Line `id`'s text, lower-cased.
    pub fn lowered(&self, id: usize) -> &str {
        let (s, e) = self.lines[id].low;
        &self.lowered[s as usize..e as usize]
    }
}

impl std::ops::Index<usize> for LineTable {
    type Output = Line;

    fn index(&self, id: usize) -> &Line {
        &self.lines[id]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_headings_and_code() {
        let body = "# Title\ntext\n  ```sql\n# not a heading\n```\n~~~\nafter";
        let w: Vec<Option<u32>> = body_lines(body).map(|(_, w)| w).collect();
        assert_eq!(w, [Some(6), Some(1), None, Some(5), None, Some(1), Some(1)]);
    }
}
