//! From the resource's value to the governance engine's `Contract`, and the computed attributes back.

use std::str::FromStr;

use crate::governance::{
    ClusterRef, Contract, Exception, LifecycleState, Orchestrator, OrganizationGrant, Owners, Review, RuleId,
    Scheduling, Signal, SlurmScope, UnifiedStudio,
};
use crate::protocol::object::{elements, int, integer, nested, object, string, strings, text, text_list};
use crate::protocol::validators::parse_date;
use crate::protocol::value::Value;

/// A known string (None while unknown or null).
fn known(value: &Value, name: &str) -> Option<String> {
    string(value, name)
}

/// A required free-text value: unknown means the contract cannot be judged yet.
fn text_of(value: &Value, name: &str) -> Option<String> {
    match value.get_attr(name) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Null) => Some(String::new()),
        _ => None,
    }
}

/// The engine's view of the contract, or `None` while a value the rules need is unknown (a reference to a resource
/// not yet created); the resource then plans the derived attributes as unknown and judges them at apply.
pub fn contract_from_value(value: &Value) -> Option<Contract> {
    // A list that is not known yet is not an empty list: the rules that read it wait for apply.
    let lists = [
        "approved_workload_types",
        "eks_namespaces",
        "approved_account_ids",
        "approved_public_cidrs",
    ];
    if lists
        .iter()
        .any(|name| value.get_attr(name).is_some_and(|v| !v.is_wholly_known()))
    {
        return None;
    }
    let owners = nested(value, "owners")?;
    let studio = nested(value, "unified_studio")?;
    let cluster = nested(value, "cluster")?;
    let scheduling = nested(value, "scheduling")?;
    let review = nested(value, "review")?;
    let monitoring = nested(value, "monitoring");
    let slurm = nested(value, "slurm");
    if slurm.is_some_and(|s| !s.is_wholly_known()) {
        return None;
    }
    let exceptions = elements(value, "exception")
        .iter()
        .map(|exception| {
            Some(Exception {
                rule: RuleId::from_str(&known(exception, "rule")?).ok()?,
                owner: text_of(exception, "owner")?,
                expires: parse_date(&known(exception, "expires")?)?,
                reason: text_of(exception, "reason")?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Contract {
        name: known(value, "name")?,
        owners: Owners {
            business: text_of(owners, "business")?,
            operations: text_of(owners, "operations")?,
            cost: text_of(owners, "cost")?,
        },
        unified_studio: UnifiedStudio {
            domain_id: known(studio, "domain_id"),
            domain_unit_id: known(studio, "domain_unit_id"),
            project_id: known(studio, "project_id"),
        },
        cluster: ClusterRef {
            account_id: text_of(cluster, "account_id")?,
            region: text_of(cluster, "region")?,
            name: text_of(cluster, "name")?,
            orchestrator: Orchestrator::from_str(&known(cluster, "orchestrator")?).ok()?,
        },
        project_role_arn: known(value, "project_role_arn"),
        access_role_arn: known(value, "access_role_arn"),
        approved_workload_types: strings(value, "approved_workload_types"),
        data_classification: text_of(value, "data_classification")?,
        eks_namespaces: strings(value, "eks_namespaces"),
        slurm: SlurmScope {
            accounts: slurm.map(|s| strings(s, "accounts")).unwrap_or_default(),
            partitions: slurm.map(|s| strings(s, "partitions")).unwrap_or_default(),
        },
        scheduling: Scheduling {
            policy: text_of(scheduling, "policy")?,
            exception_owner: text_of(scheduling, "exception_owner")?,
        },
        monitoring: monitoring
            .map(|m| {
                elements(m, "signal")
                    .iter()
                    .map(|signal| {
                        Some(Signal {
                            name: text_of(signal, "name")?,
                            owner: text_of(signal, "owner")?,
                            response: text_of(signal, "response")?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .unwrap_or(Some(Vec::new()))?,
        support: text_of(value, "support")?,
        decommission: text_of(value, "decommission")?,
        approved_account_ids: strings(value, "approved_account_ids"),
        approved_public_cidrs: strings(value, "approved_public_cidrs"),
        review: Review {
            interval_days: integer(review, "interval_days")?,
            last_reviewed: parse_date(&known(review, "last_reviewed")?)?,
            approved_by: text_of(review, "approved_by")?,
        },
        // Unset means the schema's default, "approved" (at validate, defaults are not applied yet).
        lifecycle: match value.get_attr("lifecycle_state") {
            Some(Value::Unknown) => return None,
            Some(Value::String(state)) if state == "revoked" => LifecycleState::Revoked,
            _ => LifecycleState::Approved,
        },
        organization: match value.get_attr("organization") {
            Some(Value::Null) | None => None,
            Some(grant) if !grant.is_wholly_known() => return None,
            Some(grant) => Some(OrganizationGrant {
                domain_unit_id: known(grant, "domain_unit_id").unwrap_or_default(),
                project_profile_ids: strings(grant, "project_profile_ids"),
                include_child_domain_units: crate::protocol::object::boolean(grant, "include_child_domain_units")
                    .unwrap_or(false),
            }),
        },
        exceptions,
    })
}

/// The `governance` attribute: what dependents check against, derived from configuration.
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
        ("slurm_accounts", text_list(&contract.slurm.accounts)),
        ("slurm_partitions", text_list(&contract.slurm.partitions)),
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

/// The engine's view of a contract as a dependent sees it: the `governance` facts it took as its `contract`
/// argument. Fields dependents' rules never read (approver, monitoring, domain unit) are neutral. `None`
/// while a fact is unknown (the contract itself waits on a resource not created yet).
pub fn contract_from_governance(facts: &Value) -> Option<Contract> {
    let lists_known = [
        "eks_namespaces",
        "slurm_accounts",
        "approved_account_ids",
        "exception",
        "lifecycle_state",
    ]
    .iter()
    .all(|name| facts.get_attr(name).is_some_and(Value::is_wholly_known));
    if !lists_known {
        return None;
    }
    let owners = nested(facts, "owners");
    let owner = |field: &str| owners.and_then(|o| string(o, field)).unwrap_or_default();
    let exceptions = elements(facts, "exception")
        .iter()
        .filter_map(|exception| {
            Some(Exception {
                rule: RuleId::from_str(&known(exception, "rule")?).ok()?,
                owner: known(exception, "owner").unwrap_or_default(),
                expires: parse_date(&known(exception, "expires")?)?,
                reason: known(exception, "reason").unwrap_or_default(),
            })
        })
        .collect();
    Some(Contract {
        name: known(facts, "contract")?,
        owners: Owners {
            business: owner("business"),
            operations: owner("operations"),
            cost: owner("cost"),
        },
        unified_studio: UnifiedStudio {
            domain_id: known(facts, "domain_id"),
            domain_unit_id: None,
            project_id: known(facts, "project_id"),
        },
        cluster: ClusterRef {
            account_id: known(facts, "cluster_account_id")?,
            region: known(facts, "cluster_region")?,
            name: known(facts, "cluster_name")?,
            orchestrator: Orchestrator::from_str(&known(facts, "orchestrator")?).ok()?,
        },
        project_role_arn: known(facts, "project_role_arn"),
        access_role_arn: known(facts, "access_role_arn"),
        approved_workload_types: Vec::new(),
        data_classification: String::new(),
        eks_namespaces: strings(facts, "eks_namespaces"),
        slurm: SlurmScope {
            accounts: strings(facts, "slurm_accounts"),
            partitions: strings(facts, "slurm_partitions"),
        },
        scheduling: Scheduling {
            policy: String::new(),
            exception_owner: String::new(),
        },
        monitoring: Vec::new(),
        support: String::new(),
        decommission: String::new(),
        approved_account_ids: strings(facts, "approved_account_ids"),
        approved_public_cidrs: strings(facts, "approved_public_cidrs"),
        review: Review {
            interval_days: integer(facts, "interval_days").unwrap_or(0),
            last_reviewed: known(facts, "last_reviewed")
                .and_then(|date| parse_date(&date))
                .unwrap_or(time::Date::MIN),
            approved_by: String::new(),
        },
        lifecycle: match known(facts, "lifecycle_state").as_deref() {
            Some("revoked") => LifecycleState::Revoked,
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
        let list = |items: &[&str]| text_list(&items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
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
