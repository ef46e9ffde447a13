//! Names HyperPod derives from others: the namespace task governance creates for a team's compute quota.

/// A team's name as SageMaker takes it (`ComputeQuotaTarget.TeamName`): DNS-label-like, at most 40 characters.
pub const TEAM_NAME: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?";

/// A SageMaker entity's name (`EntityName`: a cluster, a scheduler config), 1 to 63 characters.
pub const ENTITY_NAME: &str = "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}";

/// What HyperPod puts before a team's name to name its namespace.
pub const NAMESPACE_PREFIX: &str = "hyperpod-ns-";

/// `hyperpod-ns-<team>`: the namespace HyperPod task governance creates with a team's compute quota.
pub fn team_namespace(team: &str) -> String {
    format!("{NAMESPACE_PREFIX}{team}")
}

/// The team whose namespace `namespace` is, if it is one (`hyperpod-ns-research` → `research`).
pub fn team_of_namespace(namespace: &str) -> Option<&str> {
    namespace.strip_prefix(NAMESPACE_PREFIX).filter(|team| !team.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_and_its_namespace_name_each_other() {
        assert_eq!(team_namespace("research"), "hyperpod-ns-research");
        assert_eq!(team_of_namespace(&team_namespace("research")), Some("research"));
        assert_eq!(team_of_namespace("hyperpod-ns-"), None);
        assert_eq!(team_of_namespace("kube-system"), None);
    }
}
