//! The attribute names findings point at: the one place the engine knows the resources' schemas. Every rule builds
//! paths through these functions, so renaming an attribute in a schema means changing one line here.
//!
//! Paths are relative to the resource whose plan runs the rule (the "subject"): contract rules point into
//! `hyperpod_connection_contract`, tenant rules into `hyperpod_tenant`, and so on. Nested single blocks (`owners`,
//! `cluster`, `review`, …) add no index; repeated blocks and lists (`monitoring.signal`, `exception`, `quota`) do.
//! A resource that holds another's facts inside one attribute re-roots them with `Report::under`.

use crate::protocol::diagnostics::AttributePath;

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
    /// `member[i].name`.
    pub fn member(index: usize) -> AttributePath {
        AttributePath::attr("member").index(index).push_attr("name")
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

    /// Whether `path` names an attribute of `block` (indices and keys step into lists, sets and maps).
    fn resolves(block: &crate::protocol::schema::Block, path: &AttributePath) -> bool {
        use crate::protocol::diagnostics::PathStep;
        use crate::protocol::schema::AttributeKind;
        let mut current = block.clone();
        let mut steps = path.0.iter().peekable();
        while let Some(step) = steps.next() {
            let PathStep::Attribute(name) = step else { continue };
            if let Some(nested) = current.blocks.iter().find(|b| b.name == name) {
                current = nested.block.clone();
                continue;
            }
            let Some(attribute) = current.find_attribute(name) else {
                return false;
            };
            match &attribute.kind {
                AttributeKind::Nested { attributes, .. } => {
                    current = crate::protocol::schema::Block {
                        attributes: attributes.clone(),
                        ..Default::default()
                    };
                }
                // An object-typed attribute (another resource's facts) has named fields; any other primitive ends
                // the path (an index or key may follow it).
                AttributeKind::Primitive(crate::protocol::value::Type::Object(fields)) => {
                    return steps.all(|s| match s {
                        PathStep::Attribute(field) => fields.contains_key(field),
                        _ => true,
                    });
                }
                AttributeKind::Primitive(_) => {
                    return steps.all(|s| !matches!(s, PathStep::Attribute(_)));
                }
            }
        }
        true
    }

    #[test]
    fn every_path_a_finding_can_point_at_exists_in_its_resources_schema() {
        let contract_schema = crate::resources::connection_contract::schema_block();
        let contract_paths = [
            contract::name(),
            contract::owner("business"),
            contract::owner("operations"),
            contract::owner("cost"),
            contract::unified_studio("domain_id"),
            contract::unified_studio("domain_unit_id"),
            contract::unified_studio("project_id"),
            contract::cluster("account_id"),
            contract::cluster("region"),
            contract::cluster("name"),
            contract::cluster("orchestrator"),
            contract::slurm("accounts"),
            contract::slurm("partitions"),
            contract::organization("domain_unit_id"),
            contract::organization("project_profile_ids"),
            contract::scheduling("policy"),
            contract::scheduling("exception_owner"),
            contract::signals(),
            contract::signal(0, "name"),
            contract::signal(0, "owner"),
            contract::signal(0, "response"),
            contract::review("interval_days"),
            contract::review("last_reviewed"),
            contract::review("approved_by"),
            contract::exception(0, "rule"),
            contract::exception(0, "owner"),
            contract::exception(0, "expires"),
            contract::exception(0, "reason"),
        ]
        .into_iter()
        .chain(
            [
                contract::PROJECT_ROLE_ARN,
                contract::ACCESS_ROLE_ARN,
                contract::APPROVED_WORKLOAD_TYPES,
                contract::DATA_CLASSIFICATION,
                contract::EKS_NAMESPACES,
                contract::SUPPORT,
                contract::DECOMMISSION,
                contract::APPROVED_ACCOUNT_IDS,
                contract::APPROVED_PUBLIC_CIDRS,
                contract::LIFECYCLE,
            ]
            .map(contract::attr),
        );
        let tenant_schema = crate::resources::tenant::schema_block();
        let tenant_paths = [
            tenant::contract(),
            tenant::team(),
            tenant::quota(),
            tenant::quota_entry(0, "count"),
            tenant::quota_entry(0, "instance_type"),
            tenant::sharing("strategy"),
            tenant::sharing("borrow_limit"),
            tenant::default_deny(),
            tenant::workload("service_account"),
            tenant::workload("target_role_arn"),
            tenant::workload("disable_session_tags"),
            tenant::workload("session_policy"),
            tenant::workload_role_arn(),
            tenant::data("buckets"),
            tenant::data("kms_keys"),
            tenant::data("grantee_role_arn"),
            tenant::slurm("users"),
            tenant::borrows_from(0),
        ]
        .into_iter()
        .chain(
            [
                tenant::PRIORITY_CLASS,
                tenant::FAIR_SHARE_WEIGHT,
                tenant::VIEWER_GROUPS,
                tenant::OPERATOR_GROUPS,
                tenant::VIEWER_VERBS,
                tenant::OPERATOR_VERBS,
            ]
            .map(tenant::attr),
        );
        let binding_schema = crate::resources::project_binding::schema_block();
        let binding_paths = [
            binding::contract(),
            binding::project_id(),
            binding::cluster_name(),
            binding::project_role_arn(),
            binding::task_view_restriction(),
            binding::tenants(),
            binding::member(0),
        ];
        let restriction_schema = crate::resources::task_view_restriction::schema_block();
        let restriction_paths = [
            restriction::project_role_arn(),
            restriction::namespaces(),
            restriction::contract(),
            restriction::slurm("os_user"),
        ];
        let mut missing = Vec::new();
        for (resource, schema, paths) in [
            ("contract", &contract_schema, contract_paths.collect::<Vec<_>>()),
            ("tenant", &tenant_schema, tenant_paths.collect()),
            ("binding", &binding_schema, binding_paths.to_vec()),
            ("restriction", &restriction_schema, restriction_paths.to_vec()),
        ] {
            missing.extend(
                paths
                    .iter()
                    .filter(|p| !resolves(schema, p))
                    .map(|p| format!("{resource}: {p}")),
            );
        }
        assert!(missing.is_empty(), "paths that name no attribute: {missing:?}");
        // The check can fail: a renamed attribute is caught.
        assert!(!resolves(
            &tenant_schema,
            &AttributePath::attr("sharing").push_attr("borrow_limits")
        ));
    }
}
