//! The contract's configuration, typed (`ContractConfig`: the engine's `Contract` decoded once, with what is unknown
//! at plan), what its state recorded (`RecordedContract`), and the `governance` value dependents read
//! (`governance.rs`). `partials.rs` names the arguments a plan may leave unknown without deferring every rule.

mod governance;
pub(super) mod partials;

#[cfg(test)]
pub use governance::governance_value;
pub use governance::{contract_from_governance, governance_of, lifecycle_problem, unreadable_contract};
pub use partials::Partial;

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::LazyLock;

use super::schema::{
    ClusterBlock, ContractModel, ExceptionBlock, MonitoringBlock, OwnersBlock, ReviewBlock, SchedulingBlock,
    SignalBlock, SlurmBlock, UnifiedStudioBlock,
};
use crate::findings::ToDiagnostics;
use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, OrganizationGrant, Owners, Review, RuleId,
    Scheduling, Signal, SlurmScope, UnifiedStudio,
};
use crate::protocol::diagnostics::{Diagnostics, Severity};
use crate::protocol::model::{Field, Model};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;
use crate::resources::domain_unit_policy_grant::GrantGovernance;

/// The attributes the provider derives at plan time (from the declaration), `id` aside: it is the name's.
pub static DERIVED: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let block = ContractModel::block();
    (block.derived_names().into_iter())
        .filter(|name| *name != ContractModel::ID.name())
        .collect()
});

/// What the configuration says, decoded once. `organization` is write-only: the value decoded is the arguments
/// (configuration included), never the planned state alone.
#[derive(Clone, Debug)]
pub struct ContractConfig {
    /// The contract's name (also its ID); `None` while unknown.
    pub name: Option<String>,
    /// The contract's own `strict`; `None` when unset (the provider's applies).
    pub strict: Option<bool>,
    /// The arguments a plan may leave unknown that are unknown now: the rules reading them wait for apply.
    pub unknown: Vec<&'static Partial>,
    /// The engine's contract, the unknown lists standing in as the prior state's; `None` while a value every rule
    /// needs is unknown (a reference to a resource not yet created): then every rule waits for apply.
    pub contract: Option<Contract>,
    /// The arguments not wholly known, by name: what a plan that defers every rule names.
    pub unknown_arguments: Vec<String>,
}

impl ContractConfig {
    /// Decodes the arguments; `prior` (the state decoded, `None` on create) stands in for unknown lists.
    pub fn decode(value: &Value, prior: Option<&ContractModel>) -> Self {
        let model = ContractModel::decode(value).unwrap_or_default();
        let unknown = partials::unknown_in(&model);
        let decodable = partials::with_stand_ins(model.clone(), &unknown, prior);
        let name = model.name.clone().known();
        Self {
            unknown_arguments: unknown_arguments(value, name.is_some()),
            strict: model.strict.known(),
            contract: contract_of(&decodable),
            unknown,
            name,
        }
    }
}

/// The arguments of `value` not wholly known, in name order; `id` is the name's once that is known.
fn unknown_arguments(value: &Value, name_known: bool) -> Vec<String> {
    match value {
        Value::Object(fields) => fields
            .iter()
            .filter(|(name, field)| !field.is_wholly_known() && !DERIVED.contains(&name.as_str()))
            .filter(|(name, _)| !(name_known && name.as_str() == ContractModel::ID.name()))
            .map(|(name, _)| name.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// What the state recorded at the last apply: the contract as applied, and the approval it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedContract {
    /// The contract as last applied; `None` when the state does not decode as one.
    pub contract: Option<Contract>,
    /// `approved_facts`; `None` when null (state written before facts were recorded).
    pub approved_facts: Option<BTreeMap<String, String>>,
    /// `review_status` as last planned.
    pub review_status: Option<String>,
    /// Whether `changed_facts` was set: the review was required by a change of facts, not of arguments.
    pub facts_changed: bool,
}

impl RecordedContract {
    /// What a decoded state recorded (a state that does not decode records nothing: `ContractModel::default`).
    pub fn of(recorded: &ContractModel) -> Self {
        Self {
            contract: contract_of(recorded),
            approved_facts: recorded.approved_facts.clone().known(),
            review_status: recorded.review_status.clone().known(),
            facts_changed: recorded.changed_facts != Field::Null,
        }
    }
}

/// What `terraform validate` checks beyond the attributes' validators: the configuration-only rules, so a malformed
/// contract is caught without credentials.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    // Only the record's well-formedness (CON-1..3): it depends on nothing but the text, so it never starts failing on
    // its own, and Terraform refuses a configuration that fails it for every command, as with any provider's
    // attribute validators. What depends on the date (EXC-1's expiry, LIF-1) or the account is judged at plan and
    // enforced at apply, never here: Terraform validates before every plan, `terraform destroy`'s included
    // (`docs/design/where-rules-run.md`). Errors only: a warning here would be shown again by the plan.
    if let Some(contract) = contract_from_value(config) {
        let report: crate::governance::Report = [
            crate::governance::contract::con_1(&contract),
            crate::governance::contract::con_2(&contract),
            crate::governance::contract::con_3(&contract),
        ]
        .into_iter()
        .collect();
        let errors = report
            .diagnostics(false)
            .0
            .into_iter()
            .filter(|d| d.severity == Severity::Error);
        diagnostics.0.extend(errors);
    }
}

/// The engine's view of the contract, or `None` while a value the rules need is unknown (a reference to a resource
/// not yet created); the resource then plans the derived attributes as unknown and judges them at apply.
pub fn contract_from_value(value: &Value) -> Option<Contract> {
    contract_of(&ContractModel::decode(value).ok()?)
}

/// [`contract_from_value`] of a decoded value. A free-text field left null reads as empty (CON-1 then names it), an
/// unknown one defers, a list that is not wholly known is never read as empty.
fn contract_of(contract: &ContractModel) -> Option<Contract> {
    Some(Contract {
        name: contract.name.clone().known()?,
        owners: owners(contract.owners.as_known()?)?,
        unified_studio: unified_studio(contract.unified_studio.as_known()?),
        cluster: cluster(contract.cluster.as_known()?)?,
        project_role_arn: contract.project_role_arn.clone().known(),
        access_role_arn: contract.access_role_arn.clone().known(),
        approved_workload_types: contract.approved_workload_types.clone().or_empty()?.0,
        data_classification: text(&contract.data_classification)?,
        eks_namespaces: contract.eks_namespaces.clone().or_empty()?,
        slurm: slurm(contract.slurm.as_ref().optional()?)?,
        scheduling: scheduling(contract.scheduling.as_known()?)?,
        monitoring: monitoring(contract.monitoring.as_ref().optional()?)?,
        support: text(&contract.support)?,
        decommission: text(&contract.decommission)?,
        approved_account_ids: contract.approved_account_ids.clone().or_empty()?,
        approved_public_cidrs: contract.approved_public_cidrs.clone().or_empty()?,
        review: review(contract.review.as_known()?)?,
        // Unset means the schema's default, "approved" (at validate, defaults are not applied yet).
        // A name that is not a state is the validator's error; the contract waits until it is one.
        lifecycle: LifecycleState::parse(
            &contract
                .lifecycle_state
                .clone()
                .or_when_null(LifecycleState::Approved.as_str().into())?,
        )?,
        organization: match contract.organization.as_ref().optional()? {
            None => None,
            Some(grant) => Some(organization(grant)?),
        },
        exceptions: exceptions(&contract.exception)?,
    })
}

/// Free text: null reads as empty (CON-1 names it), unknown as `None`.
fn text(field: &Field<String>) -> Option<String> {
    field.clone().or_empty()
}

fn owners(owners: &OwnersBlock) -> Option<Owners> {
    Some(Owners {
        business: text(&owners.business)?,
        operations: text(&owners.operations)?,
        cost: text(&owners.cost)?,
    })
}

fn unified_studio(studio: &UnifiedStudioBlock) -> UnifiedStudio {
    UnifiedStudio {
        // Required: `None` can only mean "known after apply" (a project created in the same run).
        domain_id: studio.domain_id.clone().known(),
        domain_unit_id: studio.domain_unit_id.clone().known(),
        project_id: studio.project_id.clone().known(),
    }
}

fn cluster(cluster: &ClusterBlock) -> Option<ClusterRef> {
    Some(ClusterRef {
        account_id: text(&cluster.account_id)?,
        region: text(&cluster.region)?,
        name: text(&cluster.name)?,
        orchestrator: Orchestrator::from_str(cluster.orchestrator.as_known()?).ok()?,
    })
}

fn slurm(slurm: Option<&SlurmBlock>) -> Option<SlurmScope> {
    Some(match slurm {
        Some(slurm) => SlurmScope {
            accounts: slurm.accounts.clone().or_empty()?,
            partitions: slurm.partitions.clone().or_empty()?,
        },
        None => SlurmScope::default(),
    })
}

fn scheduling(scheduling: &SchedulingBlock) -> Option<Scheduling> {
    Some(Scheduling {
        policy: text(&scheduling.policy)?,
        exception_owner: text(&scheduling.exception_owner)?,
    })
}

fn monitoring(monitoring: Option<&MonitoringBlock>) -> Option<Vec<Signal>> {
    let signals = match monitoring {
        Some(monitoring) => monitoring.signal.clone().or_empty()?,
        None => Vec::new(),
    };
    signals.iter().map(signal).collect()
}

fn signal(signal: &SignalBlock) -> Option<Signal> {
    Some(Signal {
        name: text(&signal.name)?,
        owner: text(&signal.owner)?,
        response: text(&signal.response)?,
    })
}

fn review(review: &ReviewBlock) -> Option<Review> {
    Some(Review {
        interval_days: review.interval_days.clone().known()?,
        last_reviewed: parse_date(review.last_reviewed.as_known()?)?,
        approved_by: text(&review.approved_by)?,
    })
}

/// The grant's facts, read as a whole: a list not wholly known waits.
fn organization(grant: &GrantGovernance) -> Option<OrganizationGrant> {
    let profiles: Option<Vec<String>> = match grant.project_profile_ids.as_ref().optional()? {
        Some(ids) => ids.iter().map(|id| id.as_known().cloned()).collect(),
        None => Some(Vec::new()),
    };
    Some(OrganizationGrant {
        domain_unit_id: text(&grant.domain_unit_id)?,
        project_profile_ids: profiles?,
        include_child_domain_units: grant.include_child_domain_units.clone().or_when_null(false)?,
    })
}

fn exceptions(blocks: &Field<Vec<ExceptionBlock>>) -> Option<Vec<Exception>> {
    blocks.clone().or_empty()?.iter().map(exception).collect()
}

fn exception(exception: &ExceptionBlock) -> Option<Exception> {
    Some(Exception {
        rule: RuleId::from_str(exception.rule.as_known()?).ok()?,
        owner: text(&exception.owner)?,
        expires: parse_date(exception.expires.as_known()?)?,
        reason: text(&exception.reason)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text, text_list};
    use crate::protocol::plan::set_attr;
    use crate::protocol::value::Number;

    /// A contract with every argument and block set, so each can be made unknown.
    fn full_contract() -> Value {
        let list = |items: &[&str]| text_list(&items.iter().map(std::string::ToString::to_string).collect::<Vec<_>>());
        let mut value = super::super::schema::schema().block.null_value();
        for (name, field) in [
            ("name", text("research-on-ml-capacity")),
            ("project_role_arn", text("arn:aws:iam::123456789012:role/p")),
            ("access_role_arn", text("arn:aws:iam::123456789012:role/a")),
            ("approved_workload_types", Value::Set(vec![text("training")])),
            ("data_classification", text("internal")),
            ("eks_namespaces", list(&["hyperpod-ns-research"])),
            ("support", text("#ml")),
            ("decommission", text("delete")),
            ("approved_account_ids", list(&["444455556666"])),
            ("approved_public_cidrs", list(&["203.0.113.0/24"])),
            ("lifecycle_state", text("approved")),
            ("strict", Value::Bool(false)),
            (
                "owners",
                object([("business", text("b")), ("operations", text("o")), ("cost", text("c"))]),
            ),
            (
                "unified_studio",
                object([
                    ("domain_id", text("dzd_1")),
                    ("domain_unit_id", text("unit")),
                    ("project_id", text("prj")),
                ]),
            ),
            (
                "cluster",
                object([
                    ("account_id", text("123456789012")),
                    ("region", text("us-west-2")),
                    ("name", text("ml-capacity")),
                    ("orchestrator", text("eks")),
                ]),
            ),
            (
                "slurm",
                object([("accounts", list(&["research"])), ("partitions", list(&["gpu"]))]),
            ),
            (
                "scheduling",
                object([("policy", text("borrow")), ("exception_owner", text("lead"))]),
            ),
            (
                "monitoring",
                object([(
                    "signal",
                    Value::List(vec![object([
                        ("name", text("utilization")),
                        ("owner", text("oncall")),
                        ("response", text("rebalance")),
                    ])]),
                )]),
            ),
            (
                "review",
                object([
                    ("interval_days", Value::Number(Number::from_i64(90))),
                    ("last_reviewed", text("2026-11-20")),
                    ("approved_by", text("board")),
                ]),
            ),
            (
                "exception",
                Value::List(vec![object([
                    ("rule", text("WKL-8")),
                    ("owner", text("net")),
                    ("expires", text("2027-01-01")),
                    ("reason", text("NCCL")),
                ])]),
            ),
        ] {
            set_attr(&mut value, name, field);
        }
        value
    }

    #[test]
    fn an_unknown_argument_is_never_read_as_unset() {
        assert!(contract_from_value(&full_contract()).is_some(), "the baseline decodes");
        // `organization` is the grant's facts, read as a whole (unknown defers); `strict` is read by the resource.
        let skip = ["organization", "strict"];
        let wrong = crate::resources::decode_property::unknown_read_as_unset(
            &super::super::schema::schema().block,
            &full_contract(),
            &skip,
            contract_from_value,
        );
        assert!(wrong.is_empty(), "read as unset while unknown: {wrong:?}");
    }
}
