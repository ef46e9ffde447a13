//! Every path a rule can point at names an attribute of its resource's schema (the engine's `paths` against the
//! provider's schemas).

use crate::governance::paths::{binding, contract, restriction, tenant};

/// Whether `path` names an attribute of `block` (indices and keys step into lists, sets and maps).
fn resolves(block: &crate::protocol::schema::Block, path: &crate::governance::AttributePath) -> bool {
    use crate::governance::PathStep;
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
        &crate::governance::AttributePath::attr("sharing").push_attr("borrow_limits")
    ));
}
