//! Checks a plan could not make and apply must make before the resource's first write, by name (a governance rule's
//! ID, such as `WKL-3` judged without the cluster's allocation in sight).
//!
//! They travel as data, the way refusals do (`refusal`): the plan records them in the planned private data
//! (`PlannedChange::deferred_checks`), and apply hands them to the resource (`OperationContext::deferred_checks`).
//! Apply decides on that list, never on how a checklist row words its reason. Nothing of it outlives the apply: the
//! private data kept with the state does not hold it.

use serde_json::Value as Json;

use crate::private_data;

const PRIVATE_DEFERRED: &str = "deferred_checks";

/// `private` recording `checks` (replacing what it recorded before); `private` without a record when there are none.
pub fn private_with_deferred(private: &[u8], checks: &[String]) -> Vec<u8> {
    let private = without_deferred(private);
    if checks.is_empty() {
        return private;
    }
    private_data::with(&private, PRIVATE_DEFERRED, Json::from(checks.to_vec()))
}

/// The checks `private` records as left to apply, in the order the plan recorded them.
pub fn recorded_deferred(private: &[u8]) -> Vec<String> {
    match private_data::get(private, PRIVATE_DEFERRED) {
        Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// `private` without the record: what is kept with the state once apply has made the checks.
pub fn without_deferred(private: &[u8]) -> Vec<u8> {
    private_data::take(private, PRIVATE_DEFERRED).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_checks_travel_in_private_data_beside_what_it_holds() {
        let planned = br#"{"write_only_sha256":"d"}"#;
        let checks = vec!["WKL-3".to_string(), "CLU-2".to_string()];
        let with = private_with_deferred(planned, &checks);
        assert_eq!(recorded_deferred(&with), checks);
        assert_eq!(without_deferred(&with), planned.to_vec());
        // A new plan replaces the record; none leaves the data as it was, empty or not.
        let again = private_with_deferred(&with, &["WKL-5".to_string()]);
        assert_eq!(recorded_deferred(&again), ["WKL-5"]);
        assert_eq!(private_with_deferred(&with, &[]), planned.to_vec());
        assert!(private_with_deferred(b"", &[]).is_empty());
        assert!(without_deferred(&private_with_deferred(b"", &checks)).is_empty());
        assert!(recorded_deferred(b"").is_empty());
        assert!(recorded_deferred(b"not json").is_empty());
    }
}
