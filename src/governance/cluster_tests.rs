//! Tests of the CLU-* rules (kept apart so cluster.rs stays readable).

use super::*;
use crate::governance::catalog::RuleId;
use crate::governance::examples::{
    self, CAPACITY_ACCOUNT, PROJECT_ROLE, TARGET_ROLE, WORKLOAD_ROLE, access_entry as entry, clu_2_view, contract, eks,
    live_cluster, restriction, tenant, view,
};
use crate::governance::model::Orchestrator;

fn live(orchestrator: Orchestrator) -> Fact<Option<LiveCluster>> {
    live_cluster(CAPACITY_ACCOUNT, "us-west-2", orchestrator)
}

#[test]
fn clu_1_compares_orchestrators() {
    assert!(clu_1(&contract(), &live(Orchestrator::Eks)).is_passed());
    let check = examples::failing(RuleId::Clu1);
    assert_eq!(check.findings()[0].path.to_string(), "cluster.orchestrator");
    assert!(check.findings()[0].fix.contains("\"eks\""));
    assert!(clu_1(&contract(), &Fact::Known(None)).is_skipped());
    assert!(clu_1(&contract(), &Fact::Unavailable("AccessDenied".into())).is_skipped());
}

#[test]
fn clu_2_requires_restrictions_once_a_cluster_is_shared() {
    // Two tenants (research planned, platform live) and one restricted project.
    assert!(clu_2(&view(), AttributePath::attr("team")).is_passed());
    let check = clu_2(&clu_2_view(), AttributePath::attr("team"));
    assert_eq!(check.findings().len(), 1);
    assert!(check.findings()[0].observed.starts_with("project \"prj-marketing\""));
    assert_eq!(check.findings()[0].path.to_string(), "team");
    let mut unrestricted = view();
    unrestricted.restrictions.planned.clear();
    assert!(clu_2(&unrestricted, AttributePath::root()).is_failed());
}

#[test]
fn clu_2_passes_a_single_tenant_cluster_and_skips_on_unread_inventory() {
    let mut alone = view();
    alone.tenants.live = Fact::Known(Vec::new());
    alone.restrictions.planned.clear();
    assert!(clu_2(&alone, AttributePath::root()).is_passed());
    alone.projects.live = Fact::Unavailable("AccessDenied on ListConnections".into());
    assert!(clu_2(&alone, AttributePath::root()).is_skipped());
    let mut unknown_role = view();
    unknown_role.projects.planned[0].project_role_arn = None;
    assert!(clu_2(&unknown_role, AttributePath::root()).is_skipped());
}

#[test]
fn clu_3_refuses_cluster_wide_policies_on_the_restricted_role() {
    let scoped = entry(
        PROJECT_ROLE,
        "AmazonEKSViewPolicy",
        AccessScope::Namespaces(vec!["hyperpod-ns-research".into()]),
    );
    let user_cluster = entry(
        PROJECT_ROLE,
        "AmazonSagemakerHyperpodUserClusterPolicy",
        AccessScope::Cluster,
    );
    let someone_else = entry(
        "arn:aws:iam::111122223333:role/admin",
        "AmazonEKSClusterAdminPolicy",
        AccessScope::Cluster,
    );
    assert!(clu_3(&restriction(), &Fact::Known(vec![scoped, user_cluster, someone_else])).is_passed());
    let check = examples::failing(RuleId::Clu3);
    assert_eq!(check.findings()[0].path.to_string(), "project_role_arn");
    assert!(check.findings()[0].observed.contains("AmazonEKSClusterAdminPolicy"));
    assert!(clu_3(&restriction(), &Fact::Unavailable("AccessDenied".into())).is_skipped());
    let unknown = TaskViewRestriction {
        project_role_arn: None,
        ..restriction()
    };
    assert!(clu_3(&unknown, &Fact::Known(Vec::new())).is_skipped());
}

#[test]
fn clu_4_needs_an_access_entry_authentication_mode() {
    let at = paths::contract::cluster("name");
    assert!(clu_4(&eks("API", false, &[]), at.clone()).is_passed());
    assert!(clu_4(&eks("API_AND_CONFIG_MAP", false, &[]), at.clone()).is_passed());
    let check = clu_4(&examples::clu_4_eks(), at.clone());
    assert_eq!(check.findings()[0].path.to_string(), "cluster.name");
    assert!(clu_4(&Fact::Unavailable("AccessDenied".into()), at).is_skipped());
}

#[test]
fn clu_5_accepts_private_or_approved_public_endpoints() {
    assert!(clu_5(&contract(), &eks("API", false, &["0.0.0.0/0"])).is_passed());
    assert!(clu_5(&contract(), &eks("API", true, &["203.0.113.64/26"])).is_passed());
    let check = examples::failing(RuleId::Clu5);
    assert_eq!(check.findings().len(), 1);
    assert_eq!(check.findings()[0].path.to_string(), "approved_public_cidrs");
    assert_eq!(
        check.findings()[0].severity,
        crate::protocol::diagnostics::Severity::Warning
    );
    assert!(
        clu_5(&contract(), &eks("API", true, &[])).is_failed(),
        "no CIDRs means 0.0.0.0/0"
    );
    assert!(clu_5(&contract(), &Fact::Unavailable("AccessDenied".into())).is_skipped());
}

#[test]
fn clu_6_keeps_workload_roles_apart_from_project_and_admin_roles() {
    assert!(clu_6(&tenant(), &contract(), &[]).is_passed());
    assert_eq!(
        examples::failing(RuleId::Clu6).findings()[0].path.to_string(),
        "workload_role_arn"
    );
    let admins = cluster_admin_principals(&[
        entry(TARGET_ROLE, "AmazonEKSClusterAdminPolicy", AccessScope::Cluster),
        entry(
            WORKLOAD_ROLE,
            "AmazonEKSAdminPolicy",
            AccessScope::Namespaces(vec!["a".into()]),
        ),
    ]);
    assert_eq!(admins, [TARGET_ROLE]);
    let check = clu_6(&tenant(), &contract(), &admins);
    assert_eq!(check.findings()[0].path.to_string(), "workload.target_role_arn");
    assert!(check.findings()[0].problem.contains("cluster-admin"));
    let mut unknown = tenant();
    unknown.workload_role_arn = None;
    assert!(clu_6(&unknown, &contract(), &[]).is_skipped());
}
