//! The tenant's `governance`: what other resources count of it (a borrower's `borrows_from`, a binding's
//! `tenants`), from its own arguments and its contract, so it is known at plan time; unknown parts stay unknown.

use super::super::schema::TenantModel;
use crate::governance::{Orchestrator, SharingStrategy};
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;
use crate::resources::governance_objects::{ContractGovernance, TenantGovernance};
use crate::resources::references::{contract_fact, recorded};

/// The `governance` value of a tenant value (unknown when it does not decode, so nothing is judged on it).
pub fn governance_value(value: &Value) -> Value {
    TenantModel::decode(value).map_or(Value::Unknown, |tenant| governance_of(&tenant).encode())
}

/// The `governance` of a decoded tenant.
pub fn governance_of(tenant: &TenantModel) -> TenantGovernance {
    let own = tenant.governance.as_known();
    let namespace = tenant.team.clone().map(|team| crate::names::team_namespace(&team));
    let quota = match &tenant.quota {
        Field::Null => Field::Known(Vec::new()),
        quota => quota.clone(),
    };
    TenantGovernance {
        cluster_name: contract_fact(tenant.contract.facts(), ContractGovernance::CLUSTER_NAME.name(), || {
            recorded(own.map(|g| &g.cluster_name), &tenant.cluster_name)
        }),
        team: tenant.team.clone(),
        namespace,
        project_id: contract_fact(
            tenant.contract.facts(),
            ContractGovernance::PROJECT_ID.name(),
            || match own.map(|g| &g.project_id) {
                Some(Field::Known(project)) => Field::Known(project.clone()),
                _ => (tenant.tags_all.as_known())
                    .and_then(|tags| tags.get(crate::tags::PROJECT).cloned())
                    .into(),
            },
        ),
        quota,
        sharing_strategy: sharing_strategy(tenant),
    }
}

/// The strategy the tenant's quota shares idle capacity with.
fn sharing_strategy(tenant: &TenantModel) -> Field<String> {
    match &tenant.sharing {
        Field::Known(block) => block.strategy.clone(),
        // A team with spaces and no sharing block lends (AWS's guidance for spaces; WKL-12).
        Field::Null if tenant.spaces != Field::Null => Field::Known(SharingStrategy::Lend.as_str().to_string()),
        // No block: on EKS a new quota gets SageMaker's default, which lends (and borrows); Slurm shares nothing.
        Field::Null => {
            let orchestrator = contract_fact(tenant.contract.facts(), ContractGovernance::ORCHESTRATOR.name(), || {
                // A stored tenant (the contract is write-only): Slurm tenants record their accounting artefacts.
                match tenant.slurm_artefacts {
                    Field::Known(_) => Field::Known(Orchestrator::Slurm.to_string()),
                    _ => Field::Null,
                }
            });
            match orchestrator {
                Field::Known(name) if name == Orchestrator::Slurm.to_string() => Field::Null,
                Field::Unknown | Field::Invalid => Field::Unknown,
                _ => Field::Known(SharingStrategy::LendAndBorrow.to_string()),
            }
        }
        Field::Unknown | Field::Invalid => Field::Unknown,
    }
}
