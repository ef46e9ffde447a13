//! The contract's `governance` value, what every dependent (tenant, binding, restriction) takes as its `contract`
//! argument, both ways: rendered from the contract at plan, and read back by a dependent as the engine's view.

use std::str::FromStr;

use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, Owners, Review, RuleId, Scheduling, SlurmScope,
    UnifiedStudio,
};
use crate::protocol::diagnostics::Diagnostic;
use crate::protocol::model::{Field, Model};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;
use crate::resources::governance_objects::{
    ContractArgument, ContractGovernance, GovernanceException, GovernanceOwners,
};

/// Null rather than empty when unused (an EKS contract's Slurm scope): a reviewer's plan shows no line for them.
fn list_or_null(items: &[String]) -> Field<Vec<String>> {
    if items.is_empty() {
        Field::Null
    } else {
        Field::Known(items.to_vec())
    }
}

/// The `governance` attribute's value, for other resources' tests.
#[cfg(test)]
pub fn governance_value(contract: &Contract, review_status: &str, excepted_rules: &[String]) -> Value {
    governance_of(contract, review_status, excepted_rules).encode()
}

/// The `governance` attribute: what dependents check against, derived from configuration.
pub fn governance_of(contract: &Contract, review_status: &str, excepted_rules: &[String]) -> ContractGovernance {
    // Unknown, not null, while the configuration waits on another resource for it.
    let optional = |v: &Option<String>| v.clone().map_or(Field::Unknown, Field::Known);
    ContractGovernance {
        contract: Field::Known(contract.name.clone()),
        lifecycle_state: Field::Known(contract.lifecycle.as_str().to_string()),
        review_status: Field::Known(review_status.to_string()),
        domain_id: optional(&contract.unified_studio.domain_id),
        project_id: optional(&contract.unified_studio.project_id),
        cluster_account_id: Field::Known(contract.cluster.account_id.clone()),
        cluster_region: Field::Known(contract.cluster.region.clone()),
        cluster_name: Field::Known(contract.cluster.name.clone()),
        orchestrator: Field::Known(contract.cluster.orchestrator.to_string()),
        project_role_arn: optional(&contract.project_role_arn),
        access_role_arn: optional(&contract.access_role_arn),
        eks_namespaces: Field::Known(contract.eks_namespaces.clone()),
        approves_interactive: Field::Known(crate::governance::spaces::approves_interactive(contract)),
        slurm_accounts: list_or_null(&contract.slurm.accounts),
        slurm_partitions: list_or_null(&contract.slurm.partitions),
        approved_account_ids: Field::Known(contract.approved_account_ids.clone()),
        approved_public_cidrs: Field::Known(contract.approved_public_cidrs.clone()),
        excepted_rules: Field::Known(excepted_rules.to_vec()),
        last_reviewed: Field::Known(contract.review.last_reviewed.to_string()),
        interval_days: Field::Known(contract.review.interval_days),
        owners: Field::Known(GovernanceOwners {
            business: Field::Known(contract.owners.business.clone()),
            operations: Field::Known(contract.owners.operations.clone()),
            cost: Field::Known(contract.owners.cost.clone()),
        }),
        exception: Field::Known(contract.exceptions.iter().map(exception_value).collect()),
    }
}

fn exception_value(exception: &Exception) -> GovernanceException {
    GovernanceException {
        rule: Field::Known(exception.rule.id().to_string()),
        owner: Field::Known(exception.owner.clone()),
        expires: Field::Known(exception.expires.to_string()),
        reason: Field::Known(exception.reason.clone()),
    }
}

/// A `contract` argument that is wholly known yet not a contract's `governance` (a hand-built or `merge`d object
/// with a fact nulled): nothing at apply would make it readable, so dependents refuse it at plan, at `contract`.
/// An EKS contract's governance always lists its namespaces (possibly none): null there is such an edit too.
pub fn unreadable_contract(facts: &Value) -> Option<Diagnostic> {
    let governance = ContractGovernance::decode(facts).ok();
    if let Some(problem) = governance.as_ref().and_then(misnamed_lifecycle) {
        return Some(problem);
    }
    let eks_without_namespaces = governance.as_ref().is_some_and(|governance| {
        let orchestrator = governance
            .orchestrator
            .as_known()
            .map(|name| Orchestrator::from_str(name));
        orchestrator == Some(Ok(Orchestrator::Eks)) && governance.eks_namespaces == Field::Null
    });
    let readable = matches!(facts, Value::Object(_)) && governance.as_ref().and_then(contract_of).is_some();
    let unreadable = facts.is_wholly_known() && (eks_without_namespaces || !readable);
    unreadable.then(|| {
        Diagnostic::invalid_value(
            ContractArgument::CONTRACT.path(),
            "a contract value with null or missing facts",
            "a dependent needs every fact of the contract's governance (its name, lifecycle state, cluster and, on \
             EKS, namespaces)",
            "pass hyperpod_connection_contract.<name>.governance unchanged",
        )
    })
}

/// The engine's view of a contract as a dependent sees it: the `governance` facts it took as its `contract`
/// argument. Fields dependents' rules never read (approver, monitoring, domain unit) are neutral. `None`
/// while a fact is unknown (the contract itself waits on a resource not created yet).
pub fn contract_from_governance(facts: &Value) -> Option<Contract> {
    if !matches!(facts, Value::Object(_)) {
        return None; // the whole contract is known only after apply
    }
    contract_of(&ContractGovernance::decode(facts).ok()?)
}

/// A `contract` argument whose `lifecycle_state` is known and not a state (written by hand: `"revokd"`): an error at
/// `contract.lifecycle_state`, never read as approved. Every dependent refuses it the same way.
pub fn lifecycle_problem(facts: &Value) -> Option<Diagnostic> {
    misnamed_lifecycle(&ContractGovernance::decode(facts).ok()?)
}

/// [`lifecycle_problem`] of a decoded value.
fn misnamed_lifecycle(governance: &ContractGovernance) -> Option<Diagnostic> {
    let name = governance.lifecycle_state.as_known()?;
    LifecycleState::parse(name).is_none().then(|| {
        Diagnostic::invalid_value(
            ContractArgument::CONTRACT
                .path()
                .push_attr(ContractGovernance::LIFECYCLE_STATE.name()),
            format!("{name:?}"),
            &format!(
                "a contract's lifecycle state is one of {}",
                LifecycleState::NAMES.join(", ")
            ),
            "pass hyperpod_connection_contract.<name>.governance unchanged",
        )
    })
}

/// [`contract_from_governance`] of a decoded value.
fn contract_of(facts: &ContractGovernance) -> Option<Contract> {
    // Optional identifiers stay `None` while unknown (the rules reading them wait); lists must be wholly known.
    let id = |field: &Field<String>| field.as_known().cloned();
    Some(Contract {
        name: id(&facts.contract)?,
        owners: governance_owners(facts)?,
        unified_studio: UnifiedStudio {
            domain_id: id(&facts.domain_id),
            domain_unit_id: None,
            project_id: id(&facts.project_id),
        },
        cluster: ClusterRef {
            account_id: id(&facts.cluster_account_id)?,
            region: id(&facts.cluster_region)?,
            name: id(&facts.cluster_name)?,
            orchestrator: Orchestrator::from_str(facts.orchestrator.as_known()?).ok()?,
        },
        project_role_arn: id(&facts.project_role_arn),
        access_role_arn: id(&facts.access_role_arn),
        // Dependents read one fact of the approved types: whether interactive work (spaces) is approved.
        approved_workload_types: if facts.approves_interactive.clone().or_when_null(false)? {
            vec![crate::governance::spaces::INTERACTIVE.to_string()]
        } else {
            Vec::new()
        },
        data_classification: String::new(),
        eks_namespaces: facts.eks_namespaces.clone().or_empty()?,
        slurm: SlurmScope {
            accounts: facts.slurm_accounts.clone().or_empty()?,
            partitions: facts.slurm_partitions.clone().or_empty()?,
        },
        scheduling: Scheduling {
            policy: String::new(),
            exception_owner: String::new(),
        },
        monitoring: Vec::new(),
        support: String::new(),
        decommission: String::new(),
        approved_account_ids: facts.approved_account_ids.clone().or_empty()?,
        approved_public_cidrs: facts.approved_public_cidrs.clone().or_empty()?,
        review: governance_review(facts)?,
        // A name that is not a state is never read as approved (`unreadable_contract` names it).
        lifecycle: LifecycleState::parse(facts.lifecycle_state.as_known()?)?,
        organization: None,
        exceptions: governance_exceptions(facts)?,
    })
}

/// The owners as the governance lists them; a missing or unknown owner reads as empty.
fn governance_owners(facts: &ContractGovernance) -> Option<Owners> {
    let owners = facts.owners.clone().optional()?;
    let owner = |field: fn(&GovernanceOwners) -> &Field<String>| {
        owners
            .as_ref()
            .and_then(|o| field(o).as_known().cloned())
            .unwrap_or_default()
    };
    Some(Owners {
        business: owner(|o| &o.business),
        operations: owner(|o| &o.operations),
        cost: owner(|o| &o.cost),
    })
}

/// The review schedule as the governance lists it (PRJ-3); the approver is not handed on.
fn governance_review(facts: &ContractGovernance) -> Option<Review> {
    Some(Review {
        interval_days: facts.interval_days.clone().or_when_null(0)?,
        last_reviewed: match facts.last_reviewed.clone().optional()? {
            Some(date) => parse_date(&date)?,
            None => time::Date::MIN,
        },
        approved_by: String::new(),
    })
}

/// Every exception the governance lists (EXC-1 in dependents); one whose rule or date does not read is left out.
fn governance_exceptions(facts: &ContractGovernance) -> Option<Vec<Exception>> {
    Some(
        facts
            .exception
            .clone()
            .or_empty()?
            .into_iter()
            .filter_map(|exception| {
                Some(Exception {
                    rule: RuleId::from_str(exception.rule.as_known()?).ok()?,
                    owner: exception.owner.as_known().cloned().unwrap_or_default(),
                    expires: parse_date(exception.expires.as_known()?)?,
                    reason: exception.reason.as_known().cloned().unwrap_or_default(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifecycle_state_written_by_hand_that_is_not_one_is_refused_not_read_as_approved() {
        let revoked = Contract {
            lifecycle: LifecycleState::Revoked,
            ..crate::governance::examples::contract()
        };
        let value = governance_value(&revoked, "revoked", &[]);
        assert_eq!(
            contract_from_governance(&value).map(|c| c.lifecycle),
            Some(LifecycleState::Revoked)
        );
        assert!(unreadable_contract(&value).is_none());
        let mut misspelt = value.clone();
        ContractGovernance::LIFECYCLE_STATE.set(&mut misspelt, &Field::Known("revokd".to_string()));
        assert_eq!(contract_from_governance(&misspelt), None);
        let problem = unreadable_contract(&misspelt).expect("refused");
        assert_eq!(problem.path.to_string(), "contract.lifecycle_state");
    }
}
