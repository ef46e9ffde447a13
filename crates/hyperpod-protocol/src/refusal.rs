//! Refusals: what a plan finds wrong with a change that apply must refuse before its first write.
//!
//! Why not an error at plan: `terraform destroy` first refreshes with a full normal-mode plan (creates and updates
//! included, hashicorp/terraform#32208), and an error from `PlanResourceChange` aborts it; nothing in the request
//! tells that plan from any other. So a refusal is shown at plan as a warning (its summary says apply refuses the
//! change), is carried to apply in the planned private data (Terraform hands the private data of the plan it applies
//! to `ApplyResourceChange`, never to the user), and `ApplyResourceChange` returns it as an error without calling the
//! resource: nothing is written. Terraform re-plans each change right before applying it, so the refusals apply
//! enforces are those of that last plan, judged with every value known and against the account as it is then.
//! `docs/design/where-rules-run.md` is the decision.

use serde_json::{Value as Json, json};

use crate::diagnostics::{AttributePath, Diagnostic, Diagnostics, PathStep, Severity};
use crate::private_data;

/// The end of a refusal's summary at plan, on a change Terraform will apply: the machine-readable mark the governance
/// report reads (`refusal_of_summary`), and what a reviewer reads.
pub const REFUSED: &str = " (apply refuses this change)";
/// The end of a refusal's summary at plan on an object the plan leaves unchanged: nothing of it is written now.
pub const REFUSED_AT_NEXT_CHANGE: &str = " (unchanged now; apply refuses its next change)";

const PRIVATE_REFUSALS: &str = "refusals";
/// The private data the object had before the plan: what a refused apply leaves with the state, so the record of
/// what the object was applied with (the write-only digest) stays the one of its last real apply.
const PRIVATE_BEFORE: &str = "refused_keeps_private";

/// How a refusal reads at plan: a warning whose summary says that apply refuses the change (or, on an object the
/// plan leaves unchanged, its next change), with the finding's detail and path.
pub fn plan_warning(refusal: &Diagnostic, unchanged: bool) -> Diagnostic {
    let mark = if unchanged { REFUSED_AT_NEXT_CHANGE } else { REFUSED };
    Diagnostic {
        severity: Severity::Warning,
        summary: format!("{}{mark}", refusal.summary),
        detail: refusal.detail.clone(),
        path: refusal.path.clone(),
    }
}

/// Whether a plan-time summary is a refusal's: `Some(true)` on a change apply refuses, `Some(false)` on an unchanged
/// object, `None` for any other diagnostic.
pub fn refusal_of_summary(summary: &str) -> Option<bool> {
    if summary.ends_with(REFUSED) {
        Some(true)
    } else if summary.ends_with(REFUSED_AT_NEXT_CHANGE) {
        Some(false)
    } else {
        None
    }
}

/// The planned private data `planned` with `refusals` recorded, and `before` (the object's private data before
/// this plan) for a refused apply to keep; `planned` as it is when there is nothing to refuse.
pub fn private_with_refusals(planned: &[u8], refusals: &Diagnostics, before: &[u8]) -> Vec<u8> {
    let planned = without_refusals(planned);
    if refusals.is_empty() {
        return planned;
    }
    let recorded = Json::Array(refusals.iter().map(to_json).collect());
    let kept = Json::String(String::from_utf8_lossy(&without_refusals(before)).into_owned());
    let planned = private_data::with(&planned, PRIVATE_REFUSALS, recorded);
    private_data::with(&planned, PRIVATE_BEFORE, kept)
}

/// The refusals `private` records, as the errors apply returns.
pub fn recorded_refusals(private: &[u8]) -> Diagnostics {
    let Some(Json::Array(rows)) = private_data::get(private, PRIVATE_REFUSALS) else {
        return Diagnostics::new();
    };
    Diagnostics(rows.iter().filter_map(from_json).collect())
}

/// `private` without refusals: what is kept with the state after an apply that ran.
pub fn without_refusals(private: &[u8]) -> Vec<u8> {
    match private_data::take(private, PRIVATE_REFUSALS) {
        (Some(_), rest) => private_data::take(&rest, PRIVATE_BEFORE).1,
        (None, _) => private.to_vec(),
    }
}

/// What a refused apply leaves with the state: the object's private data from before the plan.
pub fn kept_private(private: &[u8]) -> Vec<u8> {
    match private_data::get(private, PRIVATE_BEFORE) {
        Some(Json::String(text)) => text.into_bytes(),
        _ => Vec::new(),
    }
}

/// A refusal as apply returns it: an error, its detail saying that nothing was written.
pub fn apply_error(refusal: Diagnostic) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        detail: format!(
            "{} (Refused before anything of this change was written; the plan warned of it.)",
            refusal.detail
        ),
        ..refusal
    }
}

fn to_json(diagnostic: &Diagnostic) -> Json {
    let path: Vec<Json> = diagnostic
        .path
        .0
        .iter()
        .map(|step| match step {
            PathStep::Attribute(name) => json!({ "attribute": name }),
            PathStep::Key(key) => json!({ "key": key }),
            PathStep::Index(index) => json!({ "index": index }),
        })
        .collect();
    json!({ "summary": diagnostic.summary, "detail": diagnostic.detail, "path": path })
}

fn from_json(row: &Json) -> Option<Diagnostic> {
    let text = |name: &str| row.get(name).and_then(Json::as_str).map(str::to_string);
    let mut path = AttributePath::root();
    for step in row.get("path")?.as_array()? {
        let step = if let Some(name) = step.get("attribute").and_then(Json::as_str) {
            PathStep::Attribute(name.to_string())
        } else if let Some(key) = step.get("key").and_then(Json::as_str) {
            PathStep::Key(key.to_string())
        } else {
            PathStep::Index(step.get("index")?.as_i64()?)
        };
        path.0.push(step);
    }
    Some(Diagnostic::error(path, text("summary")?, text("detail")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal() -> Diagnostic {
        Diagnostic::error(
            AttributePath::attr("quota").index(0).push_attr("count"),
            "[WKL-3] Guaranteed quotas fit the cluster",
            "quota[0].count: overcommitted",
        )
    }

    #[test]
    fn refusals_travel_in_private_data_beside_what_it_holds() {
        let planned = br#"{"write_only_sha256":"new"}"#;
        let before = br#"{"write_only_sha256":"old"}"#;
        let with = private_with_refusals(planned, &refusal().into(), before);
        assert_eq!(recorded_refusals(&with), Diagnostics::from(refusal()));
        // An apply that ran keeps the planned data; a refused one what the object had before.
        assert_eq!(without_refusals(&with), planned.to_vec());
        assert_eq!(kept_private(&with), before.to_vec());
        assert!(recorded_refusals(&without_refusals(&with)).is_empty());
        // Nothing to refuse leaves the planned data as it is, empty or not.
        assert!(private_with_refusals(b"", &Diagnostics::new(), before).is_empty());
        assert_eq!(
            private_with_refusals(planned, &Diagnostics::new(), before),
            planned.to_vec()
        );
        assert!(recorded_refusals(b"").is_empty());
        assert_eq!(
            json!({"a": 1}).to_string().into_bytes(),
            without_refusals(br#"{"a":1}"#)
        );
    }

    #[test]
    fn a_refusal_is_a_warning_at_plan_that_the_summary_marks() {
        let changed = plan_warning(&refusal(), false);
        assert_eq!(changed.severity, Severity::Warning);
        assert_eq!(refusal_of_summary(&changed.summary), Some(true));
        assert_eq!(refusal_of_summary(&plan_warning(&refusal(), true).summary), Some(false));
        assert_eq!(refusal_of_summary("[WKL-6] Fair share"), None);
        assert_eq!(apply_error(refusal()).severity, Severity::Error);
    }
}
