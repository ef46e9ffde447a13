//! Tests of CON-1..3.

use super::*;
use crate::catalog::RuleId;
use crate::examples::{self, con_1_contract, con_3_contract, contract, slurm_contract};
use crate::finding::Outcome;

fn paths(check: &Check) -> Vec<String> {
    check.findings().iter().map(|f| f.path.to_string()).collect()
}

#[test]
fn con_1_passes_a_complete_contract() {
    assert!(con_1(&contract()).is_passed());
    assert!(con_1(&slurm_contract()).is_passed());
}

#[test]
fn con_1_reports_each_missing_or_malformed_field() {
    let mut broken = con_1_contract(); // cluster.account_id "11112222333"
    broken.owners.cost = " ".into();
    broken.cluster.region = "US-WEST-2".into();
    broken.cluster.name = "-bad".into();
    broken.project_role_arn = Some("arn:aws:iam::111122223333:user/alice".into());
    broken.access_role_arn = Some("not-an-arn".into());
    broken.unified_studio.domain_id = Some("abc".into());
    broken.approved_account_ids = vec!["444455556666".into(), "4444".into()];
    broken.approved_public_cidrs = vec!["203.0.113.0/33".into()];
    broken.eks_namespaces = vec!["Research".into()];
    broken.review.interval_days = 0;
    broken.monitoring.clear();
    broken.approved_workload_types.clear();
    let check = con_1(&broken);
    assert_eq!(
        paths(&check),
        [
            "owners.cost",
            "unified_studio.domain_id",
            "cluster.account_id",
            "cluster.region",
            "cluster.name",
            "project_role_arn",
            "access_role_arn",
            "approved_workload_types",
            "eks_namespaces[0]",
            "monitoring.signal",
            "approved_account_ids[1]",
            "approved_public_cidrs[0]",
            "review.interval_days"
        ]
    );
    assert!(check.findings()[2].detail().contains("Observed: \"11112222333\""));
    let mut long = contract();
    long.review.interval_days = 731;
    assert_eq!(paths(&con_1(&long)), ["review.interval_days"]);
}

#[test]
fn con_1_skips_when_identifiers_are_unknown_but_still_fails_what_it_sees() {
    let mut unknown = contract();
    unknown.project_role_arn = None;
    unknown.unified_studio.project_id = None;
    match con_1(&unknown).outcome {
        Outcome::Skipped { reason, .. } => {
            assert_eq!(
                reason,
                "unified_studio.project_id and project_role_arn are not known until apply"
            );
        }
        other => panic!("{other:?}"),
    }
    unknown.support.clear();
    assert_eq!(paths(&con_1(&unknown)), ["support"]);
}

#[test]
fn con_2_matches_scope_to_orchestrator() {
    assert!(con_2(&contract()).is_passed());
    assert!(con_2(&slurm_contract()).is_passed());
    assert_eq!(paths(&examples::failing(RuleId::Con2)), ["eks_namespaces"]);
    let mut empty_slurm = slurm_contract();
    empty_slurm.slurm.accounts.clear();
    empty_slurm.slurm.partitions.clear();
    assert_eq!(paths(&con_2(&empty_slurm)), ["slurm.accounts"]);
    let mut eks_with_both = contract();
    eks_with_both.eks_namespaces.clear();
    eks_with_both.slurm.partitions = vec!["gpu".into()];
    assert_eq!(paths(&con_2(&eks_with_both)), ["eks_namespaces", "slurm.partitions"]);
}

#[test]
fn con_3_needs_owner_and_response_per_signal() {
    assert!(con_3(&contract()).is_passed());
    assert_eq!(
        paths(&examples::failing(RuleId::Con3)),
        ["monitoring.signal[0].response"]
    );
    let mut broken = con_3_contract();
    broken.monitoring.push(broken.monitoring[0].clone());
    broken.monitoring[1].owner = " ".into();
    assert_eq!(
        paths(&con_3(&broken)),
        [
            "monitoring.signal[0].response",
            "monitoring.signal[1].owner",
            "monitoring.signal[1].response"
        ]
    );
}

#[test]
fn identifier_helpers() {
    assert!(is_dns_label("hyperpod-ns-a1") && !is_dns_label("a_b") && !is_dns_label("") && !is_dns_label("a-"));
    assert!(is_entity_name("ml-capacity") && !is_entity_name("ml_capacity"));
}
