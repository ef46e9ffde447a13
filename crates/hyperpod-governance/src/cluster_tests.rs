//! Tests of the CLU-* rules (kept apart so cluster.rs stays readable).

use super::*;
use crate::catalog::RuleId;
use crate::examples::{
    self, CAPACITY_ACCOUNT, PROJECT_ROLE, TARGET_ROLE, WORKLOAD_ROLE, access_entry as entry, clu_2_view, contract, eks,
    live_cluster, research_project, restriction, tenant, view,
};
use crate::finding::Outcome;
use crate::model::Orchestrator;

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

fn clu_2(view: &ClusterView) -> Check {
    super::clu_2(
        &research_project(),
        &contract().eks_namespaces,
        view,
        AttributePath::attr("task_view_restriction"),
    )
}

#[test]
fn clu_2_requires_a_restriction_once_another_project_or_team_uses_the_cluster() {
    // The binding references the research restriction: restricted, whatever else is on the cluster.
    assert!(clu_2(&view()).is_passed());
    assert!(clu_2(&clu_2_view()).is_failed());
    let check = examples::failing(RuleId::Clu2);
    assert_eq!(check.findings().len(), 1);
    assert_eq!(check.findings()[0].path.to_string(), "task_view_restriction");
    assert!(check.findings()[0].observed.contains("[\"prj-marketing\"]"));
    // Another team's live quota makes the cluster shared too (the fixture's platform team).
    let mut other_team = view();
    other_team.restrictions.referenced.clear();
    assert!(clu_2(&other_team).is_failed());
    // A live restriction for the role counts as much as a referenced one.
    other_team.restrictions.live = Fact::Known(vec![restriction()]);
    assert!(clu_2(&other_team).is_passed());
}

#[test]
fn clu_2_judges_only_this_project_and_its_references() {
    // Alone on the cluster (live), no restriction yet: passes, and says to restrict before the next project.
    let mut alone = view();
    alone.restrictions.referenced.clear();
    alone.tenants.live = Fact::Known(Vec::new());
    let check = clu_2(&alone);
    assert!(check.is_passed());
    // Another project's missing restriction is that project's binding's finding, never this one's: here another
    // project is restricted or not, and only this project's restriction matters.
    let mut other_unrestricted = clu_2_view();
    other_unrestricted.restrictions = view().restrictions;
    assert!(clu_2(&other_unrestricted).is_passed());
    // A referenced restriction for another role, or of another cluster, is a finding at the reference.
    let mut wrong_role = view();
    wrong_role.restrictions.referenced[0].item.project_role_arn = Some(TARGET_ROLE.into());
    let check = clu_2(&wrong_role);
    assert_eq!(check.findings()[0].path.to_string(), "task_view_restriction");
    let mut wrong_cluster = view();
    wrong_cluster.restrictions.referenced[0].cluster_name = "other".into();
    assert!(clu_2(&wrong_cluster).is_failed());
    // Unread live projects: not checked (a warning), unless restricted by reference.
    alone.projects = Fact::Unavailable("AccessDenied on ListConnections".into());
    assert!(clu_2(&alone).is_skipped());
    let mut referenced_unknown = alone.clone();
    referenced_unknown.restrictions.unresolved = vec!["task_view_restriction".into()];
    assert!(clu_2(&referenced_unknown).is_deferred());
}

#[test]
fn clu_2_sees_the_teams_of_the_allocation_on_the_first_plan_and_without_one_is_not_evaluated_at_plan() {
    // Alone in live state and in the allocation: passes.
    let mut alone = view();
    alone.restrictions.referenced.clear();
    alone.tenants.live = Fact::Known(Vec::new());
    assert!(clu_2(&alone).is_passed());
    // A sibling team planned in the same configuration, visible only through the allocation: fails here, at once.
    let mut sibling = alone.clone();
    sibling.allocation = examples::allocation(&[("research", 2), ("vision", 2)]);
    let check = clu_2(&sibling);
    assert_eq!(check.findings()[0].path.to_string(), "task_view_restriction");
    assert!(check.findings()[0].observed.contains("[\"vision\"]"), "{check:?}");
    // Without an allocation, "nobody else yet" is not known at plan; apply decides it.
    let mut unreferenced = alone.clone();
    unreferenced.allocation = Setting::Unset;
    let check = clu_2(&unreferenced);
    assert!(check.is_skipped() && !check.is_deferred(), "{check:?}");
    unreferenced.phase = crate::model::Phase::Apply;
    assert!(clu_2(&unreferenced).is_passed());
    // Restricted: passes whatever the allocation says.
    let mut restricted = view();
    restricted.allocation = Setting::Unset;
    assert!(clu_2(&restricted).is_passed());
}

#[test]
fn clu_9_keeps_a_restriction_inside_its_contract() {
    assert!(clu_9(&restriction(), &contract()).is_passed());
    let check = examples::failing(RuleId::Clu9);
    assert_eq!(check.findings()[0].path.to_string(), "namespaces");
    assert!(check.findings()[0].observed.contains("hyperpod-ns-production"));
    for namespaces in [vec!["kube-system".to_string()], Vec::new()] {
        let outside = TaskViewRestriction {
            namespaces,
            ..restriction()
        };
        assert_eq!(
            clu_9(&outside, &contract()).findings()[0].path.to_string(),
            "namespaces"
        );
    }
    let other_role = TaskViewRestriction {
        project_role_arn: Some(TARGET_ROLE.into()),
        ..restriction()
    };
    assert_eq!(
        clu_9(&other_role, &contract()).findings()[0].path.to_string(),
        "project_role_arn"
    );
    assert!(matches!(
        clu_9(&restriction(), &examples::slurm_contract()).outcome,
        Outcome::NotApplicable { .. }
    ));
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
    assert_eq!(check.findings()[0].severity, crate::FindingSeverity::Warning);
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
    unknown.workload_role_arn = Setting::Unknown;
    assert!(clu_6(&unknown, &contract(), &[]).is_skipped());
    // Without a workload identity there is no workload role to judge: evaluated, and passed.
    let mut quota_only = tenant();
    quota_only.workload_role_arn = Setting::Unset;
    quota_only.target_role_arn = Setting::Unset;
    assert!(clu_6(&quota_only, &contract(), &[]).is_passed());
}

#[test]
fn clu_2_without_the_live_neighbours_counts_only_the_references_and_the_allocation() {
    let uncounted = |mut view: ClusterView| {
        view.neighbours = crate::model::Neighbours::ReferencedOnly;
        clu_2(&view)
    };
    // Restricted by reference: passed either way.
    assert!(uncounted(view()).is_passed());
    // Another project live: what the plan records does not count it (not evaluated at plan; apply judges it).
    let check = uncounted(clu_2_view());
    assert!(matches!(
        check.outcome,
        Outcome::Skipped {
            cause: crate::finding::SkipCause::NotAtPlan,
            ..
        }
    ));
    // A live restriction does not count either, so a binding restricted only live is not passed at plan.
    let mut restricted_live = view();
    restricted_live.restrictions.referenced.clear();
    restricted_live.restrictions.live = Fact::Known(vec![restriction()]);
    assert!(uncounted(restricted_live).is_skipped());
    // The allocation's other teams are the configuration's: they count, and fail an unrestricted binding.
    let mut allocated = clu_2_view();
    allocated.allocation = examples::allocation(&[("research", 1), ("production", 2)]);
    assert!(uncounted(allocated).is_failed());
}
