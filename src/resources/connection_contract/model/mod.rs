//! The contract's configuration, typed (`ContractConfig`: the engine's `Contract` decoded once, with what is unknown
//! at plan), what its state recorded (`RecordedContract`), and the `governance` value dependents read
//! (`governance.rs`). `partials.rs` names the arguments a plan may leave unknown without deferring every rule.

mod governance;
pub(super) mod partials;

pub use governance::{contract_from_governance, governance_value, lifecycle_problem, unreadable_contract};
pub use partials::Partial;

use std::collections::BTreeMap;
use std::str::FromStr;

use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, OrganizationGrant, Owners, Review, RuleId,
    Scheduling, Signal, SlurmScope, UnifiedStudio,
};
use crate::protocol::decode::Fields;
use crate::protocol::object::{boolean, string, string_map};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;

/// The attributes the provider derives at plan time.
pub const DERIVED: [&str; 8] = [
    "review_status",
    "approved_facts",
    "changed_facts",
    "next_review_date",
    "passed_checks",
    "not_applicable_checks",
    "findings",
    "governance",
];

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
    /// Decodes the arguments; `prior` (the state, `None` on create) stands in for unknown lists.
    pub fn decode(value: &Value, prior: Option<&Value>) -> Self {
        let unknown = partials::unknown_in(value);
        let decodable = partials::with_stand_ins(value, &unknown, prior);
        let name = string(value, "name");
        Self {
            unknown_arguments: unknown_arguments(value, name.is_some()),
            strict: boolean(value, "strict"),
            contract: contract_from_value(&decodable),
            unknown,
            name,
        }
    }
}

/// The arguments of `value` not wholly known, in schema order; `id` is the name's once that is known.
fn unknown_arguments(value: &Value, name_known: bool) -> Vec<String> {
    match value {
        Value::Object(fields) => fields
            .iter()
            .filter(|(name, field)| !field.is_wholly_known() && !DERIVED.contains(&name.as_str()))
            .filter(|(name, _)| !(name_known && name.as_str() == "id"))
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
    pub fn decode(prior: &Value) -> Self {
        Self {
            contract: contract_from_value(prior),
            approved_facts: prior
                .get_attr("approved_facts")
                .is_some_and(|facts| !facts.is_null())
                .then(|| string_map(prior, "approved_facts")),
            review_status: string(prior, "review_status"),
            facts_changed: prior.get_attr("changed_facts").is_some_and(|facts| !facts.is_null()),
        }
    }
}

/// The engine's view of the contract, or `None` while a value the rules need is unknown (a reference to a resource
/// not yet created); the resource then plans the derived attributes as unknown and judges them at apply. Every
/// field goes through `protocol::decode`: a free-text field left null reads as empty (CON-1 then names it), an
/// unknown one defers, a list that is not wholly known is never read as empty.
pub fn contract_from_value(value: &Value) -> Option<Contract> {
    let contract = Fields(value);
    Some(Contract {
        name: contract.string("name").known()?,
        owners: owners(contract.block("owners").known()?)?,
        unified_studio: unified_studio(contract.block("unified_studio").known()?),
        cluster: cluster(contract.block("cluster").known()?)?,
        project_role_arn: contract.string("project_role_arn").known(),
        access_role_arn: contract.string("access_role_arn").known(),
        approved_workload_types: contract.strings("approved_workload_types").or_empty()?,
        data_classification: text(contract, "data_classification")?,
        eks_namespaces: contract.strings("eks_namespaces").or_empty()?,
        slurm: slurm(contract.block("slurm").optional()?)?,
        scheduling: scheduling(contract.block("scheduling").known()?)?,
        monitoring: monitoring(contract)?,
        support: text(contract, "support")?,
        decommission: text(contract, "decommission")?,
        approved_account_ids: contract.strings("approved_account_ids").or_empty()?,
        approved_public_cidrs: contract.strings("approved_public_cidrs").or_empty()?,
        review: review(contract.block("review").known()?)?,
        // Unset means the schema's default, "approved" (at validate, defaults are not applied yet).
        // A name that is not a state is the validator's error; the contract waits until it is one.
        lifecycle: LifecycleState::parse(
            &contract
                .string("lifecycle_state")
                .or_when_null(LifecycleState::Approved.as_str().into())?,
        )?,
        organization: match contract.block("organization").optional()? {
            None => None,
            Some(grant) => Some(OrganizationGrant {
                domain_unit_id: grant.string("domain_unit_id").or_empty()?,
                project_profile_ids: grant.strings("project_profile_ids").or_empty()?,
                include_child_domain_units: grant.bool("include_child_domain_units").or_when_null(false)?,
            }),
        },
        exceptions: exceptions(contract)?,
    })
}

/// Free text: null reads as empty (CON-1 names it), unknown as `None`.
fn text(fields: Fields<'_>, name: &str) -> Option<String> {
    fields.string(name).or_empty()
}

fn owners(owners: Fields<'_>) -> Option<Owners> {
    Some(Owners {
        business: text(owners, "business")?,
        operations: text(owners, "operations")?,
        cost: text(owners, "cost")?,
    })
}

fn unified_studio(studio: Fields<'_>) -> UnifiedStudio {
    UnifiedStudio {
        // Required: `None` can only mean "known after apply" (a project created in the same run).
        domain_id: studio.string("domain_id").known(),
        domain_unit_id: studio.string("domain_unit_id").known(),
        project_id: studio.string("project_id").known(),
    }
}

fn cluster(cluster: Fields<'_>) -> Option<ClusterRef> {
    Some(ClusterRef {
        account_id: text(cluster, "account_id")?,
        region: text(cluster, "region")?,
        name: text(cluster, "name")?,
        orchestrator: Orchestrator::from_str(&cluster.string("orchestrator").known()?).ok()?,
    })
}

fn slurm(slurm: Option<Fields<'_>>) -> Option<SlurmScope> {
    Some(match slurm {
        Some(slurm) => SlurmScope {
            accounts: slurm.strings("accounts").or_empty()?,
            partitions: slurm.strings("partitions").or_empty()?,
        },
        None => SlurmScope::default(),
    })
}

fn scheduling(scheduling: Fields<'_>) -> Option<Scheduling> {
    Some(Scheduling {
        policy: text(scheduling, "policy")?,
        exception_owner: text(scheduling, "exception_owner")?,
    })
}

fn monitoring(contract: Fields<'_>) -> Option<Vec<Signal>> {
    let signals = match contract.block("monitoring").optional()? {
        Some(monitoring) => monitoring.blocks("signal").or_empty()?,
        None => Vec::new(),
    };
    signals
        .into_iter()
        .map(|signal| {
            Some(Signal {
                name: text(signal, "name")?,
                owner: text(signal, "owner")?,
                response: text(signal, "response")?,
            })
        })
        .collect()
}

fn review(review: Fields<'_>) -> Option<Review> {
    Some(Review {
        interval_days: review.integer("interval_days").known()?,
        last_reviewed: parse_date(&review.string("last_reviewed").known()?)?,
        approved_by: text(review, "approved_by")?,
    })
}

fn exceptions(contract: Fields<'_>) -> Option<Vec<Exception>> {
    contract
        .blocks("exception")
        .or_empty()?
        .into_iter()
        .map(|exception| {
            Some(Exception {
                rule: RuleId::from_str(&exception.string("rule").known()?).ok()?,
                owner: text(exception, "owner")?,
                expires: parse_date(&exception.string("expires").known()?)?,
                reason: text(exception, "reason")?,
            })
        })
        .collect()
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
