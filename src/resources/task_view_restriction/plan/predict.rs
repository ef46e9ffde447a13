//! The restriction's planned state: the arguments the plan starts from (their defaults), and every derived attribute
//! from `RestrictionPlanInputs` and the verdict: `id`, the cluster, the resolved role, namespaces and group,
//! `governance` (what bindings reference, CLU-2), `private_data_conf`, `components` and the checklist. While an input
//! is unknown, what it decides is planned unknown.

use crate::resources::governance_objects::ContractArgument;
use std::sync::LazyLock;

use super::super::model::{components, governance_value, private_data_conf, restriction_id};
use super::super::schema::{NAMESPACE_POLICIES, RestrictionModel, SPACE_POLICY};
use super::RestrictionPlanInputs;
use crate::governance::Report;
use crate::governance::spaces::approves_interactive;
use crate::protocol::model::{Field, Model};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::value::Value;
use crate::resources::checklist;
use crate::resources::connection_contract::contract_from_governance;

type M = RestrictionModel;

/// The attributes the plan derives: the declaration's computed ones without a default.
static DERIVED: LazyLock<Vec<&'static str>> = LazyLock::new(|| M::block().derived_names());

/// The arguments that default to the contract's when unset (the user's, when set).
const CONTRACT_DEFAULTS: [&str; 3] = [
    M::PROJECT_ROLE_ARN.name(),
    M::NAMESPACES.name(),
    M::KUBERNETES_GROUP.name(),
];

/// The arguments as the plan starts from them (`contract` is write-only: read from the configuration).
pub fn arguments(change: &PlannedChange) -> Value {
    let mut planned = change.arguments();
    // Left unset, these default to the contract's, resolved on every plan: the contract leaves no copy in state, so
    // a recorded default would not move with it.
    for name in CONTRACT_DEFAULTS {
        if change.config_attr(name).is_null() {
            set_attr(&mut planned, name, Value::Null);
        }
    }
    // Left to its default, the project's Studio access includes spaces only under a contract that approves
    // interactive workloads (WKL-12); written out, a space policy such a contract does not approve fails.
    if change.config_attr(M::ACCESS_POLICIES.name()).is_null() {
        let contract = ContractArgument::CONTRACT.get(&planned).ok();
        match contract.as_ref().and_then(contract_from_governance) {
            Some(contract) if !approves_interactive(&contract) => {
                let without_spaces = (NAMESPACE_POLICIES.iter())
                    .filter(|policy| **policy != SPACE_POLICY)
                    .map(|policy| Field::Known(policy.to_string()))
                    .collect();
                M::ACCESS_POLICIES.set(&mut planned, &Field::Known(without_spaces));
            }
            Some(_) => {}
            // The default depends on the contract: known once it is.
            None => M::ACCESS_POLICIES.set(&mut planned, &Field::Unknown),
        }
    }
    planned
}

/// While the restriction's inputs are unknown: every derived attribute unknown, except the arguments the user set
/// (known or not, they stay as written), and the checklist unknown.
pub fn deferred(value: &mut Value) {
    for name in DERIVED.iter() {
        if !CONTRACT_DEFAULTS.contains(name) || value.get_attr(name).is_none_or(Value::is_null) {
            set_attr(value, name, Value::Unknown);
        }
    }
    checklist::set_unknown(value);
    let facts = governance_value(value);
    set_attr(value, M::GOVERNANCE.name(), facts);
}

/// The planned state. `adopted`: whether the access entry is someone else's (`None`: the plan cannot tell, so
/// `components` is unknown); what the grants decide is unknown while one of them is.
pub fn predict(inputs: &RestrictionPlanInputs, report: &Report, adopted: Option<bool>, value: &mut Value) {
    let config = &inputs.config;
    let cluster = &inputs.cluster;
    let eks = cluster.eks_name.is_some();
    let wanted = adopted.map(|adopted| components(config, &inputs.partition, eks, adopted, &inputs.contract.name));
    let known = |text: &str| Field::Known(text.to_string());
    M::ID.set(value, &known(&restriction_id(&cluster.name, &config.project_role_arn)));
    M::CLUSTER_NAME.set(value, &known(&cluster.name));
    M::CLUSTER_ARN.set(value, &known(&cluster.arn));
    M::ORCHESTRATOR.set(value, &Field::Known(cluster.orchestrator().to_string()));
    M::PROJECT_ROLE_ARN.set(value, &known(&config.project_role_arn));
    let namespaces = config.namespaces.iter().map(|namespace| known(namespace)).collect();
    M::NAMESPACES.set(value, &Field::Known(namespaces));
    M::KUBERNETES_GROUP.set(value, &known(&config.kubernetes_group));
    let facts = governance_value(value);
    set_attr(value, M::GOVERNANCE.name(), facts);
    let private_data = if eks { Field::Null } else { known(&private_data_conf()) };
    M::PRIVATE_DATA_CONF.set(value, &private_data);
    let components = match wanted {
        Some(wanted) if inputs.grants_known => Field::Known(wanted.stored().clone()),
        _ => Field::Unknown,
    };
    M::COMPONENTS.set(value, &components);
    checklist::set(value, report);
}
