//! A hop and an alternative said in words: what joining does to the rows (at most one
//! match, rows multiplying, rows dropped by an inner join) and how an alternative tree
//! differs from the best one.

use super::cost::{Cardinality, Detection};
use super::graph::{Graph, JoinEdge};
use crate::query::validate_sql::catalog::Observed;

/// A table's own name (its FQN's last segment).
pub fn own_name(fqn: &str) -> &str {
    fqn.rsplit('.').next().unwrap_or(fqn)
}

/// A table's name for one of its rows, for prose only: `loans` -> `loan`,
/// `copies` -> `copy`, `branches` -> `branch`; a name that does not look plural is kept.
pub fn singular(name: &str) -> String {
    let lower = name.to_lowercase();
    let cut = |n: usize| name[..name.len() - n].to_string();
    if lower.ends_with("ies") && name.len() > 4 {
        return format!("{}y", cut(3));
    }
    for ending in ["sses", "shes", "ches", "xes", "zes", "uses"] {
        if lower.ends_with(ending) && name.len() > ending.len() + 1 {
            return cut(2);
        }
    }
    if lower.ends_with('s')
        && !lower.ends_with("ss")
        && !lower.ends_with("us")
        && !lower.ends_with("is")
        && name.len() > 2
    {
        return cut(1);
    }
    name.to_string()
}

/// A share as a percentage: one decimal below 10%, whole above.
pub fn percent(share: f64) -> String {
    let p = (share * 100.0).clamp(0.0, 100.0);
    if p < 10.0 {
        let text = format!("{p:.1}");
        format!("{}%", text.trim_end_matches(".0"))
    } else {
        format!("{}%", p.round() as i64)
    }
}

/// A number as prose writes it: at most one decimal, none when whole.
pub fn number(x: f64) -> String {
    let text = format!("{x:.1}");
    text.trim_end_matches(".0").to_string()
}

/// The share of the `from` side's rows an inner join along the hop drops, by the evidence:
/// walking up, the child's keys missing from the parent; walking down, the parents no
/// child reaches.
pub fn lost_share(up: bool, observed: Option<&Observed>) -> Option<f64> {
    let o = observed?;
    let kept = if up {
        o.containment?
    } else {
        o.target_coverage?
    };
    (kept < 1.0 - 1e-9).then_some(1.0 - kept.max(0.0))
}

/// What walking `edge` from table `from` does to the rows, in one sentence.
pub fn verdict(graph: &Graph, edge: &JoinEdge, up: bool) -> String {
    let (from, to) = if up {
        (edge.child, edge.parent)
    } else {
        (edge.parent, edge.child)
    };
    let from_rows = own_name(&graph.tables[from]);
    let to_rows = own_name(&graph.tables[to]);
    let (one_from, one_to) = (singular(from_rows), singular(to_rows));
    let observed = edge.observed.as_ref();
    let guessed =
        matches!(edge.detection, Detection::Inferred | Detection::Measured) && !edge.confirmed;
    let mut text = match Cardinality::of(up, observed) {
        Cardinality::OneToOne => {
            format!("each {one_from} meets at most one {one_to}, and each {one_to} at most one {one_from}")
        }
        Cardinality::ManyToOne if guessed => format!(
            "each {one_from} should have at most one {one_to}, but the edge is {}, so the key is not known to be unique",
            edge.detection.name()
        ),
        Cardinality::ManyToOne => format!("each {one_from} has at most one {one_to}"),
        Cardinality::OneToMany => match observed.and_then(|o| o.fanout_avg) {
            Some(avg) => {
                let max = observed
                    .and_then(|o| o.fanout_max)
                    .map(|m| format!(" (max {})", number(m)))
                    .unwrap_or_default();
                format!("each {one_from} meets {} {to_rows} on average{max}: rows multiply", number(avg))
            }
            None => format!("each {one_from} may meet many {to_rows}: rows multiply"),
        },
    };
    if let Some(lost) = lost_share(up, observed) {
        let what = if up {
            format!(
                "{from_rows}' {} values have no {one_to}",
                edge.child_columns.join(", ")
            )
        } else {
            format!("{from_rows} have no {one_to}")
        };
        text.push_str(&format!(
            "; {} of {what}: an inner join drops those {from_rows}; use LEFT JOIN to keep them",
            percent(lost)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_table_names_read_as_one_row() {
        assert_eq!(singular("loans"), "loan");
        assert_eq!(singular("copies"), "copy");
        assert_eq!(singular("branches"), "branch");
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("statuses"), "status");
        assert_eq!(singular("activity_log"), "activity_log");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("analysis"), "analysis");
    }

    #[test]
    fn shares_and_numbers_are_written_briefly() {
        assert_eq!(percent(0.0425), "4.2%");
        assert_eq!(percent(0.84), "84%");
        assert_eq!(percent(0.01), "1%");
        assert_eq!(number(3.859348), "3.9");
        assert_eq!(number(11.0), "11");
        assert_eq!(
            lost_share(
                true,
                Some(&Observed {
                    containment: Some(0.985),
                    ..Observed::default()
                })
            )
            .map(percent),
            Some("1.5%".into())
        );
        assert_eq!(
            lost_share(
                false,
                Some(&Observed {
                    target_coverage: Some(1.0),
                    ..Observed::default()
                })
            ),
            None
        );
        assert_eq!(lost_share(true, None), None);
    }
}
