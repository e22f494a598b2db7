//! Closest names: what a misspelt table or column most likely meant. Edit distance (optimal
//! string alignment: insertions, deletions, substitutions and adjacent transpositions, over
//! characters, case ignored), bounded by the name's length, or one name holding the other.

/// The most suggestions a finding carries.
pub const LIMIT: usize = 5;

/// The optimal-string-alignment distance between `a` and `b`, or `None` beyond `bound`.
pub fn distance(a: &str, b: &str, bound: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len().abs_diff(b.len()) > bound {
        return None;
    }
    // Names are short: the whole matrix is cheaper than being clever.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    let total = d[a.len()][b.len()];
    (total <= bound).then_some(total)
}

/// How far `candidate` is from `wanted`, when it is close enough to suggest: within a
/// third of the name's length (at least one edit), or one holding the other.
pub fn closeness(wanted: &str, candidate: &str) -> Option<usize> {
    let n = wanted.chars().count();
    let bound = (n / 3).max(1);
    if let Some(d) = distance(wanted, candidate, bound) {
        return Some(d);
    }
    let (w, c) = (wanted.to_lowercase(), candidate.to_lowercase());
    let holds = n >= 3 && (c.contains(&w) || (c.chars().count() >= 3 && w.contains(&c)));
    holds.then(|| bound + c.chars().count().abs_diff(n))
}

/// The candidates closest to `wanted`, best first (ties in the candidates' order), at most
/// `limit`.
pub fn closest<'a, T>(
    wanted: &str,
    candidates: impl IntoIterator<Item = (&'a str, T)>,
    limit: usize,
) -> Vec<T> {
    let mut scored: Vec<(usize, usize, T)> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(i, (name, item))| closeness(wanted, name).map(|d| (d, i, item)))
        .collect();
    scored.sort_by_key(|(d, i, _)| (*d, *i));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, item)| item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_edits_and_transpositions() {
        assert_eq!(distance("patron_idd", "patron_id", 3), Some(1));
        assert_eq!(distance("lona_id", "loan_id", 3), Some(1));
        assert_eq!(distance("Books", "books", 0), Some(0));
        assert_eq!(distance("kitten", "sitting", 3), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None);
        assert_eq!(distance("", "abc", 3), Some(3));
        assert_eq!(distance("abc", "", 3), Some(3));
    }

    #[test]
    fn closest_names_come_best_first() {
        let names = ["full_name", "status", "patron_id", "email"];
        let got = closest("patronid", names.iter().map(|n| (*n, *n)), 3);
        assert_eq!(got, ["patron_id"]);
        let got = closest("name", names.iter().map(|n| (*n, *n)), 3);
        assert_eq!(got, ["full_name"]);
        assert!(closest("zzzz", names.iter().map(|n| (*n, *n)), 3).is_empty());
    }
}
