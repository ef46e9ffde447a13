//! Tests of review status, material changes and LIF-1..4.

use super::*;
use crate::examples::{self, caller, contract, date, lif_2_contract, lif_4_contract, today};
use crate::model::{LifecycleState, Signal};

#[test]
fn review_status_walks_from_current_to_overdue() {
    let contract = contract(); // last reviewed 2026-05-02, every 90 days: due 2026-07-31
    assert_eq!(
        review_status(&contract, today(), None),
        (ReviewStatus::Current, date(2026, 7, 31))
    );
    assert_eq!(
        review_status(&contract, date(2026, 7, 16), None).0,
        ReviewStatus::Current
    );
    assert_eq!(
        review_status(&contract, date(2026, 7, 17), None).0,
        ReviewStatus::DueSoon
    );
    assert_eq!(
        review_status(&contract, date(2026, 7, 31), None).0,
        ReviewStatus::DueSoon
    );
    assert_eq!(
        review_status(&contract, date(2026, 8, 1), None).0,
        ReviewStatus::Overdue
    );
    let revoked = Contract {
        lifecycle: LifecycleState::Revoked,
        ..contract.clone()
    };
    assert_eq!(review_status(&revoked, date(2026, 8, 1), None).0, ReviewStatus::Revoked);
    assert_eq!(ReviewStatus::ReviewRequired.as_str(), "review_required");
}

#[test]
fn material_changes_require_a_new_review() {
    let prior = contract();
    let mut changed = contract();
    changed.owners.cost = "new-finance".into();
    changed.project_role_arn = Some("arn:aws:iam::111122223333:role/other".into());
    changed.data_classification = "confidential".into();
    changed.monitoring.push(Signal {
        name: "idle".into(),
        owner: "ops".into(),
        response: "reclaim".into(),
    });
    assert_eq!(
        material_changes(&prior, &changed),
        [
            "owners.cost",
            "project_role_arn",
            "data_classification",
            "monitoring.signal"
        ]
    );
    assert_eq!(
        review_status(&changed, today(), Some(&prior)).0,
        ReviewStatus::ReviewRequired
    );
    let mut renewed = changed.clone();
    renewed.review.last_reviewed = today();
    assert_eq!(review_status(&renewed, today(), Some(&prior)).0, ReviewStatus::Current);
    // Free-text fields outside the material list, and values unknown until apply, do not count.
    let mut cosmetic = contract();
    cosmetic.support = "#ml-platform-help".into();
    cosmetic.access_role_arn = None;
    assert!(material_changes(&prior, &cosmetic).is_empty());
    let mut moved = contract();
    moved.cluster.region = "us-east-1".into();
    moved.cluster.orchestrator = crate::model::Orchestrator::Slurm;
    assert_eq!(
        material_changes(&prior, &moved),
        ["cluster.region", "cluster.orchestrator"]
    );
    let revoked = Contract {
        lifecycle: LifecycleState::Revoked,
        ..contract()
    };
    assert_eq!(material_changes(&revoked, &prior), ["lifecycle_state"]);
}

#[test]
fn lif_1_warns_when_overdue() {
    assert!(lif_1(&contract(), today()).is_passed());
    let check = examples::failing(RuleId::Lif1); // on 2026-08-10
    let finding = &check.findings()[0];
    assert_eq!(finding.path.to_string(), "review.last_reviewed");
    assert_eq!(
        finding.observed,
        "last reviewed 2026-05-02, every 90 days: due 2026-07-31, overdue by 10 days"
    );
    assert_eq!(finding.to_message(false).severity, crate::FindingSeverity::Warning);
    assert_eq!(finding.to_message(true).severity, crate::FindingSeverity::Error);
    let mut future = contract();
    future.review.last_reviewed = date(2027, 1, 1);
    assert!(lif_1(&future, today()).is_failed());
    let revoked = Contract {
        lifecycle: LifecycleState::Revoked,
        ..contract()
    };
    assert!(!lif_1(&revoked, date(2030, 1, 1)).is_failed());
}

#[test]
fn lif_2_flags_unapproved_material_changes() {
    assert!(lif_2(&contract(), None, None).is_passed());
    assert!(lif_2(&contract(), Some(&contract()), None).is_passed());
    let check = examples::failing(RuleId::Lif2); // cluster.account_id changed
    assert_eq!(check.findings()[0].path.to_string(), "review.last_reviewed");
    assert!(check.findings()[0].observed.starts_with("changed cluster.account_id;"));
    let mut changed = lif_2_contract();
    changed.review.approved_by = "bob@example.com".into();
    assert!(lif_2(&changed, Some(&contract()), None).is_passed());
}

#[test]
fn lif_3_refuses_revoked_or_ownerless_contracts() {
    let at = crate::paths::tenant::contract();
    assert!(lif_3(&contract(), at.clone()).is_passed());
    assert_eq!(
        examples::failing(RuleId::Lif3).findings()[0].path.to_string(),
        "contract"
    );
    let mut ownerless = contract();
    ownerless.owners.business.clear();
    assert!(
        lif_3(&ownerless, at).findings()[0]
            .observed
            .contains("no business owner")
    );
}

#[test]
fn approver_and_caller_are_compared_as_identities() {
    let caller = "arn:aws:sts::111122223333:assumed-role/AWSReservedSSO_Admin_abc/alice@example.com";
    assert!(approver_is_caller("alice@example.com", caller));
    assert!(approver_is_caller("Alice", caller));
    assert!(approver_is_caller(
        "arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_abc",
        caller
    ));
    assert!(approver_is_caller(caller, caller));
    assert!(!approver_is_caller(
        "arn:aws:sts::111122223333:assumed-role/AWSReservedSSO_Admin_abc/bob",
        caller
    ));
    assert!(!approver_is_caller("bob@example.com", caller));
    assert!(!approver_is_caller(
        "arn:aws:iam::444455556666:role/AWSReservedSSO_Admin_abc",
        caller
    ));
    let user = "arn:aws:iam::111122223333:user/ci/deployer";
    assert!(approver_is_caller("deployer", user));
    assert!(approver_is_caller("arn:aws:iam::111122223333:user/ci/deployer", user));
    assert!(!approver_is_caller("arn:aws:iam::111122223333:user/alice", user));
}

#[test]
fn lif_4_separates_approver_from_applier() {
    assert!(lif_4(&contract(), &caller()).is_passed());
    assert_eq!(
        examples::failing(RuleId::Lif4).findings()[0].path.to_string(),
        "review.approved_by"
    );
    assert!(lif_4(&lif_4_contract(), &Fact::Unavailable("no credentials".into())).is_skipped());
    let mut unrecorded = contract();
    unrecorded.review.approved_by = " ".into();
    assert!(lif_4(&unrecorded, &Fact::Unavailable("no credentials".into())).is_failed());
    assert!(lif_4(&contract(), &Fact::Unavailable("sts:GetCallerIdentity failed".into())).is_skipped());
}
