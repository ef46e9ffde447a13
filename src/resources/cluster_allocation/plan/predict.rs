//! The allocation's planned state: `id` (the cluster's name), `cluster_arn`, `governance` (what tenants and bindings
//! reference) and `capacity`, per instance type what the groups hold and who is guaranteed what. Unknown while what
//! it is made of is.

use std::collections::BTreeMap;

use super::super::model::governance;
use super::super::schema::AllocationModel;
use super::AllocationPlanInputs;
use crate::governance::{Allocation, Capacity, capacity, shapes};
use crate::protocol::model::Field;
use crate::protocol::value::Value;

pub fn predict(inputs: &AllocationPlanInputs, value: &mut Value) {
    AllocationModel::GOVERNANCE.set(value, &governance(value));
    let (Some(cluster_name), Some(cluster)) = (&inputs.config.cluster_name, &inputs.cluster) else {
        AllocationModel::ID.set(value, &Field::Unknown);
        AllocationModel::CLUSTER_ARN.set(value, &Field::Unknown);
        AllocationModel::CAPACITY.set(value, &Field::Unknown);
        return;
    };
    AllocationModel::ID.set(value, &Field::Known(cluster_name.clone()));
    AllocationModel::CLUSTER_ARN.set(value, &Field::Known(cluster.arn.clone()));
    let Some(allocation) = &inputs.config.allocation else {
        AllocationModel::CAPACITY.set(value, &Field::Unknown);
        return;
    };
    // The allocation's shares against the instance groups, nothing live beside them: another pipeline's quota may
    // come or go between this plan and its apply, and Terraform's re-plan at apply must read the same
    // (`docs/design/where-rules-run.md`). Live quotas of teams it does not list count in the tenants' WKL-3 refusals.
    let summary = capacity_summary(allocation, &cluster.instance_groups);
    let capacity = summary
        .into_iter()
        .map(|(instance_type, line)| (instance_type, Field::Known(line)));
    AllocationModel::CAPACITY.set(value, &Field::Known(capacity.collect()));
}
/// Per instance type of the instance groups or the shares: what the groups hold and who is guaranteed what, e.g.
/// `8 instances (64 accelerators, 1536 vCPU, 16384 GiB): production 6 instances, research 2 instances`.
pub fn capacity_summary(allocation: &Allocation, groups: &[Capacity]) -> BTreeMap<String, String> {
    let mut types: Vec<&str> = groups.iter().map(|g| g.instance_type.as_str()).collect();
    types.extend(allocation.teams.values().flatten().map(|s| s.instance_type.as_str()));
    types.sort_unstable();
    types.dedup();
    types
        .into_iter()
        .map(|instance_type| {
            let instances: i64 = groups
                .iter()
                .filter(|g| g.instance_type == instance_type)
                .map(|g| g.count)
                .sum();
            let held = match shapes::shape(instance_type) {
                Some(shape) => format!(
                    "{instances} instances ({} accelerators, {} vCPU, {} GiB)",
                    instances * shape.accelerators,
                    instances as f64 * shape.vcpu,
                    instances as f64 * shape.memory_gib
                ),
                None => format!("{instances} instances (shape unknown to the provider)"),
            };
            let mut shares: Vec<String> = Vec::new();
            for (team, row) in &allocation.teams {
                shares.extend(
                    row.iter()
                        .filter(|s| s.instance_type == instance_type)
                        .map(|s| format!("{team} {}", capacity::amount_as_given(s))),
                );
            }
            let guaranteed = if shares.is_empty() {
                "none guaranteed".to_string()
            } else {
                shares.join(", ")
            };
            (instance_type.to_string(), format!("{held}: {guaranteed}"))
        })
        .collect()
}
