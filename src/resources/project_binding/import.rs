//! Import by `<domain_id>/<connection_id>` (or identity): the connection, which must be a HyperPod one.

use super::model::{flatten, parse_id};
use super::schema::{BindingIdentity, BindingModel, TYPE_NAME};
use crate::aws::datazone_connections as dz;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

/// Import by `<domain_id>/<connection_id>` (or identity): the connection's attributes. `project_role_arn` and the
/// members exist only in configuration (`contract` is write-only, never in state): the first plan after an import is
/// an in-place update that records them (members the project already has are taken over, and the plan says so).
pub async fn import(client: &HyperpodClient, block_null: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
    let ids = match &target {
        ImportTarget::Id(id) => parse_id(id),
        ImportTarget::Identity(identity) => BindingIdentity::decode(identity)
            .ok()
            .and_then(|identity| identity.domain_id.known().zip(identity.connection_id.known())),
    };
    let Some((domain_id, connection_id)) = ids else {
        let got = match &target {
            ImportTarget::Id(id) => format!("{id:?}"),
            ImportTarget::Identity(_) => "an identity without domain_id or connection_id".to_string(),
        };
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Invalid import ID",
            format!("Import {TYPE_NAME} as `<domain_id>/<connection_id>`, e.g. `dzd_capacity01/abc123`; got {got}."),
        ));
    };
    let connection = dz::find_connection(&client.datazone, &domain_id, &connection_id)
        .await
        .map_err(|err| err.diagnostics(AttributePath::root(), "Cannot import the HyperPod connection"))?;
    if !connection.is_hyperpod() {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Not a HyperPod connection",
            format!(
                "Connection {connection_id:?} of domain {domain_id:?} is of type {}; a project binding manages HYPERPOD \
                 connections only.",
                connection.connection_type
            ),
        ));
    }
    let mut state = block_null;
    flatten(&mut state, &connection);
    BindingModel::MEMBER.set(&mut state, &Field::Known(Vec::new()));
    Ok(state)
}

/// The identity of a recorded binding: its domain and connection.
pub fn identity(state: &Value) -> Option<Value> {
    let state = BindingModel::decode(state).ok()?;
    Some(super::schema::identity(
        state.domain_id.as_known()?,
        state.connection_id.as_known()?,
    ))
}
