//! The restriction's planned state: the arguments the plan starts from (their defaults), and every derived attribute
//! from `RestrictionPlanInputs` and the verdict: `id`, the cluster, the resolved role, namespaces and group,
//! `governance` (what bindings reference, CLU-2), `private_data_conf`, `components` and the checklist. While an input
//! is unknown, what it decides is planned unknown.

use super::super::model::{components, private_data_conf, restriction_id};
use super::super::schema::{NAMESPACE_POLICIES, SPACE_POLICY};
use super::RestrictionPlanInputs;
use crate::governance::Report;
use crate::governance::spaces::approves_interactive;
use crate::protocol::object::{text, text_list, text_map};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::value::Value;
use crate::resources::checklist;
use crate::resources::connection_contract::contract_from_governance;
use crate::resources::references::restriction_value;

/// The attributes the plan derives.
const DERIVED: [&str; 10] = [
    "id",
    "governance",
    "cluster_name",
    "cluster_arn",
    "orchestrator",
    "project_role_arn",
    "namespaces",
    "kubernetes_group",
    "private_data_conf",
    "components",
];

/// The arguments as the plan starts from them (`contract` is write-only: read from the configuration).
pub fn arguments(change: &PlannedChange) -> Value {
    let mut planned = change.arguments();
    // Left unset, these default to the contract's, resolved on every plan: the contract leaves no copy in state, so
    // a recorded default would not move with it.
    for name in ["project_role_arn", "namespaces", "kubernetes_group"] {
        if change.config_attr(name).is_null() {
            set_attr(&mut planned, name, Value::Null);
        }
    }
    // Left to its default, the project's Studio access includes spaces only under a contract that approves
    // interactive workloads (WKL-12); written out, a space policy such a contract does not approve fails.
    if change.config_attr("access_policies").is_null() {
        match planned.get_attr("contract").and_then(contract_from_governance) {
            Some(contract) if !approves_interactive(&contract) => {
                let without_spaces = NAMESPACE_POLICIES
                    .iter()
                    .filter(|policy| **policy != SPACE_POLICY)
                    .map(|policy| Value::String(policy.to_string()))
                    .collect();
                set_attr(&mut planned, "access_policies", Value::List(without_spaces));
            }
            Some(_) => {}
            // The default depends on the contract: known once it is.
            None => set_attr(&mut planned, "access_policies", Value::Unknown),
        }
    }
    planned
}

/// While the restriction's inputs are unknown: every derived attribute unknown, except the arguments the user set
/// (known or not, they stay as written), and the checklist unknown.
pub fn deferred(value: &mut Value) {
    for name in DERIVED {
        let own = ["project_role_arn", "namespaces", "kubernetes_group"].contains(&name);
        if !own || value.get_attr(name).is_none_or(Value::is_null) {
            set_attr(value, name, Value::Unknown);
        }
    }
    checklist::set_unknown(value);
    let facts = restriction_value(value);
    set_attr(value, "governance", facts);
}

/// The planned state. `adopted`: whether the access entry is someone else's (`None`: the plan cannot tell, so
/// `components` is unknown); what the grants decide is unknown while one of them is.
pub fn predict(inputs: &RestrictionPlanInputs, report: &Report, adopted: Option<bool>, value: &mut Value) {
    let config = &inputs.config;
    let cluster = &inputs.cluster;
    let eks = cluster.eks_name.is_some();
    let wanted = adopted.map(|adopted| components(config, &inputs.partition, eks, adopted, &inputs.contract.name));
    set_attr(
        value,
        "id",
        text(restriction_id(&cluster.name, &config.project_role_arn)),
    );
    set_attr(value, "cluster_name", text(&cluster.name));
    set_attr(value, "cluster_arn", text(&cluster.arn));
    set_attr(value, "orchestrator", text(cluster.orchestrator().to_string()));
    set_attr(value, "project_role_arn", text(&config.project_role_arn));
    set_attr(value, "namespaces", text_list(&config.namespaces));
    set_attr(value, "kubernetes_group", text(&config.kubernetes_group));
    let facts = restriction_value(value);
    set_attr(value, "governance", facts);
    set_attr(
        value,
        "private_data_conf",
        if eks { Value::Null } else { text(private_data_conf()) },
    );
    set_attr(
        value,
        "components",
        match wanted {
            Some(wanted) if inputs.grants_known => text_map(wanted.stored()),
            _ => Value::Unknown,
        },
    );
    checklist::set(value, report);
}
