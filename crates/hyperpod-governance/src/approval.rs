//! LIF-2 on live facts: what a contract was approved against, as `key → value` text, and what differs now.
//!
//! The facts are what the account says, not the contract's own arguments: those are in the contract already, and a
//! change to them is compared with the contract as last applied (`lifecycle::material_changes`).
//!
//! At approval (create, or a new `review.last_reviewed` / `approved_by`) the contract records the facts below in its
//! `approved_facts`; every later plan reads them again and names each difference. Facts come in groups that are read
//! together: a group that cannot be read now is not compared (LIF-2 says so), and a group that could not be read at
//! approval was not recorded, so it is not compared until the next approval.

use std::collections::{BTreeMap, BTreeSet};

use time::Date;

use super::model::{Contract, EksCluster, Fact, Orchestrator};
use super::observability::{CLOUDWATCH_AGENT_POLICY, has_cloudwatch_agent_policy};
use super::{ContractLiveFacts, arns};

/// Fact key → value, as recorded in `approved_facts` and shown in `changed_facts`.
pub type Facts = BTreeMap<String, String>;

/// `changed_facts`' value for a fact that was approved and no longer exists (e.g. a removed instance group).
pub const ABSENT: &str = "(absent)";

/// The facts as they stand now: the known values, and the groups that could not be read, with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CurrentFacts {
    pub values: Facts,
    pub unavailable: BTreeMap<&'static str, String>,
}

/// One difference between the approved and the current facts (`None`: the fact does not exist on that side).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactChange {
    pub key: String,
    pub approved: Option<String>,
    pub current: Option<String>,
}

/// What LIF-2 compares: the differences, and the recorded groups that could not be read now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FactComparison {
    pub changes: Vec<FactChange>,
    pub unverified: Vec<String>,
}

const CLUSTER: &str = "cluster";
const ORCHESTRATOR: &str = "orchestrator";
const PROJECT_DOMAIN_UNIT: &str = "project/domain_unit";
const MONITORING: &str = "monitoring";
const INSTANCE_GROUP: &str = "instance_group/";
const NODE_ROLE: &str = "monitoring/node_role/";

/// The group a fact key belongs to: the facts read by one call, compared or skipped together.
fn group_of(key: &str) -> &'static str {
    if key == CLUSTER || key.starts_with(INSTANCE_GROUP) {
        CLUSTER
    } else if key == ORCHESTRATOR {
        ORCHESTRATOR
    } else if key == PROJECT_DOMAIN_UNIT {
        PROJECT_DOMAIN_UNIT
    } else {
        MONITORING
    }
}

/// `ml.p5.48xlarge × 8`: an instance group's type and current count.
fn group_value(instance_type: &str, count: i64) -> String {
    format!("{instance_type} × {count}")
}

/// The facts now, as the plan read them from the account.
pub fn current_facts(contract: &Contract, live: &ContractLiveFacts) -> CurrentFacts {
    let mut current = CurrentFacts::default();
    match &live.cluster {
        Fact::Known(Some(cluster)) => {
            current.values.insert(CLUSTER.into(), cluster.arn.clone());
            for group in &cluster.instance_groups {
                current.values.insert(
                    format!("{INSTANCE_GROUP}{}", group.name),
                    group_value(&group.capacity.instance_type, group.capacity.count),
                );
            }
            match (&cluster.orchestrator, &live.eks) {
                (Orchestrator::Slurm, _) => {
                    current.values.insert(ORCHESTRATOR.into(), "Slurm".into());
                }
                (Orchestrator::Eks, Some(Fact::Known(EksCluster { version, .. }))) => {
                    current.values.insert(ORCHESTRATOR.into(), format!("EKS {version}"));
                }
                (Orchestrator::Eks, Some(Fact::Unavailable(reason))) => {
                    current.unavailable.insert(ORCHESTRATOR, reason.clone());
                }
                (Orchestrator::Eks, None) => {
                    current
                        .unavailable
                        .insert(ORCHESTRATOR, "the EKS cluster was not read".into());
                }
            }
        }
        Fact::Known(None) => {
            let reason = format!("HyperPod cluster {:?} does not exist", contract.cluster.name);
            current.unavailable.insert(CLUSTER, reason.clone());
            current.unavailable.insert(ORCHESTRATOR, reason);
        }
        Fact::Unavailable(reason) => {
            current.unavailable.insert(CLUSTER, reason.clone());
            current.unavailable.insert(ORCHESTRATOR, reason.clone());
        }
    }
    // The project's ownership is the domain unit that owns it. Its memberships are not a fact: the project binding
    // in the same configuration writes them, and PRJ-1 judges them there.
    match &live.project {
        Fact::Known(project) => {
            current
                .values
                .insert(PROJECT_DOMAIN_UNIT.into(), project.domain_unit_id.clone());
        }
        Fact::Unavailable(reason) => {
            current.unavailable.insert(PROJECT_DOMAIN_UNIT, reason.clone());
        }
    }
    monitoring_facts(live, &mut current);
    current
}

/// Monitoring coverage (EKS only): the observability add-on's version and status, and the CloudWatch agent's policy
/// on each worker node role.
fn monitoring_facts(live: &ContractLiveFacts, current: &mut CurrentFacts) {
    let (Some(addon), Some(roles)) = (&live.observability_addon, &live.node_roles) else {
        return;
    };
    match (addon, roles) {
        (Fact::Known(addon), Fact::Known(roles)) => {
            let addon = match addon {
                Some(addon) => format!("{} {}", addon.version, addon.status),
                None => "not installed".into(),
            };
            current.values.insert("monitoring/addon".into(), addon);
            for role in roles {
                let name = arns::role_name(&role.role_arn).unwrap_or(&role.role_arn);
                let attached = if has_cloudwatch_agent_policy(role) {
                    "attached"
                } else {
                    "not attached"
                };
                current.values.insert(
                    format!("{NODE_ROLE}{name}"),
                    format!("{CLOUDWATCH_AGENT_POLICY} {attached}"),
                );
            }
        }
        (Fact::Unavailable(reason), _) | (_, Fact::Unavailable(reason)) => {
            current.unavailable.insert(MONITORING, reason.clone());
        }
    }
}

/// The current facts to record as approved (only what could be read).
pub fn to_record(current: &CurrentFacts) -> Facts {
    current.values.clone()
}

/// Every difference between `approved` and `current`, group by group. A group recorded at approval but unreadable
/// now is unverified; a group not recorded at approval is not compared.
pub fn compare(approved: &Facts, current: &CurrentFacts) -> FactComparison {
    let mut comparison = FactComparison::default();
    let recorded: BTreeSet<&str> = approved.keys().map(|key| group_of(key)).collect();
    for group in &recorded {
        if let Some(reason) = current.unavailable.get(group) {
            comparison.unverified.push(reason.clone());
        }
    }
    let keys: BTreeSet<&String> = approved.keys().chain(current.values.keys()).collect();
    for key in keys {
        let group = group_of(key);
        if !recorded.contains(group) || current.unavailable.contains_key(group) {
            continue;
        }
        let (before, after) = (approved.get(key), current.values.get(key));
        if before != after {
            comparison.changes.push(FactChange {
                key: key.clone(),
                approved: before.cloned(),
                current: after.cloned(),
            });
        }
    }
    comparison.unverified.dedup();
    comparison
}

/// `changed_facts`: each changed fact's current value, or [`ABSENT`].
pub fn changed_facts(changes: &[FactChange]) -> Facts {
    changes
        .iter()
        .map(|change| {
            (
                change.key.clone(),
                change.current.clone().unwrap_or_else(|| ABSENT.to_string()),
            )
        })
        .collect()
}

/// `(instance type, count)` of a [`group_value`].
fn parse_group(value: &str) -> Option<(&str, i64)> {
    let (instance_type, count) = value.rsplit_once(" × ")?;
    Some((instance_type, count.parse().ok()?))
}

/// One change in words: "instance group p5 grew 8 → 16", "orchestrator EKS 1.31 → EKS 1.32".
pub fn describe(change: &FactChange) -> String {
    let label = match change.key.strip_prefix(INSTANCE_GROUP) {
        Some(group) => format!("instance group {group}"),
        None => change.key.replace(['/', '_'], " "),
    };
    match (change.approved.as_deref(), change.current.as_deref()) {
        (Some(before), Some(after)) => match (parse_group(before), parse_group(after)) {
            (Some((type_before, n)), Some((type_after, m))) if type_before == type_after && n != m => {
                let verb = if m > n { "grew" } else { "shrank" };
                format!("{label} {verb} {n} → {m}")
            }
            _ => format!("{label} {before} → {after}"),
        },
        (None, Some(after)) => format!("{label} added ({after})"),
        (Some(before), None) => format!("{label} removed (was {before})"),
        (None, None) => label,
    }
}

/// All changes in words, with since when: "instance group p5 grew 8 → 16 since approval on 2026-11-21".
pub fn describe_all(changes: &[FactChange], approved_on: Date) -> String {
    let list: Vec<String> = changes.iter().map(describe).collect();
    format!("{} since approval on {approved_on}", list.join("; "))
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
