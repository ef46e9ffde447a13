//! Which connection contract a resource belongs to. The handoff arguments that name the contract are write-only
//! (null in the plan), so the pair (cluster, project) decides, from values each resource composes anyway; a
//! resource whose plan failed has no values, and is told by the configuration's reference to its contract.

use super::plan::{Plan, PlanField, ResourceChange, without_keys};
use hyperpod_declarations::connection_contract::{self, ClusterBlock, ContractModel as C, UnifiedStudioBlock};
use hyperpod_declarations::project_binding::{self, BindingModel as B};
use hyperpod_declarations::task_view_restriction::{self, RestrictionModel as R};
use hyperpod_declarations::tenant::{self, TenantModel as T};

/// What identifies a contract.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContractKey {
    pub address: String,
    pub module_address: String,
    pub name: Option<String>,
    pub cluster: Option<String>,
    pub project_id: Option<String>,
    pub project_role_arn: Option<String>,
}

impl ContractKey {
    pub fn of(change: &ResourceChange) -> ContractKey {
        let text = |path: &[&str]| change.after.get(path).as_text();
        ContractKey {
            address: change.address.clone(),
            module_address: change.module_address.clone(),
            name: text(&[C::NAME.name()]),
            cluster: text(&[C::CLUSTER.name(), ClusterBlock::NAME.name()]),
            project_id: text(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::PROJECT_ID.name()]),
            project_role_arn: text(&[C::PROJECT_ROLE_ARN.name()]),
        }
    }
}

/// Both known and equal: an unknown value never matches.
fn same(a: Option<&String>, b: Option<String>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if *a == b)
}

/// The index in `contracts` of the contract `change` belongs to.
pub fn contract_of(change: &ResourceChange, contracts: &[ContractKey], plan: &Plan) -> Option<usize> {
    if change.resource_type == connection_contract::TYPE_NAME {
        return contracts.iter().position(|key| key.address == change.address);
    }
    let text = |path: &[&str]| change.after.get(path).as_text();
    // Each member type names its cluster by its own declaration.
    let cluster = match change.resource_type.as_str() {
        task_view_restriction::TYPE_NAME => text(&[R::CLUSTER_NAME.name()]),
        project_binding::TYPE_NAME => text(&[B::CLUSTER_NAME.name()]),
        tenant::TYPE_NAME => text(&[T::CLUSTER_NAME.name()]),
        _ => None,
    };
    let matching: Vec<usize> = contracts
        .iter()
        .enumerate()
        .filter(|(_, key)| match change.resource_type.as_str() {
            task_view_restriction::TYPE_NAME => {
                same(key.cluster.as_ref(), cluster.clone())
                    && same(key.project_role_arn.as_ref(), text(&[R::PROJECT_ROLE_ARN.name()]))
            }
            project_binding::TYPE_NAME => {
                same(key.cluster.as_ref(), cluster.clone())
                    && same(key.project_id.as_ref(), text(&[B::PROJECT_ID.name()]))
            }
            tenant::TYPE_NAME => {
                let tagged = change
                    .after
                    .get(&[T::TAGS_ALL.name(), hyperpod_model::tags::CONTRACT])
                    .as_text();
                let cluster_agrees = cluster.is_none() || same(key.cluster.as_ref(), cluster.clone());
                (same(key.name.as_ref(), tagged) && cluster_agrees)
                    || (same(key.cluster.as_ref(), cluster.clone())
                        && same(
                            key.project_id.as_ref(),
                            text(&[T::TAGS_ALL.name(), hyperpod_model::tags::PROJECT]),
                        ))
            }
            _ => false,
        })
        .map(|(index, _)| index)
        .collect();
    // Two contracts that match (the same project twice on a cluster) are told apart by the module they share.
    matching
        .iter()
        .copied()
        .find(|&index| contracts[index].module_address == change.module_address)
        .or(matching.first().copied())
        .or_else(|| by_reference(&change.address, &change.module_address, contracts, plan))
}

/// The contract the configuration of `address` references (`contract = hyperpod_connection_contract.x.governance`),
/// in the same module instance; of a `for_each`/`count` contract, the instance with the resource's own key.
pub fn by_reference(address: &str, module_address: &str, contracts: &[ContractKey], plan: &Plan) -> Option<usize> {
    let configured = plan.configuration.get(&without_keys(address))?;
    let prefix = if module_address.is_empty() {
        String::new()
    } else {
        format!("{module_address}.")
    };
    let own_key = instance_key(address.strip_prefix(&prefix).unwrap_or(address));
    configured
        .references
        .iter()
        .filter_map(|reference| {
            let resource = reference.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
            let contract = resource
                .split_once('.')
                .is_some_and(|(kind, _)| kind == connection_contract::TYPE_NAME);
            contract.then_some(resource)
        })
        .find_map(|resource| {
            let bare = without_keys(&resource);
            // The reference's own key, else the resource's key (`each.key`), else the one instance.
            [
                format!("{prefix}{resource}"),
                format!("{prefix}{bare}{own_key}"),
                format!("{prefix}{bare}"),
            ]
            .iter()
            .find_map(|wanted| contracts.iter().position(|key| &key.address == wanted))
            .or_else(|| {
                let instances: Vec<usize> = (0..contracts.len())
                    .filter(|&i| {
                        contracts[i].module_address == module_address
                            && without_keys(&contracts[i].address) == format!("{prefix}{bare}")
                    })
                    .collect();
                (instances.len() == 1).then(|| instances[0])
            })
        })
}

/// `hyperpod_tenant.t["k"]` → `["k"]`; `""` without a key.
fn instance_key(local_address: &str) -> &str {
    local_address.find('[').map_or("", |at| &local_address[at..])
}

/// A value for display: known text, or what stands in for it.
pub fn shown(field: PlanField<'_>) -> String {
    match field {
        PlanField::Unknown => "(known after apply)".to_string(),
        PlanField::Null => "—".to_string(),
        known @ PlanField::Known(_) => known.as_text().unwrap_or_else(|| "—".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;

    fn plan(changes: &str, configuration: &str) -> Plan {
        parse(&format!(
            r#"{{"format_version":"1.2","resource_changes":[{changes}],"configuration":{{"root_module":{configuration}}}}}"#
        ))
        .expect("a plan")
    }

    fn change(address: &str, kind: &str, after: &str) -> String {
        format!(
            r#"{{"address":"{}","type":"{kind}","mode":"managed","change":{{"actions":["create"],"after":{after},"after_unknown":{{}}}}}}"#,
            address.replace('"', "\\\"")
        )
    }

    const CONTRACTS: [(&str, &str); 2] = [
        (
            r#"hyperpod_connection_contract.team["a"]"#,
            r#"{"name":"a-on-ml","cluster":{"name":"ml"},"unified_studio":{"project_id":"pa"},"project_role_arn":"arn:role/a"}"#,
        ),
        (
            r#"hyperpod_connection_contract.team["b"]"#,
            r#"{"name":"b-on-ml","cluster":[{"name":"ml"}],"unified_studio":[{"project_id":"pb"}],"project_role_arn":"arn:role/b"}"#,
        ),
    ];

    #[test]
    fn restriction_tenant_and_binding_find_their_contract_by_cluster_and_project() {
        let mut changes: Vec<String> = CONTRACTS
            .iter()
            .map(|(address, after)| change(address, "hyperpod_connection_contract", after))
            .collect();
        changes.push(change(
            "hyperpod_task_view_restriction.b",
            "hyperpod_task_view_restriction",
            r#"{"cluster_name":"ml","project_role_arn":"arn:role/b","contract":null}"#,
        ));
        changes.push(change(
            "hyperpod_unified_studio_project_binding.a",
            "hyperpod_unified_studio_project_binding",
            r#"{"cluster_name":"ml","project_id":"pa","tenants":null}"#,
        ));
        changes.push(change(
            "hyperpod_tenant.by_name",
            "hyperpod_tenant",
            r#"{"cluster_name":"ml","tags_all":{"hyperpod:contract":"b-on-ml"}}"#,
        ));
        changes.push(change(
            "hyperpod_tenant.by_project",
            "hyperpod_tenant",
            r#"{"cluster_name":"ml","tags_all":{"hyperpod:project":"pa"}}"#,
        ));
        changes.push(change(
            "hyperpod_tenant.other_cluster",
            "hyperpod_tenant",
            r#"{"cluster_name":"other","tags_all":{"hyperpod:project":"pa"}}"#,
        ));
        let plan = plan(&changes.join(","), "{}");
        let keys: Vec<ContractKey> = plan.changes[..2].iter().map(ContractKey::of).collect();
        assert_eq!(
            keys[1].cluster.as_deref(),
            Some("ml"),
            "a nested block reads like an object"
        );
        let of = |i: usize| contract_of(&plan.changes[i], &keys, &plan);
        assert_eq!((of(0), of(1)), (Some(0), Some(1)));
        assert_eq!(of(2), Some(1), "restriction: cluster + project role");
        assert_eq!(of(3), Some(0), "binding: cluster + project");
        assert_eq!(of(4), Some(1), "tenant: the contract tag");
        assert_eq!(of(5), Some(0), "tenant: cluster + project tag");
        assert_eq!(of(6), None, "another cluster's project is another connection");
    }

    #[test]
    fn unknown_values_never_match() {
        let changes = [
            change(CONTRACTS[0].0, "hyperpod_connection_contract", CONTRACTS[0].1),
            r#"{"address":"hyperpod_tenant.t","type":"hyperpod_tenant","mode":"managed","change":{"actions":["create"],
                "after":{"cluster_name":"ml"},"after_unknown":{"tags_all":true}}}"#
                .to_string(),
        ];
        let plan = plan(&changes.join(","), "{}");
        let keys = vec![ContractKey::of(&plan.changes[0])];
        assert_eq!(contract_of(&plan.changes[1], &keys, &plan), None);
    }

    #[test]
    fn a_resource_whose_plan_failed_is_told_by_its_configuration_s_reference() {
        let plan = plan(
            &[
                change(CONTRACTS[0].0, "hyperpod_connection_contract", CONTRACTS[0].1),
                change(CONTRACTS[1].0, "hyperpod_connection_contract", CONTRACTS[1].1),
                change(
                    r"module.m.hyperpod_connection_contract.this",
                    "hyperpod_connection_contract",
                    r#"{"name":"m"}"#,
                )
                .replace(r#""type""#, r#""module_address":"module.m","type""#),
            ]
            .join(","),
            r#"{"resources":[{"address":"hyperpod_tenant.t","expressions":{"contract":{"references":[
                 "hyperpod_connection_contract.team[\"b\"].governance","hyperpod_connection_contract.team"]}}},
               {"address":"hyperpod_tenant.each","expressions":{"contract":{"references":[
                 "hyperpod_connection_contract.team","each.key"]}}},
               {"address":"hyperpod_tenant.unkeyed","expressions":{"contract":{"references":[
                 "hyperpod_connection_contract.team"]}}}],
               "module_calls":{"m":{"module":{"resources":[{"address":"hyperpod_tenant.this","expressions":{
                 "contract":{"references":["hyperpod_connection_contract.this.governance"]}}}]}}}}"#,
        );
        let keys: Vec<ContractKey> = plan.changes.iter().map(ContractKey::of).collect();
        // The reference names the instance's address without its key; the tenant's own key picks the instance.
        assert_eq!(by_reference(r#"hyperpod_tenant.each["a"]"#, "", &keys, &plan), Some(0));
        assert_eq!(by_reference(r#"hyperpod_tenant.each["b"]"#, "", &keys, &plan), Some(1));
        assert_eq!(
            by_reference("hyperpod_tenant.t", "", &keys, &plan),
            Some(1),
            "the reference's own key"
        );
        assert_eq!(
            by_reference("module.m.hyperpod_tenant.this", "module.m", &keys, &plan),
            Some(2)
        );
        assert_eq!(by_reference("hyperpod_tenant.unknown", "", &keys, &plan), None);
        assert_eq!(
            by_reference("hyperpod_tenant.unkeyed", "", &keys, &plan),
            None,
            "two instances, no key"
        );
    }
}
