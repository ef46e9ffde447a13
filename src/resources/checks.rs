//! The reviewer's checklist every governed resource exposes (`checks`), and the plan-time conventions around it.

use crate::governance::{ChecklistRow, Report};
use crate::protocol::object::{object, text};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::schema::{Attribute, Nesting};
use crate::protocol::value::Value;

/// The computed `checks` attribute: one row per rule checked, in the order the rules ran.
pub fn attribute(description: &str) -> Attribute {
    Attribute::nested(
        "checks",
        Nesting::List,
        vec![
            Attribute::string("rule").computed().describe("Rule ID."),
            Attribute::string("status").computed().describe(
                "`passed` (a passed row names an exception that waived it), `failed`, `warning` (failed at warning \
                 severity), `skipped` (a fact could not be read; the plan warns) or `not_applicable`. Known after \
                 apply when the rule waits for a value known only then: apply judges it before writing anything.",
            ),
            Attribute::string("detail")
                .computed()
                .describe("What was checked, what was found, or why it was skipped."),
        ],
    )
    .computed()
    .describe(description)
}

/// The rows as the attribute holds them; a row deferred to apply has its status and detail unknown, so apply can
/// fill them in without contradicting the plan.
pub fn value(rows: &[ChecklistRow]) -> Value {
    Value::List(
        rows.iter()
            .map(|row| {
                object([
                    ("rule", text(row.rule)),
                    ("status", row.status.map_or(Value::Unknown, text)),
                    ("detail", row.detail.as_ref().map_or(Value::Unknown, text)),
                ])
            })
            .collect(),
    )
}

/// `value` of a report's checklist.
pub fn of(report: &Report) -> Value {
    value(&report.checklist())
}

/// A checklist whose wording moved with live facts alone is not a change to apply: keep the recorded one unless
/// something else changes too (the plan's diagnostics come from the fresh report either way).
pub fn keep_recorded(change: &mut PlannedChange) {
    let Some(prior) = &change.prior else {
        return;
    };
    let mut without = change.planned.clone();
    set_attr(
        &mut without,
        "checks",
        prior.get_attr("checks").cloned().unwrap_or(Value::Null),
    );
    if &without == prior {
        change.planned = without;
    }
}

/// The warning (an error under `strict`) for a resource none of whose rules the plan can judge, because `input`
/// (the `contract` argument, typically) is not wholly known until apply: it names the unknown parts.
pub fn deferred(planned: &Value, input: &str, strict: bool) -> crate::protocol::diagnostics::Diagnostic {
    let unknown: Vec<String> = match planned.get_attr(input) {
        Some(Value::Object(fields)) => fields
            .iter()
            .filter(|(_, value)| !value.is_wholly_known())
            .map(|(name, _)| format!("{input}.{name}"))
            .collect(),
        _ => Vec::new(),
    };
    let what = if unknown.is_empty() {
        format!("{input} is not known until apply")
    } else {
        format!(
            "{} not known until apply",
            unknown.join(", ") + if unknown.len() == 1 { " is" } else { " are" }
        )
    };
    crate::governance::finding::deferred_diagnostic("all rules", &what, strict)
}

/// Whether Terraform proposes no change at all to an existing resource (a refresh, or the plan `terraform destroy`
/// runs first to refresh state).
/// Write-only arguments (the handoffs) count: a contract that moved under an unchanged tenant makes it changed.
fn unchanged(change: &PlannedChange) -> bool {
    change.prior.is_some() && change.is_unchanged()
}

/// A resource's plan-time judgement, `Ok(Some(_))` to go on with. On a resource Terraform leaves unchanged, its
/// errors (a rule broken since it was applied, a fact that moved) become warnings and the prior value is kept
/// (`Ok(None)`): they never block a plan that writes nothing of it, nor `terraform destroy`, and the resource's next
/// change is judged in full. Under `strict` every finding fails, changed or not.
pub fn judged<T>(
    change: &mut PlannedChange,
    strict: bool,
    result: Result<T, crate::protocol::diagnostics::Diagnostics>,
) -> Result<Option<T>, crate::protocol::diagnostics::Diagnostics> {
    use crate::protocol::diagnostics::Severity;
    let errors = match result {
        Ok(judged) => return Ok(Some(judged)),
        Err(errors) if !strict && unchanged(change) => errors,
        Err(errors) => return Err(errors),
    };
    if let Some(prior) = change.prior.clone() {
        change.planned = prior;
    }
    for mut diagnostic in errors.0 {
        if diagnostic.severity == Severity::Error {
            diagnostic.severity = Severity::Warning;
            diagnostic.detail = format!(
                "{} (This resource is unchanged in this plan, so nothing of it is written: the finding is a warning \
                 until its next change, which it then fails.)",
                diagnostic.detail
            );
        }
        change.diagnostics.push(diagnostic);
    }
    Ok(None)
}

/// The date rules judge expiry and review against.
pub fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::diagnostics::{AttributePath, Diagnostics, Severity};

    fn change(prior: Option<Value>, planned: Value) -> PlannedChange {
        PlannedChange {
            config: planned.clone(),
            prior,
            planned,
            requires_replace: Vec::new(),
            diagnostics: Diagnostics::new(),
            write_only: Vec::new(),
            write_only_changed: false,
        }
    }

    fn broken() -> Result<(), Diagnostics> {
        Err(Diagnostics::error(
            AttributePath::attr("team"),
            "[CLU-6] …",
            "the workload role is a cluster admin",
        ))
    }

    #[test]
    fn findings_on_an_unchanged_resource_warn_and_the_prior_value_stays() {
        let state = object([("team", text("research"))]);
        let mut unchanged = change(Some(state.clone()), state.clone());
        assert!(matches!(judged(&mut unchanged, false, broken()), Ok(None)));
        assert_eq!(unchanged.planned, state);
        assert_eq!(unchanged.diagnostics.0[0].severity, Severity::Warning);
        // A change, a create, or strict: the finding fails the plan.
        let mut changed = change(Some(state.clone()), object([("team", text("vision"))]));
        assert!(judged(&mut changed, false, broken()).is_err());
        assert!(judged(&mut change(None, state.clone()), false, broken()).is_err());
        assert!(judged(&mut change(Some(state.clone()), state), true, broken()).is_err());
    }
}
