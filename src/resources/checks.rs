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
            Attribute::string("status")
                .computed()
                .describe("`passed`, `failed` or `skipped` (a passed row names an exception that waived it)."),
            Attribute::string("detail")
                .computed()
                .describe("What was checked, what was found, or why it was skipped."),
        ],
    )
    .computed()
    .describe(description)
}

/// The rows as the attribute holds them.
pub fn value(rows: &[ChecklistRow]) -> Value {
    Value::List(
        rows.iter()
            .map(|row| {
                object([
                    ("rule", text(row.rule)),
                    ("status", text(row.status)),
                    ("detail", text(&row.detail)),
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

/// The date rules judge expiry and review against.
pub fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
}
