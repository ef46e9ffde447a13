//! Import by `<cluster>/<project role name>` or by identity (the cluster's name and the role's ARN). What an import
//! can name is the principal; the next plan derives the rest from the configuration and shows the additions it would
//! make, which apply then records (an imported entry counts as adopted).

use std::collections::BTreeMap;

use super::schema::{self, RestrictionIdentity, RestrictionModel, TYPE_NAME};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::model::Field;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub fn import(client: &HyperpodClient, null_state: Value, target: &ImportTarget) -> Result<Value, Diagnostics> {
    let (cluster, role) = crate::resources::import_id::two_parts(
        target,
        TYPE_NAME,
        [
            RestrictionIdentity::CLUSTER_NAME.name(),
            RestrictionIdentity::PROJECT_ROLE_ARN.name(),
        ],
        "ml-capacity/datazone_usr_role_research",
    )?;
    // The `id` form names the role; the identity names its ARN. Both mean a role of the provider's account.
    let role = if role.starts_with("arn:") {
        role
    } else {
        format!(
            "arn:{}:iam::{}:role/{role}",
            client.region.partition(),
            client.account_id
        )
    };
    let mut state = null_state;
    RestrictionModel::CLUSTER_NAME.set(&mut state, &Field::Known(cluster));
    RestrictionModel::PROJECT_ROLE_ARN.set(&mut state, &Field::Known(role));
    RestrictionModel::COMPONENTS.set(&mut state, &Field::Known(BTreeMap::new()));
    Ok(state)
}

/// The identity of a recorded restriction: its cluster's name and the project role's ARN.
pub fn identity(state: &Value) -> Option<Value> {
    Some(schema::identity(
        &RestrictionModel::CLUSTER_NAME.known(state)?,
        &RestrictionModel::PROJECT_ROLE_ARN.known(state)?,
    ))
}
