//! Tests of findings, diagnostics, the checklist and exceptions.

use super::*;
use crate::examples::date;

fn finding(rule: RuleId, path: AttributePath) -> Finding {
    Finding {
        path,
        observed: "\"Lend\"".into(),
        problem: "Slurm has no lend/borrow model.".into(),
        fix: "remove the sharing block".into(),
        ..Finding::of(rule)
    }
}

#[test]
fn diagnostics_name_the_rule_path_observation_and_fix() {
    let diagnostic = finding(RuleId::Wkl2, AttributePath::attr("sharing").push_attr("strategy")).to_message(false);
    assert_eq!(diagnostic.severity, FindingSeverity::Error);
    assert!(diagnostic.summary.starts_with("[WKL-2] Lend/borrow"));
    assert_eq!(
        diagnostic.detail,
        "sharing.strategy: Slurm has no lend/borrow model. Observed: \"Lend\". Fix: remove the sharing block"
    );
    let root = finding(RuleId::Wkl2, AttributePath::root()).detail();
    assert!(root.starts_with("Slurm has no"), "{root}");
}

#[test]
fn strict_turns_warnings_into_errors() {
    let warning = finding(RuleId::Lif1, AttributePath::attr("review"));
    assert_eq!(warning.to_message(false).severity, FindingSeverity::Warning);
    assert_eq!(warning.to_message(true).severity, FindingSeverity::Error);
    let report: Report = [Check::from_findings(RuleId::Lif1, vec![warning], "")]
        .into_iter()
        .collect();
    assert!(!report.has_errors(false));
    assert!(report.has_errors(true));
}

#[test]
fn every_skip_is_a_diagnostic_and_deferred_rows_stay_unknown() {
    let report: Report = [
        Check::unavailable(
            RuleId::Prj2,
            "AccessDenied reading role arn:aws:iam::111122223333:role/p",
        ),
        Check::unknown(RuleId::Org1, "unified_studio.project_id"),
    ]
    .into_iter()
    .collect();
    let diagnostics = report.messages(false);
    assert_eq!(diagnostics.0.len(), 2);
    assert!(diagnostics.0.iter().all(|d| d.severity == FindingSeverity::Warning));
    assert!(diagnostics.0[0].summary.contains("[PRJ-2]") && diagnostics.0[0].detail.contains("AccessDenied"));
    assert!(diagnostics.0[1].summary.starts_with("[ORG-1] not checked at plan"));
    assert!(
        diagnostics.0[1]
            .detail
            .contains("unified_studio.project_id is not known until apply")
    );
    assert!(
        report
            .messages(true)
            .0
            .iter()
            .all(|d| d.severity == FindingSeverity::Error)
    );
    let checklist = report.checklist();
    assert_eq!(checklist.findings[0].status, "skipped");
    // Apply fills the deferred rule in; a known "skipped" here would contradict it.
    assert_eq!(checklist.findings.len(), 1);
    assert!(checklist.deferred);
}

#[test]
fn statuses_tell_warnings_and_not_applicable_apart_from_passes() {
    let mut warning = finding(RuleId::Obs1, AttributePath::root());
    warning.severity = FindingSeverity::Warning;
    let report: Report = [
        Check::from_findings(RuleId::Obs1, vec![warning], ""),
        Check::not_applicable(RuleId::Wkl8, "Slurm tenants have no Kubernetes namespace"),
    ]
    .into_iter()
    .collect();
    let checklist = report.checklist();
    assert_eq!(checklist.findings[0].status, "warning");
    assert_eq!(checklist.not_applicable, ["WKL-8"]);
    assert!(checklist.passed.is_empty());
    assert!(!report.checks[1].is_passed());
    assert!(
        checklist
            .findings
            .iter()
            .all(|row| ChecklistRow::STATUSES.contains(&row.status))
    );
}

#[test]
fn checklist_rows_read_like_a_review() {
    let report: Report = [
        Check::passed(RuleId::Con1, "all fields well-formed"),
        Check::from_findings(
            RuleId::Wkl2,
            vec![finding(RuleId::Wkl2, AttributePath::attr("sharing"))],
            "",
        ),
    ]
    .into_iter()
    .collect();
    let checklist = report.checklist();
    assert_eq!(checklist.passed, ["CON-1"]);
    assert_eq!(
        (checklist.findings[0].rule, checklist.findings[0].status),
        ("WKL-2", "failed")
    );
    assert!(checklist.findings[0].detail.starts_with("sharing: Slurm"));
}

#[test]
fn valid_exceptions_turn_failures_into_excepted_findings() {
    let failed = || Check::from_findings(RuleId::Wkl8, vec![finding(RuleId::Wkl8, AttributePath::root())], "");
    let exception = |owner: &str, expires| Exception {
        rule: RuleId::Wkl8,
        owner: owner.into(),
        expires,
        reason: "NCCL needs open pod-to-pod traffic".into(),
    };
    let today = date(2026, 6, 1);
    let report: Report = [failed()].into_iter().collect();
    let excepted = report
        .clone()
        .with_exceptions(&[exception("net-team", date(2026, 9, 1))], today);
    assert!(!excepted.checks[0].is_passed() && !excepted.checks[0].is_failed());
    let checklist = excepted.checklist();
    assert!(checklist.passed.is_empty());
    assert_eq!(checklist.findings[0].status, "excepted");
    assert!(
        checklist.findings[0]
            .detail
            .starts_with("exception (owner net-team, expires 2026-09-01: NCCL")
    );
    assert!(excepted.messages(true).is_empty());
    // Expired or ownerless exceptions waive nothing (EXC-1 reports them).
    for invalid in [
        exception("net-team", date(2026, 5, 31)),
        exception(" ", date(2026, 9, 1)),
    ] {
        assert!(report.clone().with_exceptions(&[invalid], today).checks[0].is_failed());
    }
}

#[test]
fn findings_move_under_a_prefix() {
    let report: Report = [Check::from_findings(
        RuleId::Wkl1,
        vec![finding(RuleId::Wkl1, AttributePath::attr("eks_namespaces").index(0))],
        "",
    )]
    .into_iter()
    .collect();
    let moved = report.under(&AttributePath::attr("contract"));
    assert_eq!(
        moved.checks[0].findings()[0].path.to_string(),
        "contract.eks_namespaces[0]"
    );
}

#[test]
fn a_failure_only_the_live_judgement_has_is_said_apart_and_the_recorded_report_speaks_for_the_rest() {
    let recorded: Report = [
        Check::passed(RuleId::Con1, ""),
        Check::passed(RuleId::Wkl3, "the allocation fits"),
        Check::not_at_plan(RuleId::Wkl5, "not evaluated at plan: no lender referenced"),
        Check::passed(RuleId::Clu2, "restricted"),
    ]
    .into_iter()
    .collect();
    let live: Report = [
        Check::passed(RuleId::Con1, ""),
        Check::from_findings(
            RuleId::Wkl3,
            vec![finding(RuleId::Wkl3, AttributePath::attr("quota").index(0))],
            "",
        ),
        Check::passed(RuleId::Wkl5, "a live team lends"),
        Check::unavailable(RuleId::Clu2, "could not read the connections"),
    ]
    .into_iter()
    .collect();
    let (said, live_only) = recorded.messages_with_live(&live, false);
    // WKL-3 fails only with the live quotas: apart, as an error (a refusal resting on live state).
    assert_eq!(live_only.0.len(), 1);
    assert!(live_only.0[0].summary.starts_with("[WKL-3]") && live_only.has_errors());
    // WKL-5 is not evaluated in what the plan records, but the live judgement passes: nothing said (a good
    // configuration plans clean); CLU-2 passed on what the plan records, but its live half could not be read: "not
    // checked".
    let summaries: Vec<&str> = said.iter().map(|m| m.summary.as_str()).collect();
    assert_eq!(summaries.len(), 1, "{summaries:?}");
    assert!(summaries[0].starts_with("[CLU-2]") && summaries[0].ends_with("(not checked)"));
    assert!(!said.has_errors());
    // The same verdict twice: nothing apart.
    let (same, none) = live.messages_with_live(&live, false);
    assert!(none.is_empty() && same.has_errors());
}

#[test]
fn of_a_rule_both_judgements_fail_what_only_the_live_one_finds_is_said_apart() {
    let at = |attribute: &str| AttributePath::attr(attribute);
    let recorded: Report = [Check::from_findings(
        RuleId::Wkl5,
        vec![finding(RuleId::Wkl5, at("borrows_from"))],
        "",
    )]
    .into_iter()
    .collect();
    let live: Report = [Check::from_findings(
        RuleId::Wkl5,
        vec![
            finding(RuleId::Wkl5, at("borrows_from")),
            finding(RuleId::Wkl5, at("sharing")),
        ],
        "",
    )]
    .into_iter()
    .collect();
    let (said, live_only) = recorded.messages_with_live(&live, false);
    assert_eq!(said.0.len(), 1);
    assert_eq!(said.0[0].path, at("borrows_from"));
    assert_eq!(live_only.0.len(), 1);
    assert_eq!(live_only.0[0].path, at("sharing"));
}
