//! The `governance` objects resources hand each other (a contract's to its tenants, bindings and restrictions; a
//! tenant's to its borrowers; a restriction's to its binding; a policy's to its tenants), each declared once
//! (`#[derive(Model)]`): the resource that writes one and every resource that reads one back use the same struct,
//! so they cannot disagree on a name. Below the provider and the report, so either may name these.

use std::collections::BTreeMap;

use crate::governance::SharingStrategy;
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::validators::{IntBetween, OneOf, WholeNumber};
use crate::protocol::value::{Type, Value};
use crate::quota_entry::QuotaEntry;

/// The `governance` attribute's fields: what tenants, bindings and restrictions check against (they take the whole
/// object as their `contract` argument, and read it back with `contract_from_governance`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ContractGovernance {
    /// Contract name (the `hyperpod:contract` tag value).
    #[tf(computed)]
    pub contract: Field<String>,
    /// `approved` or `revoked`.
    #[tf(computed)]
    pub lifecycle_state: Field<String>,
    /// Review status at plan time.
    #[tf(computed)]
    pub review_status: Field<String>,
    /// Unified Studio domain.
    #[tf(computed)]
    pub domain_id: Field<String>,
    /// Unified Studio project.
    #[tf(computed)]
    pub project_id: Field<String>,
    /// Capacity account.
    #[tf(computed)]
    pub cluster_account_id: Field<String>,
    /// Cluster region.
    #[tf(computed)]
    pub cluster_region: Field<String>,
    /// Cluster name.
    #[tf(computed)]
    pub cluster_name: Field<String>,
    /// `eks` or `slurm`.
    #[tf(computed)]
    pub orchestrator: Field<String>,
    /// Project role.
    #[tf(computed)]
    pub project_role_arn: Field<String>,
    /// Connection access role.
    #[tf(computed)]
    pub access_role_arn: Field<String>,
    /// Namespaces tenants may use.
    #[tf(computed)]
    pub eks_namespaces: Field<Vec<String>>,
    /// Whether `approved_workload_types` has `interactive`: spaces for the project (WKL-12).
    #[tf(computed)]
    pub approves_interactive: Field<bool>,
    /// Slurm accounts.
    #[tf(computed)]
    pub slurm_accounts: Field<Vec<String>>,
    /// Slurm partitions.
    #[tf(computed)]
    pub slurm_partitions: Field<Vec<String>>,
    /// Approved consumer and data accounts.
    #[tf(computed)]
    pub approved_account_ids: Field<Vec<String>>,
    /// CIDRs the EKS endpoint may be public to, for CLU-5.
    #[tf(computed)]
    pub approved_public_cidrs: Field<Vec<String>>,
    /// Rules with a valid exception.
    #[tf(computed)]
    pub excepted_rules: Field<Vec<String>>,
    /// Date of the last review (`YYYY-MM-DD`), for PRJ-3.
    #[tf(computed)]
    pub last_reviewed: Field<String>,
    /// Days between reviews, for PRJ-3.
    #[tf(computed)]
    pub interval_days: Field<i64>,
    /// The accountable owners (`business`, `operations`, `cost`), for LIF-3.
    #[tf(computed)]
    pub owners: Field<GovernanceOwners>,
    /// Every exception as written (`rule`, `owner`, `expires`, `reason`), for EXC-1 in dependents.
    #[tf(computed)]
    pub exception: Field<Vec<GovernanceException>>,
}

/// The argument a governed resource takes its contract by, declared once: the tenant, the task view restriction and
/// the project binding flatten it into their declarations in place, and the refusals shared code gives point at it
/// (`ContractArgument::CONTRACT`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ContractArgument {
    /// The contract's facts: `hyperpod_connection_contract.<name>.governance`.
    #[tf(write_only, required, ty = <ContractGovernance as Known>::terraform_type())]
    pub contract: Value,
}

impl ContractArgument {
    /// The contract's facts as the resource holds them (null in state: the argument is write-only).
    pub fn facts(&self) -> &Value {
        &self.contract
    }
}

/// The accountable owners, as `governance.owners` hands them on.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct GovernanceOwners {
    #[tf(computed)]
    pub business: Field<String>,
    #[tf(computed)]
    pub operations: Field<String>,
    #[tf(computed)]
    pub cost: Field<String>,
}

/// One exception, as `governance.exception` hands it on.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct GovernanceException {
    #[tf(computed)]
    pub rule: Field<String>,
    #[tf(computed)]
    pub owner: Field<String>,
    #[tf(computed)]
    pub expires: Field<String>,
    #[tf(computed)]
    pub reason: Field<String>,
}

/// The policy's `governance` value: what a tenant's `scheduling_policy` takes.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct PolicyGovernance {
    pub cluster_name: Field<String>,
    pub priority_classes: Field<Vec<String>>,
    pub fair_share: Field<bool>,
}

/// `hyperpod_tenant.<name>.governance`: what other resources count of a tenant (WKL-1, WKL-3, WKL-5).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TenantGovernance {
    pub cluster_name: Field<String>,
    pub team: Field<String>,
    pub namespace: Field<String>,
    pub project_id: Field<String>,
    /// The quota entries, each field as the tenant's configuration has it.
    pub quota: Field<Vec<QuotaEntry>>,
    pub sharing_strategy: Field<String>,
}

/// `hyperpod_task_view_restriction.<name>.governance`: the project role a restriction limits, where (CLU-2).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct RestrictionGovernance {
    pub cluster_name: Field<String>,
    pub project_role_arn: Field<String>,
    /// A list that keeps an unknown element unknown (`["a", (known after apply)]` stays so in the plan).
    pub namespaces: Field<Vec<Field<String>>>,
}

/// `hyperpod_cluster_allocation.<name>.governance`: the cluster and every team's share, for WKL-3 on tenants and
/// CLU-2 on bindings.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AllocationGovernance {
    pub cluster_name: Field<String>,
    /// Each team's quota entries, each field as the allocation's configuration has it: the same entry type a
    /// tenant's `quota` is, so a tenant or binding reads them (and a value written by hand is held to them) as the
    /// allocation does. An entry known only at apply stays unknown, the others known.
    pub teams: Field<BTreeMap<String, Field<Vec<QuotaEntry>>>>,
    /// The teams whose entry records how they share idle capacity (WKL-5).
    pub sharing: Field<BTreeMap<String, SharingRecord>>,
}

/// A team's recorded sharing: the allocation's `teams[<team>].sharing` and a row of its `governance.sharing`,
/// declared once for both (and for reading a handoff written by hand).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SharingRecord {
    /// `Lend`, `DontLend` or `LendAndBorrow`, as the tenant's `sharing.strategy`.
    #[tf(required, validate = OneOf(SharingStrategy::NAMES))]
    pub strategy: Field<String>,
    /// The team's borrow limit, 1 to 500 percent, as the tenant's `sharing.borrow_limit`; only with
    /// `LendAndBorrow`, whose default is SageMaker's 50.
    #[tf(validate = WholeNumber, validate = IntBetween { min: 1, max: 500 })]
    pub borrow_limit: Field<i64>,
}

/// The type of a tenant's `governance` (what `borrows_from` and a binding's `tenants` take).
pub fn tenant_type() -> Type {
    <TenantGovernance as Known>::terraform_type()
}

/// The type of a task view restriction's `governance` (what a tenant's and a binding's `task_view_restriction` take).
pub fn restriction_type() -> Type {
    <RestrictionGovernance as Known>::terraform_type()
}
