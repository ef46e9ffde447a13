//! The engine's view of one cluster (`ClusterView`), joined from what `cluster_facts` read and what the resource
//! references in HCL (`references`): the instance groups' capacity, the live task view restrictions. Pure: no I/O.

use crate::aws::sagemaker::HyperPodCluster;
use crate::governance::cluster::CLUSTER_WIDE_VIEW_POLICIES;
use crate::governance::{
    AccessEntry, AccessScope, Capacity, ClusterView, Fact, Inventory, Neighbours, Phase, ProjectOnCluster,
    SchedulingPolicy, Setting, TaskViewRestriction, TenantCapacity,
};
use crate::resources::cluster_facts::ClusterFacts;
use crate::resources::references::References;

/// Task view restrictions as they exist: principals with namespace-scoped access policies and no cluster-wide view,
/// edit or admin policy (a cluster-scoped `AmazonSagemakerHyperpodUserClusterPolicy` only lets Studio probe).
pub fn restrictions_of(entries: &[AccessEntry]) -> Vec<TaskViewRestriction> {
    let policy_name = |arn: &str| arn.rsplit('/').next().unwrap_or(arn).to_string();
    entries
        .iter()
        .filter(|entry| {
            entry
                .policies
                .iter()
                .any(|p| matches!(p.scope, AccessScope::Namespaces(_)))
        })
        .filter(|entry| {
            !entry.policies.iter().any(|p| {
                p.scope == AccessScope::Cluster
                    && CLUSTER_WIDE_VIEW_POLICIES.contains(&policy_name(&p.policy_arn).as_str())
            })
        })
        .map(|entry| TaskViewRestriction {
            project_role_arn: Some(entry.principal_arn.clone()),
            namespaces: entry
                .policies
                .iter()
                .flat_map(|p| match &p.scope {
                    AccessScope::Namespaces(namespaces) => namespaces.clone(),
                    AccessScope::Cluster => Vec::new(),
                })
                .collect(),
        })
        .collect()
}

/// What the cluster's instance groups hold, per group: its type and its current instance count (what WKL-3 counts
/// against; a group still scaling up counts what it has).
pub fn instance_group_capacity(cluster: &HyperPodCluster) -> Vec<Capacity> {
    cluster
        .instance_groups
        .iter()
        .map(|group| Capacity {
            instance_type: group.instance_type.clone(),
            count: i64::from(group.current_count),
            partition_layout: group.partition_layout().map(str::to_string),
        })
        .collect()
}

/// The engine's view of one cluster: the live facts, plus the tenants and task view restrictions the resource
/// references (a tenant counts itself among them). `policy` is the cluster policy passed by reference
/// (`Some(None)` while unknown), or `None` to use the live one; `connected` adds the projects with a live
/// HyperPod connection to the cluster.
pub fn view(
    facts: &ClusterFacts,
    tenants: References<TenantCapacity>,
    restrictions: References<TaskViewRestriction>,
    #[allow(clippy::option_option)] policy: Option<Option<SchedulingPolicy>>,
    connected: &[ProjectOnCluster],
) -> ClusterView {
    let instance_groups = instance_group_capacity(&facts.cluster);
    let live_projects = match &facts.projects {
        Fact::Known(tagged) => {
            let mut projects = tagged.clone();
            for project in connected {
                if !projects.iter().any(|p| p.project_id == project.project_id) {
                    projects.push(project.clone());
                }
            }
            Fact::Known(projects)
        }
        Fact::Unavailable(reason) => Fact::Unavailable(reason.clone()),
    };
    let policy_live = policy.is_none();
    let scheduling_policy = match policy {
        Some(Some(policy)) => Fact::Known(Some(policy)),
        Some(None) => Fact::Unavailable("the scheduling_policy argument is not known until apply".to_string()),
        None => facts.scheduling_policy.clone(),
    };
    ClusterView {
        cluster_name: facts.cluster.name.clone(),
        instance_groups: Fact::Known(instance_groups),
        scheduling_policy,
        tenants: Inventory {
            referenced: tenants.known,
            unresolved: tenants.unknown,
            live: facts.tenants.clone(),
        },
        projects: live_projects,
        allocation: Setting::Unset,
        phase: Phase::Plan,
        neighbours: Neighbours::LiveAndReferenced,
        policy_live,
        restrictions: Inventory {
            referenced: restrictions.known,
            unresolved: restrictions.unknown,
            live: match &facts.access_entries {
                Fact::Known(entries) => Fact::Known(restrictions_of(entries)),
                Fact::Unavailable(reason) => Fact::Unavailable(reason.clone()),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::AssociatedPolicy;

    fn entry(principal: &str, policies: &[(&str, AccessScope)]) -> AccessEntry {
        AccessEntry {
            principal_arn: principal.to_string(),
            policies: policies
                .iter()
                .map(|(name, scope)| AssociatedPolicy {
                    policy_arn: format!("arn:aws:eks::aws:cluster-access-policy/{name}"),
                    scope: scope.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_restriction_is_namespace_scoped_access_without_a_cluster_wide_view() {
        let ns = || AccessScope::Namespaces(vec!["hyperpod-ns-research".into()]);
        let entries = [
            // Studio's setup: namespace-scoped HyperPod policies plus the cluster-scoped probe policy.
            entry(
                "restricted",
                &[
                    ("AmazonSagemakerHyperpodTrainingPolicy", ns()),
                    ("AmazonSagemakerHyperpodUserClusterPolicy", AccessScope::Cluster),
                ],
            ),
            entry(
                "defeated",
                &[
                    ("AmazonSagemakerHyperpodTrainingPolicy", ns()),
                    ("AmazonEKSViewPolicy", AccessScope::Cluster),
                ],
            ),
            entry("admin", &[("AmazonEKSClusterAdminPolicy", AccessScope::Cluster)]),
            entry("nothing", &[]),
        ];
        let restrictions = restrictions_of(&entries);
        assert_eq!(restrictions.len(), 1);
        assert_eq!(restrictions[0].project_role_arn.as_deref(), Some("restricted"));
        assert_eq!(restrictions[0].namespaces, ["hyperpod-ns-research"]);
    }
}
