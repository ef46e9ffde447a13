//! The contract a restriction passes (`hyperpod_connection_contract.<name>.governance`, write-only), decoded with the
//! restriction: the contract's project role and namespaces are the restriction's defaults. A known object that is
//! not a contract's governance is an error at `contract`, never a deferral to an apply that cannot proceed either.

use super::super::schema::RestrictionModel;
use super::config::RestrictionConfig;
use crate::governance::{Contract, Orchestrator};
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::model::Field;
use crate::protocol::value::Value;
use crate::resources::connection_contract::{contract_from_governance, lifecycle_problem};
use crate::resources::governance_objects::ContractArgument;
use crate::resources::governance_objects::ContractGovernance;

/// The contract facts a restriction cannot do without: `contract_from_governance` gives up without them.
const CONTRACT_FACTS: [&str; 6] = [
    ContractGovernance::CONTRACT.name(),
    ContractGovernance::CLUSTER_ACCOUNT_ID.name(),
    ContractGovernance::CLUSTER_REGION.name(),
    ContractGovernance::CLUSTER_NAME.name(),
    ContractGovernance::ORCHESTRATOR.name(),
    ContractGovernance::LIFECYCLE_STATE.name(),
];

/// The contract and the restriction with the contract's defaults; `None` while either is unknown.
pub fn with_contract(restriction: &RestrictionModel) -> Option<(Contract, RestrictionConfig)> {
    let contract = contract_from_governance(restriction.contract.facts())?;
    let config = RestrictionConfig::of(restriction, contract.project_role_arn.clone(), &contract.eks_namespaces)?;
    Some((contract, config))
}

/// A `contract` object that is known but lacks what a contract's `governance` always has (a hand-built or
/// `merge`d object with a null fact): an error at `contract` at plan, never a deferral to an apply that cannot
/// proceed either.
pub fn contract_problem(restriction: &RestrictionModel) -> Option<Diagnostic> {
    let contract = Some(restriction.contract.facts()).filter(|c| c.is_wholly_known() && !c.is_null())?;
    if let Some(problem) = lifecycle_problem(contract) {
        return Some(problem);
    }
    let null = |name: &str| contract.get_attr(name).is_none_or(Value::is_null);
    let mut missing: Vec<&str> = CONTRACT_FACTS.iter().copied().filter(|name| null(name)).collect();
    let role = ContractGovernance::PROJECT_ROLE_ARN.name();
    if restriction.project_role_arn == Field::Null && null(role) {
        missing.push(role);
    }
    let namespaces = ContractGovernance::EKS_NAMESPACES.name();
    let orchestrator = ContractGovernance::ORCHESTRATOR.known(contract);
    let eks = orchestrator.is_some_and(|name| name.parse() == Ok(Orchestrator::Eks));
    if eks && restriction.namespaces == Field::Null && null(namespaces) {
        missing.push(namespaces);
    }
    let at = AttributePath::attr(ContractArgument::CONTRACT.name());
    if missing.is_empty() {
        if contract_from_governance(contract).is_some() {
            return None;
        }
        return Some(Diagnostic::invalid_value(
            at,
            "an object that is not a contract's governance",
            "the restriction cannot read the contract's facts from it",
            "pass `hyperpod_connection_contract.<name>.governance`",
        ));
    }
    Some(Diagnostic::invalid_value(
        at,
        format!("an object with {} null", missing.join(", ")),
        "the contract object lacks facts a connection contract's `governance` always has",
        "pass `hyperpod_connection_contract.<name>.governance` as it is (the restriction's own `project_role_arn` \
         and `namespaces` override the contract's)",
    ))
}
