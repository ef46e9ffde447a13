//! `hyperpod_cluster_allocation` schema.

use crate::names::ENTITY_NAME;
use crate::names::TEAM_NAME;
use crate::protocol::diagnostics::Diagnostics;
use std::collections::BTreeMap;

use crate::protocol::model::{Field, Known, Model};
use crate::protocol::schema::{IdentitySchema, Schema, Validator};
use crate::protocol::validators::{LengthBetween, Matches};
use crate::protocol::value::{Type, Value};
use crate::resources::governance_objects::{AllocationGovernance, SharingRecord};
use crate::resources::quota_entry::QuotaEntry;

pub const TYPE_NAME: &str = "hyperpod_cluster_allocation";

/// `hyperpod_cluster_allocation.<name>.governance` (`AllocationGovernance`).
pub fn governance_type() -> Type {
    <AllocationGovernance as Known>::terraform_type()
}

/// The documented split of one HyperPod cluster's guaranteed capacity: every team's share, in one place the
/// reviewer reads. One allocation per cluster: it claims the cluster in a Parameter Store parameter
/// (`/hyperpod-governance/cluster-allocations/<cluster>`, recording its teams), and a second allocation of the
/// cluster, in this configuration or another, is refused at `cluster_name` (WKL-3). Each `hyperpod_tenant` of the
/// cluster references it (`allocation = hyperpod_cluster_allocation.<name>.governance`), so WKL-3 counts every
/// team planned in the configuration on the first plan, whatever order Terraform plans them in; each project
/// binding references it too, so CLU-2 sees the cluster's other teams. Where the shares overcommit an instance
/// type, teams are admitted by name and the allocation is refused at the entry of the team that does not fit
/// (WKL-3; that team's tenant defers to it). `capacity` shows each instance type's total beside what the instance
/// groups hold.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AllocationModel {
    /// The cluster's name, known at plan time. Also the import ID: import takes over the cluster's claim with the
    /// teams it records.
    #[tf(computed)]
    pub id: Field<String>,
    /// Name of the HyperPod cluster (EKS or Slurm) whose capacity this divides. Checked at plan.
    #[tf(required, requires_replace, validate = cluster_name())]
    pub cluster_name: Field<String>,
    /// ARN of the HyperPod cluster, resolved at plan time.
    #[tf(computed)]
    pub cluster_arn: Field<String>,
    /// Every team's guaranteed share, by team name (the tenant's `team`, `hyperpod-ns-<team>`). A team's tenant
    /// must ask for exactly this quota (WKL-3); a team listed here but without a tenant yet still holds its share.
    #[tf(required, nested = map)]
    pub teams: Field<BTreeMap<String, Field<TeamShare>>>,
    /// Per instance type: what the instance groups hold and each team's guaranteed share in the unit it was given
    /// (live quotas of teams not listed too), e.g. `8 instances (64 accelerators, 1536 vCPU, 16384 GiB): production
    /// 5 instances, research 2 instances`.
    #[tf(computed)]
    pub capacity: Field<BTreeMap<String, Field<String>>>,
    /// The facts tenants and bindings check against, known at plan time: pass it as their `allocation`.
    #[tf(computed)]
    pub governance: Field<AllocationGovernance>,
}

/// One team's entry in `teams`.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TeamShare {
    /// The team's guaranteed capacity, one entry per instance type (`count`, or `accelerators`, `vcpu`,
    /// `memory_gib`): what its `hyperpod_tenant` writes in its `quota` blocks.
    #[tf(required, nested)]
    pub quota: Field<Vec<QuotaEntry>>,
    /// How the team shares idle capacity (`ResourceSharingConfig`): who lends is part of the cluster's capacity
    /// picture, so two teams that lend to each other plan on the first plan, without naming each other in
    /// `borrows_from`. The team's tenant must share exactly so, its default spelled out or not (WKL-5). Unset: the
    /// allocation records nothing of the team's sharing.
    #[tf(nested = single)]
    pub sharing: Field<SharingRecord>,
}

fn cluster_name() -> Matches {
    Matches::new(
        ENTITY_NAME,
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
    )
}

pub fn schema() -> Schema {
    // 1 (0.4.0): `governance.teams` holds each team's entries, not one line of text per team (`STATE_UPGRADERS`).
    Schema {
        version: 1,
        block: AllocationModel::block(),
    }
}

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

/// The allocation's identity: its cluster.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AllocationIdentity {
    /// The HyperPod cluster's name.
    #[tf(required)]
    pub cluster_name: Field<String>,
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &AllocationIdentity::block())
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
