//! The labels a Markdown reply prints and the `## Terms` legend defining exactly the ones a
//! page prints. Labels, their order and the json/yaml field and search_columns filter each
//! names are the interface; the definitions are printdex's own words, each a whole sentence
//! in plain words (the tests hold every word to `terms_vocabulary.txt`). Each definition is
//! as long as the reference's: a Markdown page leaves room for its document's whole legend,
//! so equal lengths keep the page cuts where the reference's fall.

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
    t("sampled", "sampled", "a random draw of rows was read: counts of rows (nulls, a value's occurrences, trues, falses) may be scaled up by row_count / rows_scanned; distinct counts, ratios, bounds, percentiles, sums or means never are.", Some("scope.sample"), None),
    t("filtered_by", "filtered by", "a WHERE condition picked which rows to read; no figure scales up.", Some("scope.filter"), None),
    t("over_the_rows_scanned", "over the rows scanned", "true of the rows that were read; any row that was not read could still break it.", None, None),
    t("meanings_table", "Meanings", "not documented here: nothing in this print (no table description, no column or value note) tells what its values signify; codes, units and defaults are in the code.", Some("meanings_documented: false"), None),
    t("meanings", "meanings", "not documented here: no note tells what the codes in this column's complete list mean; learn each code's sense from the program writing the rows.", Some("values.<column>.meanings_documented: false"), None),
    t("grain", "Grain", "the set of columns that pin down a row.", Some("grain"), None),
    t("annotated", "annotated", "asserted by a person (a grain key in statistics annotations, an edge in relationships annotations); not measured.", Some("detection: annotated on an edge, grain_annotations for a key"), None),
    t("timeline", "Timeline", "how many non-null anchor values fall in every bucket of the stated unit.", Some("timeline"), None),
    t("buckets", "buckets", "the number of buckets holding any row.", Some("timeline.buckets"), None),
    t("bucket_starts", "bucket starts", "when the first and last bucket start.", Some("timeline.buckets[].start"), None),
    t("covers", "covers", "Timeline: fraction of scanned rows that fall in buckets; edge: fraction of the target's distinct values also found in the referencing side.", Some("timeline.coverage / observed.target_coverage"), None),
    t("shown_combinations", "Shown combinations", "Rows fractions and the footer add up only the null combinations printed here, and none other.", Some("null_patterns.patterns"), None),
    t("fk", "FK", "each edge from this column that nobody rejected, ordered declared, then inferred, then measured, each tagged how it was found.", Some("relationships.yaml refers_to"), None),
    t("fk_candidate", "FK candidate", "its class is foreign-key candidate though no edge names it.", Some("classification: foreign_key_candidate"), None),
    t("distinct", "distinct", "how many distinct non-null values were read.", Some("cardinality"), None),
    t("values", "values", "the listed values: every distinct value of a complete list, or else the commonest, with their fraction of scanned non-null rows.", Some("values"), None),
    t("frequent_values", "frequent values, not a domain", "numeric or date columns only: values reaching both 1% of scanned non-null rows and twice the fraction an even spread would give each, at most 5, with the fraction they hold jointly; others may occur.", Some("values.<column>.shown_coverage"), None),
    t("values_complete", "values (complete)", "every distinct value, each with its fraction of scanned non-null rows.", Some("values, values_coverage: 1.0"), None),
    t("values_complete_scanned", "values (complete over the rows scanned)", "every distinct value among the rows read, each with its share of scanned non-null rows.", Some("values, values_coverage: 1.0 under scope"), None),
    t("values_top", "values (top N, covering X)", "the N commonest values, each with its fraction of scanned non-null rows; covering is what those N hold together; get_table_context in format json or yaml returns the entire list, resolve_value says whether some given value occurs, and purpose query lists the same top five.", Some("values, values_coverage"), None),
    t("withheld", "withheld", "a value a redaction rule concealed; its count is still correct.", None, None),
    t("true", "true", "rows set to true.", Some("values"), None),
    t("false", "false", "rows set to false.", Some("values"), None),
    t("range", "range", "the real minimum -> maximum; for a temporal column also the days between the two.", Some("range.min, range.max, range.span_days"), None),
    t("percentile_band", "P1-P99", "1st -> 99th percentile, listed only if it is not the range.", Some("percentiles.p01, percentiles.p99"), None),
    t("span", "span", "days from the lowest value to the highest, with both the bounds withheld.", Some("range.span_days"), None),
    t("mean", "mean", "the arithmetic average of scanned non-null values.", Some("mean"), None),
    t("zeros", "zeros", "fraction of scanned non-null rows valued 0.", Some("zero_count"), None),
    t("negatives", "negatives", "fraction of scanned non-null rows with a value below 0.", Some("negative_count"), None),
    t("non_finite", "non-finite", "fraction of scanned non-null rows holding NaN or infinity; every other numeric figure leaves them out.", Some("non_finite_count"), None),
    t("empty_strings", "empty strings", "fraction of scanned non-null rows with an empty string.", Some("empty_count"), None),
    t("empty_arrays", "empty arrays", "fraction of scanned non-null rows holding no element.", Some("empty_count"), None),
    t("whole_numbers", "whole numbers", "fraction of scanned non-null rows with no fractional part; omitted for integer types.", Some("quantized_count"), None),
    t("at_midnight", "at midnight", "fraction of scanned non-null rows with a time of 00:00:00.", Some("quantized_count"), None),
    t("length", "length", "shortest -> longest value in characters (bytes for binary types), and the average.", Some("length"), None),
    t("nulls", "nulls", "fraction of scanned rows holding null; none means no row read is null; absent on NOT NULL columns with none.", Some("null_rate, null_count"), None),
    t("nulls_column", "Nulls", "fraction of scanned rows holding null; none means no row read is null; NOT NULL columns are not shown.", Some("values.<column>.null_rate, nulls"), None),
    t("populated", "populated", "earliest -> latest date at which the anchor column sees this column filled.", Some("populated"), None),
    t("unmeasured", "unmeasured", "fields the run attempted but could not obtain; each value is unknown, not absent.", Some("unmeasured"), None),
    t("switched_off", "switched off", "configuration disabled this measurement for this table; its absence tells nothing about the data.", Some("disabled"), None),
    t("unrepresentable", "unrepresentable", "fields whose value lies beyond the years 0001-9999.", Some("unrepresentable"), None),
    t("coverage_bounded", "coverage bounded", "coverage is a clamped figure, since the list and its rows were read separately.", Some("values_coverage_method: bounded"), None),
    t("candidate_key", "candidate key", "no two scanned values were equal: an observation, not a declared constraint.", Some("inferred.candidate_key"), None),
    t("cluster_partition_key", "cluster/partition key", "one of the columns of the clustering or partition key the table declares.", Some("physical_layout_key"), None),
    t("looks_like", "looks like", "the pattern that the sampled values fit, and the sample's size; a guess.", Some("inferred.looks_like"), Some("search_columns `looks_like`")),
    t("near", "near", "the best-fitting pattern that fell short of a verdict, and its fraction of the samples.", Some("inferred.looks_like_candidate"), None),
    t("detected", "detected", "a category of sensitive data the column hints at; a detection, no ruling.", Some("inferred.sensitivity"), Some("search_columns `sensitivity`")),
    t("epoch", "epoch", "an integer giving Unix epoch time in the named time unit.", Some("inferred.epoch_unit"), None),
    t("freshness", "freshness", "the age of the newest value, measured against the configured limits.", Some("freshness.classification"), None),
    t("distribution", "distribution", "how the non-null rows fall among the listed values.", Some("distribution"), None),
    t("redacted", "redacted", "a redaction rule hid these values; the primitive is named; counts are exact.", Some("redacted"), Some("search_columns `redacted`")),
    t("parts", "parts", "the count of profiled parts of a nested value, of all parts seen.", Some("parts_found"), None),
    t("present", "present", "fraction of the named population carrying this member: rows (rows scanned, if the table was read in part) or the parent's instances.", Some("occurrences"), None),
    t("srid", "srid", "spatial reference systems found on the geometries.", Some("geometry.srids"), None),
    t("extent_x", "extent x", "lowest -> highest x positions.", Some("extent.min_x, extent.max_x"), None),
    t("extent_y", "extent y", "lowest -> highest y positions.", Some("extent.min_y, extent.max_y"), None),
    t("dimension", "dimension", "each vector's dimension.", Some("dimension"), None),
    t("mixed_dimension", "mixed dimension", "lowest -> highest dimension found.", Some("dimension"), None),
    t("unit_normalized", "unit-normalized", "each vector has length 1, so dot product ranks as cosine.", Some("norm"), None),
    t("zero_vectors", "zero vectors", "scanned rows with a vector of zeros.", Some("zero_count"), None),
    t("joins", "Joins", "each edge relationships.yaml holds, whatever its detection (declared, inferred, measured), minus edges a person rejected; joins only described in prose are left out.", Some("joins.refers_to, joins.referenced_by"), None),
    t("via", "via", "the column or columns that refer.", Some("refers_to[].column"), None),
    t("on_delete", "on delete", "what the catalog declares happens on delete for an edge.", Some("on_delete"), None),
    t("fanout_avg", "fanout avg", "mean count of referencing rows per key value, over rows having one.", Some("observed.fanout_avg"), None),
    t("fanout_max", "fanout max", "referencing rows for the most common key.", Some("observed.fanout_max"), None),
    t("contained", "contained", "fraction of the referencing side's distinct values seen in the target; compared is how many hashes the sketches could test, so the error is about 1/sqrt(compared); exact if each distinct referencing value was tested.", Some("observed.containment, observed.answerable_count"), None),
    t("not_measured", "not measured", "a side was read only in part, so the join went wholly unmeasured.", Some("observed.scope_compatible: false"), None),
    t("incoherent", "incoherent", "more distinct values on the referencing side than in the target, so some never match.", Some("observed.coherent: false"), None),
    t("detection:declared", "declared", "the catalog declares it (a foreign key for edges, a primary or unique key for Grain), so it is a constraint.", Some("detection: declared"), None),
    t("detection:inferred", "inferred", "guessed from the column names: a possible join, not a constraint.", Some("detection: inferred"), None),
    t("detection:measured", "measured", "established by measuring the data; it holds over the rows read, but is not a constraint.", Some("detection: measured"), None),
    t("distribution:uniform", "uniform", "no listed value holds more than twice the rows of the rarest listed value.", Some("distribution: uniform"), None),
    t("distribution:imbalanced", "imbalanced", "the commonest value has more than twice the rows of the rarest listed value.", Some("distribution: imbalanced"), None),
    t("distribution:dominant_value", "dominant value", "one value has 95% or more of scanned non-null rows; it is named with its share.", Some("distribution: dominant_value"), None),
    t("distribution:long_tail", "long tail", "the listed values hold under 30% of scanned non-null rows; many rarer values exist.", Some("distribution: long_tail"), None),
    t("freshness:live", "live", "under the configured age limits, the newest value is judged live.", Some("freshness.classification: live"), None),
    t("freshness:stale", "stale", "under the configured age limits, the newest value is judged stale.", Some("freshness.classification: stale"), None),
    t("freshness:dormant", "dormant", "under the configured age limits, the newest value is judged dormant.", Some("freshness.classification: dormant"), None),
    t("looks_like:uuid", "uuid", "the sampled values fit the uuid format.", Some("inferred.looks_like: uuid"), Some("search_columns `looks_like: uuid`")),
    t("looks_like:email", "email", "the sampled values fit the email format.", Some("inferred.looks_like: email"), Some("search_columns `looks_like: email`")),
    t("looks_like:url", "url", "the sampled values fit the url format.", Some("inferred.looks_like: url"), Some("search_columns `looks_like: url`")),
    t("looks_like:urn", "urn", "the sampled values fit the urn format.", Some("inferred.looks_like: urn"), Some("search_columns `looks_like: urn`")),
    t("looks_like:content_type", "content type", "the sampled values fit the content type format.", Some("inferred.looks_like: content_type"), Some("search_columns `looks_like: content_type`")),
    t("looks_like:path", "path", "the sampled values fit the path format.", Some("inferred.looks_like: path"), Some("search_columns `looks_like: path`")),
    t("looks_like:ip", "ip", "the sampled values fit the ip format.", Some("inferred.looks_like: ip"), Some("search_columns `looks_like: ip`")),
    t("looks_like:mac_address", "mac address", "the sampled values fit the mac address format.", Some("inferred.looks_like: mac_address"), Some("search_columns `looks_like: mac_address`")),
    t("looks_like:country_code", "country code", "the sampled values fit the country code format.", Some("inferred.looks_like: country_code"), Some("search_columns `looks_like: country_code`")),
    t("looks_like:currency_code", "currency code", "the sampled values fit the currency code format.", Some("inferred.looks_like: currency_code"), Some("search_columns `looks_like: currency_code`")),
    t("looks_like:postal_code", "postal code", "the sampled values fit the postal code format.", Some("inferred.looks_like: postal_code"), Some("search_columns `looks_like: postal_code`")),
    t("looks_like:isbn", "isbn", "the sampled values fit the isbn format.", Some("inferred.looks_like: isbn"), Some("search_columns `looks_like: isbn`")),
    t("looks_like:ean", "ean", "the sampled values fit the ean format.", Some("inferred.looks_like: ean"), Some("search_columns `looks_like: ean`")),
    t("looks_like:imei", "imei", "the sampled values fit the imei format.", Some("inferred.looks_like: imei"), Some("search_columns `looks_like: imei`")),
    t("looks_like:card_number", "card number", "the sampled values fit the card number format.", Some("inferred.looks_like: card_number"), Some("search_columns `looks_like: card_number`")),
    t("looks_like:iban", "iban", "the sampled values fit the iban format.", Some("inferred.looks_like: iban"), Some("search_columns `looks_like: iban`")),
    t("looks_like:bic", "bic", "the sampled values fit the bic format.", Some("inferred.looks_like: bic"), Some("search_columns `looks_like: bic`")),
    t("looks_like:phone", "phone", "the sampled values fit the phone format.", Some("inferred.looks_like: phone"), Some("search_columns `looks_like: phone`")),
    t("looks_like:timezone", "timezone", "the sampled values fit the timezone format.", Some("inferred.looks_like: timezone"), Some("search_columns `looks_like: timezone`")),
    t("looks_like:json", "json", "the sampled values fit the json format.", Some("inferred.looks_like: json"), Some("search_columns `looks_like: json`")),
    t("looks_like:hex", "hex", "the sampled values fit the hex format.", Some("inferred.looks_like: hex"), Some("search_columns `looks_like: hex`")),
    t("looks_like:jwt", "jwt", "the sampled values fit the jwt format.", Some("inferred.looks_like: jwt"), Some("search_columns `looks_like: jwt`")),
    t("looks_like:vin", "vin", "the sampled values fit the vin format.", Some("inferred.looks_like: vin"), Some("search_columns `looks_like: vin`")),
    t("looks_like:base64", "base64", "the sampled values fit the base64 format.", Some("inferred.looks_like: base64"), Some("search_columns `looks_like: base64`")),
    t("looks_like:latlon", "latlon", "the sampled values fit the latlon format.", Some("inferred.looks_like: latlon"), Some("search_columns `looks_like: latlon`")),
    t("looks_like:iso8601_duration", "iso8601 duration", "the sampled values fit the iso8601 duration format.", Some("inferred.looks_like: iso8601_duration"), Some("search_columns `looks_like: iso8601_duration`")),
    t("looks_like:iso8601_date", "iso8601 date", "the sampled values fit the iso8601 date format.", Some("inferred.looks_like: iso8601_date"), Some("search_columns `looks_like: iso8601_date`")),
    t("looks_like:iso8601_datetime", "iso8601 datetime", "the sampled values fit the iso8601 datetime format.", Some("inferred.looks_like: iso8601_datetime"), Some("search_columns `looks_like: iso8601_datetime`")),
    t("looks_like:numeric_string", "numeric string", "the sampled values fit the numeric string format.", Some("inferred.looks_like: numeric_string"), Some("search_columns `looks_like: numeric_string`")),
    t("looks_like:semver", "semver", "the sampled values fit the semver format.", Some("inferred.looks_like: semver"), Some("search_columns `looks_like: semver`")),
    t("looks_like:filename", "filename", "the sampled values fit the filename format.", Some("inferred.looks_like: filename"), Some("search_columns `looks_like: filename`")),
    t("looks_like:prose", "prose", "the sampled values fit the prose format.", Some("inferred.looks_like: prose"), Some("search_columns `looks_like: prose`")),
    t("looks_like:png", "png", "the sampled values fit the png format.", Some("inferred.looks_like: png"), Some("search_columns `looks_like: png`")),
    t("looks_like:jpeg", "jpeg", "the sampled values fit the jpeg format.", Some("inferred.looks_like: jpeg"), Some("search_columns `looks_like: jpeg`")),
    t("looks_like:gif", "gif", "the sampled values fit the gif format.", Some("inferred.looks_like: gif"), Some("search_columns `looks_like: gif`")),
    t("looks_like:pdf", "pdf", "the sampled values fit the pdf format.", Some("inferred.looks_like: pdf"), Some("search_columns `looks_like: pdf`")),
    t("looks_like:gzip", "gzip", "the sampled values fit the gzip format.", Some("inferred.looks_like: gzip"), Some("search_columns `looks_like: gzip`")),
    t("looks_like:zip", "zip", "the sampled values fit the zip format.", Some("inferred.looks_like: zip"), Some("search_columns `looks_like: zip`")),
    t("sensitivity:personal_name", "personal name", "the column signals personal name data.", Some("inferred.sensitivity: personal_name"), Some("search_columns `sensitivity: personal_name`")),
    t("sensitivity:postal_address", "postal address", "the column signals postal address data.", Some("inferred.sensitivity: postal_address"), Some("search_columns `sensitivity: postal_address`")),
    t("sensitivity:geolocation", "geolocation", "the column signals geolocation data.", Some("inferred.sensitivity: geolocation"), Some("search_columns `sensitivity: geolocation`")),
    t("sensitivity:date_of_birth", "date of birth", "the column signals date of birth data.", Some("inferred.sensitivity: date_of_birth"), Some("search_columns `sensitivity: date_of_birth`")),
    t("sensitivity:national_id", "national id", "the column signals national id data.", Some("inferred.sensitivity: national_id"), Some("search_columns `sensitivity: national_id`")),
    t("sensitivity:financial_account", "financial account", "the column signals financial account data.", Some("inferred.sensitivity: financial_account"), Some("search_columns `sensitivity: financial_account`")),
    t("sensitivity:credential", "credential", "the column signals credential data.", Some("inferred.sensitivity: credential"), Some("search_columns `sensitivity: credential`")),
    t("sensitivity:health", "health", "the column signals health data.", Some("inferred.sensitivity: health"), Some("search_columns `sensitivity: health`")),
    t("sensitivity:demographic", "demographic", "the column signals demographic data.", Some("inferred.sensitivity: demographic"), Some("search_columns `sensitivity: demographic`")),
    t("sensitivity:employment", "employment", "the column signals employment data.", Some("inferred.sensitivity: employment"), Some("search_columns `sensitivity: employment`")),
    t("sensitivity:contact", "contact", "the column signals contact data.", Some("inferred.sensitivity: contact"), Some("search_columns `sensitivity: contact`")),
    t("sensitivity:online_identifier", "online identifier", "the column signals online identifier data.", Some("inferred.sensitivity: online_identifier"), Some("search_columns `sensitivity: online_identifier`")),
    t("epoch_unit:seconds", "seconds", "the integer holds Unix time counted in seconds.", Some("inferred.epoch_unit: seconds"), None),
    t("epoch_unit:milliseconds", "milliseconds", "the integer holds Unix time counted in milliseconds.", Some("inferred.epoch_unit: milliseconds"), None),
    t("candidate_key_exception:measured_duplicates", "measured duplicates", "the key holds, with one caveat: measured duplicates.", Some("inferred.candidate_key_exception: measured_duplicates"), None),
    t("candidate_key_exception:estimated", "estimated", "the key holds, with one caveat: estimated.", Some("inferred.candidate_key_exception: estimated"), None),
    t("redaction:mask", "mask", "the redaction primitive called mask concealed these values.", Some("redacted: mask"), Some("search_columns `redacted: mask`")),
    t("redaction:drop", "drop", "the redaction primitive called drop concealed these values.", Some("redacted: drop"), Some("search_columns `redacted: drop`")),
    t("redaction:hash", "hash", "the redaction primitive called hash concealed these values.", Some("redacted: hash"), Some("search_columns `redacted: hash`")),
    t("classification:boolean", "boolean", "this column is a boolean column.", Some("classification: boolean"), Some("search_columns `classification: boolean`")),
    t("classification:temporal", "temporal", "this column is a temporal column.", Some("classification: temporal"), Some("search_columns `classification: temporal`")),
    t("classification:numeric", "numeric", "this column is a numeric column.", Some("classification: numeric"), Some("search_columns `classification: numeric`")),
    t("classification:text", "text", "this column is a text column.", Some("classification: text"), Some("search_columns `classification: text`")),
    t("classification:json", "json", "this column is a json column.", Some("classification: json"), Some("search_columns `classification: json`")),
    t("classification:composite", "composite", "this column is a composite column.", Some("classification: composite"), Some("search_columns `classification: composite`")),
    t("classification:binary", "binary", "this column is a binary column.", Some("classification: binary"), Some("search_columns `classification: binary`")),
    t("classification:spatial", "spatial", "this column is a spatial column.", Some("classification: spatial"), Some("search_columns `classification: spatial`")),
    t("classification:vector", "vector", "this column is a vector column.", Some("classification: vector"), Some("search_columns `classification: vector`")),
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

/// The definition of the generated term `percentile:<n>`.
fn percentile_definition(n: u64) -> String {
    format!(
        "the {} percentile among scanned non-null values.",
        ordinal(n)
    )
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
                percentile_definition(n),
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

    /// The words a definition may use: every word the definitions use, and only those.
    const VOCABULARY: &str = include_str!("terms_vocabulary.txt");

    /// Tokens that are notation, not words: figures (`1%`, `0001-9999`, `1/sqrt(compared)`,
    /// `iso8601`), field and tool names (`row_count`, `relationships.yaml`), and arrows.
    fn is_notation(token: &str) -> bool {
        token == "->"
            || token == "/"
            || token.bytes().any(|b| b.is_ascii_digit())
            || token.contains('_')
            || token.trim_end_matches('.').contains('.')
    }

    /// The words of `token` to look up: its hyphen-joined parts, lowercased, without a
    /// possessive `'s`; None when it is not made of letters so (`w/`, `column(s)`).
    fn words_of(token: &str) -> Option<Vec<String>> {
        let token = token.strip_suffix("'s").unwrap_or(token);
        let parts: Vec<String> = token.split('-').map(str::to_lowercase).collect();
        parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphabetic()))
            .then_some(parts)
    }

    /// What is wrong with `definition` as a sentence of whole words, if anything.
    fn prose_faults(definition: &str, vocabulary: &BTreeSet<&str>) -> Vec<String> {
        let mut faults = Vec::new();
        if !definition.ends_with('.') || definition.ends_with("..") {
            faults.push("does not end in one full stop".to_string());
        }
        if definition.contains("  ") || definition.trim() != definition {
            faults.push("has padding spaces".to_string());
        }
        if definition.matches('(').count() != definition.matches(')').count() {
            faults.push("has unbalanced parentheses".to_string());
        }
        for raw in definition.split(' ') {
            let token = raw
                .trim_start_matches('(')
                .trim_end_matches(['.', ',', ';', ':', ')']);
            if token.is_empty() || is_notation(token) {
                continue;
            }
            match words_of(token) {
                None => faults.push(format!("{raw:?} is no word")),
                Some(words) => faults.extend(
                    words
                        .into_iter()
                        .filter(|w| !vocabulary.contains(w.as_str()))
                        .map(|w| format!("{w:?} is not in terms_vocabulary.txt")),
                ),
            }
        }
        faults
    }

    fn definitions() -> Vec<String> {
        TERMS
            .iter()
            .map(|t| t.definition.to_string())
            .chain([1, 2, 3, 4, 11, 12, 13, 21, 50, 99, 100].map(percentile_definition))
            .collect()
    }

    #[test]
    fn every_definition_is_a_sentence_of_whole_words() {
        let vocabulary: BTreeSet<&str> = VOCABULARY.lines().collect();
        let faults: Vec<String> = definitions()
            .iter()
            .flat_map(|d| {
                prose_faults(d, &vocabulary)
                    .into_iter()
                    .map(move |f| format!("{d:?}: {f}"))
            })
            .collect();
        assert!(faults.is_empty(), "{faults:#?}");
        // The list holds the definitions' words and no others (a cut word cannot hide in it).
        let used: BTreeSet<String> = definitions()
            .iter()
            .flat_map(|d| d.split(' ').map(str::to_string).collect::<Vec<_>>())
            .filter_map(|raw| {
                let token = raw
                    .trim_start_matches('(')
                    .trim_end_matches(['.', ',', ';', ':', ')'])
                    .to_string();
                (!is_notation(&token)).then(|| words_of(&token)).flatten()
            })
            .flatten()
            .collect();
        let unused: Vec<&&str> = vocabulary.iter().filter(|w| !used.contains(**w)).collect();
        assert!(unused.is_empty(), "listed but unused: {unused:?}");
    }

    #[test]
    fn the_prose_check_catches_cut_padded_and_abbreviated_definitions() {
        let vocabulary: BTreeSet<&str> = VOCABULARY.lines().collect();
        for bad in [
            "the column(s) holding the referen",
            "the column or columns holding the referen.",
            "the rarest one listed..",
            "the same 5  values.",
            "it is named w/ its share.",
            "each with its own fraction of scanned non-null ro.",
            "a definition without its stop",
        ] {
            assert!(!prose_faults(bad, &vocabulary).is_empty(), "{bad:?} passed");
        }
        assert!(prose_faults("the column or columns that refer.", &vocabulary).is_empty());
    }

    /// The reference's definition lengths (dbprint 0.15.0), in legend order, and its
    /// percentile definition's length less the ordinal: a Markdown page reserves room for its
    /// document's whole legend, so a definition of another length moves the page cuts.
    const REFERENCE_LENGTHS: [usize; 145] = [
        75, 209, 65, 80, 164, 145, 39, 113, 72, 38, 37, 139, 93, 126, 59, 44, 128, 199, 70, 87,
        273, 63, 17, 18, 81, 59, 73, 50, 43, 55, 102, 55, 53, 85, 58, 82, 108, 102, 75, 81, 97, 51,
        79, 76, 73, 72, 87, 73, 57, 68, 51, 76, 65, 132, 50, 30, 30, 24, 34, 57, 36, 165, 33, 56,
        67, 41, 216, 65, 85, 108, 65, 88, 74, 76, 79, 83, 65, 66, 68, 39, 40, 38, 38, 47, 39, 37,
        46, 47, 48, 46, 39, 38, 39, 46, 39, 38, 40, 43, 39, 38, 38, 38, 41, 41, 51, 47, 51, 49, 41,
        43, 40, 38, 39, 38, 38, 39, 38, 38, 39, 36, 38, 36, 42, 35, 31, 36, 35, 32, 42, 47, 52, 52,
        42, 59, 59, 59, 32, 33, 32, 29, 29, 34, 31, 32, 31,
    ];
    const REFERENCE_PERCENTILE_LENGTH: usize = 46;

    #[test]
    fn definitions_are_as_long_as_the_references() {
        let lengths: Vec<usize> = TERMS
            .iter()
            .map(|t| compat::py::len(t.definition))
            .collect();
        assert_eq!(lengths, REFERENCE_LENGTHS);
        for n in [1, 2, 3, 11, 50, 99, 100] {
            assert_eq!(
                compat::py::len(&percentile_definition(n)) - ordinal(n).len(),
                REFERENCE_PERCENTILE_LENGTH
            );
        }
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
