//! `hyperpod_cluster_allocation` schema: its state upgrader and what `terraform validate` checks beyond the
//! declaration's validators (team names).

use crate::names::TEAM_NAME;
use crate::protocol::diagnostics::Diagnostics;

use crate::protocol::schema::Validator;
use crate::protocol::validators::{LengthBetween, Matches};
use crate::protocol::value::Value;
use crate::resources::governance_objects::AllocationGovernance;

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`cluster_allocation.rs`), below the provider and the report alike.
pub use hyperpod_declarations::cluster_allocation::*;

/// Schema version 1 (0.4.0): `governance.teams` carries each team's quota entries as objects, the tenant's own
/// entry type, instead of one line of text per team.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`governance.teams` holds each team's quota entries instead of one line of text per team",
        upgrade: upgrade_state,
    }];

/// The step from version 0: `governance.teams` is what `teams` holds, each team's `quota` entries (the line was
/// written from them), so the first plan after the upgrade shows no change.
pub fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    use serde_json::Value as Json;
    let teams = AllocationGovernance::TEAMS.name();
    let entries: serde_json::Map<String, Json> = match state.get(AllocationModel::TEAMS.name()) {
        Some(Json::Object(rows)) => (rows.iter())
            .map(|(team, row)| {
                (
                    team.clone(),
                    (row.get(TeamShare::QUOTA.name()).cloned()).unwrap_or(Json::Array(Vec::new())),
                )
            })
            .collect(),
        Some(Json::Null) | None => serde_json::Map::new(),
        Some(other) => return Err(format!("`{teams}` is not a map of teams: {other}")),
    };
    if let Some(Json::Object(governance)) = state.get_mut(AllocationModel::GOVERNANCE.name()) {
        governance.insert(teams.to_string(), Json::Object(entries));
    }
    Ok(())
}

/// What `terraform validate` checks beyond the attributes' validators: the team names (the map's keys) and every
/// quota entry, at its path.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    validate_team_names(config, diagnostics);
    if let Some(Value::Map(teams)) = config.get_attr(AllocationModel::TEAMS.name()) {
        for (team, row) in teams {
            let entries = crate::protocol::object::elements(row, TeamShare::QUOTA.name());
            let at = AllocationModel::TEAMS
                .path()
                .key(team)
                .push_attr(TeamShare::QUOTA.name());
            crate::resources::quota_entry::validate_entries(entries, &at, diagnostics);
        }
    }
}

/// Validates each key of `teams` as the tenant validates its `team` (SageMaker's `TeamName`).
fn validate_team_names(config: &Value, diagnostics: &mut Diagnostics) {
    let Some(Value::Map(teams)) = config.get_attr(AllocationModel::TEAMS.name()) else {
        return;
    };
    let pattern = Matches::new(
        TEAM_NAME,
        "1 to 40 lowercase letters, digits and hyphens, starting and ending with a letter or digit",
    );
    let length = LengthBetween { min: 1, max: 40 };
    for team in teams.keys() {
        let at = AllocationModel::TEAMS.path().key(team);
        let name = Value::String(team.clone());
        length.validate(&at, &name, diagnostics);
        pattern.validate(&at, &name, diagnostics);
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::resource::Resource;
    use crate::resources::cluster_allocation::ClusterAllocationResource;

    /// State as version 0 stored it: each team's share as one line in `governance.teams`.
    const VERSION_0: &str = r#"{
        "id": "ml-capacity", "cluster_name": "ml-capacity",
        "teams": {
            "alpha": {"quota": [{"instance_type": "ml.p5.48xlarge", "count": 2, "accelerators": null, "vcpu": null,
                                 "memory_gib": null, "accelerator_partition": null}],
                      "sharing": {"strategy": "Lend", "borrow_limit": null}},
            "beta": {"quota": [{"instance_type": "ml.p4d.24xlarge", "count": null, "accelerators": null, "vcpu": 12.5,
                                "memory_gib": null, "accelerator_partition": {"type": "mig-1g.5gb", "count": 14}}],
                     "sharing": null}
        },
        "capacity": null,
        "governance": {"cluster_name": "ml-capacity",
                       "teams": {"alpha": "ml.p5.48xlarge count=2", "beta": "ml.p4d.24xlarge vcpu=12.5 mig-1g.5gb=14"},
                       "sharing": {"alpha": {"strategy": "Lend", "borrow_limit": null}}}
    }"#;

    #[test]
    fn a_version_0_state_upgrades_to_the_entries_its_lines_were_written_from() {
        let resource = ClusterAllocationResource::default();
        assert_eq!(resource.schema().version, 1);
        let upgraded = resource.upgrade_state(0, VERSION_0.as_bytes()).expect("upgraded");
        // What plan computes from the same configuration: the first plan after the upgrade shows no change.
        let computed = crate::protocol::model::FieldType::encode(&super::super::model::governance(&upgraded));
        assert_eq!(upgraded.get_attr("governance"), Some(&computed));
        let allocation = crate::resources::references::allocation_from_governance(&computed).expect("known");
        assert_eq!(allocation.teams["beta"][0].vcpu, Some(12.5));
        assert_eq!(allocation.teams["alpha"][0].count, Some(2));
    }
}
