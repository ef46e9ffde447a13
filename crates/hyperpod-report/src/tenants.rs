//! What each tenant gets, in words for the report's table: namespace, guaranteed capacity, sharing, priority and
//! who can see and act, from the tenant's planned values (or "not planned" when its plan failed).

use std::collections::BTreeMap;

use super::associate::shown;
use super::model::{Governed, TenantSummary};
use super::plan::{Plan, PlanField, ResourceChange, Values};
use hyperpod_declarations::quota_entry::{PartitionBlock, QuotaEntry};
use hyperpod_declarations::tenant::{self, SharingBlock, TenantModel as T, TenantSlurmBlock};
use hyperpod_governance::Unit;

pub fn tenants(
    plan: &Plan,
    governed: &[&ResourceChange],
    resources: &BTreeMap<String, Governed>,
) -> Vec<TenantSummary> {
    let contract = |address: &str| resources.get(address).and_then(|r| r.contract);
    let mut tenants: Vec<TenantSummary> = governed
        .iter()
        .filter(|c| c.resource_type == tenant::TYPE_NAME && c.after.is_present())
        .map(|change| tenant(&change.address, &change.after, contract(&change.address)))
        .collect();
    // A tenant whose plan failed: it gets nothing, and says so.
    for resource in resources.values() {
        if resource.resource_type == tenant::TYPE_NAME && !resource.planned {
            let configured = plan.configuration.get(&super::plan::without_keys(&resource.address));
            let team = configured
                .and_then(|c| c.team.clone())
                .unwrap_or_else(|| resource.address.rsplit('.').next().unwrap_or_default().to_string());
            let none = "—".to_string();
            tenants.push(TenantSummary {
                address: resource.address.clone(),
                team,
                namespace: "not planned: its plan failed".to_string(),
                guaranteed: none.clone(),
                sharing: none.clone(),
                priority: none.clone(),
                viewers: none.clone(),
                operators: none,
                cluster: None,
                contract: resource.contract,
                planned: false,
            });
        }
    }
    tenants.sort_by(|a, b| a.address.cmp(&b.address));
    tenants
}

fn tenant(address: &str, after: &Values, contract: Option<usize>) -> TenantSummary {
    let slurm = matches!(after.get(&[T::SLURM.name()]), PlanField::Known(_));
    let team = shown(after.get(&[T::TEAM.name()]));
    let (namespace, priority, viewers, operators) = if slurm {
        (
            format!("Slurm account {team}"),
            format!(
                "QoS {} ({})",
                shown(after.get(&[T::SLURM.name(), TenantSlurmBlock::QOS_PRIORITY.name()])),
                shown(after.get(&[T::SLURM.name(), TenantSlurmBlock::FAIRSHARE.name()]))
            ),
            "—".to_string(),
            who(after, &[T::SLURM.name(), TenantSlurmBlock::USERS.name()], None),
        )
    } else {
        (
            shown(after.get(&[T::NAMESPACE.name()])),
            format!(
                "{} ({})",
                shown(after.get(&[T::PRIORITY_CLASS.name()])),
                shown(after.get(&[T::FAIR_SHARE_WEIGHT.name()]))
            ),
            who(
                after,
                &[T::VIEWER_GROUPS.name()],
                Some(&[T::VIEWER_PRINCIPAL_ARNS.name()]),
            ),
            who(
                after,
                &[T::OPERATOR_GROUPS.name()],
                Some(&[T::OPERATOR_PRINCIPAL_ARNS.name()]),
            ),
        )
    };
    TenantSummary {
        address: address.to_string(),
        team,
        namespace,
        guaranteed: guaranteed(after),
        sharing: sharing(after),
        priority,
        viewers,
        operators,
        cluster: after.get(&[T::CLUSTER_NAME.name()]).as_text(),
        contract,
        planned: true,
    }
}

/// The names at `path`: an error saying so when the list is not known yet.
fn listed(after: &Values, path: &[&str]) -> Result<Vec<String>, String> {
    match after.get(path) {
        PlanField::Unknown => Err("(known after apply)".to_string()),
        PlanField::Known(serde_json::Value::Array(items)) => Ok(items
            .iter()
            .map(|item| item.as_str().map_or("(known after apply)".to_string(), str::to_string))
            .collect()),
        _ => Ok(Vec::new()),
    }
}

/// The groups and the principals (short ARNs) named at two paths (a Slurm tenant names users only), `—` when none.
fn who(after: &Values, groups: &[&str], principals: Option<&[&str]>) -> String {
    let principals = principals.map_or(Ok(Vec::new()), |path| listed(after, path));
    match (listed(after, groups), principals) {
        (Err(unknown), _) | (_, Err(unknown)) => unknown,
        (Ok(groups), Ok(principals)) => {
            let principals: Vec<String> = principals.iter().map(|arn| short_arn(arn)).collect();
            let text = [groups.join(", "), principals.join(", ")]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" · ");
            if text.is_empty() { "—".to_string() } else { text }
        }
    }
}

/// The sharing strategy and the borrow limit, `—` when the tenant does not share.
fn sharing(after: &Values) -> String {
    match (
        after.get(&[T::SHARING.name(), SharingBlock::STRATEGY.name()]),
        after.get(&[T::SHARING.name(), SharingBlock::BORROW_LIMIT.name()]),
    ) {
        (PlanField::Null, _) => "—".to_string(),
        (strategy, PlanField::Null) => shown(strategy),
        (strategy, limit) => format!("{}, borrows ≤ {} %", shown(strategy), shown(limit)),
    }
}

/// `5 × ml.p5.48xlarge, ml.p4d.24xlarge: 56 × mig-1g.5gb`: each entry's count, or its slices and amounts.
fn guaranteed(after: &Values) -> String {
    let blocks = match after.get(&[T::QUOTA.name()]) {
        PlanField::Unknown => return "(known after apply)".to_string(),
        PlanField::Known(serde_json::Value::Array(blocks)) => blocks.len(),
        _ => 0,
    };
    let parts: Vec<String> = (0..blocks)
        .map(|i| {
            let index = i.to_string();
            let field = |name: &str| after.get(&[T::QUOTA.name(), &index, name]);
            let instance_type = shown(field(QuotaEntry::INSTANCE_TYPE.name()));
            let partition =
                |name: &str| after.get(&[T::QUOTA.name(), &index, QuotaEntry::ACCELERATOR_PARTITION.name(), name]);
            let (slice_type, slices) = (PartitionBlock::TYPE.name(), PartitionBlock::COUNT.name());
            let mut amounts: Vec<String> = Vec::new();
            if !matches!(partition(slice_type), PlanField::Null) {
                amounts.push(format!(
                    "{} × {}",
                    shown(partition(slices)),
                    shown(partition(slice_type))
                ));
            }
            // Whole instances and slices are written apart (`2 × ml.p5.48xlarge`, `4 × mig-1g.10gb`).
            amounts.extend(
                (Unit::ALL.into_iter())
                    .filter(|unit| !matches!(unit, Unit::Count | Unit::AcceleratorPartition))
                    .filter(|unit| !matches!(field(unit.name()), PlanField::Null))
                    .map(|unit| format!("{} {}", shown(field(unit.name())), unit.symbol())),
            );
            match field(Unit::Count.name()) {
                PlanField::Null if !amounts.is_empty() => format!("{instance_type}: {}", amounts.join(", ")),
                count => format!("{} × {instance_type}", shown(count)),
            }
        })
        .collect();
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// `arn:aws:iam::123456789012:role/production-viewers` → `role/production-viewers`.
fn short_arn(arn: &str) -> String {
    match arn.splitn(6, ':').nth(5) {
        Some(resource) if arn.starts_with("arn:") => resource.to_string(),
        _ => arn.to_string(),
    }
}
