//! The restriction's `governance`: the project role it limits and where, which a binding takes as
//! `task_view_restriction` (CLU-2); from its arguments and its contract's defaults (`project_role_arn` and
//! `namespaces` default to the contract's), so it is known at plan time.

use super::super::schema::RestrictionModel;
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::value::Value;
use crate::resources::governance_objects::{ContractGovernance, RestrictionGovernance};
use crate::resources::references::{contract_fact, recorded};

/// The `governance` value of a restriction value (unknown when it does not decode, so nothing is judged on it).
pub fn governance_value(value: &Value) -> Value {
    RestrictionModel::decode(value).map_or(Value::Unknown, |restriction| governance_of(&restriction).encode())
}

/// The `governance` of a decoded restriction.
pub fn governance_of(restriction: &RestrictionModel) -> RestrictionGovernance {
    let own = restriction.governance.as_known();
    let contract = restriction.contract.facts();
    // The restriction's own argument, else the contract's fact (a stored restriction: what it recorded).
    fn own_or_contract<T: Known + Clone>(
        argument: &Field<T>,
        contract: &Value,
        fact: &str,
        in_governance: Option<&Field<T>>,
    ) -> Field<T> {
        match argument {
            Field::Null => contract_fact(contract, fact, || recorded(in_governance, &Field::Null)),
            argument => argument.clone(),
        }
    }
    RestrictionGovernance {
        cluster_name: contract_fact(contract, ContractGovernance::CLUSTER_NAME.name(), || {
            recorded(own.map(|g| &g.cluster_name), &restriction.cluster_name)
        }),
        project_role_arn: own_or_contract(
            &restriction.project_role_arn,
            contract,
            ContractGovernance::PROJECT_ROLE_ARN.name(),
            own.map(|g| &g.project_role_arn),
        ),
        namespaces: own_or_contract(
            &restriction.namespaces,
            contract,
            ContractGovernance::EKS_NAMESPACES.name(),
            own.map(|g| &g.namespaces),
        ),
    }
}
