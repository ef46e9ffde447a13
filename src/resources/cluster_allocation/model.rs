//! The allocation's configuration, typed (`AllocationConfig`), and its `governance` value: the handoff every tenant
//! and binding of the cluster reads back (`resources::references::allocation_from_governance`).

use std::collections::BTreeMap;

use crate::governance::Allocation;
use crate::protocol::object::{object, string};
use crate::protocol::value::Value;
use crate::resources::quota_share;

/// What the configuration says: the cluster by name and every team's share, each `None` while unknown (the
/// cluster's name from a resource not created yet; a share from a variable known only at apply).
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationConfig {
    pub cluster_name: Option<String>,
    pub allocation: Option<Allocation>,
}

impl AllocationConfig {
    pub fn decode(value: &Value) -> Self {
        Self {
            cluster_name: string(value, "cluster_name"),
            allocation: allocation_from_value(value),
        }
    }
}

/// The teams as the configuration gives them, or `None` while any part is unknown.
fn allocation_from_value(value: &Value) -> Option<Allocation> {
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
