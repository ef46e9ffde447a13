//! The contract's `governance` value, what every dependent (tenant, binding, restriction) takes as its `contract`
//! argument, both ways: rendered from the contract at plan, and read back by a dependent as the engine's view.

use std::str::FromStr;

use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, Owners, Review, RuleId, Scheduling, SlurmScope,
    UnifiedStudio,
};
use crate::protocol::decode::Fields;
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::object::{int, object, text, text_list};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;

/// Null rather than empty when unused (an EKS contract's Slurm scope): a reviewer's plan shows no line for them.
fn list_or_null(items: &[String]) -> Value {
    if items.is_empty() {
        Value::Null
    } else {
        text_list(items)
    }
}

/// The `governance` attribute: what dependents check against, derived from configuration.
pub fn governance_value(contract: &Contract, review_status: &str, excepted_rules: &[String]) -> Value {
    let orchestrator = contract.cluster.orchestrator.to_string();
    let optional = |v: &Option<String>| v.clone().map_or(Value::Unknown, Value::String);
    object([
        ("contract", text(&contract.name)),
        ("lifecycle_state", text(lifecycle_name(contract.lifecycle))),
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
        ("slurm_accounts", list_or_null(&contract.slurm.accounts)),
        ("slurm_partitions", list_or_null(&contract.slurm.partitions)),
        ("approved_account_ids", text_list(&contract.approved_account_ids)),
        ("approved_public_cidrs", text_list(&contract.approved_public_cidrs)),
        ("excepted_rules", text_list(excepted_rules)),
        ("last_reviewed", text(contract.review.last_reviewed.to_string())),
        ("interval_days", int(contract.review.interval_days)),
        ("owners", owners_value(&contract.owners)),
        ("exception", exceptions_value(&contract.exceptions)),
    ])
}

fn lifecycle_name(lifecycle: LifecycleState) -> &'static str {
    match lifecycle {
        LifecycleState::Approved => "approved",
        LifecycleState::Revoked => "revoked",
    }
}

fn owners_value(owners: &Owners) -> Value {
    object([
        ("business", text(&owners.business)),
        ("operations", text(&owners.operations)),
        ("cost", text(&owners.cost)),
    ])
}

fn exceptions_value(exceptions: &[Exception]) -> Value {
    Value::List(
        exceptions
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
    )
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
    Some(Contract {
        name: facts.string("contract").known()?,
        owners: governance_owners(facts)?,
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
        review: governance_review(facts)?,
        lifecycle: match facts.string("lifecycle_state").known()?.as_str() {
            "revoked" => LifecycleState::Revoked,
            _ => LifecycleState::Approved,
        },
        organization: None,
        exceptions: governance_exceptions(facts)?,
    })
}

/// The owners as the governance lists them; a missing or unknown owner reads as empty.
fn governance_owners(facts: Fields<'_>) -> Option<Owners> {
    let owners = facts.block("owners").optional()?;
    let owner = |field: &str| owners.and_then(|o| o.string(field).known()).unwrap_or_default();
    Some(Owners {
        business: owner("business"),
        operations: owner("operations"),
        cost: owner("cost"),
    })
}

/// The review schedule as the governance lists it (PRJ-3); the approver is not handed on.
fn governance_review(facts: Fields<'_>) -> Option<Review> {
    Some(Review {
        interval_days: facts.integer("interval_days").or_when_null(0)?,
        last_reviewed: match facts.string("last_reviewed").optional()? {
            Some(date) => parse_date(&date)?,
            None => time::Date::MIN,
        },
        approved_by: String::new(),
    })
}

/// Every exception the governance lists (EXC-1 in dependents); one whose rule or date does not read is left out.
fn governance_exceptions(facts: Fields<'_>) -> Option<Vec<Exception>> {
    Some(
        facts
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
            .collect(),
    )
}
