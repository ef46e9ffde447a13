//! The tags the provider writes on what it creates, and what they prove. Every reader and writer of these keys names
//! them from here.

use std::collections::BTreeMap;

/// The team (`hyperpod_tenant.team`) an object belongs to.
pub const TENANT: &str = "hyperpod:tenant";
/// The HyperPod cluster (by name) the object was created for.
pub const CLUSTER: &str = "hyperpod:cluster";
/// The connection contract (by name) the object was created under.
pub const CONTRACT: &str = "hyperpod:contract";
/// The Unified Studio project of the tenant's contract.
pub const PROJECT: &str = "hyperpod:project";
/// The project role of the tenant's contract.
pub const PROJECT_ROLE: &str = "hyperpod:project-role";
/// On an EKS access entry: the task view restriction (`<cluster>/<role>`) that created it.
pub const TASK_VIEW_RESTRICTION: &str = "hyperpod:task-view-restriction";
/// On a scheduler config: the cluster whose `hyperpod_scheduling_policy` created it.
pub const POLICY_OWNER: &str = "hyperpod-governance:owner";

/// Whether an object's `tags` prove it the own of tenant `team` on cluster `cluster_name` (an earlier apply made it:
/// adopted, never refused as foreign). Both tags must match: a team of the same name on another cluster is not it.
pub fn is_tenants_own(tags: &BTreeMap<String, String>, cluster_name: &str, team: &str) -> bool {
    tags.get(TENANT).map(String::as_str) == Some(team) && tags.get(CLUSTER).map(String::as_str) == Some(cluster_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_tenants_own_object_names_its_team_and_its_cluster() {
        assert!(is_tenants_own(
            &tags(&[(TENANT, "research"), (CLUSTER, "ml")]),
            "ml",
            "research"
        ));
        assert!(!is_tenants_own(&tags(&[(TENANT, "research")]), "ml", "research"));
        assert!(!is_tenants_own(
            &tags(&[(TENANT, "research"), (CLUSTER, "other")]),
            "ml",
            "research"
        ));
        assert!(!is_tenants_own(
            &tags(&[(TENANT, "vision"), (CLUSTER, "ml")]),
            "ml",
            "research"
        ));
    }
}
