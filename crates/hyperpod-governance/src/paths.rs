//! The attribute names findings point at: the one place the engine knows the resources' schemas. Every rule builds
//! paths through these functions, so renaming an attribute in a schema means changing one line here.
//!
//! Paths are relative to the resource whose plan runs the rule (the "subject"): contract rules point into
//! `hyperpod_connection_contract`, tenant rules into `hyperpod_tenant`, and so on. Nested single blocks (`owners`,
//! `cluster`, `review`, …) add no index; repeated blocks and lists (`monitoring.signal`, `exception`, `quota`) do.
//! A resource that holds another's facts inside one attribute re-roots them with `Report::under`.

use crate::path::AttributePath;

fn nested(block: &str, field: &str) -> AttributePath {
    AttributePath::attr(block).push_attr(field)
}

/// `hyperpod_connection_contract`.
pub mod contract {
    use super::{AttributePath, nested};

    pub fn name() -> AttributePath {
        AttributePath::attr("name")
    }
    /// `owners.business`, `owners.operations`, `owners.cost`.
    pub fn owner(field: &str) -> AttributePath {
        nested("owners", field)
    }
    /// `unified_studio.domain_id`, `.domain_unit_id`, `.project_id`.
    pub fn unified_studio(field: &str) -> AttributePath {
        nested("unified_studio", field)
    }
    /// `cluster.account_id`, `.region`, `.name`, `.orchestrator`.
    pub fn cluster(field: &str) -> AttributePath {
        nested("cluster", field)
    }
    pub const PROJECT_ROLE_ARN: &str = "project_role_arn";
    pub const ACCESS_ROLE_ARN: &str = "access_role_arn";
    pub const APPROVED_WORKLOAD_TYPES: &str = "approved_workload_types";
    pub const DATA_CLASSIFICATION: &str = "data_classification";
    pub const EKS_NAMESPACES: &str = "eks_namespaces";
    pub const SUPPORT: &str = "support";
    pub const DECOMMISSION: &str = "decommission";
    pub const APPROVED_ACCOUNT_IDS: &str = "approved_account_ids";
    pub const APPROVED_PUBLIC_CIDRS: &str = "approved_public_cidrs";
    pub const LIFECYCLE: &str = "lifecycle_state";
    /// A top-level attribute by name (one of the constants above).
    pub fn attr(name: &str) -> AttributePath {
        AttributePath::attr(name)
    }
    /// `slurm.accounts`, `slurm.partitions`.
    pub fn slurm(field: &str) -> AttributePath {
        nested("slurm", field)
    }
    /// `organization.domain_unit_id`, `.project_profile_ids` (the grant's facts the contract references).
    pub fn organization(field: &str) -> AttributePath {
        nested("organization", field)
    }
    /// `scheduling.policy`, `scheduling.exception_owner`.
    pub fn scheduling(field: &str) -> AttributePath {
        nested("scheduling", field)
    }
    /// `monitoring.signal`, or `monitoring.signal[i].<field>`.
    pub fn signals() -> AttributePath {
        nested("monitoring", "signal")
    }
    pub fn signal(index: usize, field: &str) -> AttributePath {
        signals().index(index).push_attr(field)
    }
    /// `review.interval_days`, `.last_reviewed`, `.approved_by`.
    pub fn review(field: &str) -> AttributePath {
        nested("review", field)
    }
    /// `exception[i].rule`, `.owner`, `.expires`, `.reason`.
    pub fn exception(index: usize, field: &str) -> AttributePath {
        AttributePath::attr("exception").index(index).push_attr(field)
    }
}

/// `hyperpod_tenant`.
pub mod tenant {
    use super::{AttributePath, nested};

    /// The contract facts the tenant references (`contract = hyperpod_connection_contract.x.<facts>`).
    pub fn contract() -> AttributePath {
        AttributePath::attr("contract")
    }
    /// The team; the namespace `hyperpod-ns-<team>` and the Slurm account derive from it.
    pub fn team() -> AttributePath {
        AttributePath::attr("team")
    }
    pub fn quota() -> AttributePath {
        AttributePath::attr("quota")
    }
    pub fn quota_entry(index: usize, field: &str) -> AttributePath {
        quota().index(index).push_attr(field)
    }
    /// `sharing.strategy`, `sharing.borrow_limit`.
    pub fn sharing(field: &str) -> AttributePath {
        nested("sharing", field)
    }
    pub const PRIORITY_CLASS: &str = "priority_class";
    pub const SPACES: &str = "spaces";
    pub const FAIR_SHARE_WEIGHT: &str = "fair_share_weight";
    pub const VIEWER_GROUPS: &str = "viewer_groups";
    pub const OPERATOR_GROUPS: &str = "operator_groups";
    pub const VIEWER_VERBS: &str = "viewer_verbs";
    pub const OPERATOR_VERBS: &str = "operator_verbs";
    pub fn attr(name: &str) -> AttributePath {
        AttributePath::attr(name)
    }
    /// `network_policy.default_deny`.
    pub fn default_deny() -> AttributePath {
        nested("network_policy", "default_deny")
    }
    /// `workload.service_account`, `.target_role_arn`, `.disable_session_tags`, `.session_policy`.
    pub fn workload(field: &str) -> AttributePath {
        nested("workload", field)
    }
    /// The tenant workload role the provider creates (the Pod Identity `roleArn`).
    pub fn workload_role_arn() -> AttributePath {
        AttributePath::attr("workload_role_arn")
    }
    /// `data.buckets`, `data.kms_keys`, `data.grantee_role_arn`.
    pub fn data(field: &str) -> AttributePath {
        nested("data", field)
    }
    /// `slurm.users`, `slurm.partitions`, ….
    pub fn slurm(field: &str) -> AttributePath {
        nested("slurm", field)
    }
    /// `borrows_from[i]`: a lending tenant this one references (WKL-3, WKL-5).
    pub fn borrows_from(index: usize) -> AttributePath {
        AttributePath::attr(BORROWS_FROM).index(index)
    }
    pub const BORROWS_FROM: &str = "borrows_from";
    /// The cluster's allocation the tenant references (WKL-3).
    pub fn allocation() -> AttributePath {
        AttributePath::attr(ALLOCATION)
    }
    pub const ALLOCATION: &str = "allocation";
}

/// `hyperpod_unified_studio_project_binding`.
pub mod binding {
    use super::AttributePath;

    pub fn contract() -> AttributePath {
        AttributePath::attr("contract")
    }
    pub fn project_id() -> AttributePath {
        AttributePath::attr("project_id")
    }
    pub fn cluster_name() -> AttributePath {
        AttributePath::attr("cluster_name")
    }
    pub fn project_role_arn() -> AttributePath {
        AttributePath::attr("project_role_arn")
    }
    /// The task view restriction the binding references (CLU-2).
    pub fn task_view_restriction() -> AttributePath {
        AttributePath::attr("task_view_restriction")
    }
    /// `tenants[i]`: the tenants the binding references (WKL-1); `tenants` where one is missing.
    pub fn tenants() -> AttributePath {
        AttributePath::attr("tenants")
    }
    /// The cluster's allocation the binding references (CLU-2: the other teams planned beside it).
    pub fn allocation() -> AttributePath {
        AttributePath::attr("allocation")
    }
    /// `member[i].name`.
    pub fn member(index: usize) -> AttributePath {
        AttributePath::attr("member").index(index).push_attr("name")
    }
}

/// `hyperpod_cluster_allocation`.
pub mod allocation {
    use super::AttributePath;

    pub fn cluster_name() -> AttributePath {
        AttributePath::attr("cluster_name")
    }

    /// `teams["<team>"].quota`.
    pub fn quota(team: &str) -> AttributePath {
        AttributePath::attr("teams").key(team).push_attr("quota")
    }
    /// `teams["<team>"].quota[i].<unit>`.
    pub fn share(team: &str, index: usize, unit: &str) -> AttributePath {
        AttributePath::attr("teams")
            .key(team)
            .push_attr("quota")
            .index(index)
            .push_attr(unit)
    }
}

/// `hyperpod_task_view_restriction`.
pub mod restriction {
    use super::AttributePath;

    pub fn project_role_arn() -> AttributePath {
        AttributePath::attr("project_role_arn")
    }
    pub fn namespaces() -> AttributePath {
        AttributePath::attr("namespaces")
    }
    pub fn contract() -> AttributePath {
        AttributePath::attr("contract")
    }
    /// `slurm.os_user`.
    pub fn slurm(field: &str) -> AttributePath {
        AttributePath::attr("slurm").push_attr(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_as_terraform_addresses() {
        assert_eq!(contract::owner("cost").to_string(), "owners.cost");
        assert_eq!(contract::signal(1, "owner").to_string(), "monitoring.signal[1].owner");
        assert_eq!(contract::exception(0, "expires").to_string(), "exception[0].expires");
        assert_eq!(tenant::quota_entry(2, "count").to_string(), "quota[2].count");
        assert_eq!(binding::member(3).to_string(), "member[3].name");
    }
}
