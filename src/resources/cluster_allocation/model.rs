//! The allocation's configuration, typed (`AllocationConfig`), and its `governance` value: the handoff every tenant
//! and binding of the cluster reads back (`resources::references::allocation_from_governance`).

use std::collections::BTreeMap;

use crate::governance::Allocation;
use crate::protocol::model::{Field, Model};
use crate::protocol::object::string;
use crate::protocol::value::Value;
use crate::resources::governance_objects::{AllocationGovernance, SharingRecord};
use crate::resources::quota_entry;

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
    let sharing = teams
        .iter()
        .filter_map(|(team, row)| Some((team, row.get_attr("sharing").filter(|s| !s.is_null())?)))
        .map(|(team, sharing)| Some((team.clone(), crate::resources::references::recorded_sharing(sharing)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    let teams = teams
        .iter()
        .map(|(team, row)| Some((team.clone(), quota_entry::decode_list(row.get_attr("quota")?)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Allocation {
        cluster_name,
        teams,
        sharing,
    })
}

/// `governance.sharing`: each team whose entry records its sharing (unknown while any record is).
fn governance_sharing(teams: &BTreeMap<String, Value>) -> Field<BTreeMap<String, SharingRecord>> {
    let recorded: Option<BTreeMap<String, SharingRecord>> = teams
        .iter()
        .filter_map(|(team, row)| Some((team, row.get_attr("sharing").filter(|s| !s.is_null())?)))
        .map(|(team, sharing)| {
            let row = crate::resources::references::recorded_sharing(sharing)?;
            Some((
                team.clone(),
                SharingRecord {
                    strategy: Field::Known(row.strategy.to_string()),
                    borrow_limit: row.borrow_limit.into(),
                },
            ))
        })
        .collect();
    recorded.map_or(Field::Unknown, Field::Known)
}

/// `governance`: the cluster and each team's entries as configured (unknown parts stay unknown).
pub fn governance_value(value: &Value) -> Value {
    let teams = match value.get_attr("teams") {
        Some(Value::Map(teams)) => Field::Known(
            (teams.iter())
                .map(|(team, row)| (team.clone(), quota_entry::governance_list(row.get_attr("quota"))))
                .collect(),
        ),
        Some(Value::Null) | None => Field::Known(BTreeMap::new()),
        Some(_) => Field::Unknown,
    };
    let sharing = match value.get_attr("teams") {
        Some(Value::Map(teams)) => governance_sharing(teams),
        Some(Value::Null) | None => Field::Known(BTreeMap::new()),
        Some(_) => Field::Unknown,
    };
    let cluster_name = value.get_attr("cluster_name").cloned().unwrap_or(Value::Null);
    AllocationGovernance {
        cluster_name: Field::of_value(&cluster_name),
        teams,
        sharing,
    }
    .encode()
}
