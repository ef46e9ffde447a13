//! `hyperpod_connection_contract` schema: every field of the connection contract, plus what the provider derives
//! from it at plan time (review status, the reviewer's checklist, the facts dependents check against).

use std::collections::BTreeMap;

use crate::checklist::ChecklistAttributes;
use crate::domain_unit_policy_grant::GrantGovernance;
use crate::governance::LifecycleState;
use crate::governance_objects::ContractGovernance;
use crate::protocol::model::{Field, Model, Set};
use crate::protocol::schema::{Attribute, IdentitySchema, Nesting, Schema};
use crate::protocol::validators::{EachOneOf, IsDate, LengthBetween, Matches, OneOf, WholeNumber};
use crate::protocol::value::{Type, Value};
use crate::validators::RuleIds;

// The resource's one declaration (`#[derive(Model)]`, docs/design/typed-values.md): its schema, docs and typed value
// come from it. Doc comments are the user-facing descriptions. Free text is required without a validator: a blank
// value is a CON-1 finding, with the rule ID.

pub const TYPE_NAME: &str = "hyperpod_connection_contract";

pub const ORCHESTRATORS: [&str; 2] = ["eks", "slurm"];
pub const LIFECYCLE_STATES: &[&str] = crate::governance::LifecycleState::NAMES;
pub const DATA_CLASSIFICATIONS: [&str; 4] = ["public", "internal", "confidential", "restricted"];
pub const WORKLOAD_TYPES: [&str; 5] = ["training", "fine-tuning", "inference", "interactive", "batch"];

fn contract_name() -> Matches {
    Matches::new(
        "[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?",
        "letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit",
    )
}

/// The connection contract: the governance record a reviewer approves for one Unified Studio project's use of one
/// HyperPod cluster. It creates no AWS object; it lives in state and in version control. At plan time it is checked
/// against the live account (cluster, orchestrator, project, project role and its permissions, approver);
/// `passed_checks` and `findings` read like the reviewer's checklist. Resources that depend on it take `governance`,
/// which is known at plan time.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ContractModel {
    /// The contract's name, also its ID.
    #[tf(computed, use_state_for_unknown)]
    pub id: Field<String>,
    /// Contract name; objects other resources create carry it in the `hyperpod:contract` tag.
    #[tf(required, requires_replace, validate = contract_name(), validate = LengthBetween { min: 1, max: 128 })]
    pub name: Field<String>,
    /// The project role (PRJ-2, PRJ-4).
    #[tf(required)]
    pub project_role_arn: Field<String>,
    /// The role the HyperPod connection uses (PRJ-2).
    #[tf(required)]
    pub access_role_arn: Field<String>,
    /// Workload types the project may run.
    #[tf(required, validate = EachOneOf(&WORKLOAD_TYPES))]
    pub approved_workload_types: Field<Set<String>>,
    /// Highest classification of data the workloads touch.
    #[tf(required, validate = OneOf(&DATA_CLASSIFICATIONS))]
    pub data_classification: Field<String>,
    /// EKS namespaces the project's tenants may use (EKS clusters only; CON-2, WKL-1).
    #[tf(optional)]
    pub eks_namespaces: Field<Vec<String>>,
    /// Support expectations: who to call, response times.
    #[tf(required)]
    pub support: Field<String>,
    /// How and when the connection is taken down.
    #[tf(required)]
    pub decommission: Field<String>,
    /// Consumer and data accounts whose roles tenants may reach (ORG-2).
    #[tf(optional)]
    pub approved_account_ids: Field<Vec<String>>,
    /// CIDRs from which the EKS API endpoint may be public (CLU-5).
    #[tf(optional)]
    pub approved_public_cidrs: Field<Vec<String>>,
    /// The organization grant the project's creation rests on: `hyperpod_domain_unit_policy_grant.<name>.governance`.
    /// ORG-1 then also checks that the grant covers the project's domain unit and approves the profile the project
    /// was created from.
    #[tf(write_only, optional)]
    pub organization: Field<GrantGovernance>,
    /// `approved`, or `revoked` to withdraw the connection (LIF-3).
    #[tf(default = Value::String(LifecycleState::Approved.as_str().into()), validate = OneOf(LIFECYCLE_STATES))]
    pub lifecycle_state: Field<String>,
    /// Governance warnings on this contract are refused at apply like errors. Defaults to the provider's `strict`.
    #[tf(optional)]
    pub strict: Field<bool>,
    /// `current`, `due_soon` (within 14 days), `overdue`, `review_required` (a material change since the last
    /// approval, LIF-2) or `revoked`.
    #[tf(computed)]
    pub review_status: Field<String>,
    /// `last_reviewed` plus the interval.
    #[tf(computed)]
    pub next_review_date: Field<String>,
    /// The live facts the contract was approved against, recorded at creation and at each re-approval (a new
    /// `review.last_reviewed` or `approved_by`): `cluster` (its ARN), `instance_group/<name>` (`<type> × <count>`),
    /// `orchestrator` (`EKS <version>` or `Slurm`), `project/domain_unit` (the domain unit that owns the project),
    /// `monitoring/addon` and `monitoring/node_role/<role>`. The contract's own arguments are compared with the
    /// contract as last applied. Every plan compares them with the account (LIF-2).
    #[tf(computed)]
    pub approved_facts: Field<BTreeMap<String, String>>,
    /// The approved facts that differ now, with their current value (`(absent)`: gone); null when none does. Set ⇒
    /// `review_status` is `review_required` until re-approval.
    #[tf(computed)]
    pub changed_facts: Field<BTreeMap<String, String>>,
    #[tf(flatten)]
    pub checklist: ChecklistAttributes,
    /// The facts dependent resources check against; known at plan time.
    #[tf(computed, nested = single)]
    pub governance: Field<ContractGovernance>,
    #[tf(block = single, required)]
    pub owners: Field<OwnersBlock>,
    #[tf(block = single, required)]
    pub unified_studio: Field<UnifiedStudioBlock>,
    #[tf(block = single, required)]
    pub cluster: Field<ClusterBlock>,
    #[tf(block = single)]
    pub slurm: Field<SlurmBlock>,
    #[tf(block = single, required)]
    pub scheduling: Field<SchedulingBlock>,
    #[tf(block = single, required)]
    pub monitoring: Field<MonitoringBlock>,
    #[tf(block = single, required)]
    pub review: Field<ReviewBlock>,
    #[tf(block)]
    pub exception: Field<Vec<ExceptionBlock>>,
}

/// The three accountable owners; a contract without them cannot back a binding (LIF-3).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct OwnersBlock {
    /// Owner of the business purpose.
    #[tf(required)]
    pub business: Field<String>,
    /// Owner of day-to-day operation and incidents.
    #[tf(required)]
    pub operations: Field<String>,
    /// Owner of the capacity's cost.
    #[tf(required)]
    pub cost: Field<String>,
}

/// Where the project lives in SageMaker Unified Studio (Amazon DataZone).
#[derive(Model, Clone, Debug, Default, PartialEq)]
#[allow(clippy::struct_field_names)] // the fields are the attribute names
pub struct UnifiedStudioBlock {
    /// Domain ID, e.g. `dzd_abc123`.
    #[tf(required)]
    pub domain_id: Field<String>,
    /// Domain unit the project must belong to (ORG-1).
    #[tf(required)]
    pub domain_unit_id: Field<String>,
    /// Project ID.
    #[tf(required)]
    pub project_id: Field<String>,
}

/// The HyperPod cluster the project may use, in the central capacity account.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ClusterBlock {
    /// Capacity account, 12 digits (ORG-3).
    #[tf(required)]
    pub account_id: Field<String>,
    /// Region of the cluster (ORG-3).
    #[tf(required)]
    pub region: Field<String>,
    /// Cluster name.
    #[tf(required)]
    pub name: Field<String>,
    /// The cluster's orchestrator, checked against the real cluster (CLU-1).
    #[tf(required, validate = OneOf(&ORCHESTRATORS))]
    pub orchestrator: Field<String>,
}

/// The Slurm access scope (Slurm clusters only; CON-2).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SlurmBlock {
    /// Slurm accounts the project may use.
    #[tf(optional)]
    pub accounts: Field<Vec<String>>,
    /// Slurm partitions the project may use.
    #[tf(optional)]
    pub partitions: Field<Vec<String>>,
}

/// The scheduling policy the project works under, and who owns exceptions to it.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SchedulingBlock {
    /// The policy in words, e.g. "borrow idle capacity at low priority".
    #[tf(required)]
    pub policy: Field<String>,
    /// Who decides exceptions to the policy.
    #[tf(required)]
    pub exception_owner: Field<String>,
}

/// The observability feedback loop for this connection.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct MonitoringBlock {
    #[tf(block)]
    pub signal: Field<Vec<SignalBlock>>,
}

/// A monitored signal: what is watched, who owns it, what happens when it fires (CON-3).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SignalBlock {
    /// Signal name, e.g. `team-utilization`.
    #[tf(required)]
    pub name: Field<String>,
    /// Who owns the signal.
    #[tf(required)]
    pub owner: Field<String>,
    /// What the owner does when the signal fires.
    #[tf(required)]
    pub response: Field<String>,
}

/// The review schedule and the current approval.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ReviewBlock {
    /// Days between reviews, 1 to 730 (LIF-1).
    #[tf(required, validate = WholeNumber)]
    pub interval_days: Field<i64>,
    /// Date of the last review, `YYYY-MM-DD`.
    #[tf(required, validate = IsDate)]
    pub last_reviewed: Field<String>,
    /// The accountable administrator who approved the contract; not the identity running the apply (LIF-4).
    #[tf(required)]
    pub approved_by: Field<String>,
}

/// An owned, dated exception to one rule (EXC-1); an expired exception waives nothing, and is refused at apply.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ExceptionBlock {
    /// Rule ID, e.g. `WKL-8`.
    #[tf(required, validate = RuleIds)]
    pub rule: Field<String>,
    /// Who owns the exception.
    #[tf(required)]
    pub owner: Field<String>,
    /// Expiry date, `YYYY-MM-DD`.
    #[tf(required, validate = IsDate)]
    pub expires: Field<String>,
    /// Why the exception is needed.
    #[tf(required)]
    pub reason: Field<String>,
}

/// What identifies a contract (`import { identity = { … } }`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ContractIdentity {
    /// The contract's name.
    #[tf(required)]
    pub name: Field<String>,
}

pub fn schema() -> Schema {
    Schema {
        // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
        version: 1,
        block: ContractModel::block(),
    }
}

/// The `governance` attribute's fields, from [`ContractGovernance`].
pub fn governance_attributes() -> Vec<Attribute> {
    ContractGovernance::block().attributes
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &ContractIdentity::block())
}

/// The type of `governance`, which dependents take as their `contract` argument.
pub fn governance_type() -> Type {
    Attribute::nested("governance", Nesting::Single, governance_attributes()).value_type()
}
