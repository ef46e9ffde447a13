//! From the resource's value to the governance engine's `Contract`, and the computed attributes back.

use std::str::FromStr;

use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, OrganizationGrant, Owners, Review, RuleId,
    Scheduling, Signal, SlurmScope, UnifiedStudio,
};
use crate::protocol::decode::Fields;
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::object::{int, object, text, text_list};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;

/// The engine's view of the contract, or `None` while a value the rules need is unknown (a reference to a resource
/// not yet created); the resource then plans the derived attributes as unknown and judges them at apply. Every
/// field goes through `protocol::decode`: a free-text field left null reads as empty (CON-1 then names it), an
/// unknown one defers, a list that is not wholly known is never read as empty.
pub fn contract_from_value(value: &Value) -> Option<Contract> {
    let contract = Fields(value);
    let text = |fields: Fields<'_>, name: &str| fields.string(name).or_empty();
    let owners = contract.block("owners").known()?;
    let studio = contract.block("unified_studio").known()?;
    let cluster = contract.block("cluster").known()?;
    let scheduling = contract.block("scheduling").known()?;
    let review = contract.block("review").known()?;
    let slurm = contract.block("slurm").optional()?;
    let signals = match contract.block("monitoring").optional()? {
        Some(monitoring) => monitoring.blocks("signal").or_empty()?,
        None => Vec::new(),
    };
    let exceptions = contract
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
        .collect::<Option<Vec<_>>>()?;
    Some(Contract {
        name: contract.string("name").known()?,
        owners: Owners {
            business: text(owners, "business")?,
            operations: text(owners, "operations")?,
            cost: text(owners, "cost")?,
        },
        unified_studio: UnifiedStudio {
            // Required: `None` can only mean "known after apply" (a project created in the same run).
            domain_id: studio.string("domain_id").known(),
            domain_unit_id: studio.string("domain_unit_id").known(),
            project_id: studio.string("project_id").known(),
        },
        cluster: ClusterRef {
            account_id: text(cluster, "account_id")?,
            region: text(cluster, "region")?,
            name: text(cluster, "name")?,
            orchestrator: Orchestrator::from_str(&cluster.string("orchestrator").known()?).ok()?,
        },
        project_role_arn: contract.string("project_role_arn").known(),
        access_role_arn: contract.string("access_role_arn").known(),
        approved_workload_types: contract.strings("approved_workload_types").or_empty()?,
        data_classification: text(contract, "data_classification")?,
        eks_namespaces: contract.strings("eks_namespaces").or_empty()?,
        slurm: match slurm {
            Some(slurm) => SlurmScope {
                accounts: slurm.strings("accounts").or_empty()?,
                partitions: slurm.strings("partitions").or_empty()?,
            },
            None => SlurmScope::default(),
        },
        scheduling: Scheduling {
            policy: text(scheduling, "policy")?,
            exception_owner: text(scheduling, "exception_owner")?,
        },
        monitoring: signals
            .into_iter()
            .map(|signal| {
                Some(Signal {
                    name: text(signal, "name")?,
                    owner: text(signal, "owner")?,
                    response: text(signal, "response")?,
                })
            })
            .collect::<Option<Vec<_>>>()?,
        support: text(contract, "support")?,
        decommission: text(contract, "decommission")?,
        approved_account_ids: contract.strings("approved_account_ids").or_empty()?,
        approved_public_cidrs: contract.strings("approved_public_cidrs").or_empty()?,
        review: Review {
            interval_days: review.integer("interval_days").known()?,
            last_reviewed: parse_date(&review.string("last_reviewed").known()?)?,
            approved_by: text(review, "approved_by")?,
        },
        // Unset means the schema's default, "approved" (at validate, defaults are not applied yet).
        lifecycle: match contract
            .string("lifecycle_state")
            .or_when_null("approved".into())?
            .as_str()
        {
            "revoked" => LifecycleState::Revoked,
            _ => LifecycleState::Approved,
        },
        organization: match contract.block("organization").optional()? {
            None => None,
            Some(grant) => Some(OrganizationGrant {
                domain_unit_id: grant.string("domain_unit_id").or_empty()?,
                project_profile_ids: grant.strings("project_profile_ids").or_empty()?,
                include_child_domain_units: grant.bool("include_child_domain_units").or_when_null(false)?,
            }),
        },
        exceptions,
    })
}

/// The `governance` attribute: what dependents check against, derived from configuration.
fn list_or_null(items: &[String]) -> Value {
    if items.is_empty() {
        Value::Null
    } else {
        text_list(items)
    }
}

pub fn governance_value(contract: &Contract, review_status: &str, excepted_rules: &[String]) -> Value {
    let orchestrator = contract.cluster.orchestrator.to_string();
    let optional = |v: &Option<String>| v.clone().map_or(Value::Unknown, Value::String);
    object([
        ("contract", text(&contract.name)),
        (
            "lifecycle_state",
            text(match contract.lifecycle {
                LifecycleState::Approved => "approved",
                LifecycleState::Revoked => "revoked",
            }),
        ),
        ("review_status", text(review_status)),
        ("domain_id", optional(&contract.unified_studio.domain_id)),
        ("project_id", optional(&contract.unified_studio.project_id)),
        ("cluster_account_id", text(&contract.cluster.account_id)),
        ("cluster_region", text(&contract.cluster.region)),
        ("cluster_name", text(&contract.cluster.name)),
        ("orchestrator", text(orchestrator)),
        ("project_role_arn", optional(&contract.project_role_arn)),
        ("access_role_arn", optional(&contract.access_role_arn)),
        ("eks_namespaces", text_list(&contract.eks_namespaces)),
        (
            "approves_interactive",
            Value::Bool(crate::governance::spaces::approves_interactive(contract)),
        ),
        // Null rather than empty when unused (an EKS contract's): a reviewer's plan shows no line for them.
        ("slurm_accounts", list_or_null(&contract.slurm.accounts)),
        ("slurm_partitions", list_or_null(&contract.slurm.partitions)),
        ("approved_account_ids", text_list(&contract.approved_account_ids)),
        ("approved_public_cidrs", text_list(&contract.approved_public_cidrs)),
        ("excepted_rules", text_list(excepted_rules)),
        ("last_reviewed", text(contract.review.last_reviewed.to_string())),
        ("interval_days", int(contract.review.interval_days)),
        (
            "owners",
            object([
                ("business", text(&contract.owners.business)),
                ("operations", text(&contract.owners.operations)),
                ("cost", text(&contract.owners.cost)),
            ]),
        ),
        (
            "exception",
            Value::List(
                contract
                    .exceptions
                    .iter()
                    .map(|exception| {
                        object([
                            ("rule", text(exception.rule.id())),
                            ("owner", text(&exception.owner)),
                            ("expires", text(exception.expires.to_string())),
                            ("reason", text(&exception.reason)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// A `contract` argument that is wholly known yet not a contract's `governance` (a hand-built or `merge`d object
/// with a fact nulled): nothing at apply would make it readable, so dependents refuse it at plan, at `contract`.
/// An EKS contract's governance always lists its namespaces (possibly none): null there is such an edit too.
pub fn unreadable_contract(facts: &Value) -> Option<Diagnostic> {
    let eks_without_namespaces = facts.get_attr("orchestrator") == Some(&Value::String("eks".into()))
        && facts.get_attr("eks_namespaces").is_none_or(Value::is_null);
    let unreadable = facts.is_wholly_known() && (eks_without_namespaces || contract_from_governance(facts).is_none());
    unreadable.then(|| {
        Diagnostic::invalid_value(
            AttributePath::attr("contract"),
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
    let facts = Fields(facts);
    // Optional identifiers stay `None` while unknown (the rules reading them wait); lists must be wholly known.
    let id = |name: &str| facts.string(name).known();
    let owners = facts.block("owners").optional()?;
    let owner = |field: &str| owners.and_then(|o| o.string(field).known()).unwrap_or_default();
    let exceptions = facts
        .blocks("exception")
        .or_empty()?
        .into_iter()
        .filter_map(|exception| {
            Some(Exception {
                rule: RuleId::from_str(&exception.string("rule").known()?).ok()?,
                owner: exception.string("owner").known().unwrap_or_default(),
                expires: parse_date(&exception.string("expires").known()?)?,
                reason: exception.string("reason").known().unwrap_or_default(),
            })
        })
        .collect();
    Some(Contract {
        name: facts.string("contract").known()?,
        owners: Owners {
            business: owner("business"),
            operations: owner("operations"),
            cost: owner("cost"),
        },
        unified_studio: UnifiedStudio {
            domain_id: id("domain_id"),
            domain_unit_id: None,
            project_id: id("project_id"),
        },
        cluster: ClusterRef {
            account_id: facts.string("cluster_account_id").known()?,
            region: facts.string("cluster_region").known()?,
            name: facts.string("cluster_name").known()?,
            orchestrator: Orchestrator::from_str(&facts.string("orchestrator").known()?).ok()?,
        },
        project_role_arn: id("project_role_arn"),
        access_role_arn: id("access_role_arn"),
        // Dependents read one fact of the approved types: whether interactive work (spaces) is approved.
        approved_workload_types: if facts.bool("approves_interactive").or_when_null(false)? {
            vec![crate::governance::spaces::INTERACTIVE.to_string()]
        } else {
            Vec::new()
        },
        data_classification: String::new(),
        eks_namespaces: facts.strings("eks_namespaces").or_empty()?,
        slurm: SlurmScope {
            accounts: facts.strings("slurm_accounts").or_empty()?,
            partitions: facts.strings("slurm_partitions").or_empty()?,
        },
        scheduling: Scheduling {
            policy: String::new(),
            exception_owner: String::new(),
        },
        monitoring: Vec::new(),
        support: String::new(),
        decommission: String::new(),
        approved_account_ids: facts.strings("approved_account_ids").or_empty()?,
        approved_public_cidrs: facts.strings("approved_public_cidrs").or_empty()?,
        review: Review {
            interval_days: facts.integer("interval_days").or_when_null(0)?,
            last_reviewed: match facts.string("last_reviewed").optional()? {
                Some(date) => parse_date(&date)?,
                None => time::Date::MIN,
            },
            approved_by: String::new(),
        },
        lifecycle: match facts.string("lifecycle_state").known()?.as_str() {
            "revoked" => LifecycleState::Revoked,
            _ => LifecycleState::Approved,
        },
        organization: None,
        exceptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::plan::set_attr;
    use crate::protocol::value::Number;

    /// A contract with every argument and block set, so each can be made unknown.
    fn full_contract() -> Value {
        let list = |items: &[&str]| text_list(&items.iter().map(std::string::ToString::to_string).collect::<Vec<_>>());
        let mut value = super::super::schema_block().null_value();
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
            &super::super::schema_block(),
            &full_contract(),
            &skip,
            contract_from_value,
        );
        assert!(wrong.is_empty(), "read as unset while unknown: {wrong:?}");
    }
}
