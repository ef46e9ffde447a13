//! Apply: create the connection and the memberships, update the description and the memberships, destroy both.
//! Every step records what exists, so a failure leaves state that names the connection and the members made so far.

use std::time::Duration;

use super::model::{BindingSpec, members_value, membership, resolve, resolve_members};
use crate::aws::AwsError;
use crate::aws::ErrorCode;
use crate::aws::datazone_connections::{self as dz, Connection, Membership, NewConnection};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::{Member, paths};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{string, text, unknowns_to_null};
use crate::protocol::plan::set_attr;
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;

/// Where the connection goes, from the planned (and, where the plan could not, re-derived) value.
pub struct Target<'a> {
    pub domain_id: String,
    pub environment_id: String,
    pub connection_name: String,
    pub account_id: String,
    pub region: String,
    pub spec: &'a BindingSpec,
    pub timeout: Duration,
}

fn failed(at: AttributePath, summary: &str, err: &AwsError) -> Diagnostics {
    err.diagnostics(at, summary)
}

/// `value` with what exists: the connection's identity and read-back facts, and the members that exist.
pub fn state_after(value: &Value, connection: Option<&Connection>, members: &[Member]) -> Value {
    let mut state = value.clone();
    if let Some(connection) = connection {
        set_attr(
            &mut state,
            "id",
            text(format!("{}/{}", connection.domain_id, connection.id)),
        );
        set_attr(&mut state, "connection_id", text(&connection.id));
        set_attr(&mut state, "domain_id", text(&connection.domain_id));
        for (name, read) in [
            ("environment_id", &connection.environment_id),
            ("cluster_arn", &connection.cluster_arn),
            ("orchestrator", &connection.orchestrator),
        ] {
            if let Some(read) = read {
                set_attr(&mut state, name, text(read));
            }
        }
    }
    set_attr(&mut state, "member", members_value(members));
    unknowns_to_null(state)
}

fn member_path(index: usize) -> AttributePath {
    paths::binding::member(index)
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
pub fn client_token(target: &Target<'_>, generation: u32) -> String {
    let spec = target.spec;
    let hash = fnv1a_128(&[
        &target.domain_id,
        &spec.project_id,
        &target.environment_id,
        &target.connection_name,
        &spec.cluster_name,
        &target.account_id,
        &target.region,
        spec.description.as_deref().unwrap_or(""),
    ]);
    format!("hyperpod-binding-{hash:032x}-{generation}")
}

/// The refusal when the name is taken by a connection this binding did not create (no token of ours answers with it).
async fn name_taken(client: &HyperpodClient, target: &Target<'_>, err: &AwsError) -> Diagnostics {
    let found = dz::find_connection_by_name(
        &client.datazone,
        &target.domain_id,
        &target.spec.project_id,
        &target.connection_name,
    )
    .await;
    match found {
        Ok(Some(existing)) => Diagnostics::error(
            AttributePath::attr("connection_name"),
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
        _ => failed(AttributePath::root(), "Cannot create the HyperPod connection", err),
    }
}

/// CreateConnection with the binding's token, adopting the connection an interrupted create of this binding made.
/// Returns the connection, ready.
async fn create_connection(
    client: &HyperpodClient,
    context: &OperationContext,
    value: &Value,
    target: &Target<'_>,
) -> Result<Connection, Applied> {
    let spec = target.spec;
    for generation in 0..TOKEN_GENERATIONS {
        let token = client_token(target, generation);
        let created = dz::create_hyperpod_connection(
            &client.datazone,
            &NewConnection {
                domain_id: &target.domain_id,
                environment_id: &target.environment_id,
                name: &target.connection_name,
                cluster_name: &spec.cluster_name,
                account_id: &target.account_id,
                region: &target.region,
                description: spec.description.as_deref(),
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
                return Err(failed(AttributePath::root(), "Cannot create the HyperPod connection", &err).into());
            }
        };
        // From here on the connection exists (or existed): every failure returns a state naming it (Terraform
        // taints it).
        let ready = dz::wait_connection_ready(
            &client.datazone,
            &target.domain_id,
            &connection.id,
            target.timeout,
            &context.stop,
        )
        .await;
        match ready {
            Ok(ready) => return Ok(ready),
            // The token answered with the connection it made for an earlier life of this binding, since deleted.
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                let state = state_after(value, Some(&connection), &[]);
                return Err(Applied::failed(
                    Some(state),
                    failed(
                        AttributePath::root(),
                        "The HyperPod connection did not become ready",
                        &err,
                    ),
                ));
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

pub async fn create(
    client: &HyperpodClient,
    context: &OperationContext,
    value: &Value,
    target: &Target<'_>,
) -> Applied {
    let spec = target.spec;
    // Every member's profile before the first write: a name that names no one fails here, with nothing created.
    let profile_ids = match resolve_members(client, &target.domain_id, &spec.members).await {
        Ok(ids) => ids,
        Err(diagnostics) => return diagnostics.into(),
    };
    let connection = match create_connection(client, context, value, target).await {
        Ok(connection) => connection,
        Err(applied) => return applied,
    };
    let mut members = Vec::new();
    for (index, (member, profile_id)) in spec.members.iter().zip(&profile_ids).enumerate() {
        let made = dz::create_project_membership(
            &client.datazone,
            &target.domain_id,
            &spec.project_id,
            &membership(member, profile_id),
        )
        .await;
        if let Err(err) = made {
            let state = state_after(value, Some(&connection), &members);
            return Applied::failed(
                Some(state),
                failed(member_path(index), "Cannot add the project member", &err),
            );
        }
        members.push(member.clone());
    }
    Applied::ok(state_after(value, Some(&connection), &members))
}

/// Description in place; memberships removed, added, or (a new designation) removed and added again. On failure the
/// state keeps the prior arguments, so the next plan still shows what is left to do, with the members that exist.
pub async fn update(client: &HyperpodClient, prior: &Value, value: &Value, spec: &BindingSpec) -> Applied {
    let domain_id = string(prior, "domain_id").unwrap_or_default();
    let connection_id = string(prior, "connection_id").unwrap_or_default();
    let mut current = super::model::members_of(prior).unwrap_or_default();
    let mut kept = prior.clone();
    let stop = |kept: &Value, current: &[Member], diagnostics: Diagnostics| {
        Applied::failed(Some(state_after(kept, None, current)), diagnostics)
    };
    if let Some(description) = &spec.description
        && string(prior, "description").as_ref() != Some(description)
    {
        // Clearing the description is a replacement (planned so), never an update.
        let updated =
            dz::update_connection_description(&client.datazone, &domain_id, &connection_id, description).await;
        if let Err(err) = updated {
            let at = AttributePath::attr("description");
            return stop(
                &kept,
                &current,
                failed(at, "Cannot update the HyperPod connection", &err),
            );
        }
        set_attr(&mut kept, "description", text(description));
    }
    // Every wanted member's profile before the first write.
    let profile_ids = match resolve_members(client, &domain_id, &spec.members).await {
        Ok(ids) => ids,
        Err(diagnostics) => return stop(&kept, &current, diagnostics),
    };
    let wanted: Vec<Membership> = spec
        .members
        .iter()
        .zip(&profile_ids)
        .map(|(member, profile_id)| membership(member, profile_id))
        .collect();
    // Memberships a member only respelled (a group's ID for its name) still names: they stay as they are.
    let mut respelled: Vec<Membership> = Vec::new();
    let unwanted: Vec<Member> = current.iter().filter(|m| !spec.members.contains(m)).cloned().collect();
    for member in unwanted {
        let removed = match resolve(client, &domain_id, &member).await {
            Ok(profile_id) if wanted.contains(&membership(&member, &profile_id)) => {
                respelled.push(membership(&member, &profile_id));
                Ok(())
            }
            Ok(profile_id) => {
                let gone = membership(&member, &profile_id);
                dz::delete_project_membership(&client.datazone, &domain_id, &spec.project_id, &gone).await
            }
            // Its profile is gone: so is its membership.
            Err(err) => Err(err),
        };
        match removed {
            Ok(()) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                let at = AttributePath::attr("member");
                return stop(&kept, &current, failed(at, "Cannot remove the project member", &err));
            }
        }
        current.retain(|m| *m != member);
    }
    for (index, (member, wanted)) in spec.members.iter().zip(&wanted).enumerate() {
        if current.contains(member) {
            continue;
        }
        if respelled.contains(wanted) {
            current.push(member.clone()); // the membership exists: now under the new spelling
            continue;
        }
        let made = dz::create_project_membership(&client.datazone, &domain_id, &spec.project_id, wanted).await;
        if let Err(err) = made {
            return stop(
                &kept,
                &current,
                failed(member_path(index), "Cannot add the project member", &err),
            );
        }
        current.push(member.clone());
    }
    Applied::ok(state_after(value, None, &spec.members))
}

/// `prior` once its connection is gone: the read-back connection facts cleared (what marks a binding whose
/// connection no longer exists; refresh and plan then replace it), and only the members still to remove.
pub fn without_connection(prior: &Value, members: &[Member]) -> Value {
    let mut state = prior.clone();
    for name in ["cluster_arn", "orchestrator"] {
        set_attr(&mut state, name, Value::Null);
    }
    set_attr(&mut state, "member", members_value(members));
    state
}

/// Removes the connection, then the members the binding manages; what is already gone counts as removed. A failure
/// part-way returns the state of what remains (no connection, the members not yet removed), so the binding stays in
/// state until every part is gone and the next destroy removes the rest.
pub async fn delete(
    client: &HyperpodClient,
    context: &OperationContext,
    prior: &Value,
    members: &[Member],
    timeout: Duration,
) -> Applied {
    let domain_id = string(prior, "domain_id").unwrap_or_default();
    let project_id = string(prior, "project_id").unwrap_or_default();
    let keep = |diagnostics: Diagnostics| Applied::failed(Some(prior.clone()), diagnostics);
    if let Some(connection_id) = string(prior, "connection_id") {
        match dz::delete_connection(&client.datazone, &domain_id, &connection_id).await {
            Ok(()) => {
                let waited =
                    dz::wait_connection_deleted(&client.datazone, &domain_id, &connection_id, timeout, &context.stop)
                        .await;
                if let Err(err) = waited {
                    return keep(failed(
                        AttributePath::root(),
                        "The HyperPod connection was not deleted",
                        &err,
                    ));
                }
            }
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                return keep(failed(
                    AttributePath::root(),
                    "Cannot delete the HyperPod connection",
                    &err,
                ));
            }
        }
    }
    for (index, member) in members.iter().enumerate() {
        let removed = match resolve(client, &domain_id, member).await {
            Ok(profile_id) => {
                let gone = membership(member, &profile_id);
                dz::delete_project_membership(&client.datazone, &domain_id, &project_id, &gone).await
            }
            Err(err) => Err(err), // a profile that is gone: so is its membership
        };
        match removed {
            Ok(()) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                let remaining = without_connection(prior, &members[index..]);
                return Applied::failed(
                    Some(remaining),
                    failed(member_path(index), "Cannot remove the project member", &err),
                );
            }
        }
    }
    Applied {
        state: None,
        diagnostics: Diagnostics::new(),
    }
}
