//! The labels a Markdown reply prints and the `## Terms` legend defining exactly the ones a
//! page prints. Labels, their order and the json/yaml field and search_columns filter each
//! names are the interface; the definitions are printdex's own words.

use std::collections::BTreeSet;

/// One printed label.
pub struct Term {
    pub key: &'static str,
    pub label: &'static str,
    pub definition: &'static str,
    /// Where json/yaml carries it.
    pub spelling: Option<&'static str>,
    /// The search_columns filter that takes it.
    pub filter: Option<&'static str>,
}

const fn t(
    key: &'static str,
    label: &'static str,
    definition: &'static str,
    spelling: Option<&'static str>,
    filter: Option<&'static str>,
) -> Term {
    Term {
        key,
        label,
        definition,
        spelling,
        filter,
    }
}

/// Every fixed term, in legend order; percentiles (`percentile:<n>`) are generated and last.
pub static TERMS: &[Term] = &[
    t("scanned", "Scanned", "rows the statistics rest on, and what fraction of the table's rows that is.", Some("scope.rows_scanned"), None),
    t("sampled", "sampled", "a random draw of rows was read: tallies of rows (nulls, a value's occurrences, trues, falses) MAY be scaled up by row_count / rows_scanned, but never distinct counts, ratios, bounds, percentiles, sums or means", Some("scope.sample"), None),
    t("filtered_by", "filtered by", "a WHERE condition chose which rows were read; no figure scales up", Some("scope.filter"), None),
    t("over_the_rows_scanned", "over the rows scanned", "true of the rows that were read; any unread row might yet break it for the table", None, None),
    t("meanings_table", "Meanings", "not documented here = nothing in this print (no table description, no column or value note) tells what its values signify; codes, units and defaults come from code.", Some("meanings_documented: false"), None),
    t("meanings", "meanings", "not documented here = this column's complete code list has no note saying what codes mean; learn each code's sense from the program writing rows.", Some("values.<column>.meanings_documented: false"), None),
    t("grain", "Grain", "the set of columns pinning down one row", Some("grain"), None),
    t("annotated", "annotated", "asserted by a person (a grain key in the statistics annotations, an edge in relationship annotations); no measure", Some("detection: annotated on an edge, grain_annotations for a key"), None),
    t("timeline", "Timeline", "how many non-null anchor values fall into each bucket of the stated unit", Some("timeline"), None),
    t("buckets", "buckets", "number of buckets that contain any row", Some("timeline.buckets"), None),
    t("bucket_starts", "bucket starts", "where the first -> last bucket starts", Some("timeline.buckets[].start"), None),
    t("covers", "covers", "Timeline: fraction of scanned rows that fall in buckets; edge: fraction of the target's distinct values also found in the referencing side.", Some("timeline.coverage / observed.target_coverage"), None),
    t("shown_combinations", "Shown combinations", "Rows fractions and the footer add up only the null combinations printed here, and none other.", Some("null_patterns.patterns"), None),
    t("fk", "FK", "each edge from this column that nobody rejected, ordered declared, then inferred, then measured, each tagged how it was found.", Some("relationships.yaml refers_to"), None),
    t("fk_candidate", "FK candidate", "its class is foreign-key candidate, though no edge names it", Some("classification: foreign_key_candidate"), None),
    t("distinct", "distinct", "how many different non-null values were read", Some("cardinality"), None),
    t("values", "values", "the listed values: all distinct values for a complete list, otherwise the commonest with their fraction of scanned non-null rows", Some("values"), None),
    t("frequent_values", "frequent values, not a domain", "numeric or date columns only: values reaching both 1% of scanned non-null rows and double the fraction an even spread would give each value, up to 5, plus the fraction they hold jointly; more may be.", Some("values.<column>.shown_coverage"), None),
    t("values_complete", "values (complete)", "all distinct values, each with its own fraction of scanned non-null ro", Some("values, values_coverage: 1.0"), None),
    t("values_complete_scanned", "values (complete over the rows scanned)", "every distinct value among the rows read, with its fraction of the scanned non-null row", Some("values, values_coverage: 1.0 under scope"), None),
    t("values_top", "values (top N, covering X)", "the N commonest values, each with its fraction of scanned non-null rows; covering is what those N hold together; get_table_context in format json or yaml returns the entire list, resolve_value says whether some given value occurs, and purpose query lists just these same 5 ", Some("values, values_coverage"), None),
    t("withheld", "withheld", "a value a redaction rule concealed; its count is still accurate", None, None),
    t("true", "true", "rows holding true", Some("values"), None),
    t("false", "false", "rows holding false", Some("values"), None),
    t("range", "range", "the real minimum -> maximum; for a temporal column also the days between the two.", Some("range.min, range.max, range.span_days"), None),
    t("percentile_band", "P1-P99", "1st -> 99th percentile, given only when it is not the range", Some("percentiles.p01, percentiles.p99"), None),
    t("span", "span", "days from the lowest value to the highest, with both of the bounds hidden", Some("range.span_days"), None),
    t("mean", "mean", "average of the scanned non-null values, arithmetic", Some("mean"), None),
    t("zeros", "zeros", "fraction of scanned non-null rows that is 0", Some("zero_count"), None),
    t("negatives", "negatives", "fraction of scanned non-null rows with values below 0.0", Some("negative_count"), None),
    t("non_finite", "non-finite", "fraction of scanned non-null rows holding NaN or infinity; all other numeric figures exclude such rows", Some("non_finite_count"), None),
    t("empty_strings", "empty strings", "fraction of scanned non-null rows being an empty string", Some("empty_count"), None),
    t("empty_arrays", "empty arrays", "fraction of scanned non-null rows holding empty array", Some("empty_count"), None),
    t("whole_numbers", "whole numbers", "fraction of scanned non-null rows lacking a fractional part; omitted on integer types", Some("quantized_count"), None),
    t("at_midnight", "at midnight", "fraction of scanned non-null rows at exactly 00:00:00 hour", Some("quantized_count"), None),
    t("length", "length", "shortest -> longest value, in characters (bytes for binary types), and the average", Some("length"), None),
    t("nulls", "nulls", "fraction of scanned rows holding null; none = rows read hold no null; left out on NOT NULL columns with none", Some("null_rate, null_count"), None),
    t("nulls_column", "Nulls", "fraction of scanned rows holding null; none = the rows read hold no null; NOT NULL columns are omitted", Some("values.<column>.null_rate, nulls"), None),
    t("populated", "populated", "earliest -> latest date at which the anchor column sees the column non-null", Some("populated"), None),
    t("unmeasured", "unmeasured", "fields this run attempted but could not obtain; each value is unknown, not absent", Some("unmeasured"), None),
    t("switched_off", "switched off", "this measurement was disabled by configuration for the table; it being absent says naught of data", Some("disabled"), None),
    t("unrepresentable", "unrepresentable", "fields whose value falls beyond the years 0001-9999", Some("unrepresentable"), None),
    t("coverage_bounded", "coverage bounded", "coverage is a clamped figure, since the list and its rows were read separately.", Some("values_coverage_method: bounded"), None),
    t("candidate_key", "candidate key", "no two scanned values are equal - an observation, not a declared constraint.", Some("inferred.candidate_key"), None),
    t("cluster_partition_key", "cluster/partition key", "one of the columns of the clustering or partition key the table declares.", Some("physical_layout_key"), None),
    t("looks_like", "looks like", "the pattern the sampled values fit and how large the sample was; a guess", Some("inferred.looks_like"), Some("search_columns `looks_like`")),
    t("near", "near", "the best-fitting pattern that fell short of a verdict, with its fraction of the samples", Some("inferred.looks_like_candidate"), None),
    t("detected", "detected", "a category of sensitive data the column hints at; a detection, no ruling.", Some("inferred.sensitivity"), Some("search_columns `sensitivity`")),
    t("epoch", "epoch", "an integer holding Unix epoch time in the named time unit", Some("inferred.epoch_unit"), None),
    t("freshness", "freshness", "the age of the newest value, measured against the configured limits.", Some("freshness.classification"), None),
    t("distribution", "distribution", "how the non-null rows divide up among listed values", Some("distribution"), None),
    t("redacted", "redacted", "a redaction rule hid these values; the primitive is named; counts stay exact", Some("redacted"), Some("search_columns `redacted`")),
    t("parts", "parts", "count of profiled parts of a nested value, against all parts seen", Some("parts_found"), None),
    t("present", "present", "fraction of the named population carrying this member: rows (rows scanned, if the table was read in part) or instances of the parent", Some("occurrences"), None),
    t("srid", "srid", "spatial reference systems found on the geometries.", Some("geometry.srids"), None),
    t("extent_x", "extent x", "lowest -> largest x coordinate", Some("extent.min_x, extent.max_x"), None),
    t("extent_y", "extent y", "lowest -> largest y coordinate", Some("extent.min_y, extent.max_y"), None),
    t("dimension", "dimension", "the one vector dimension", Some("dimension"), None),
    t("mixed_dimension", "mixed dimension", "lowest -> largest vector dimension", Some("dimension"), None),
    t("unit_normalized", "unit-normalized", "every vector has length 1, so dot product ranks as cosine", Some("norm"), None),
    t("zero_vectors", "zero vectors", "scanned rows holding all-zero vector", Some("zero_count"), None),
    t("joins", "Joins", "each edge relationships.yaml holds, whatever its detection (declared, inferred, measured), minus edges a person rejected; joins only described in prose are left out.", Some("joins.refers_to, joins.referenced_by"), None),
    t("via", "via", "the column(s) holding the referen", Some("refers_to[].column"), None),
    t("on_delete", "on delete", "what the catalog declares happens on delete for the edge", Some("on_delete"), None),
    t("fanout_avg", "fanout avg", "mean count of referencing rows per key value, over rows having one.", Some("observed.fanout_avg"), None),
    t("fanout_max", "fanout max", "referencing rows behind the commonest key", Some("observed.fanout_max"), None),
    t("contained", "contained", "fraction of the referencing side's distinct values that exist in the target; compared = hashes both sketches had in common to test, so error is ~1/sqrt(compared); exact if all distinct referencing values were tested.", Some("observed.containment, observed.answerable_count"), None),
    t("not_measured", "not measured", "a side was read only in part, so the join went wholly unmeasured.", Some("observed.scope_compatible: false"), None),
    t("incoherent", "incoherent", "more distinct values on the referencing side than in the target, so some never match.", Some("observed.coherent: false"), None),
    t("detection:declared", "declared", "the catalog declares it (a foreign key for edges, a primary or unique key for Grain), making it a constraint", Some("detection: declared"), None),
    t("detection:inferred", "inferred", "guessed from the column names: a possible join, not a constraint.", Some("detection: inferred"), None),
    t("detection:measured", "measured", "established by measuring the data; it evidences the rows read, but it's not a constraint", Some("detection: measured"), None),
    t("distribution:uniform", "uniform", "no listed value holds more than double the rows of the rarest listed value", Some("distribution: uniform"), None),
    t("distribution:imbalanced", "imbalanced", "the commonest value holds over twice as many rows as the rarest one listed..", Some("distribution: imbalanced"), None),
    t("distribution:dominant_value", "dominant value", "one value covers 95% or more of scanned non-null rows; it is named w/ its share", Some("distribution: dominant_value"), None),
    t("distribution:long_tail", "long tail", "the listed values hold under 30% of scanned non-null rows; lots of rarer ones exist", Some("distribution: long_tail"), None),
    t("freshness:live", "live", "under the configured age limits, the newest value counts as: live", Some("freshness.classification: live"), None),
    t("freshness:stale", "stale", "under the configured age limits, the newest value counts as: stale", Some("freshness.classification: stale"), None),
    t("freshness:dormant", "dormant", "under the configured age limits, the newest value counts as: dormant", Some("freshness.classification: dormant"), None),
    t("looks_like:uuid", "uuid", "the sample conforms to the uuid pattern", Some("inferred.looks_like: uuid"), Some("search_columns `looks_like: uuid`")),
    t("looks_like:email", "email", "the sample conforms to the email pattern", Some("inferred.looks_like: email"), Some("search_columns `looks_like: email`")),
    t("looks_like:url", "url", "the sample conforms to the url pattern", Some("inferred.looks_like: url"), Some("search_columns `looks_like: url`")),
    t("looks_like:urn", "urn", "the sample conforms to the urn pattern", Some("inferred.looks_like: urn"), Some("search_columns `looks_like: urn`")),
    t("looks_like:content_type", "content type", "the sample conforms to the content type pattern", Some("inferred.looks_like: content_type"), Some("search_columns `looks_like: content_type`")),
    t("looks_like:path", "path", "the sample conforms to the path pattern", Some("inferred.looks_like: path"), Some("search_columns `looks_like: path`")),
    t("looks_like:ip", "ip", "the sample conforms to the ip pattern", Some("inferred.looks_like: ip"), Some("search_columns `looks_like: ip`")),
    t("looks_like:mac_address", "mac address", "the sample conforms to the mac address pattern", Some("inferred.looks_like: mac_address"), Some("search_columns `looks_like: mac_address`")),
    t("looks_like:country_code", "country code", "the sample conforms to the country code pattern", Some("inferred.looks_like: country_code"), Some("search_columns `looks_like: country_code`")),
    t("looks_like:currency_code", "currency code", "the sample conforms to the currency code pattern", Some("inferred.looks_like: currency_code"), Some("search_columns `looks_like: currency_code`")),
    t("looks_like:postal_code", "postal code", "the sample conforms to the postal code pattern", Some("inferred.looks_like: postal_code"), Some("search_columns `looks_like: postal_code`")),
    t("looks_like:isbn", "isbn", "the sample conforms to the isbn pattern", Some("inferred.looks_like: isbn"), Some("search_columns `looks_like: isbn`")),
    t("looks_like:ean", "ean", "the sample conforms to the ean pattern", Some("inferred.looks_like: ean"), Some("search_columns `looks_like: ean`")),
    t("looks_like:imei", "imei", "the sample conforms to the imei pattern", Some("inferred.looks_like: imei"), Some("search_columns `looks_like: imei`")),
    t("looks_like:card_number", "card number", "the sample conforms to the card number pattern", Some("inferred.looks_like: card_number"), Some("search_columns `looks_like: card_number`")),
    t("looks_like:iban", "iban", "the sample conforms to the iban pattern", Some("inferred.looks_like: iban"), Some("search_columns `looks_like: iban`")),
    t("looks_like:bic", "bic", "the sample conforms to the bic pattern", Some("inferred.looks_like: bic"), Some("search_columns `looks_like: bic`")),
    t("looks_like:phone", "phone", "the sample conforms to the phone pattern", Some("inferred.looks_like: phone"), Some("search_columns `looks_like: phone`")),
    t("looks_like:timezone", "timezone", "the sample conforms to the timezone pattern", Some("inferred.looks_like: timezone"), Some("search_columns `looks_like: timezone`")),
    t("looks_like:json", "json", "the sample conforms to the json pattern", Some("inferred.looks_like: json"), Some("search_columns `looks_like: json`")),
    t("looks_like:hex", "hex", "the sample conforms to the hex pattern", Some("inferred.looks_like: hex"), Some("search_columns `looks_like: hex`")),
    t("looks_like:jwt", "jwt", "the sample conforms to the jwt pattern", Some("inferred.looks_like: jwt"), Some("search_columns `looks_like: jwt`")),
    t("looks_like:vin", "vin", "the sample conforms to the vin pattern", Some("inferred.looks_like: vin"), Some("search_columns `looks_like: vin`")),
    t("looks_like:base64", "base64", "the sample conforms to the base64 pattern", Some("inferred.looks_like: base64"), Some("search_columns `looks_like: base64`")),
    t("looks_like:latlon", "latlon", "the sample conforms to the latlon pattern", Some("inferred.looks_like: latlon"), Some("search_columns `looks_like: latlon`")),
    t("looks_like:iso8601_duration", "iso8601 duration", "the sample conforms to the iso8601 duration pattern", Some("inferred.looks_like: iso8601_duration"), Some("search_columns `looks_like: iso8601_duration`")),
    t("looks_like:iso8601_date", "iso8601 date", "the sample conforms to the iso8601 date pattern", Some("inferred.looks_like: iso8601_date"), Some("search_columns `looks_like: iso8601_date`")),
    t("looks_like:iso8601_datetime", "iso8601 datetime", "the sample conforms to the iso8601 datetime pattern", Some("inferred.looks_like: iso8601_datetime"), Some("search_columns `looks_like: iso8601_datetime`")),
    t("looks_like:numeric_string", "numeric string", "the sample conforms to the numeric string pattern", Some("inferred.looks_like: numeric_string"), Some("search_columns `looks_like: numeric_string`")),
    t("looks_like:semver", "semver", "the sample conforms to the semver pattern", Some("inferred.looks_like: semver"), Some("search_columns `looks_like: semver`")),
    t("looks_like:filename", "filename", "the sample conforms to the filename pattern", Some("inferred.looks_like: filename"), Some("search_columns `looks_like: filename`")),
    t("looks_like:prose", "prose", "the sample conforms to the prose pattern", Some("inferred.looks_like: prose"), Some("search_columns `looks_like: prose`")),
    t("looks_like:png", "png", "the sample conforms to the png pattern", Some("inferred.looks_like: png"), Some("search_columns `looks_like: png`")),
    t("looks_like:jpeg", "jpeg", "the sample conforms to the jpeg pattern", Some("inferred.looks_like: jpeg"), Some("search_columns `looks_like: jpeg`")),
    t("looks_like:gif", "gif", "the sample conforms to the gif pattern", Some("inferred.looks_like: gif"), Some("search_columns `looks_like: gif`")),
    t("looks_like:pdf", "pdf", "the sample conforms to the pdf pattern", Some("inferred.looks_like: pdf"), Some("search_columns `looks_like: pdf`")),
    t("looks_like:gzip", "gzip", "the sample conforms to the gzip pattern", Some("inferred.looks_like: gzip"), Some("search_columns `looks_like: gzip`")),
    t("looks_like:zip", "zip", "the sample conforms to the zip pattern", Some("inferred.looks_like: zip"), Some("search_columns `looks_like: zip`")),
    t("sensitivity:personal_name", "personal name", "the column hints at personal name data", Some("inferred.sensitivity: personal_name"), Some("search_columns `sensitivity: personal_name`")),
    t("sensitivity:postal_address", "postal address", "the column hints at postal address data", Some("inferred.sensitivity: postal_address"), Some("search_columns `sensitivity: postal_address`")),
    t("sensitivity:geolocation", "geolocation", "the column hints at geolocation data", Some("inferred.sensitivity: geolocation"), Some("search_columns `sensitivity: geolocation`")),
    t("sensitivity:date_of_birth", "date of birth", "the column hints at date of birth data", Some("inferred.sensitivity: date_of_birth"), Some("search_columns `sensitivity: date_of_birth`")),
    t("sensitivity:national_id", "national id", "the column hints at national id data", Some("inferred.sensitivity: national_id"), Some("search_columns `sensitivity: national_id`")),
    t("sensitivity:financial_account", "financial account", "the column hints at financial account data", Some("inferred.sensitivity: financial_account"), Some("search_columns `sensitivity: financial_account`")),
    t("sensitivity:credential", "credential", "the column hints at credential data", Some("inferred.sensitivity: credential"), Some("search_columns `sensitivity: credential`")),
    t("sensitivity:health", "health", "the column hints at health data", Some("inferred.sensitivity: health"), Some("search_columns `sensitivity: health`")),
    t("sensitivity:demographic", "demographic", "the column hints at demographic data", Some("inferred.sensitivity: demographic"), Some("search_columns `sensitivity: demographic`")),
    t("sensitivity:employment", "employment", "the column hints at employment data", Some("inferred.sensitivity: employment"), Some("search_columns `sensitivity: employment`")),
    t("sensitivity:contact", "contact", "the column hints at contact data", Some("inferred.sensitivity: contact"), Some("search_columns `sensitivity: contact`")),
    t("sensitivity:online_identifier", "online identifier", "the column hints at online identifier data", Some("inferred.sensitivity: online_identifier"), Some("search_columns `sensitivity: online_identifier`")),
    t("epoch_unit:seconds", "seconds", "Unix time, measured in seconds, by this integer", Some("inferred.epoch_unit: seconds"), None),
    t("epoch_unit:milliseconds", "milliseconds", "Unix time, measured in milliseconds, by this integer", Some("inferred.epoch_unit: milliseconds"), None),
    t("candidate_key_exception:measured_duplicates", "measured duplicates", "the key holds, except that it is measured duplicates", Some("inferred.candidate_key_exception: measured_duplicates"), None),
    t("candidate_key_exception:estimated", "estimated", "the key holds, except that it is estimated", Some("inferred.candidate_key_exception: estimated"), None),
    t("redaction:mask", "mask", "the values were concealed by the redaction primitive, mask.", Some("redacted: mask"), Some("search_columns `redacted: mask`")),
    t("redaction:drop", "drop", "the values were concealed by the redaction primitive, drop.", Some("redacted: drop"), Some("search_columns `redacted: drop`")),
    t("redaction:hash", "hash", "the values were concealed by the redaction primitive, hash.", Some("redacted: hash"), Some("search_columns `redacted: hash`")),
    t("classification:boolean", "boolean", "the column is classed as boolean", Some("classification: boolean"), Some("search_columns `classification: boolean`")),
    t("classification:temporal", "temporal", "the column is classed as temporal", Some("classification: temporal"), Some("search_columns `classification: temporal`")),
    t("classification:numeric", "numeric", "the column is classed as numeric", Some("classification: numeric"), Some("search_columns `classification: numeric`")),
    t("classification:text", "text", "the column is classed as text", Some("classification: text"), Some("search_columns `classification: text`")),
    t("classification:json", "json", "the column is classed as json", Some("classification: json"), Some("search_columns `classification: json`")),
    t("classification:composite", "composite", "the column is classed as composite", Some("classification: composite"), Some("search_columns `classification: composite`")),
    t("classification:binary", "binary", "the column is classed as binary", Some("classification: binary"), Some("search_columns `classification: binary`")),
    t("classification:spatial", "spatial", "the column is classed as spatial", Some("classification: spatial"), Some("search_columns `classification: spatial`")),
    t("classification:vector", "vector", "the column is classed as vector", Some("classification: vector"), Some("search_columns `classification: vector`")),
];

/// A set of term keys, as a renderer records them per line.
pub type Keys = BTreeSet<String>;

pub fn keys<const N: usize>(items: [&str; N]) -> Keys {
    items.iter().map(|s| s.to_string()).collect()
}

fn position(key: &str) -> Option<usize> {
    TERMS.iter().position(|t| t.key == key)
}

pub fn is_term(key: &str) -> bool {
    position(key).is_some()
}

fn ordinal(n: u64) -> String {
    let suffix = if (10..=20).contains(&(n % 100)) {
        "th"
    } else {
        match n % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    };
    format!("{n}{suffix}")
}

/// `percentile_key`: `p50` -> `percentile:50`.
pub fn percentile_key(field: &str) -> Option<String> {
    let digits = field.strip_prefix('p')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!(
        "percentile:{}",
        digits.trim_start_matches('0').parse::<u64>().unwrap_or(0)
    ))
}

/// The legend line of one key, or the reference's failure for a key it has no term for.
fn line(key: &str) -> Result<String, String> {
    let (label, definition, spelling, filter) = match position(key) {
        Some(i) => {
            let t = &TERMS[i];
            (
                t.label.to_string(),
                t.definition.to_string(),
                t.spelling.map(str::to_string),
                t.filter,
            )
        }
        None => {
            let n = key
                .strip_prefix("percentile:")
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<u64>().ok())
                .ok_or_else(|| compat::py::repr_str(key))?;
            (
                format!("P{n}"),
                format!(
                    "the {} percentile across scanned non-null values",
                    ordinal(n)
                ),
                Some(format!("percentiles.p{n:02}")),
                None,
            )
        }
    };
    let mut place = Vec::new();
    if let Some(s) = spelling {
        place.push(format!("json/yaml `{s}`"));
    }
    if let Some(f) = filter {
        place.push(f.to_string());
    }
    let suffix = if place.is_empty() {
        String::new()
    } else {
        format!(" ({})", place.join("; "))
    };
    Ok(format!("- {label}: {definition}{suffix}"))
}

/// `legend`: `## Terms` and one line per key in TERMS order, percentiles last; "" for none.
/// An unknown key fails as the reference's sort does (`int()` of its suffix).
pub fn legend(keys: &Keys) -> Result<String, String> {
    if keys.is_empty() {
        return Ok(String::new());
    }
    let mut ordered: Vec<(usize, u64, &String)> = Vec::with_capacity(keys.len());
    for k in keys {
        match position(k) {
            Some(i) => ordered.push((i, 0, k)),
            None => {
                let suffix = k.split_once(':').map(|(_, s)| s).unwrap_or("");
                let n = suffix.trim().parse::<u64>().map_err(|_| {
                    format!(
                        "invalid literal for int() with base 10: {}",
                        compat::py::repr_str(suffix)
                    )
                })?;
                ordered.push((TERMS.len(), n, k));
            }
        }
    }
    ordered.sort();
    let mut lines = vec!["## Terms".to_string(), String::new()];
    for (_, _, k) in ordered {
        lines.push(line(k)?);
    }
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_orders_terms_then_percentiles() {
        let text = legend(&keys(["percentile:50", "nulls", "scanned", "percentile:1"])).unwrap();
        let labels: Vec<&str> = text
            .lines()
            .skip(2)
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(labels, ["- Scanned", "- nulls", "- P1", "- P50"]);
        assert!(text.contains("(json/yaml `percentiles.p01`)"));
        assert_eq!(legend(&Keys::new()).unwrap(), "");
        assert!(legend(&keys(["looks_like:nope"])).is_err());
    }

    #[test]
    fn every_term_names_its_place() {
        assert_eq!(TERMS.len(), 145);
        let l = legend(&keys(["looks_like:email"])).unwrap();
        assert!(l.ends_with(
            "(json/yaml `inferred.looks_like: email`; search_columns `looks_like: email`)"
        ));
    }
}
