//! The allocation's configuration, typed (`AllocationConfig`, from the declaration `AllocationModel`), and its
//! `governance` value: the handoff every tenant and binding of the cluster reads back
//! (`resources::references::allocation_from_governance`).

use std::collections::BTreeMap;

use super::schema::{AllocationModel, TeamShare};
use crate::governance::Allocation;
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;
use crate::resources::governance_objects::{AllocationGovernance, SharingRecord};
use crate::resources::quota_entry::QuotaEntry;
use crate::resources::references::sharing_of;

/// What the configuration says: the cluster by name and every team's share, each `None` while unknown (the
/// cluster's name from a resource not created yet; a share from a variable known only at apply).
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationConfig {
    pub cluster_name: Option<String>,
    pub allocation: Option<Allocation>,
}

impl AllocationConfig {
    /// A value that does not decode (kept out by the validators) reads as unknown throughout.
    pub fn decode(value: &Value) -> Self {
        let model = AllocationModel::decode(value).unwrap_or_else(|_| AllocationModel {
            cluster_name: Field::Unknown,
            teams: Field::Unknown,
            ..AllocationModel::default()
        });
        Self {
            cluster_name: model.cluster_name.as_known().cloned(),
            allocation: allocation_of(&model),
        }
    }
}

/// The teams as the configuration gives them, or `None` while any part is unknown.
fn allocation_of(model: &AllocationModel) -> Option<Allocation> {
    let teams = model.teams.as_known()?;
    let sharing = recorded(teams)
        .map(|(team, row)| Some((team.clone(), sharing_of(row.as_known()?)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    let teams = (teams.iter())
        .map(|(team, row)| Some((team.clone(), QuotaEntry::shares(row.as_known()?.quota.as_known()?)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Allocation {
        cluster_name: model.cluster_name.as_known()?.clone(),
        teams,
        sharing,
    })
}

/// The teams whose entry records its sharing; a team whose entry is unknown, with its sharing unknown.
fn recorded(teams: &BTreeMap<String, Field<TeamShare>>) -> impl Iterator<Item = (&String, Field<&SharingRecord>)> {
    (teams.iter())
        .map(|(team, row)| {
            let sharing = match row {
                Field::Known(row) => match &row.sharing {
                    Field::Known(sharing) => Field::Known(sharing),
                    Field::Null => Field::Null,
                    _ => Field::Unknown,
                },
                _ => Field::Unknown,
            };
            (team, sharing)
        })
        .filter(|(_, sharing)| *sharing != Field::Null)
}

/// `governance.sharing`: each team whose entry records its sharing (unknown while any record is).
fn governance_sharing(teams: &BTreeMap<String, Field<TeamShare>>) -> Field<BTreeMap<String, SharingRecord>> {
    let rows: Option<BTreeMap<String, SharingRecord>> = recorded(teams)
        .map(|(team, row)| {
            let row = sharing_of(row.as_known()?)?;
            let record = SharingRecord {
                strategy: Field::Known(row.strategy.to_string()),
                borrow_limit: row.borrow_limit.into(),
            };
            Some((team.clone(), record))
        })
        .collect();
    rows.map_or(Field::Unknown, Field::Known)
}

/// `governance`: the cluster and each team's entries as configured (unknown parts stay unknown).
pub fn governance(value: &Value) -> Field<AllocationGovernance> {
    Field::Known(governance_of(&AllocationModel::decode(value).unwrap_or_default()))
}

fn governance_of(model: &AllocationModel) -> AllocationGovernance {
    let (teams, sharing) = match &model.teams {
        Field::Known(teams) => (
            Field::Known(
                (teams.iter())
                    .map(|(team, row)| {
                        let quota = match row.as_known().map(|row| &row.quota) {
                            Some(Field::Null) => Field::Known(Vec::new()),
                            Some(quota) => quota.clone(),
                            None => Field::Unknown,
                        };
                        (team.clone(), quota)
                    })
                    .collect(),
            ),
            governance_sharing(teams),
        ),
        Field::Null => (Field::Known(BTreeMap::new()), Field::Known(BTreeMap::new())),
        Field::Unknown | Field::Invalid => (Field::Unknown, Field::Unknown),
    };
    AllocationGovernance {
        cluster_name: model.cluster_name.clone(),
        teams,
        sharing,
    }
}

/// The cluster's name in a planned or recorded value, when known.
pub fn cluster_name(value: &Value) -> Option<String> {
    AllocationModel::CLUSTER_NAME.known(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::object;

    #[test]
    fn a_team_known_only_at_apply_stays_unknown_in_governance_and_the_others_known() {
        let entry = QuotaEntry::from(&crate::governance::QuotaShare::instances("ml.p5.48xlarge", 2)).encode();
        let alpha = object([("quota", Value::List(vec![entry])), ("sharing", Value::Null)]);
        let value = object([
            ("cluster_name", Value::String("ml-capacity".into())),
            (
                "teams",
                Value::Map([("alpha".to_string(), alpha), ("beta".to_string(), Value::Unknown)].into()),
            ),
        ]);
        let Field::Known(governance) = governance(&value) else {
            panic!("known")
        };
        let teams = governance.teams.known().expect("the map is known");
        assert!(matches!(&teams["alpha"], Field::Known(entries) if entries.len() == 1));
        assert_eq!(teams["beta"], Field::Unknown, "not a team with no entries");
        assert_eq!(governance.sharing, Field::Unknown, "beta may record its sharing");
        assert_eq!(
            AllocationConfig::decode(&value).allocation,
            None,
            "WKL-3 waits for apply"
        );
    }
}
