//! Git addresses for `--project`, read offline as dbprint 0.15.0 reads them: the explicit
//! `<git-url>#<ref>:<subpath>` form, GitHub / GitLab / Bitbucket blob URLs, and bare HTTPS
//! or SSH remotes. Anything else is a local path. Pure: no git, no disk (`git.rs` clones).

use std::sync::LazyLock;

use regex::Regex;

use super::ConfigError;

/// The repository, ref and subpath a git `--project` names. `reference: None` is the
/// remote's default branch; `subpath: None` its root.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RemoteAddress {
    pub remote: String,
    pub reference: Option<String>,
    pub subpath: Option<String>,
}

// Python's `$` without MULTILINE also matches before one final newline; `\n?\z` is that.
// Owners and repositories are one segment each, except on GitLab, whose groups nest.
static GITHUB_BLOB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^https://github\.com/([^/]+/[^/]+?)(?:\.git)?/blob/([^/]+)/(.*)\n?\z")
        .expect("valid regex")
});
static GITLAB_BLOB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^https://gitlab\.com/(.+?)/-/blob/([^/]+)/(.*)\n?\z").expect("valid regex")
});
static BITBUCKET_SRC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^https://bitbucket\.org/([^/]+/[^/]+?)/src/([^/]+)/(.*)\n?\z")
        .expect("valid regex")
});
static BARE_HTTPS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^https://(?:(?:github\.com|bitbucket\.org)/[^/]+/[^/]+?|gitlab\.com/.+?)(?:\.git)?/?\n?\z",
    )
    .expect("valid regex")
});
static BARE_SSH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^git@[^:/]+:.+\n?\z").expect("valid regex"));
/// Absolute (a leading separator or a drive letter) or a `..` segment.
static LEAVES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[/\\]|[A-Za-z]:)|(?:^|[/\\])\.\.(?:[/\\]|\z)").expect("valid regex")
});

/// `--project`'s value as a git address, or `None` for a local path. Refuses (with
/// dbprint's texts) a remote or ref beginning with `-` and a subpath that is absolute or
/// climbs out with `..`; one that leaves through a symlink is refused after the clone.
pub fn parse_address(value: &str) -> Result<Option<RemoteAddress>, ConfigError> {
    let Some(address) = parse(value) else {
        return Ok(None);
    };
    let shown = compat::py::repr_str(value);
    for (name, part) in [
        ("remote", Some(&address.remote)),
        ("ref", address.reference.as_ref()),
    ] {
        if part.is_some_and(|p| p.starts_with('-')) {
            return Err(ConfigError {
                message: format!("--project {shown}: a {name} may not begin with '-'"),
            });
        }
    }
    if let Some(subpath) = &address.subpath {
        if LEAVES.is_match(subpath) {
            return Err(ConfigError {
                message: format!(
                    "--project {shown}: the subpath {} must be relative and stay inside the repository",
                    compat::py::repr_str(subpath)
                ),
            });
        }
    }
    Ok(Some(address))
}

/// A subpath as given, trailing slashes dropped; empty means the repository's root.
fn subpath_of(text: &str) -> Option<String> {
    let trimmed = text.trim_end_matches('/');
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

fn parse(value: &str) -> Option<RemoteAddress> {
    if let Some(explicit) = parse_explicit(value) {
        return Some(explicit);
    }
    for pattern in [&*GITHUB_BLOB, &*GITLAB_BLOB, &*BITBUCKET_SRC] {
        if let Some(found) = pattern.captures(value) {
            let host = value.split('/').nth(2).unwrap_or_default();
            return Some(RemoteAddress {
                remote: format!("https://{host}/{}", &found[1]),
                reference: Some(found[2].to_string()),
                subpath: subpath_of(&found[3]),
            });
        }
    }
    (BARE_HTTPS.is_match(value) || BARE_SSH.is_match(value)).then(|| RemoteAddress {
        remote: value.to_string(),
        reference: None,
        subpath: None,
    })
}

/// `<git-url>#<ref>:<subpath>`: split at the first `#`, then the first `:` after it.
fn parse_explicit(value: &str) -> Option<RemoteAddress> {
    let (remote, rest) = value.split_once('#')?;
    let (reference, subpath) = rest.split_once(':')?;
    if remote.is_empty() || reference.is_empty() {
        return None;
    }
    Some(RemoteAddress {
        remote: remote.to_string(),
        reference: Some(reference.to_string()),
        subpath: subpath_of(subpath),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(remote: &str, reference: Option<&str>, subpath: Option<&str>) -> RemoteAddress {
        RemoteAddress {
            remote: remote.into(),
            reference: reference.map(Into::into),
            subpath: subpath.map(Into::into),
        }
    }

    fn parsed(value: &str) -> Option<RemoteAddress> {
        parse_address(value).unwrap()
    }

    fn refused(value: &str) -> String {
        parse_address(value).unwrap_err().message
    }

    #[test]
    fn local_paths_are_not_addresses() {
        for local in [
            ".",
            "/srv/arboretum",
            "~/work/project",
            "C:\\work\\project",
            "project/.dbprint.yaml",
            "-x",
            "https://example.com/a/b",
            "dir#main",
            "#main:sub",
            "file:///x#:sub",
        ] {
            assert_eq!(parse_address(local), Ok(None), "{local}");
        }
    }

    #[test]
    fn the_explicit_form_splits_at_the_first_hash_and_colon() {
        assert_eq!(
            parsed("file:///srv/r.git#main:warehouse/"),
            Some(address(
                "file:///srv/r.git",
                Some("main"),
                Some("warehouse")
            ))
        );
        assert_eq!(
            parsed("git@host:team/r.git#v1.2:sub:dir"),
            Some(address(
                "git@host:team/r.git",
                Some("v1.2"),
                Some("sub:dir")
            ))
        );
        assert_eq!(
            parsed("https://h/r#abc123:"),
            Some(address("https://h/r", Some("abc123"), None))
        );
        assert_eq!(
            parsed("https://h/r#a#b:c"),
            Some(address("https://h/r", Some("a#b"), Some("c")))
        );
    }

    #[test]
    fn forge_blob_urls_name_the_repository_ref_and_subpath() {
        assert_eq!(
            parsed("https://github.com/acme/wh.git/blob/main/prints/dir/"),
            Some(address(
                "https://github.com/acme/wh",
                Some("main"),
                Some("prints/dir")
            ))
        );
        assert_eq!(
            parsed("https://gitlab.com/g/sub/wh/-/blob/v2/proj"),
            Some(address(
                "https://gitlab.com/g/sub/wh",
                Some("v2"),
                Some("proj")
            ))
        );
        assert_eq!(
            parsed("https://bitbucket.org/acme/wh/src/0123abc/"),
            Some(address(
                "https://bitbucket.org/acme/wh",
                Some("0123abc"),
                None
            ))
        );
    }

    #[test]
    fn bare_remotes_mean_the_default_branch_at_the_root() {
        for bare in [
            "https://github.com/acme/wh",
            "https://github.com/acme/wh.git",
            "https://gitlab.com/g/sub/wh/",
            "https://bitbucket.org/acme/wh.git",
            "git@github.com:acme/wh.git",
            "git@github.com:-x/y",
        ] {
            assert_eq!(parsed(bare), Some(address(bare, None, None)), "{bare}");
        }
        // Not bare: too many segments for GitHub.
        assert_eq!(parsed("https://github.com/a/b/c"), None);
    }

    #[test]
    fn unsafe_parts_are_refused_with_dbprints_texts() {
        assert_eq!(
            refused("-x#main:sub"),
            "--project '-x#main:sub': a remote may not begin with '-'"
        );
        assert_eq!(
            refused("file:///x#-r:sub"),
            "--project 'file:///x#-r:sub': a ref may not begin with '-'"
        );
        for (value, subpath) in [
            ("file:///x#main:../up", "../up"),
            ("file:///x#main:/abs", "/abs"),
            ("file:///x#main:a/../../b", "a/../../b"),
            ("file:///x#main:C:foo", "C:foo"),
            ("file:///x#main:a\\..\\b", "a\\\\..\\\\b"),
            ("https://github.com/a/b/blob/main/../x", "../x"),
        ] {
            assert_eq!(
                refused(value),
                format!(
                    "--project {}: the subpath '{subpath}' must be relative and stay inside the repository",
                    compat::py::repr_str(value)
                ),
                "{value}"
            );
        }
        // `..` inside a name is not a climb.
        assert_eq!(
            parsed("file:///x#main:a..b/c.."),
            Some(address("file:///x", Some("main"), Some("a..b/c..")))
        );
    }
}
