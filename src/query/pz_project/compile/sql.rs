//! The SQL text rules of pz's compiler that need no SQL parser: the leading
//! `INSERT INTO {{ sink(...) }}` prefix (`TryExtractInsertPrefix`), `NormalizeSql`, the
//! textual ephemeral-CTE splice, and the one pipeline shape whose read hints are provably
//! empty (`select * from <staging>` with no WHERE), which keeps a SourceLoad id computable.

/// `DagCompiler.TryExtractInsertPrefix`: the query after the leading INSERT-form prefix.
pub fn extract_insert_prefix(sql: &str, markers: &[String]) -> Option<String> {
    let b = sql;
    let mut i = 0;
    loop {
        let start = i;
        i = skip_ws(b, i);
        if b[i..].starts_with("--") {
            i = b[i..].find('\n').map_or(b.len(), |n| i + n + 1);
        }
        if i == start {
            break;
        }
    }
    i = keyword(b, i, "insert")?;
    i = required_ws(b, i)?;
    i = keyword(b, i, "into")?;
    i = required_ws(b, i)?;
    if b[i..].starts_with('[') {
        i += 1;
        for (n, marker) in markers.iter().enumerate() {
            i = skip_ws(b, i);
            i = b[i..]
                .starts_with(marker.as_str())
                .then(|| i + marker.len())?;
            i = skip_ws(b, i);
            if n + 1 < markers.len() {
                i = b[i..].starts_with(',').then_some(i + 1)?;
            }
        }
        i = skip_ws(b, i);
        i = b[i..].starts_with(']').then_some(i + 1)?;
    } else {
        let [marker] = markers else {
            return None;
        };
        i = b[i..]
            .starts_with(marker.as_str())
            .then(|| i + marker.len())?;
    }
    i = required_ws(b, i)?;
    let extracted = &b[i..];
    if markers.iter().any(|m| extracted.contains(m.as_str())) {
        return None;
    }
    Some(extracted.to_string())
}

fn skip_ws(s: &str, i: usize) -> usize {
    s[i..]
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(s.len(), |(n, _)| i + n)
}

fn required_ws(s: &str, i: usize) -> Option<usize> {
    let j = skip_ws(s, i);
    (j > i).then_some(j)
}

fn keyword(s: &str, i: usize, word: &str) -> Option<usize> {
    let end = i + word.len();
    (s.len() >= end && s.is_char_boundary(end) && s[i..end].eq_ignore_ascii_case(word))
        .then_some(end)
}

/// `DagCompiler.NormalizeSql`: LF line ends, trailing white space trimmed, one trailing `;` dropped.
pub fn normalize_sql(sql: &str) -> String {
    let owned;
    let normalized = if sql.contains('\r') {
        owned = sql.replace("\r\n", "\n").replace('\r', "\n");
        owned.as_str()
    } else {
        sql
    };
    let trimmed = normalized.trim_end();
    match trimmed.strip_suffix(';') {
        Some(rest) => rest.trim_end().to_string(),
        None => trimmed.to_string(),
    }
}

/// The textual splice of `BuildInlinedSql`, which pz uses only when DuckDB cannot parse one
/// side; with DuckDB available pz re-serializes the statement instead, so a consumer of an
/// ephemeral has text (and an id) only pz can produce.
pub fn splice_ctes(sql: &str, ctes: &[(String, String)]) -> String {
    let list: Vec<String> = ctes
        .iter()
        .map(|(alias, body)| format!("{alias} as ({body})"))
        .collect();
    let list = list.join(", ");
    let trimmed = sql.trim_start();
    if trimmed.len() >= 4 && trimmed[..4].eq_ignore_ascii_case("with") {
        return format!("with {list}, {}", trimmed[4..].trim_start());
    }
    format!("with {list} {sql}")
}

/// Whether DuckDB's read-hint extraction provably pushes nothing for `staging_table` read by
/// `sql`: the statement opens `select * from staging.<table>` (an unqualified star makes the
/// column list "all") and has no WHERE anywhere (no predicate to push).
pub fn pushes_nothing(sql: &str, staging_table: &str) -> bool {
    let mut words = SqlWords { sql, at: 0 };
    let opening = ["select", "*", "from", "staging", ".", staging_table];
    let opens = opening
        .iter()
        .all(|want| words.next().is_some_and(|w| w.eq_ignore_ascii_case(want)));
    opens && !words.any(|w| w.eq_ignore_ascii_case("where"))
}

/// Words and punctuation of SQL text, without comments; a string literal or quoted name is
/// one opaque token.
struct SqlWords<'a> {
    sql: &'a str,
    at: usize,
}

impl<'a> Iterator for SqlWords<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.sql.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
        loop {
            let i = self.at;
            let c = *b.get(i)?;
            if c.is_ascii_whitespace() {
                self.at += 1;
            } else if b[i..].starts_with(b"--") {
                self.at = self.sql[i..].find('\n').map_or(b.len(), |n| i + n);
            } else if b[i..].starts_with(b"/*") {
                self.at = self.sql[i + 2..]
                    .find("*/")
                    .map_or(b.len(), |n| i + 2 + n + 2);
            } else if c == b'\'' || c == b'"' {
                let end = b[i + 1..]
                    .iter()
                    .position(|x| *x == c)
                    .map_or(b.len(), |n| i + 1 + n + 1);
                self.at = end;
                return Some(&self.sql[i..end]);
            } else if word(c) {
                let end = b[i..]
                    .iter()
                    .position(|x| !word(*x))
                    .map_or(b.len(), |n| i + n);
                self.at = end;
                return Some(&self.sql[i..end]);
            } else {
                self.at = i + 1;
                return Some(&self.sql[i..i + 1]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_prefix_extracts_the_query() {
        let m = vec!["__pz_sink__out__o__".to_string()];
        assert_eq!(
            extract_insert_prefix("-- c\n  INSERT into __pz_sink__out__o__\nselect 1", &m)
                .as_deref(),
            Some("select 1")
        );
        assert_eq!(
            extract_insert_prefix("select 1 -- __pz_sink__out__o__", &m),
            None
        );
        assert_eq!(
            extract_insert_prefix("insert into __pz_sink__out__o__select", &m),
            None
        );
        let two = vec![
            "__pz_sink__a__x__".to_string(),
            "__pz_sink__b__y__".to_string(),
        ];
        assert_eq!(
            extract_insert_prefix(
                "insert into [ __pz_sink__a__x__ , __pz_sink__b__y__ ] select 2",
                &two
            )
            .as_deref(),
            Some("select 2")
        );
        assert_eq!(
            extract_insert_prefix("insert into __pz_sink__a__x__ select 2", &two),
            None
        );
    }

    #[test]
    fn normalize_and_shapes() {
        assert_eq!(normalize_sql("select 1 ;\r\n  "), "select 1");
        assert_eq!(normalize_sql("a;\nb;;"), "a;\nb;");
        assert!(pushes_nothing(
            "SELECT *\nFROM staging.src_a__b -- all\n",
            "src_a__b"
        ));
        assert!(pushes_nothing(
            "select * from staging.src_a__b o limit 5",
            "src_a__b"
        ));
        assert!(!pushes_nothing(
            "select * from staging.src_a__b where x > 1",
            "src_a__b"
        ));
        assert!(!pushes_nothing(
            "select id from staging.src_a__b",
            "src_a__b"
        ));
        assert!(pushes_nothing(
            "select * from staging.src_a__b where_x",
            "src_a__b"
        ));
        assert_eq!(
            splice_ctes(
                "with a as (select 1) select * from a",
                &[("__pz_cte__e".into(), "select 2".into())]
            ),
            "with __pz_cte__e as (select 2), a as (select 1) select * from a"
        );
    }
}
