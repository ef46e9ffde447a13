//! One allocation per cluster. The allocation has no AWS object to collide on, so it keeps a claim where every
//! configuration and pipeline of the account can see it: the Parameter Store parameter
//! `/hyperpod-governance/cluster-allocations/<cluster>`, whose value records the teams of the allocation that holds
//! the cluster. An allocation holds a claim that records its own teams: as last applied (its state), or as planned
//! (an apply interrupted after the claim was written, adopted on the next one; an identical allocation elsewhere
//! agrees with it on every share, so taking its claim over loses nothing). A claim that records other teams belongs
//! to another allocation: plan refuses, and apply refuses before writing anything (WKL-3 at `cluster_name`).
//!
//! Creating the parameter is SSM's atomic test-and-set (PutParameter without Overwrite), so of two allocations of a
//! cluster applied at once, one holds the claim and the other is refused, whichever order Terraform runs them in.

use serde_json::Value as Json;

use super::super::schema::AllocationModel;
use crate::aws::ssm;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::capacity::allocation_claimed_elsewhere;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::value::Value;

/// The parameter that claims `cluster_name`.
pub fn parameter_name(cluster_name: &str) -> String {
    format!("/hyperpod-governance/cluster-allocations/{cluster_name}")
}

/// Who holds a cluster's claim, as seen from one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    Nobody,
    /// This allocation: the claim records its teams as last applied or as planned.
    This,
    /// Another allocation, with these teams.
    Another {
        teams: Vec<String>,
    },
}

/// The parameter's value: the resource type that holds the claim and its teams (the allocation's `teams` attribute
/// as JSON). A stored format of its own, read by every version that may meet the parameter: its field names are
/// not the schema's to rename.
#[derive(serde::Serialize, serde::Deserialize)]
struct ClaimRecord {
    #[serde(default)]
    resource: String,
    teams: Json,
}

fn encode(teams: &Json) -> String {
    let record = ClaimRecord {
        resource: super::super::TYPE_NAME.to_string(),
        teams: teams.clone(),
    };
    serde_json::to_string(&record).unwrap_or_default()
}

/// The teams a claim records; a value that does not read as a claim records none (and so is another's).
fn decode(text: &str) -> Json {
    serde_json::from_str::<ClaimRecord>(text).map_or(Json::Null, |record| record.teams)
}

/// The allocation's `teams` as JSON: what its claim records. `None` while any part is unknown.
pub fn teams_json(value: &Value) -> Option<Json> {
    let teams = value.get_attr(AllocationModel::TEAMS.name())?;
    if !teams.is_wholly_known() {
        return None;
    }
    teams.to_json(teams_type()).ok()
}

/// The type of the allocation's `teams` attribute (a map of each team's quota and sharing), derived from the
/// schema once: every plan and apply of an allocation reads it.
pub fn teams_type() -> &'static crate::protocol::value::Type {
    static TEAMS: std::sync::OnceLock<crate::protocol::value::Type> = std::sync::OnceLock::new();
    TEAMS.get_or_init(|| {
        super::super::schema::schema()
            .block
            .find_attribute(AllocationModel::TEAMS.name())
            .map_or(
                crate::protocol::value::Type::Dynamic,
                crate::protocol::schema::Attribute::value_type,
            )
    })
}

/// Who holds the claim that records `claimed`, for an allocation whose own teams are `own` (as planned, and as last
/// applied).
pub fn holder(claimed: Option<&Json>, own: &[Option<&Json>]) -> Holder {
    let Some(claimed) = claimed else {
        return Holder::Nobody;
    };
    if own.iter().flatten().any(|teams| *teams == claimed) {
        return Holder::This;
    }
    let teams = claimed
        .as_object()
        .map(|teams| teams.keys().cloned().collect())
        .unwrap_or_default();
    Holder::Another { teams }
}

/// The teams the claim of `cluster_name` records, if there is one.
pub async fn find(client: &HyperpodClient, cluster_name: &str) -> Result<Option<Json>, Diagnostics> {
    let found = ssm::find_parameter(&client.ssm, &parameter_name(cluster_name))
        .await
        .map_err(|err| {
            err.diagnostics(
                AllocationModel::CLUSTER_NAME.path(),
                "Cannot read which allocation holds the cluster",
            )
        })?;
    Ok(found.map(|parameter| decode(&parameter.value)))
}

/// The refusal of an allocation whose cluster `holder` holds: `None` when it is free or this allocation's.
pub fn refusal(cluster_name: &str, holder: &Holder) -> Option<Diagnostics> {
    let Holder::Another { teams } = holder else {
        return None;
    };
    let finding = allocation_claimed_elsewhere(cluster_name, teams);
    Some(Diagnostics(vec![crate::findings::finding_diagnostic(&finding, false)]))
}

/// Takes the claim of `cluster_name` for `planned` teams (`prior`: the teams last applied, on an update), or refuses
/// when another allocation holds it. Nothing else of the allocation is written, so a refusal leaves nothing behind.
pub async fn take(
    client: &HyperpodClient,
    cluster_name: &str,
    planned: &Json,
    prior: Option<&Json>,
) -> Result<(), Diagnostics> {
    let name = parameter_name(cluster_name);
    let record = encode(planned);
    let failed = |err: crate::aws::AwsError| {
        err.diagnostics(
            AllocationModel::CLUSTER_NAME.path(),
            "Cannot record the allocation's claim on the cluster",
        )
    };
    // Twice at most: a claim released between the create and the read is free again.
    for _ in 0..2 {
        if ssm::create_parameter(&client.ssm, &name, &record, &client.default_tags)
            .await
            .map_err(failed)?
        {
            return Ok(());
        }
        let claimed = find(client, cluster_name).await?;
        match holder(claimed.as_ref(), &[Some(planned), prior]) {
            Holder::Nobody => {}
            Holder::This if claimed.as_ref() == Some(planned) => return Ok(()),
            Holder::This => {
                return ssm::overwrite_parameter(&client.ssm, &name, &record)
                    .await
                    .map_err(failed);
            }
            another @ Holder::Another { .. } => return Err(refusal(cluster_name, &another).unwrap_or_default()),
        }
    }
    Err(Diagnostics::error(
        AllocationModel::CLUSTER_NAME.path(),
        "Cannot record the allocation's claim on the cluster",
        format!("{name} was created and removed again while this apply took it; apply again."),
    ))
}

/// Gives up the claim of `cluster_name` when it records `teams` (this allocation's); another's stays.
pub async fn release(client: &HyperpodClient, cluster_name: &str, teams: Option<&Json>) -> Result<(), Diagnostics> {
    let claimed = find(client, cluster_name).await?;
    if holder(claimed.as_ref(), &[teams]) != Holder::This {
        return Ok(());
    }
    ssm::delete_parameter(&client.ssm, &parameter_name(cluster_name))
        .await
        .map_err(|err| {
            err.diagnostics(
                AttributePath::root(),
                "Cannot remove the allocation's claim on the cluster",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teams(names: &[&str]) -> Json {
        Json::Object(
            names
                .iter()
                .map(|n| (n.to_string(), serde_json::json!({"quota": []})))
                .collect(),
        )
    }

    #[test]
    fn a_claim_recording_this_allocations_teams_as_applied_or_planned_is_its_own() {
        let applied = teams(&["a"]);
        let planned = teams(&["a", "b"]);
        assert_eq!(holder(None, &[Some(&planned)]), Holder::Nobody);
        assert_eq!(holder(Some(&applied), &[Some(&planned), Some(&applied)]), Holder::This);
        // An apply interrupted after writing the claim: the next one finds its planned teams.
        assert_eq!(holder(Some(&planned), &[Some(&planned), None]), Holder::This);
        assert_eq!(
            holder(Some(&teams(&["x", "y"])), &[Some(&planned), Some(&applied)]),
            Holder::Another {
                teams: vec!["x".into(), "y".into()]
            }
        );
    }

    #[test]
    fn a_claim_that_does_not_read_as_one_is_anothers() {
        let planned = teams(&[]);
        let claimed = decode("written by hand");
        assert_eq!(
            holder(Some(&claimed), &[Some(&planned)]),
            Holder::Another { teams: vec![] }
        );
        assert_eq!(decode(&encode(&planned)), planned);
    }

    #[test]
    fn another_allocations_claim_is_refused_at_cluster_name() {
        let refused = refusal(
            "ml",
            &Holder::Another {
                teams: vec!["a".into()],
            },
        )
        .expect("refused");
        assert_eq!(refused.0[0].path.to_string(), "cluster_name");
        assert!(refused.0[0].summary.starts_with("[WKL-3]"));
        assert!(refusal("ml", &Holder::This).is_none());
        assert!(refusal("ml", &Holder::Nobody).is_none());
    }
}
