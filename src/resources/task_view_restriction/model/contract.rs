//! The contract a restriction passes (`hyperpod_connection_contract.<name>.governance`, write-only), decoded with the
//! restriction: the contract's project role and namespaces are the restriction's defaults. A known object that is
//! not a contract's governance is an error at `contract`, never a deferral to an apply that cannot proceed either.

use super::config::RestrictionConfig;
use crate::governance::Contract;
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::object::text;
use crate::protocol::value::Value;
use crate::resources::connection_contract::{contract_from_governance, lifecycle_problem};

/// The contract facts a restriction cannot do without: `contract_from_governance` gives up without them.
const CONTRACT_FACTS: [&str; 6] = [
    "contract",
    "cluster_account_id",
    "cluster_region",
    "cluster_name",
    "orchestrator",
    "lifecycle_state",
];

/// The contract and the restriction with the contract's defaults; `None` while either is unknown.
pub fn with_contract(value: &Value) -> Option<(Contract, RestrictionConfig)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let config = RestrictionConfig::from_value(value, contract.project_role_arn.clone(), &contract.eks_namespaces)?;
    Some((contract, config))
}

/// A `contract` object that is known but lacks what a contract's `governance` always has (a hand-built or
/// `merge`d object with a null fact): an error at `contract` at plan, never a deferral to an apply that cannot
/// proceed either.
pub fn contract_problem(value: &Value) -> Option<Diagnostic> {
    let contract = value
        .get_attr("contract")
        .filter(|c| c.is_wholly_known() && !c.is_null())?;
    if let Some(problem) = lifecycle_problem(contract) {
        return Some(problem);
    }
    let null = |name: &str| contract.get_attr(name).is_none_or(Value::is_null);
    let mut missing: Vec<&str> = CONTRACT_FACTS.iter().copied().filter(|name| null(name)).collect();
    let unset = |name: &str| value.get_attr(name).is_none_or(Value::is_null);
    if unset("project_role_arn") && null("project_role_arn") {
        missing.push("project_role_arn");
    }
    let eks = contract.get_attr("orchestrator") == Some(&text("eks"));
    if eks && unset("namespaces") && null("eks_namespaces") {
        missing.push("eks_namespaces");
    }
    if missing.is_empty() {
        if contract_from_governance(contract).is_some() {
            return None;
        }
        return Some(Diagnostic::invalid_value(
            AttributePath::attr("contract"),
            "an object that is not a contract's governance",
            "the restriction cannot read the contract's facts from it",
            "pass `hyperpod_connection_contract.<name>.governance`",
        ));
    }
    Some(Diagnostic::invalid_value(
        AttributePath::attr("contract"),
        format!("an object with {} null", missing.join(", ")),
        "the contract object lacks facts a connection contract's `governance` always has",
        "pass `hyperpod_connection_contract.<name>.governance` as it is (the restriction's own `project_role_arn` \
         and `namespaces` override the contract's)",
    ))
}
