//! What a name in an expression can reach: the relations of each enclosing FROM (tables,
//! CTEs, subqueries, each with the columns it yields and, for a column passed through
//! unchanged, the print column it comes from), innermost first. Lookups here decide only;
//! the walk turns what they find into findings.

use std::sync::Arc;

/// A column of the print: table position, column position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColRef {
    pub table: usize,
    pub column: usize,
}

/// One column a relation yields.
#[derive(Debug, Clone)]
pub struct OutCol {
    /// The spelling the adapter compares.
    pub stored: String,
    /// As the query would write it.
    pub written: String,
    /// The print column it passes through unchanged, if any.
    pub origin: Option<ColRef>,
}

/// The columns a relation yields.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub list: Vec<OutCol>,
    /// Every column is listed, so a name not among them is not there.
    pub complete: bool,
}

impl Columns {
    /// Columns nothing is known about (a table function, a table the print lacks...).
    pub fn open() -> Columns {
        Columns::default()
    }

    pub fn find(&self, stored: &str) -> Option<usize> {
        self.list.iter().position(|c| c.stored == stored)
    }
}

/// What a relation is, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A table or view of the print.
    Table(usize),
    /// A CTE, by its name as written.
    Cte(String),
    Subquery,
    /// Something whose columns cannot be known (a table function, a table outside the print).
    Opaque,
}

/// One relation of a FROM.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Stored spellings it is qualified by: its alias alone, or its table path (any
    /// trailing part of which qualifies).
    pub names: Vec<String>,
    pub aliased: bool,
    /// How the query refers to it (its alias, or its name as written).
    pub written: String,
    pub source: Source,
    pub columns: Arc<Columns>,
}

impl Relation {
    pub fn answers_to(&self, qualifier: &[String]) -> bool {
        if self.aliased {
            self.names == qualifier
        } else {
            !qualifier.is_empty() && self.names.ends_with(qualifier)
        }
    }
}

/// One FROM's relations, inside whatever encloses it.
#[derive(Clone, Copy)]
pub struct Scope<'s> {
    pub relations: &'s [Relation],
    /// Names USING or NATURAL merged into one column: a bare reference is not ambiguous.
    pub merged: &'s [String],
    /// The select list's output names: ORDER BY, GROUP BY and HAVING (and lateral-alias
    /// dialects anywhere) may name them.
    pub aliases: &'s [String],
    pub parent: Option<&'s Scope<'s>>,
}

impl<'s> Scope<'s> {
    pub fn empty() -> Scope<'static> {
        Scope {
            relations: &[],
            merged: &[],
            aliases: &[],
            parent: None,
        }
    }

    /// This scope and every enclosing one, innermost first.
    pub fn chain(&self) -> impl Iterator<Item = &Scope<'s>> {
        std::iter::successors(Some(self), |s| s.parent)
    }
}

/// A FROM as it is built: its relations so far, and the names USING or NATURAL merged.
#[derive(Default)]
pub struct FromList {
    pub relations: Vec<Relation>,
    pub merged: Vec<String>,
}

impl FromList {
    /// What is built so far as a scope inside `outer` (no output aliases): what an ON
    /// clause, a LATERAL item or a table function's arguments see.
    pub fn scope<'s>(&'s self, outer: &'s Scope<'s>) -> Scope<'s> {
        Scope {
            relations: &self.relations,
            merged: &self.merged,
            aliases: &[],
            parent: Some(outer),
        }
    }
}

/// Where a column reference leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A column of relation `rel` of the scope `depth` levels out.
    Column {
        depth: usize,
        rel: usize,
        col: usize,
        origin: Option<ColRef>,
    },
    /// Nothing to check: a relation itself, an output alias, an open relation's column.
    Unchecked,
    /// No relation in reach has it. `rel`: the relation a qualifier named.
    Missing { depth: usize, rel: Option<usize> },
    /// Several relations of the scope `depth` levels out have it.
    Ambiguous { depth: usize, rels: Vec<usize> },
    /// The qualifier names no relation in reach.
    NoQualifier,
}

/// A bare column name (stored spelling).
pub fn bare(scope: &Scope, name: &str) -> Lookup {
    for (depth, s) in scope.chain().enumerate() {
        let mut hits: Vec<(usize, usize)> = Vec::new();
        let mut open = false;
        for (i, rel) in s.relations.iter().enumerate() {
            match rel.columns.find(name) {
                Some(c) => hits.push((i, c)),
                None => open |= !rel.columns.complete,
            }
        }
        match hits.as_slice() {
            [] if open => return Lookup::Unchecked,
            [] => {
                if s.aliases.iter().any(|a| a == name)
                    || s.relations
                        .iter()
                        .any(|r| r.answers_to(&[name.to_string()]))
                {
                    return Lookup::Unchecked;
                }
            }
            [(rel, col)] => return column(s, depth, *rel, *col),
            [(rel, col), ..] if s.merged.iter().any(|m| m == name) => {
                return column(s, depth, *rel, *col)
            }
            several => {
                return Lookup::Ambiguous {
                    depth,
                    rels: several.iter().map(|(r, _)| *r).collect(),
                }
            }
        }
    }
    Lookup::Missing {
        depth: 0,
        rel: None,
    }
}

fn column(s: &Scope, depth: usize, rel: usize, col: usize) -> Lookup {
    Lookup::Column {
        depth,
        rel,
        col,
        origin: s.relations[rel].columns.list[col].origin,
    }
}

/// `qualifier.name` (stored spellings).
pub fn qualified(scope: &Scope, qualifier: &[String], name: &str) -> Lookup {
    for (depth, s) in scope.chain().enumerate() {
        let Some(rel) = s.relations.iter().position(|r| r.answers_to(qualifier)) else {
            continue;
        };
        let columns = &s.relations[rel].columns;
        return match columns.find(name) {
            Some(col) => column(s, depth, rel, col),
            None if columns.complete => Lookup::Missing {
                depth,
                rel: Some(rel),
            },
            None => Lookup::Unchecked,
        };
    }
    Lookup::NoQualifier
}

/// A dotted reference `a.b.c`: the longest leading run naming a relation qualifies the
/// next part; what follows is field access into it. With no relation named, the first part
/// may be a column holding fields.
pub fn dotted(scope: &Scope, parts: &[String]) -> (Lookup, usize) {
    if parts.len() == 1 {
        return (bare(scope, &parts[0]), 0);
    }
    for k in (1..parts.len()).rev() {
        let found = qualified(scope, &parts[..k], &parts[k]);
        if found != Lookup::NoQualifier {
            return (found, k);
        }
    }
    match bare(scope, &parts[0]) {
        found @ (Lookup::Column { .. } | Lookup::Unchecked | Lookup::Ambiguous { .. }) => {
            (found, 0)
        }
        _ => (Lookup::NoQualifier, 0),
    }
}

/// The scope `depth` levels out from `scope`.
pub fn level<'a, 's>(scope: &'a Scope<'s>, depth: usize) -> &'a Scope<'s> {
    let mut s = scope;
    for _ in 0..depth {
        s = s.parent.unwrap_or(s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(names: &[&str], aliased: bool, cols: &[&str], complete: bool) -> Relation {
        Relation {
            names: names.iter().map(|s| s.to_string()).collect(),
            aliased,
            written: names.join("."),
            source: Source::Subquery,
            columns: Arc::new(Columns {
                list: cols
                    .iter()
                    .map(|c| OutCol {
                        stored: c.to_string(),
                        written: c.to_string(),
                        origin: None,
                    })
                    .collect(),
                complete,
            }),
        }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn bare_names_resolve_innermost_first_and_report_ambiguity() {
        let outer = [rel(&["o"], true, &["id", "x"], true)];
        let outer_scope = Scope {
            relations: &outer,
            parent: None,
            ..Scope::empty()
        };
        let inner = [
            rel(&["a"], true, &["id", "y"], true),
            rel(&["b"], true, &["id", "z"], true),
        ];
        let scope = Scope {
            relations: &inner,
            parent: Some(&outer_scope),
            ..Scope::empty()
        };
        assert!(matches!(
            bare(&scope, "y"),
            Lookup::Column {
                depth: 0,
                rel: 0,
                ..
            }
        ));
        assert!(matches!(
            bare(&scope, "x"),
            Lookup::Column {
                depth: 1,
                rel: 0,
                ..
            }
        ));
        assert_eq!(
            bare(&scope, "id"),
            Lookup::Ambiguous {
                depth: 0,
                rels: vec![0, 1]
            }
        );
        assert_eq!(
            bare(&scope, "w"),
            Lookup::Missing {
                depth: 0,
                rel: None
            }
        );
        let merged = s(&["id"]);
        let using = Scope {
            merged: &merged,
            ..scope
        };
        assert!(matches!(bare(&using, "id"), Lookup::Column { rel: 0, .. }));
    }

    #[test]
    fn qualifiers_match_aliases_or_trailing_path_parts() {
        let rels = [
            rel(&["db", "lending", "loans"], false, &["loan_id"], true),
            rel(&["p"], true, &["full_name"], false),
        ];
        let scope = Scope {
            relations: &rels,
            ..Scope::empty()
        };
        assert!(matches!(
            dotted(&scope, &s(&["loans", "loan_id"])),
            (Lookup::Column { rel: 0, .. }, 1)
        ));
        assert!(matches!(
            dotted(&scope, &s(&["lending", "loans", "loan_id"])),
            (Lookup::Column { rel: 0, .. }, 2)
        ));
        assert_eq!(
            dotted(&scope, &s(&["loans", "nope"])).0,
            Lookup::Missing {
                depth: 0,
                rel: Some(0)
            }
        );
        // An open relation may hold anything.
        assert_eq!(dotted(&scope, &s(&["p", "anything"])).0, Lookup::Unchecked);
        // `q` may be a column of the open relation holding fields.
        assert_eq!(dotted(&scope, &s(&["q", "loan_id"])).0, Lookup::Unchecked);
        let known = Scope {
            relations: &rels[..1],
            ..Scope::empty()
        };
        assert_eq!(dotted(&known, &s(&["q", "loan_id"])).0, Lookup::NoQualifier);
        // A column holding fields.
        assert!(matches!(
            dotted(&scope, &s(&["loan_id", "field"])),
            (Lookup::Column { rel: 0, .. }, 0)
        ));
    }
}
