//! A governed resource's checklist as the plan or state records it (`passed_checks`, `not_applicable_checks`,
//! `findings`, or 0.2.0's `checks` list), read into the report's rule results.

use std::collections::BTreeMap;

use super::model::RuleResult;
use super::plan::{PlanField, ResourceChange, Values};
use super::rules::{Rule, Status};
use hyperpod_declarations::checklist::{ChecklistAttributes, FindingRow};

/// The rule outcomes the resource's checklist attributes hold; `true` when they are unknown (judged at apply).
pub(crate) fn checks_from_values(change: &ResourceChange, results: &mut BTreeMap<(String, Rule), RuleResult>) -> bool {
    let after = &change.after;
    let fields = [
        after.get(&[ChecklistAttributes::PASSED_CHECKS.name()]),
        after.get(&[ChecklistAttributes::NOT_APPLICABLE_CHECKS.name()]),
        after.get(&[ChecklistAttributes::FINDINGS.name()]),
    ];
    if fields.iter().any(PlanField::is_unknown) {
        return true;
    }
    let mut add = |rule: Rule, status: Status, detail: Option<String>| {
        results.insert(
            (change.address.clone(), rule.clone()),
            RuleResult {
                address: change.address.clone(),
                rule,
                status,
                detail,
                attribute: None,
                location: None,
            },
        );
    };
    if fields[0] == PlanField::Null {
        return checks_before_0_3(after, &mut add);
    }
    for (field, status) in [(&fields[0], Status::Passed), (&fields[1], Status::NotApplicable)] {
        for id in field.as_text().unwrap_or_default().split_whitespace() {
            add(Rule::parse(id), status, None);
        }
    }
    if let PlanField::Known(serde_json::Value::Array(rows)) = &fields[2] {
        for row in rows {
            let text = |key: &str| row.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
            if let Some(rule) = text(FindingRow::RULE.name()) {
                add(
                    Rule::parse(&rule),
                    Status::of_finding(&text(FindingRow::STATUS.name()).unwrap_or_default()),
                    text(FindingRow::DETAIL.name()),
                );
            }
        }
    }
    false
}

/// A plan made by a provider before 0.3.0 holds one `checks` list (rows of rule, status, detail; a passed row that
/// names an exception is an excepted rule): read it too, so such a plan is never reported as passing no checks.
/// Its keys are 0.2.0's stored format, which no declaration describes any more (the provider's state upgrader
/// reads them the same way).
fn checks_before_0_3(after: &Values, add: &mut impl FnMut(Rule, Status, Option<String>)) -> bool {
    let rows = match after.get(&["checks"]) {
        PlanField::Unknown => return true,
        PlanField::Known(serde_json::Value::Array(rows)) => rows.len(),
        _ => 0,
    };
    let mut deferred = false;
    for i in 0..rows {
        let index = i.to_string();
        let field = |name: &str| after.get(&["checks", &index, name]);
        let Some(rule) = field("rule").as_text() else {
            continue;
        };
        let detail = field("detail").as_text();
        let status = match field("status") {
            PlanField::Unknown => {
                deferred = true;
                continue;
            }
            status => status.as_text().unwrap_or_default(),
        };
        let status = match status.as_str() {
            "passed"
                if detail
                    .as_deref()
                    .is_some_and(|d| d.starts_with("passed with exception")) =>
            {
                Status::Excepted
            }
            "passed" => Status::Passed,
            "not_applicable" => Status::NotApplicable,
            other => Status::of_finding(other),
        };
        let detail = detail.filter(|_| status != Status::Passed && status != Status::NotApplicable);
        add(Rule::parse(&rule), status, detail);
    }
    deferred
}
