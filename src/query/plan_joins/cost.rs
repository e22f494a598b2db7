//! What one join costs the planner: the one place the price of a hop is set.
//!
//! A hop is an edge of the print walked one way, away from the plan's root (the first
//! table asked for). Its cost is the sum of two parts:
//!
//! * **trust**, what the edge's origin and evidence say about whether it is a real join:
//!   an edge the catalog declares, one a person added, and one a person confirmed cost
//!   [`TRUSTED`]; an inferred or measured edge costs [`GUESSED`] plus its doubt, at most
//!   [`MAX_DOUBT`] more. Doubt grows as the child's values are missing from the parent
//!   (`containment` below 1), as the edge reaches little of the parent (`target_coverage`),
//!   and sharply when the child has more distinct keys than the parent (`coherent: false`,
//!   impossible for a real reference); evidence that was not measured counts as half a
//!   doubt. An edge a person rejected is never in the graph, so it has no cost.
//! * **direction**, what the hop does to the rows: walking from the referencing (child)
//!   table to the referenced (parent) one is many-to-one and adds nothing; walking from the
//!   parent to its children is one-to-many, multiplies the rows, and costs
//!   [`FAN_OUT`] plus a little more per doubling of the average fan-out (at most
//!   [`MAX_FAN_OUT_GROWTH`] more); a hop the evidence shows to be one-to-one (every key
//!   met at most once) adds nothing either way.
//!
//! Every hop costs at least 1, so of two trees whose penalties are equal the one with
//! fewer hops is cheaper. The numbers are a ranking, not a prediction of run time: only
//! their order matters, and the tests below hold that order.

use crate::query::validate_sql::catalog::Observed;

/// A declared edge, one a person added, or one a person confirmed.
pub const TRUSTED: f64 = 1.0;
/// An edge inferred from names or measured from values, before its doubt.
pub const GUESSED: f64 = 1.5;
/// The most an inferred edge's evidence can add.
pub const MAX_DOUBT: f64 = 2.0;
/// Walking from a parent to its children.
pub const FAN_OUT: f64 = 0.75;
/// The most the size of a fan-out adds beyond [`FAN_OUT`].
pub const MAX_FAN_OUT_GROWTH: f64 = 1.0;

/// Where an edge comes from, as the print and its annotations say.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Detection {
    /// Read from the database's catalog.
    Declared,
    /// Added by a person in relationships.annotations.yaml.
    Annotated,
    /// Inferred by dbprint from column names.
    Inferred,
    /// Measured by dbprint from value containment.
    Measured,
}

impl Detection {
    /// The print's word; an unknown or absent one reads `inferred`, the weaker claim.
    pub fn of(word: &str) -> Detection {
        match word {
            "declared" => Detection::Declared,
            "annotated" => Detection::Annotated,
            "measured" => Detection::Measured,
            _ => Detection::Inferred,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Detection::Declared => "declared",
            Detection::Annotated => "annotated",
            Detection::Inferred => "inferred",
            Detection::Measured => "measured",
        }
    }
}

/// What walking a hop does to the rows, as the evidence says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// From a child to its parent: each row meets at most one.
    ManyToOne,
    /// From a parent to its children: a row may meet many.
    OneToMany,
    /// Every key is met at most once on both sides.
    OneToOne,
}

impl Cardinality {
    /// The hop from the child to the parent (`up`) or back, given the edge's evidence.
    pub fn of(up: bool, observed: Option<&Observed>) -> Cardinality {
        let unique_children = observed.is_some_and(|o| {
            o.fanout_max == Some(1.0) || (o.fanout_max.is_none() && o.fanout_avg == Some(1.0))
        });
        match (unique_children, up) {
            (true, _) => Cardinality::OneToOne,
            (false, true) => Cardinality::ManyToOne,
            (false, false) => Cardinality::OneToMany,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cardinality::ManyToOne => "many-to-one",
            Cardinality::OneToMany => "one-to-many",
            Cardinality::OneToOne => "one-to-one",
        }
    }
}

/// What the planner knows of an edge when it prices it.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub detection: Detection,
    /// A person's annotation addresses the edge without rejecting it.
    pub confirmed: bool,
    pub observed: Option<&'a Observed>,
}

/// How far an inferred or measured edge's evidence falls short, 0 to [`MAX_DOUBT`].
pub fn doubt(observed: Option<&Observed>) -> f64 {
    let unknown = Observed::default();
    let o = observed.unwrap_or(&unknown);
    // Containment is the direct test of a reference: the child's keys found in the parent.
    let containment = o
        .containment
        .map_or(0.25, |c| 0.5 * (1.0 - c.clamp(0.0, 1.0)));
    // Coverage says how much of the parent the edge reaches; a coincidental overlap of two
    // unrelated key sequences tends to reach little of it.
    let coverage = o
        .target_coverage
        .map_or(0.125, |c| 0.25 * (1.0 - c.clamp(0.0, 1.0)));
    let incoherent = if o.coherent == Some(false) { 1.25 } else { 0.0 };
    (containment + coverage + incoherent).min(MAX_DOUBT)
}

/// The trust part of a hop's cost.
pub fn trust(e: &Evidence) -> f64 {
    match e.detection {
        Detection::Declared | Detection::Annotated => TRUSTED,
        _ if e.confirmed => TRUSTED,
        Detection::Inferred | Detection::Measured => GUESSED + doubt(e.observed),
    }
}

/// The direction part of a hop's cost.
pub fn direction(up: bool, observed: Option<&Observed>) -> f64 {
    match Cardinality::of(up, observed) {
        Cardinality::ManyToOne | Cardinality::OneToOne => 0.0,
        Cardinality::OneToMany => {
            let average = observed.and_then(|o| o.fanout_avg).unwrap_or(2.0).max(1.0);
            FAN_OUT + (0.25 * average.log2()).min(MAX_FAN_OUT_GROWTH)
        }
    }
}

/// The cost of walking an edge from its child to its parent (`up`) or the other way.
pub fn hop(e: &Evidence, up: bool) -> f64 {
    trust(e) + direction(up, e.observed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(containment: Option<f64>, coverage: f64, coherent: Option<bool>) -> Observed {
        Observed {
            fanout_avg: Some(3.0),
            fanout_max: Some(9.0),
            target_coverage: Some(coverage),
            containment,
            coherent,
            scope_compatible: Some(true),
        }
    }

    fn evidence(detection: Detection, confirmed: bool, o: Option<&Observed>) -> Evidence<'_> {
        Evidence {
            detection,
            confirmed,
            observed: o,
        }
    }

    #[test]
    fn declared_added_and_confirmed_edges_cost_the_least() {
        let o = observed(Some(0.9), 0.5, Some(true));
        let declared = hop(&evidence(Detection::Declared, false, Some(&o)), true);
        let added = hop(&evidence(Detection::Annotated, false, None), true);
        let confirmed = hop(&evidence(Detection::Inferred, true, Some(&o)), true);
        let inferred = hop(&evidence(Detection::Inferred, false, Some(&o)), true);
        assert_eq!(declared, TRUSTED);
        assert_eq!(added, TRUSTED);
        assert_eq!(confirmed, TRUSTED);
        assert!(inferred > declared, "{inferred}");
    }

    #[test]
    fn inferred_edges_cost_more_the_weaker_their_evidence() {
        let strong = observed(Some(1.0), 1.0, Some(true));
        let partial = observed(Some(0.8), 0.6, Some(true));
        let incoherent = observed(Some(0.8), 0.6, Some(false));
        let cost = |o: Option<&Observed>| hop(&evidence(Detection::Inferred, false, o), true);
        assert_eq!(cost(Some(&strong)), GUESSED);
        assert!(cost(Some(&partial)) > cost(Some(&strong)));
        assert!(
            cost(None) > cost(Some(&strong)),
            "unmeasured evidence is doubt"
        );
        assert!(cost(Some(&incoherent)) > cost(Some(&partial)) + 1.0);
        assert!(cost(Some(&incoherent)) <= GUESSED + MAX_DOUBT);
        // A measured edge is priced as an inferred one.
        assert_eq!(
            hop(&evidence(Detection::Measured, false, Some(&partial)), true),
            cost(Some(&partial))
        );
    }

    #[test]
    fn fanning_out_costs_more_than_walking_up_and_more_the_wider_it_fans() {
        let narrow = Observed {
            fanout_avg: Some(1.5),
            ..Observed::default()
        };
        let wide = Observed {
            fanout_avg: Some(40.0),
            ..Observed::default()
        };
        let declared =
            |o: &Observed, up: bool| hop(&evidence(Detection::Declared, false, Some(o)), up);
        assert_eq!(declared(&narrow, true), TRUSTED);
        assert!(declared(&narrow, false) > TRUSTED + FAN_OUT - 1e-9);
        assert!(declared(&wide, false) > declared(&narrow, false));
        assert!(declared(&wide, false) <= TRUSTED + FAN_OUT + MAX_FAN_OUT_GROWTH);
        // An unknown fan-out is priced as a doubling.
        let unknown = hop(&evidence(Detection::Declared, false, None), false);
        assert_eq!(unknown, TRUSTED + FAN_OUT + 0.25);
    }

    #[test]
    fn a_one_to_one_edge_costs_nothing_for_its_direction() {
        let unique = Observed {
            fanout_avg: Some(1.0),
            fanout_max: Some(1.0),
            ..Observed::default()
        };
        assert_eq!(Cardinality::of(false, Some(&unique)), Cardinality::OneToOne);
        assert_eq!(direction(false, Some(&unique)), 0.0);
        assert_eq!(Cardinality::of(true, None), Cardinality::ManyToOne);
        assert_eq!(Cardinality::of(false, None), Cardinality::OneToMany);
    }

    #[test]
    fn a_declared_detour_of_two_hops_loses_to_a_strong_inferred_shortcut_only_when_it_fans_out() {
        let strong = observed(Some(1.0), 1.0, Some(true));
        let shortcut = hop(&evidence(Detection::Inferred, false, Some(&strong)), true);
        let up_up = 2.0 * TRUSTED;
        assert!(
            shortcut < up_up,
            "one sound inferred hop beats two declared ones"
        );
        let weak = observed(Some(0.3), 0.1, Some(true));
        let weak_shortcut = hop(&evidence(Detection::Inferred, false, Some(&weak)), true);
        assert!(
            weak_shortcut > up_up,
            "a doubtful guess loses to two declared hops"
        );
    }

    #[test]
    fn every_hop_costs_at_least_one() {
        for d in [
            Detection::Declared,
            Detection::Annotated,
            Detection::Inferred,
            Detection::Measured,
        ] {
            for up in [true, false] {
                assert!(hop(&evidence(d, false, None), up) >= 1.0);
            }
        }
        assert_eq!(Detection::of("declared"), Detection::Declared);
        assert_eq!(Detection::of(""), Detection::Inferred);
        assert_eq!(Detection::Measured.name(), "measured");
    }
}
