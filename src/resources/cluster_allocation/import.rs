//! Import by the cluster's name (or identity): the allocation that holds the cluster's claim (`claim`), with the
//! teams it records, so that a `removed` block in one configuration and an `import` block in another move it without
//! a refusal. A cluster nobody claims is recorded with no team; the next apply records the configuration's.

use std::collections::BTreeMap;

use super::schema::{AllocationIdentity, AllocationModel, TYPE_NAME};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub async fn import(client: &HyperpodClient, null_state: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
    let name = match target {
        ImportTarget::Id(id) => id,
        ImportTarget::Identity(identity) => {
            (AllocationIdentity::decode(&identity)?.cluster_name.known()).unwrap_or_default()
        }
    };
    if name.trim().is_empty() {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Missing import ID",
            format!("Import {TYPE_NAME} by the cluster's name."),
        ));
    }
    let teams = match super::apply::claim::find(client, &name).await? {
        Some(claimed) => claimed_teams(&name, &claimed)?,
        None => Value::Map(BTreeMap::new()),
    };
    let mut state = null_state;
    AllocationModel::ID.set(&mut state, &Field::Known(name.clone()));
    AllocationModel::CLUSTER_NAME.set(&mut state, &Field::Known(name));
    AllocationModel::TEAMS.set(&mut state, &Field::of_value(&teams));
    let governance = super::model::governance(&state);
    AllocationModel::GOVERNANCE.set(&mut state, &governance);
    Ok(state)
}

/// The teams a claim records, as the `teams` attribute.
fn claimed_teams(cluster_name: &str, claimed: &serde_json::Value) -> Result<Value, Diagnostics> {
    let ty = super::apply::claim::teams_type();
    Value::from_json(claimed, ty).map_err(|err| {
        Diagnostics::error(
            AllocationModel::TEAMS.path(),
            "The cluster's claim does not read as an allocation's teams",
            format!(
                "{}: {err}. Remove the parameter if no allocation holds the cluster, then import again.",
                super::apply::claim::parameter_name(cluster_name)
            ),
        )
    })
}

/// The identity of a recorded allocation: its cluster's name.
pub fn identity(state: &Value) -> Option<Value> {
    let cluster_name = AllocationModel::CLUSTER_NAME.known(state)?;
    Some(
        AllocationIdentity {
            cluster_name: Field::Known(cluster_name),
        }
        .encode(),
    )
}
