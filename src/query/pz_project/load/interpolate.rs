//! `${NAME}` substitution (`EnvInterpolator`): `$${` is an escaped literal `${`; an unset
//! variable is PZ0103 and the reference is left as written.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::query::pz_project::model::file_error;
use crate::query::pz_project::Env;

enum Token<'a> {
    Escape,
    Reference(&'a str),
}

/// Each match of pz's pattern, left to right: (start, end, what).
fn matches(text: &str) -> Vec<(usize, usize, Token<'_>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"$${") {
            out.push((i, i + 3, Token::Escape));
            i += 3;
            continue;
        }
        if bytes[i..].starts_with(b"${") {
            let name_start = i + 2;
            let mut j = name_start;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            let valid_start = bytes
                .get(name_start)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            if valid_start && bytes.get(j) == Some(&b'}') {
                out.push((i, j + 1, Token::Reference(&text[name_start..j])));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

pub fn interpolate(text: &str, env: &Env, file: &str, errors: &mut Vec<PzError>) -> String {
    let found = matches(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end, token) in found {
        out.push_str(&text[last..start]);
        match token {
            Token::Escape => out.push_str("${"),
            Token::Reference(name) => match env.get(name) {
                Some(value) => out.push_str(value),
                None => {
                    errors.push(file_error(
                        PzCode::UndeclaredEnvVar,
                        format!("Undeclared environment variable '{name}' referenced in {file}."),
                        file,
                        format!(
                            "Set the {name} environment variable before running pz, or remove the reference from {file}."
                        ),
                    ));
                    out.push_str(&text[start..end]);
                }
            },
        }
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// `EnvInterpolator.ContainsReference`.
pub fn contains_reference(text: &str) -> bool {
    matches(text)
        .iter()
        .any(|(_, _, t)| matches!(t, Token::Reference(_)))
}

/// `EnvInterpolator.InterpolateTree`: every string scalar of a converted tree.
pub fn interpolate_tree(
    node: &PzValue,
    env: &Env,
    file: &str,
    errors: &mut Vec<PzError>,
) -> PzValue {
    match node {
        PzValue::Str(s) => PzValue::Str(interpolate(s, env, file, errors)),
        PzValue::Map(map) => {
            let mut out = PzMap::new();
            out.exact = map.exact;
            for (k, v) in &map.entries {
                out.set(k.clone(), interpolate_tree(v, env, file, errors));
            }
            PzValue::Map(out)
        }
        PzValue::List(items) => PzValue::List(
            items
                .iter()
                .map(|v| interpolate_tree(v, env, file, errors))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_substitute() {
        let env: Env = [("A".to_string(), "1".to_string())].into_iter().collect();
        let mut errors = Vec::new();
        assert_eq!(
            interpolate("x${A}y$${A}z${B}", &env, "f", &mut errors),
            "x1y${A}z${B}"
        );
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].message,
            "Undeclared environment variable 'B' referenced in f."
        );
        assert!(contains_reference("${X_1}"));
        assert!(!contains_reference("$${X}"));
        assert!(!contains_reference("${1X}"));
    }
}
