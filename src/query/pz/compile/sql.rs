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
    let normalized = sql.replace("\r\n", "\n").replace('\r', "\n");
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
    let tokens = sql_words(sql);
    let lower = |n: usize| tokens.get(n).map(|t| t.to_ascii_lowercase());
    let opens = lower(0).as_deref() == Some("select")
        && tokens.get(1).map(String::as_str) == Some("*")
        && lower(2).as_deref() == Some("from")
        && lower(3).as_deref() == Some("staging")
        && tokens.get(4).map(String::as_str) == Some(".")
        && tokens.get(5).map(String::as_str) == Some(staging_table);
    opens && !tokens.iter().any(|t| t.eq_ignore_ascii_case("where"))
}

/// Words and punctuation of SQL text, without comments, string literals or quoted names.
fn sql_words(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i += 1;
            out.push(format!("{c}{c}"));
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
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
