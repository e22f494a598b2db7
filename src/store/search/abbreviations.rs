//! The abbreviations find reads both ways: the one list. A name or a query word equal to an
//! abbreviation below (case aside) is read as the words it stands for, on both sides of the
//! index, so `cust_id` is found by "customer" and `customer_id` by "cust". Only
//! abbreviations with one common reading in database names are listed: `cat` (category or
//! catalog), `min` (minimum or minute), `st` (street or state) and `temp` (temporary or
//! temperature) are not, and neither is `no` (a value as often as "number").
//!
//! To add one: a line `("abbreviation", "words it stands for")`, lowercase, kept in
//! alphabetical order (a test holds the order, and that no abbreviation is listed twice).

/// `(abbreviation, what it stands for)`, sorted by abbreviation.
pub const ABBREVIATIONS: &[(&str, &str)] = &[
    ("acct", "account"),
    ("addr", "address"),
    ("amt", "amount"),
    ("attr", "attribute"),
    ("avg", "average"),
    ("bal", "balance"),
    ("cfg", "configuration"),
    ("cnt", "count"),
    ("co", "company"),
    ("ctry", "country"),
    ("cust", "customer"),
    ("dept", "department"),
    ("desc", "description"),
    ("dob", "date of birth"),
    ("doc", "document"),
    ("dt", "date"),
    ("emp", "employee"),
    ("fname", "first name"),
    ("idx", "index"),
    ("img", "image"),
    ("info", "information"),
    ("inv", "invoice"),
    ("lang", "language"),
    ("lat", "latitude"),
    ("lname", "last name"),
    ("lng", "longitude"),
    ("loc", "location"),
    ("lon", "longitude"),
    ("max", "maximum"),
    ("mgr", "manager"),
    ("msg", "message"),
    ("mth", "month"),
    ("nbr", "number"),
    ("num", "number"),
    ("org", "organization"),
    ("orig", "original"),
    ("pct", "percent"),
    ("phn", "phone"),
    ("pmt", "payment"),
    ("prev", "previous"),
    ("prod", "product"),
    ("pwd", "password"),
    ("pymt", "payment"),
    ("qty", "quantity"),
    ("ref", "reference"),
    ("seq", "sequence"),
    ("src", "source"),
    ("std", "standard"),
    ("subs", "subscription"),
    ("svc", "service"),
    ("tel", "telephone"),
    ("ts", "timestamp"),
    ("txn", "transaction"),
    ("usr", "user"),
    ("val", "value"),
    ("wk", "week"),
    ("yr", "year"),
];

/// The words `word` (lowercase) stands for, when it is a listed abbreviation.
pub fn expansion(word: &str) -> Option<&'static str> {
    ABBREVIATIONS
        .binary_search_by(|(short, _)| (*short).cmp(word))
        .ok()
        .map(|at| ABBREVIATIONS[at].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_lowercase_and_lists_each_abbreviation_once() {
        for pair in ABBREVIATIONS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{:?} before {:?}", pair[0], pair[1]);
        }
        for (short, long) in ABBREVIATIONS {
            assert_eq!(*short, short.to_lowercase());
            assert_eq!(*long, long.to_lowercase());
            assert!(
                !long.split(' ').any(|w| w == *short),
                "{short} stands for itself"
            );
        }
    }

    #[test]
    fn a_listed_abbreviation_expands_and_another_word_does_not() {
        assert_eq!(expansion("cust"), Some("customer"));
        assert_eq!(expansion("qty"), Some("quantity"));
        assert_eq!(expansion("dob"), Some("date of birth"));
        assert_eq!(expansion("customer"), None);
        assert_eq!(expansion("cat"), None);
    }
}
