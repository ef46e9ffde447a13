//! Import by `<cluster>/<project role name>` or by identity (the cluster's name and the role's ARN). What an import
//! can name is the principal; the next plan derives the rest from the configuration and shows the additions it would
//! make, which apply then records (an imported entry counts as adopted).

use std::collections::BTreeMap;

use super::schema::{self, TYPE_NAME};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::{string, text};
use crate::protocol::plan::set_attr;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub fn import(client: &HyperpodClient, null_state: Value, target: &ImportTarget) -> Result<Value, Diagnostics> {
    let (cluster, role) = crate::resources::import_id::two_parts(
        target,
        TYPE_NAME,
        ["cluster_name", "project_role_arn"],
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
    set_attr(&mut state, "cluster_name", text(&cluster));
    set_attr(&mut state, "project_role_arn", text(&role));
    set_attr(&mut state, "components", Value::Map(BTreeMap::new()));
    Ok(state)
}

/// The identity of a recorded restriction: its cluster's name and the project role's ARN.
pub fn identity(state: &Value) -> Option<Value> {
    Some(schema::identity(
        &string(state, "cluster_name")?,
        &string(state, "project_role_arn")?,
    ))
}
