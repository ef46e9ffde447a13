//! The HyperPod connection: created with an idempotency token derived from the request (a create interrupted after
//! DataZone made the connection adopts it next time), waited for until ready; deleted and waited for until gone.

use std::time::Duration;

use super::super::model::{BindingConfig, state_after};
use super::super::schema::BindingModel;
use crate::aws::datazone_connections::{self as dz, Connection, NewConnection};
use crate::aws::{AwsError, ErrorCode};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;

/// Where the connection goes, from the planned (and, where the plan could not, re-derived) value.
pub struct BindingApplyTarget {
    pub domain_id: String,
    pub environment_id: String,
    pub connection_name: String,
    pub account_id: String,
    pub region: String,
    pub config: BindingConfig,
}

/// How many tokens one binding tries: each is answered with the connection it created, until one answers with a
/// connection that still exists (ours, from an interrupted apply) or creates one. A token's earlier connection can
/// be gone only if this same binding was destroyed since; a handful covers any realistic number of recreations.
const TOKEN_GENERATIONS: u32 = 16;

/// FNV-1a, 128 bits: stable across builds and platforms (unlike `std`'s hasher), which is all a token needs.
fn fnv1a_128(parts: &[&str]) -> u128 {
    let mut hash: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for part in parts {
        for byte in part.bytes().chain([0u8]) {
            hash ^= u128::from(byte);
            hash = hash.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
    }
    hash
}

/// The binding's CreateConnection token: derived from everything the request says (so a retry of the same create
/// is the same request) and the generation.
pub fn client_token(target: &BindingApplyTarget, generation: u32) -> String {
    let config = &target.config;
    let hash = fnv1a_128(&[
        &target.domain_id,
        &config.project_id,
        &target.environment_id,
        &target.connection_name,
        &config.cluster_name,
        &target.account_id,
        &target.region,
        config.description.as_deref().unwrap_or(""),
    ]);
    format!("hyperpod-binding-{hash:032x}-{generation}")
}

/// The refusal when the name is taken by a connection this binding did not create (no token of ours answers with it).
async fn name_taken(client: &HyperpodClient, target: &BindingApplyTarget, err: &AwsError) -> Diagnostics {
    let found = dz::find_connection_by_name(
        &client.datazone,
        &target.domain_id,
        &target.config.project_id,
        &target.connection_name,
    )
    .await;
    match found {
        Ok(Some(existing)) => Diagnostics::error(
            BindingModel::CONNECTION_NAME.path(),
            "The connection name is taken",
            format!(
                "Domain {:?} already has a connection named {:?} (id {}) that this binding did not create. Import it \
                 into this binding (import ID `{}/{}`, e.g. terraform import <address> {}/{}), delete it, or set \
                 another connection_name. ({err})",
                target.domain_id,
                target.connection_name,
                existing.id,
                existing.domain_id,
                existing.id,
                existing.domain_id,
                existing.id
            ),
        ),
        _ => err.diagnostics(AttributePath::root(), "Cannot create the HyperPod connection"),
    }
}

/// CreateConnection with the binding's token, adopting the connection an interrupted create of this binding made.
/// Returns the connection, ready.
pub async fn create(
    client: &HyperpodClient,
    context: &OperationContext,
    value: &Value,
    target: &BindingApplyTarget,
) -> Result<Connection, Applied> {
    let config = &target.config;
    for generation in 0..TOKEN_GENERATIONS {
        let token = client_token(target, generation);
        let created = dz::create_hyperpod_connection(
            &client.datazone,
            &NewConnection {
                domain_id: &target.domain_id,
                environment_id: &target.environment_id,
                name: &target.connection_name,
                cluster_name: &config.cluster_name,
                account_id: &target.account_id,
                region: &target.region,
                description: config.description.as_deref(),
                client_token: &token,
            },
        )
        .await;
        let connection = match created {
            Ok(connection) => connection,
            Err(err) if err.is(ErrorCode::ConflictException) => {
                return Err(name_taken(client, target, &err).await.into());
            }
            Err(err) => {
                return Err(err
                    .diagnostics(AttributePath::root(), "Cannot create the HyperPod connection")
                    .into());
            }
        };
        // From here on the connection exists (or existed): every failure returns a state naming it (Terraform
        // taints it).
        let ready = dz::wait_connection_ready(
            &client.datazone,
            &target.domain_id,
            &connection.id,
            context.time_left(),
            &context.stop,
        )
        .await;
        match ready {
            Ok(ready) => return Ok(ready),
            // The token answered with the connection it made for an earlier life of this binding, since deleted.
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                let state = state_after(value, Some(&connection), &[]);
                let why = err.diagnostics(AttributePath::root(), "The HyperPod connection did not become ready");
                return Err(Applied::failed(Some(state), why));
            }
        }
    }
    Err(Diagnostics::error(
        AttributePath::root(),
        "Cannot create the HyperPod connection",
        format!(
            "Every one of this binding's {TOKEN_GENERATIONS} idempotency tokens answered with a connection that no \
             longer exists; set another connection_name."
        ),
    )
    .into())
}

/// Deletes the connection and waits until it is gone; one already gone counts as deleted.
pub async fn delete(
    client: &HyperpodClient,
    context: &OperationContext,
    domain_id: &str,
    connection_id: &str,
    timeout: Duration,
) -> Result<(), Diagnostics> {
    match dz::delete_connection(&client.datazone, domain_id, connection_id).await {
        Ok(()) => dz::wait_connection_deleted(&client.datazone, domain_id, connection_id, timeout, &context.stop)
            .await
            .map_err(|err| err.diagnostics(AttributePath::root(), "The HyperPod connection was not deleted")),
        Err(err) if err.is_not_found() => Ok(()),
        Err(err) => Err(err.diagnostics(AttributePath::root(), "Cannot delete the HyperPod connection")),
    }
}
