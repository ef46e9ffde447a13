//! The allocation's configuration read into the engine's `Allocation`, its `governance` value, and the per-type
//! summary a reviewer reads in `capacity`.

use std::collections::BTreeMap;

use crate::governance::{Allocation, Capacity, TenantCapacity, capacity, shapes};
use crate::protocol::object::{object, string};
use crate::protocol::value::Value;
use crate::resources::quota_share;

/// The teams as the configuration gives them, or `None` while any part is unknown.
pub fn allocation_from_value(value: &Value) -> Option<Allocation> {
    let cluster_name = string(value, "cluster_name")?;
    let Some(Value::Map(teams)) = value.get_attr("teams") else {
        return None;
    };
    let teams = teams
        .iter()
        .map(|(team, row)| Some((team.clone(), quota_share::decode_list(row.get_attr("quota")?)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Allocation { cluster_name, teams })
}

/// An allocation's `governance` (team -> its share as one line), as a tenant or binding receives it; `None` while
/// unknown.
pub fn allocation_from_governance(facts: &Value) -> Option<Allocation> {
    let cluster_name = string(facts, "cluster_name")?;
    let Some(Value::Map(teams)) = facts.get_attr("teams") else {
        return None;
    };
    let teams = teams
        .iter()
        .map(|(team, line)| match line {
            Value::String(line) => Some((team.clone(), quota_share::from_text(line)?)),
            _ => None,
        })
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Allocation { cluster_name, teams })
}

/// `governance`: the cluster and each team's share as one line (unknown while its entries are).
pub fn governance_value(value: &Value) -> Value {
    let teams = match value.get_attr("teams") {
        Some(Value::Map(teams)) => Value::Map(
            teams
                .iter()
                .map(|(team, row)| {
                    let line = row
                        .get_attr("quota")
                        .and_then(quota_share::decode_list)
                        .map_or(Value::Unknown, |shares| Value::String(quota_share::to_text(&shares)));
                    (team.clone(), line)
                })
                .collect(),
        ),
        Some(Value::Null) | None => Value::Map(BTreeMap::new()),
        Some(_) => Value::Unknown,
    };
    object([
        (
            "cluster_name",
            value.get_attr("cluster_name").cloned().unwrap_or(Value::Null),
        ),
        ("teams", teams),
    ])
}

/// Per instance type of the instance groups or the shares: what the groups hold and who is guaranteed what, e.g.
/// `8 instances (64 accelerators, 1536 vCPU, 16384 GiB): production 6 instances, research 2 instances`.
/// `live` are the cluster's quotas of teams the allocation does not list (they hold capacity all the same).
pub fn capacity_summary(
    allocation: &Allocation,
    groups: &[Capacity],
    live: &[TenantCapacity],
) -> BTreeMap<String, String> {
    let mut types: Vec<&str> = groups.iter().map(|g| g.instance_type.as_str()).collect();
    types.extend(allocation.teams.values().flatten().map(|s| s.instance_type.as_str()));
    types.sort_unstable();
    types.dedup();
    let unlisted: Vec<&TenantCapacity> = live
        .iter()
        .filter(|t| !allocation.teams.contains_key(&t.team))
        .collect();
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
            let mut shares: Vec<String> = unlisted
                .iter()
                .flat_map(|t| {
                    t.quota
                        .iter()
                        .filter(|s| s.instance_type == instance_type)
                        .map(|s| format!("{} {} (live, not listed)", t.team, capacity::amount_as_given(s)))
                })
                .collect();
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
