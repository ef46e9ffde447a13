//! The evidence of each connection contract in a state: who owns and approved it, the facts it was approved
//! against and their current values, every rule's last verdict on it and on every resource it governs, and every
//! object those resources composed. Renderers only format it.

use std::collections::BTreeMap;

use hyperpod_declarations::connection_contract::{
    self, ClusterBlock, ContractModel as C, ExceptionBlock, OwnersBlock, ReviewBlock, UnifiedStudioBlock,
};
use hyperpod_declarations::domain_unit_policy_grant::{self, PolicyGrantModel as G};
use hyperpod_declarations::{project_binding, task_view_restriction, tenant};
use serde_json::Value;

use super::components::{self, Cluster, ComposedObject};
use super::state::State;
use crate::associate::{ContractKey, contract_of};
use crate::checklist::checks_from_values;
use crate::model::{Options, RuleResult};
use crate::plan::{PlanField, ResourceChange};
use crate::rules::{Rule, Status};
use crate::verdict::Level;

pub const CONTRACT: &str = connection_contract::TYPE_NAME;
pub const GRANT: &str = domain_unit_policy_grant::TYPE_NAME;
/// The resource types a contract governs; the grant is the organization grant its project's creation rests on.
pub const GOVERNED: [&str; 4] = [
    tenant::TYPE_NAME,
    project_binding::TYPE_NAME,
    task_view_restriction::TYPE_NAME,
    GRANT,
];
/// The review status of a contract nobody needs to look at.
pub const CURRENT: &str = "current";
/// What stands in for approved facts a state does not hold.
pub const FACTS_NOT_RECORDED: &str = "not recorded (state written before approved facts were recorded)";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    pub options: Options,
    pub terraform_version: Option<String>,
    pub contracts: Vec<ContractEvidence>,
    pub level: Level,
    /// One line, icon first.
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractEvidence {
    pub address: String,
    pub name: String,
    pub domain_id: Option<String>,
    pub domain_unit_id: Option<String>,
    pub project_id: Option<String>,
    pub cluster: Cluster,
    pub project_role_arn: Option<String>,
    pub access_role_arn: Option<String>,
    pub lifecycle_state: Option<String>,
    pub owners: OwnersEvidence,
    pub review: ReviewEvidence,
    pub exceptions: Vec<ExceptionEvidence>,
    /// `None`: the state holds no `approved_facts` (written before the provider recorded them).
    pub facts: Option<Vec<FactEvidence>>,
    /// The contract's own address first, then every resource it governs, by address.
    pub resources: Vec<MemberEvidence>,
    /// Every rule outcome of those resources, by rule (catalog order) then address.
    pub results: Vec<RuleResult>,
    pub components: Vec<ComposedObject>,
    pub level: Level,
    /// Why the level is what it is, one short phrase each (empty when current and nothing failed).
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnersEvidence {
    pub business: Option<String>,
    pub operations: Option<String>,
    pub cost: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReviewEvidence {
    pub approved_by: Option<String>,
    pub last_reviewed: Option<String>,
    pub interval_days: Option<String>,
    pub next_review_date: Option<String>,
    pub review_status: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExceptionEvidence {
    pub rule: String,
    pub owner: String,
    pub expires: String,
    pub reason: String,
}

/// A fact the contract was approved against: the value recorded at approval and the value now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactEvidence {
    pub key: String,
    /// `None`: the fact changed but no approved value was recorded for it.
    pub approved: Option<String>,
    pub current: String,
    pub changed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberEvidence {
    pub address: String,
    pub resource_type: String,
}

impl Evidence {
    pub fn build(state: &State, options: Options) -> Evidence {
        let plan = state.as_plan();
        let governed: Vec<&ResourceChange> = plan.changes.iter().filter(|c| c.is_governed()).collect();
        let mut contracts: Vec<&ResourceChange> = governed
            .iter()
            .copied()
            .filter(|c| c.resource_type == CONTRACT)
            .collect();
        contracts.sort_by_key(|c| (c.after.get(&[C::NAME.name()]).as_text(), c.address.clone()));
        let keys: Vec<ContractKey> = contracts.iter().map(|c| ContractKey::of(c)).collect();
        let contracts: Vec<ContractEvidence> = contracts
            .iter()
            .enumerate()
            .map(|(index, contract)| {
                let members: Vec<&ResourceChange> = governed
                    .iter()
                    .copied()
                    .filter(|c| GOVERNED.contains(&c.resource_type.as_str()))
                    .filter(|c| governs(contract, index, c, &keys, &plan))
                    .collect();
                ContractEvidence::build(contract, &members)
            })
            .collect();
        let level = contracts.iter().map(|c| c.level).max().unwrap_or_default();
        let summary = summary(&contracts, level);
        Evidence {
            options,
            terraform_version: state.terraform_version.clone(),
            contracts,
            level,
            summary,
        }
    }

    /// The same evidence, of one contract only (a document per contract).
    pub fn of_contract(&self, index: usize) -> Evidence {
        let contracts = self.contracts.get(index).cloned().into_iter().collect::<Vec<_>>();
        let level = contracts.iter().map(|c| c.level).max().unwrap_or_default();
        Evidence {
            options: self.options.clone(),
            terraform_version: self.terraform_version.clone(),
            summary: summary(&contracts, level),
            contracts,
            level,
        }
    }
}

/// Whether the contract at `index` governs `resource`: tenants, bindings and restrictions as the plan report
/// associates them (their `contract` argument is write-only, so state does not hold it); a grant when it covers the
/// contract's domain unit in its domain.
fn governs(
    contract: &ResourceChange,
    index: usize,
    resource: &ResourceChange,
    keys: &[ContractKey],
    plan: &crate::plan::Plan,
) -> bool {
    if resource.resource_type != GRANT {
        return contract_of(resource, keys, plan) == Some(index);
    }
    let text = |change: &ResourceChange, path: &[&str]| change.after.get(path).as_text();
    let both = |a: Option<String>, b: Option<String>| matches!((a, b), (Some(a), Some(b)) if a == b);
    both(
        text(
            contract,
            &[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::DOMAIN_ID.name()],
        ),
        text(resource, &[G::DOMAIN_ID.name()]),
    ) && both(
        text(
            contract,
            &[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::DOMAIN_UNIT_ID.name()],
        ),
        text(resource, &[G::DOMAIN_UNIT_ID.name()]),
    )
}

impl ContractEvidence {
    fn build(contract: &ResourceChange, members: &[&ResourceChange]) -> ContractEvidence {
        let text = |path: &[&str]| contract.after.get(path).as_text();
        let results = verdicts(contract, members);
        let cluster = Cluster {
            name: text(&[C::CLUSTER.name(), ClusterBlock::NAME.name()]),
            account_id: text(&[C::CLUSTER.name(), ClusterBlock::ACCOUNT_ID.name()]),
            region: text(&[C::CLUSTER.name(), ClusterBlock::REGION.name()]),
            orchestrator: text(&[C::CLUSTER.name(), ClusterBlock::ORCHESTRATOR.name()]),
        };
        let place = components::Place::new(&cluster, text(&[C::PROJECT_ROLE_ARN.name()]));
        let (resources, components) = composed(contract, members, &place);

        let mut evidence = ContractEvidence {
            address: contract.address.clone(),
            name: text(&[C::NAME.name()]).unwrap_or_else(|| contract.address.clone()),
            domain_id: text(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::DOMAIN_ID.name()]),
            domain_unit_id: text(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::DOMAIN_UNIT_ID.name()]),
            project_id: text(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::PROJECT_ID.name()]),
            cluster,
            project_role_arn: text(&[C::PROJECT_ROLE_ARN.name()]),
            access_role_arn: text(&[C::ACCESS_ROLE_ARN.name()]),
            lifecycle_state: text(&[C::LIFECYCLE_STATE.name()]),
            owners: OwnersEvidence {
                business: text(&[C::OWNERS.name(), OwnersBlock::BUSINESS.name()]),
                operations: text(&[C::OWNERS.name(), OwnersBlock::OPERATIONS.name()]),
                cost: text(&[C::OWNERS.name(), OwnersBlock::COST.name()]),
            },
            review: ReviewEvidence {
                approved_by: text(&[C::REVIEW.name(), ReviewBlock::APPROVED_BY.name()]),
                last_reviewed: text(&[C::REVIEW.name(), ReviewBlock::LAST_REVIEWED.name()]),
                interval_days: text(&[C::REVIEW.name(), ReviewBlock::INTERVAL_DAYS.name()]),
                next_review_date: text(&[C::NEXT_REVIEW_DATE.name()]),
                review_status: text(&[C::REVIEW_STATUS.name()]),
            },
            exceptions: exceptions(contract.after.get(&[C::EXCEPTION.name()])),
            facts: facts(
                contract.after.get(&[C::APPROVED_FACTS.name()]),
                contract.after.get(&[C::CHANGED_FACTS.name()]),
            ),
            resources,
            results,
            components,
            level: Level::Compliant,
            reasons: Vec::new(),
        };
        (evidence.level, evidence.reasons) = judge(&evidence);
        evidence
    }

    /// How many rule outcomes on this contract and its resources have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }
}

/// The rule verdicts the contract and its resources record, by rule then address.
fn verdicts(contract: &ResourceChange, members: &[&ResourceChange]) -> Vec<RuleResult> {
    let mut results: BTreeMap<(String, Rule), RuleResult> = BTreeMap::new();
    checks_from_values(contract, &mut results);
    for member in members {
        checks_from_values(member, &mut results);
    }
    let mut results: Vec<RuleResult> = results.into_values().collect();
    results.sort_by(|a, b| (&a.rule, &a.address).cmp(&(&b.rule, &b.address)));
    results
}

/// The contract and its resources by address, and the objects each resource records it composed.
fn composed(
    contract: &ResourceChange,
    members: &[&ResourceChange],
    place: &components::Place,
) -> (Vec<MemberEvidence>, Vec<components::ComposedObject>) {
    let mut resources = vec![MemberEvidence {
        address: contract.address.clone(),
        resource_type: contract.resource_type.clone(),
    }];
    let mut sorted: Vec<&&ResourceChange> = members.iter().collect();
    sorted.sort_by(|a, b| a.address.cmp(&b.address));
    resources.extend(sorted.iter().map(|m| MemberEvidence {
        address: m.address.clone(),
        resource_type: m.resource_type.clone(),
    }));
    let components = sorted.iter().flat_map(|member| components::of(member, place)).collect();
    (resources, components)
}

fn exceptions(field: PlanField<'_>) -> Vec<ExceptionEvidence> {
    let PlanField::Known(Value::Array(rows)) = field else {
        return Vec::new();
    };
    rows.iter()
        .map(|row| {
            let text = |key: &str| row.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
            ExceptionEvidence {
                rule: text(ExceptionBlock::RULE.name()),
                owner: text(ExceptionBlock::OWNER.name()),
                expires: text(ExceptionBlock::EXPIRES.name()),
                reason: text(ExceptionBlock::REASON.name()),
            }
        })
        .collect()
}

/// The approved facts with their current values: `changed_facts[k]` where the live value differs, else the approved
/// one. `None` when the state holds no approved facts.
pub fn facts(approved: PlanField<'_>, changed: PlanField<'_>) -> Option<Vec<FactEvidence>> {
    let PlanField::Known(Value::Object(approved)) = approved else {
        return None;
    };
    let changed: BTreeMap<&String, String> = match changed {
        PlanField::Known(Value::Object(changed)) => changed.iter().map(|(k, v)| (k, scalar(v))).collect(),
        _ => BTreeMap::new(),
    };
    let mut facts: BTreeMap<&String, FactEvidence> = approved
        .iter()
        .map(|(key, value)| {
            let approved = scalar(value);
            let now = changed.get(key).cloned();
            (
                key,
                FactEvidence {
                    key: key.clone(),
                    changed: now.as_ref().is_some_and(|now| *now != approved),
                    current: now.unwrap_or_else(|| approved.clone()),
                    approved: Some(approved),
                },
            )
        })
        .collect();
    // A changed fact with no approved value is still a change a reviewer must see.
    for (key, now) in changed {
        facts.entry(key).or_insert_with(|| FactEvidence {
            key: key.clone(),
            approved: None,
            current: now,
            changed: true,
        });
    }
    Some(facts.into_values().collect())
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The contract's level: a failed rule is not compliant; a review that is not current, a changed fact, or a rule
/// that warned or could not be checked needs attention.
fn judge(evidence: &ContractEvidence) -> (Level, Vec<String>) {
    let mut reasons = Vec::new();
    let failed = evidence.count(Status::Failed);
    if failed > 0 {
        reasons.push(format!("{} failed", plural(failed, "rule verdict", "rule verdicts")));
    }
    match evidence.review.review_status.as_deref() {
        Some(CURRENT) => {}
        Some(status) => reasons.push(format!("review status {status}")),
        None => reasons.push("no review status recorded".to_string()),
    }
    let changed = evidence.facts.iter().flatten().filter(|fact| fact.changed).count();
    if changed > 0 {
        reasons.push(format!("{} changed since approval", plural(changed, "fact", "facts")));
    }
    for (status, one, many) in [
        (Status::Warning, "warning", "warnings"),
        (Status::Skipped, "rule not checked", "rules not checked"),
    ] {
        let count = evidence.count(status);
        if count > 0 {
            reasons.push(plural(count, one, many));
        }
    }
    let level = if failed > 0 {
        Level::NotCompliant
    } else if reasons.is_empty() {
        Level::Compliant
    } else {
        Level::Attention
    };
    (level, reasons)
}

pub fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn summary(contracts: &[ContractEvidence], level: Level) -> String {
    let scope = plural(contracts.len(), "connection contract", "connection contracts");
    let passed: usize = contracts.iter().map(|c| c.count(Status::Passed)).sum();
    let excepted: usize = contracts.iter().map(|c| c.count(Status::Excepted)).sum();
    let mut verdicts = plural(passed, "rule verdict passed", "rule verdicts passed");
    if excepted > 0 {
        verdicts.push_str(&format!(", {excepted} by exception"));
    }
    let objects: usize = contracts.iter().map(|c| c.components.len()).sum();
    let objects = plural(objects, "composed object", "composed objects");
    let flagged: Vec<String> = contracts
        .iter()
        .filter(|c| !c.reasons.is_empty())
        .map(|c| format!("{}: {}", c.name, c.reasons.join(", ")))
        .collect();
    match level {
        Level::Compliant if contracts.is_empty() => "✅ No connection contract in this state.".to_string(),
        Level::Compliant => format!("✅ Current — {scope}, each reviewed and current; {verdicts}; {objects}."),
        Level::Attention => format!(
            "⚠️ Needs attention — {scope}; {verdicts}; {objects}; {}.",
            flagged.join("; ")
        ),
        Level::NotCompliant => format!("❌ Not compliant — {scope}; {}.", flagged.join("; ")),
    }
}
