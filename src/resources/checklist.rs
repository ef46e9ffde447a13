//! The reviewer's checklist every governed resource exposes (`passed_checks`, `not_applicable_checks`,
//! `findings`: declared in crate `hyperpod-declarations`), the plan-time conventions around it, and the upgrade of
//! 0.2.0's `checks` list to it.

use crate::governance::Report;
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::plan::PlannedChange;
use crate::protocol::state_upgrade::RawState;
use crate::protocol::value::Value;

pub use hyperpod_declarations::checklist::*;

/// The three attribute values of a report's checklist.
pub fn of(report: &Report) -> [(&'static str, Value); 3] {
    ChecklistAttributes::of(&report.checklist()).pairs()
}

/// Sets a report's checklist on a resource value.
pub fn set(value: &mut Value, report: &Report) {
    ChecklistAttributes::of(&report.checklist()).write(value);
}

/// Plans the checklist unknown (a rule waits for apply).
pub fn set_unknown(value: &mut Value) {
    ChecklistAttributes::unknown().write(value);
}

/// Whether the plan judged every rule (apply judges again otherwise, before writing anything).
pub fn known(value: &Value) -> bool {
    NAMES
        .iter()
        .all(|name| value.get_attr(name).is_some_and(Value::is_wholly_known))
}

/// The rules `report` could not evaluate at plan, by ID (`PlannedChange::deferred_checks`): apply judges again,
/// against what exists, before the first write.
pub fn deferred_checks(report: &Report) -> Vec<String> {
    report.not_evaluated_at_plan().into_iter().map(str::to_string).collect()
}

/// A checklist whose wording moved with live facts alone is not a change to apply: keep the recorded one unless
/// something else changes too (the plan's diagnostics come from the fresh report either way). A handoff that moved
/// (a contract, an allocation: write-only, so in no planned value) is the configuration's change: its checklist is
/// planned, so the state records what the new arguments lead to (an allocation added turns a `skipped` WKL-3 into
/// `passed`), and a rule they break makes the object change, which apply refuses.
pub fn keep_recorded(change: &mut PlannedChange) {
    let Some(prior) = &change.prior else {
        return;
    };
    if change.write_only_changed {
        return;
    }
    let mut without = change.planned.clone();
    for name in NAMES {
        crate::protocol::plan::set_attr(&mut without, name, prior.get_attr(name).cloned().unwrap_or(Value::Null));
    }
    if &without == prior {
        change.planned = without;
    }
}

/// State upgrade from 0.2.0's `checks` list (rows of rule, status, detail): `passed` rows become `passed_checks`
/// (one naming an exception, `excepted`), `not_applicable` rows `not_applicable_checks`, the rest `findings`, each
/// with the wording the rules give today, so the first plan after the upgrade shows no change. A list that cannot
/// be read that way (a row without a status) leaves all three null: the next change records them.
pub fn upgrade_state(state: &mut RawState) -> Result<(), String> {
    use serde_json::Value as Json;
    let rows = match state.remove("checks") {
        // A row that is not such an object reads as one without a rule: the list is then unreadable.
        Some(Json::Array(rows)) => rows
            .into_iter()
            .map(|row| serde_json::from_value::<StoredCheck>(row).unwrap_or_default())
            .collect(),
        Some(Json::Null) | None => Vec::new(),
        Some(other) => return Err(format!("`checks` is {other}, not a list")),
    };
    let mut passed = Vec::new();
    let mut not_applicable = Vec::new();
    let mut findings = Vec::new();
    let mut readable = true;
    for row in &rows {
        let text = |field: &Json| field.as_str().map(str::to_string);
        let (Some(rule), Some(status)) = (text(&row.rule), text(&row.status)) else {
            readable = false;
            continue;
        };
        let detail = text(&row.detail).unwrap_or_default();
        let finding = |status: &str, detail: String| FindingRow {
            rule: Field::Known(rule.clone()),
            status: Field::Known(status.to_string()),
            detail: Field::Known(detail),
        };
        match (status.as_str(), detail.strip_prefix("passed with exception")) {
            ("passed", Some(rest)) => findings.push(finding("excepted", format!("exception{rest}"))),
            ("passed", None) => passed.push(rule),
            ("not_applicable", _) => not_applicable.push(rule),
            _ => findings.push(finding(&status, detail)),
        }
    }
    let upgraded = if readable && !rows.is_empty() {
        ChecklistAttributes {
            passed_checks: Field::Known(passed.join(" ")),
            not_applicable_checks: if not_applicable.is_empty() {
                Field::Null
            } else {
                Field::Known(not_applicable.join(" "))
            },
            findings: if findings.is_empty() {
                Field::Null
            } else {
                Field::Known(findings)
            },
        }
    } else {
        ChecklistAttributes {
            passed_checks: Field::Null,
            not_applicable_checks: Field::Null,
            findings: Field::Null,
        }
    };
    let Json::Object(fields) = upgraded
        .encode()
        .to_json(&ChecklistAttributes::terraform_type())
        .map_err(|err| err.to_string())?
    else {
        return Err("the checklist is an object".to_string());
    };
    state.extend(fields);
    Ok(())
}

/// A row of 0.2.0's `checks` list: a stored format, read as it was written (a missing rule or status leaves the
/// list unreadable).
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct StoredCheck {
    rule: serde_json::Value,
    status: serde_json::Value,
    detail: serde_json::Value,
}

/// The warning (a refusal under `strict`) for a resource none of whose rules the plan can judge, because `input`
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
    crate::findings::deferred_diagnostic("all rules", &what, strict)
}

/// Whether Terraform proposes no change at all to an existing resource (a refresh, or the plan `terraform destroy`
/// runs first to refresh state).
/// Write-only arguments (the handoffs) count: a contract that moved under an unchanged tenant makes it changed.
fn unchanged(change: &PlannedChange) -> bool {
    change.prior.is_some() && change.is_unchanged()
}

/// A resource's plan-time judgement, `Ok(Some(_))` to go on with. An `Err` is what the resource could not predict
/// past (its cluster does not exist, the contract names another orchestrator): never an error of the plan, it is the
/// change's refusals (`PlannedChange::refusals`), warnings now and errors at apply before anything is written
/// (`docs/design/where-rules-run.md`), so no rule can stop a plan — `terraform destroy`'s refresh is one. What the
/// change would derive stays unknown (`Ok(None)`); on a resource Terraform leaves unchanged the prior value is kept.
/// A refusal beside a prediction (a rule the change breaks) goes through `refuse`, with the prediction planned.
pub fn judged<T>(
    change: &mut PlannedChange,
    result: Result<T, crate::protocol::diagnostics::Diagnostics>,
) -> Result<Option<T>, crate::protocol::diagnostics::Diagnostics> {
    match result {
        Ok(judged) => Ok(Some(judged)),
        Err(errors) => {
            refuse(change, errors);
            Ok(None)
        }
    }
}

/// Refuses a change whose derived values were planned all the same: errors are refusals, warnings stay warnings;
/// on a resource Terraform leaves unchanged the prior value is kept (its next change is refused).
pub fn refuse(change: &mut PlannedChange, diagnostics: crate::protocol::diagnostics::Diagnostics) {
    use crate::protocol::diagnostics::Severity;
    if unchanged(change)
        && let Some(prior) = change.prior.clone()
    {
        change.planned = prior;
    }
    for diagnostic in diagnostics.0 {
        if diagnostic.severity == Severity::Error {
            change.refusals.push(diagnostic);
        } else {
            change.diagnostics.push(diagnostic);
        }
    }
}

/// A plan's judgement `(warnings, refusals)` at apply: the warnings to go on with, or the refusals as the errors
/// returned before the resource writes anything.
pub fn refused_at_apply(
    (warnings, refusals): (
        crate::protocol::diagnostics::Diagnostics,
        crate::protocol::diagnostics::Diagnostics,
    ),
) -> Result<crate::protocol::diagnostics::Diagnostics, crate::protocol::diagnostics::Diagnostics> {
    if refusals.is_empty() {
        Ok(warnings)
    } else {
        Err(refusals)
    }
}

/// `planned` with its unknown parts taken from `applied`: what apply returns for a value it re-derived. Every part
/// the plan knew stays exactly as planned (a checklist row whose detail quotes an AWS error, which varies from call
/// to call, included), so the result can never contradict the plan.
pub fn fill_unknowns(planned: &Value, applied: &Value) -> Value {
    match (planned, applied) {
        (Value::Unknown, _) => applied.clone(),
        (Value::Object(planned_fields), Value::Object(applied_fields)) => Value::Object(
            planned_fields
                .iter()
                .map(|(name, field)| {
                    let filled = match applied_fields.get(name) {
                        Some(applied_field) => fill_unknowns(field, applied_field),
                        None => field.clone(),
                    };
                    (name.clone(), filled)
                })
                .collect(),
        ),
        (Value::List(planned_items), Value::List(applied_items)) if planned_items.len() == applied_items.len() => {
            Value::List(
                planned_items
                    .iter()
                    .zip(applied_items)
                    .map(|(p, a)| fill_unknowns(p, a))
                    .collect(),
            )
        }
        _ => planned.clone(),
    }
}

/// The date rules judge expiry and review against.
pub fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::diagnostics::{AttributePath, Diagnostics, Severity};
    use crate::protocol::object::{object, text};

    fn change(prior: Option<Value>, planned: Value) -> PlannedChange {
        PlannedChange {
            config: planned.clone(),
            prior,
            planned,
            requires_replace: Vec::new(),
            diagnostics: Diagnostics::new(),
            refusals: Diagnostics::new(),
            live_refusals: Diagnostics::new(),
            deferred_checks: Vec::new(),
            write_only: Vec::new(),
            derived: Vec::new(),
            write_only_changed: false,
            replaced: None,
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
    fn passed_rules_go_on_one_line_and_every_other_outcome_is_a_finding() {
        use crate::governance::{Check, Finding, RuleId};
        let failed = Finding {
            path: AttributePath::attr("network_policy"),
            observed: "off".into(),
            problem: "no deny".into(),
            fix: "turn on".into(),
            ..Finding::of(RuleId::Wkl8)
        };
        let report: Report = [
            Check::passed(RuleId::Con1, "well-formed"),
            Check::not_applicable(RuleId::Wkl2, "Slurm"),
            Check::passed(RuleId::Con2, "owners"),
            Check::from_findings(RuleId::Wkl8, vec![failed], ""),
            Check::unavailable(RuleId::Prj2, "AccessDenied"),
        ]
        .into_iter()
        .collect();
        let [passed, not_applicable, findings] = of(&report).map(|(_, value)| value);
        assert_eq!(passed, text("CON-1 CON-2"));
        assert_eq!(not_applicable, text("WKL-2"));
        let Value::List(rows) = findings else {
            panic!("findings: {findings:?}")
        };
        let statuses: Vec<_> = rows.iter().map(|row| row.get_attr("status").cloned()).collect();
        assert_eq!(statuses, [Some(text("failed")), Some(text("skipped"))]);
        // Nothing to list is null (a create plan does not render it); a deferred rule makes all three unknown.
        let clean: Report = [Check::passed(RuleId::Con1, "")].into_iter().collect();
        assert_eq!(of(&clean).map(|(_, value)| value)[1..], [Value::Null, Value::Null]);
        let waiting: Report = [
            Check::passed(RuleId::Con1, ""),
            Check::unknown(RuleId::Org1, "project_id"),
        ]
        .into_iter()
        .collect();
        assert!(of(&waiting).iter().all(|(_, value)| *value == Value::Unknown));
    }

    #[test]
    fn keep_recorded_keeps_a_checklist_that_moved_alone() {
        let resource = |team: &str, passed: &str| {
            object([
                ("team", text(team)),
                ("passed_checks", text(passed)),
                ("not_applicable_checks", Value::Null),
                ("findings", Value::Null),
            ])
        };
        let prior = resource("research", "WKL-1");
        let mut moved = change(Some(prior.clone()), resource("research", "WKL-1 WKL-2"));
        keep_recorded(&mut moved);
        assert_eq!(moved.planned, prior);
        let mut changed = change(Some(prior.clone()), resource("vision", "WKL-1 WKL-2"));
        keep_recorded(&mut changed);
        assert_eq!(changed.planned, resource("vision", "WKL-1 WKL-2"));
        // A handoff that moved (an allocation added): the checklist it leads to is planned.
        let mut handed = change(Some(prior), resource("research", "WKL-1 WKL-3"));
        handed.write_only_changed = true;
        keep_recorded(&mut handed);
        assert_eq!(handed.planned, resource("research", "WKL-1 WKL-3"));
    }

    /// The recorded quickstart: one resource of each type that had `checks`, plus a contract with an exception.
    fn instances(type_name: &str) -> Vec<RawState> {
        let recorded = crate::resources::recorded_state::instances(type_name);
        recorded.into_iter().map(|(_, attributes)| attributes).collect()
    }

    #[test]
    fn upgraded_state_of_every_governed_resource_lists_the_same_rules() {
        for type_name in [
            "hyperpod_connection_contract",
            "hyperpod_tenant",
            "hyperpod_task_view_restriction",
            "hyperpod_unified_studio_project_binding",
        ] {
            for mut state in instances(type_name) {
                let rows = state["checks"].as_array().cloned().expect("checks");
                upgrade_state(&mut state).expect("upgrades");
                assert!(!state.contains_key("checks"), "{type_name}");
                let passed = state["passed_checks"].as_str().expect("passed_checks");
                let listed = passed.split(' ').count()
                    + state["not_applicable_checks"]
                        .as_str()
                        .map_or(0, |ids| ids.split(' ').count())
                    + state["findings"].as_array().map_or(0, Vec::len);
                assert_eq!(listed, rows.len(), "{type_name}: {passed}");
                assert!(
                    passed.starts_with(rows[0]["rule"].as_str().expect("rule")),
                    "{type_name}: {passed}"
                );
            }
        }
    }

    #[test]
    fn an_excepted_row_becomes_an_excepted_finding_with_todays_wording() {
        let mut state = RawState::new();
        state.insert(
            "checks".into(),
            serde_json::json!([
                {"rule": "CON-1", "status": "passed", "detail": "all fields well-formed"},
                {"rule": "WKL-8", "status": "passed",
                 "detail": "passed with exception (owner net-team, expires 2026-09-01: NCCL); waived: no deny"},
                {"rule": "WKL-2", "status": "not_applicable", "detail": "Slurm"},
                {"rule": "PRJ-2", "status": "skipped", "detail": "AccessDenied"},
            ]),
        );
        upgrade_state(&mut state).expect("upgrades");
        assert_eq!(state["passed_checks"], "CON-1");
        assert_eq!(state["not_applicable_checks"], "WKL-2");
        assert_eq!(
            state["findings"],
            serde_json::json!([
                {"rule": "WKL-8", "status": "excepted",
                 "detail": "exception (owner net-team, expires 2026-09-01: NCCL); waived: no deny"},
                {"rule": "PRJ-2", "status": "skipped", "detail": "AccessDenied"},
            ])
        );
        // A row without a status (never written by a release) leaves the checklist to the next plan.
        let mut odd = RawState::new();
        odd.insert("checks".into(), serde_json::json!([{"rule": "CON-1", "status": null}]));
        upgrade_state(&mut odd).expect("upgrades");
        assert_eq!(odd["passed_checks"], serde_json::Value::Null);
        // So does a row that is not such an object, or whose rule is not text: read, never an error of the upgrade.
        for rows in [
            serde_json::json!(["CON-1"]),
            serde_json::json!([{"rule": 1, "status": "passed"}]),
        ] {
            let mut odd = RawState::new();
            odd.insert("checks".into(), rows);
            upgrade_state(&mut odd).expect("upgrades");
            assert_eq!(odd["passed_checks"], serde_json::Value::Null);
            assert_eq!(odd["findings"], serde_json::Value::Null);
        }
    }

    #[test]
    fn findings_are_refusals_and_an_unchanged_resource_keeps_its_prior_value() {
        let state = object([("team", text("research"))]);
        let mut unchanged = change(Some(state.clone()), state.clone());
        assert!(matches!(judged(&mut unchanged, broken()), Ok(None)));
        assert_eq!(unchanged.planned, state);
        assert_eq!(unchanged.refusals.0[0].severity, Severity::Error);
        // A change or a create: refused all the same, never an error of the plan.
        let mut changed = change(Some(state.clone()), object([("team", text("vision"))]));
        assert!(matches!(judged(&mut changed, broken()), Ok(None)));
        assert_eq!(changed.planned, object([("team", text("vision"))]));
        assert_eq!(changed.refusals.0.len(), 1);
        let mut created = change(None, state);
        assert!(matches!(judged(&mut created, broken()), Ok(None)));
        assert_eq!(created.refusals.0.len(), 1);
    }

    #[test]
    fn what_the_plan_knew_stays_and_only_unknowns_are_filled() {
        let planned = Value::List(vec![
            object([("status", text("skipped")), ("detail", text("AccessDenied, request 1"))]),
            object([("status", Value::Unknown), ("detail", Value::Unknown)]),
        ]);
        let applied = Value::List(vec![
            object([("status", text("skipped")), ("detail", text("AccessDenied, request 2"))]),
            object([("status", text("passed")), ("detail", text("ok"))]),
        ]);
        let filled = fill_unknowns(&planned, &applied);
        assert_eq!(
            filled,
            Value::List(vec![
                object([("status", text("skipped")), ("detail", text("AccessDenied, request 1"))]),
                object([("status", text("passed")), ("detail", text("ok"))]),
            ])
        );
        assert_eq!(fill_unknowns(&Value::Unknown, &text("x")), text("x"));
    }
}
