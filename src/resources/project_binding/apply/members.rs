//! The project memberships the binding manages, each under the DataZone profile its member's name resolves to:
//! every profile resolved before the first write, then added, replaced (a new designation, or a member no longer
//! listed) or removed one by one, so a failure part-way names the members that exist.

use super::super::model::{BindingConfig, membership, unresolved};
use super::super::plan::{profile_id, profile_ids};
use super::super::schema::BindingModel;
use super::declarations::declared;
use crate::aws::datazone_connections::{self as dz, Membership};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::{Member, paths};
use crate::protocol::diagnostics::Diagnostics;

/// Every member's profile ID, or the diagnostics of those whose name resolves to none (each at its member).
pub async fn resolve(client: &HyperpodClient, domain_id: &str, members: &[Member]) -> Result<Vec<String>, Diagnostics> {
    let mut ids = Vec::new();
    let mut diagnostics = Diagnostics::new();
    for (index, (member, resolved)) in members
        .iter()
        .zip(profile_ids(client, domain_id, members).await)
        .enumerate()
    {
        match resolved {
            Ok(id) => ids.push(id),
            Err(err) => diagnostics.push(unresolved(index, member, domain_id, &err)),
        }
    }
    if diagnostics.has_errors() {
        Err(diagnostics)
    } else {
        Ok(ids)
    }
}

/// Adds every member of `config` (with its profile ID), in order, to `added` as each exists.
pub async fn add_all(
    client: &HyperpodClient,
    domain_id: &str,
    config: &BindingConfig,
    profile_ids: &[String],
    added: &mut Vec<Member>,
) -> Result<(), Diagnostics> {
    for (index, (member, profile_id)) in config.members.iter().zip(profile_ids).enumerate() {
        let made = dz::create_project_membership(
            &client.datazone,
            domain_id,
            &config.project_id,
            &membership(member, profile_id),
        )
        .await;
        if let Err(err) = made {
            return Err(err.diagnostics(paths::binding::member(index), "Cannot add the project member"));
        }
        added.push(member.clone());
    }
    Ok(())
}

/// Removes the memberships of the members in `current` that `config` no longer lists, keeping `current` to what
/// exists. A member only respelled (a group's ID for its name) still names a `wanted` membership: it stays as it is,
/// and is returned. A membership another binding of the project declares (`others`) stays too: this binding only
/// stops managing it.
pub async fn remove_unwanted(
    client: &HyperpodClient,
    domain_id: &str,
    config: &BindingConfig,
    (wanted, others): (&[Membership], &[Membership]),
    current: &mut Vec<Member>,
) -> Result<Vec<Membership>, Diagnostics> {
    let mut respelled: Vec<Membership> = Vec::new();
    let unwanted: Vec<Member> = current
        .iter()
        .filter(|m| !config.members.contains(m))
        .cloned()
        .collect();
    for member in unwanted {
        let removed = match profile_id(client, domain_id, &member).await {
            Ok(profile_id) if wanted.contains(&membership(&member, &profile_id)) => {
                respelled.push(membership(&member, &profile_id));
                Ok(())
            }
            Ok(profile_id) if declared(others, &membership(&member, &profile_id)) => Ok(()),
            Ok(profile_id) => {
                let gone = membership(&member, &profile_id);
                dz::delete_project_membership(&client.datazone, domain_id, &config.project_id, &gone).await
            }
            // Its profile is gone: so is its membership.
            Err(err) => Err(err),
        };
        match removed {
            Ok(()) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                return Err(err.diagnostics(BindingModel::MEMBER.path(), "Cannot remove the project member"));
            }
        }
        current.retain(|m| *m != member);
    }
    Ok(respelled)
}

/// Adds the `wanted` membership of every member of `config` not in `current` (a respelled one exists already: it is
/// only recorded under its new spelling), keeping `current` to what exists.
pub async fn add_missing(
    client: &HyperpodClient,
    domain_id: &str,
    config: &BindingConfig,
    (wanted, respelled): (&[Membership], &[Membership]),
    current: &mut Vec<Member>,
) -> Result<(), Diagnostics> {
    for (index, (member, wanted)) in config.members.iter().zip(wanted).enumerate() {
        if current.contains(member) {
            continue;
        }
        if respelled.contains(wanted) {
            current.push(member.clone()); // the membership exists: now under the new spelling
            continue;
        }
        let made = dz::create_project_membership(&client.datazone, domain_id, &config.project_id, wanted).await;
        if let Err(err) = made {
            return Err(err.diagnostics(paths::binding::member(index), "Cannot add the project member"));
        }
        current.push(member.clone());
    }
    Ok(())
}

/// Removes every membership of `members` that no other binding of the project declares (`others`); what is already
/// gone counts as removed. On failure, the index of the first member not removed, and why.
pub async fn remove_all(
    client: &HyperpodClient,
    (domain_id, project_id): (&str, &str),
    members: &[Member],
    others: &[Membership],
) -> Result<(), (usize, Diagnostics)> {
    for (index, member) in members.iter().enumerate() {
        let removed = match profile_id(client, domain_id, member).await {
            Ok(profile_id) if declared(others, &membership(member, &profile_id)) => Ok(()),
            Ok(profile_id) => {
                let gone = membership(member, &profile_id);
                dz::delete_project_membership(&client.datazone, domain_id, project_id, &gone).await
            }
            Err(err) => Err(err), // a profile that is gone: so is its membership
        };
        match removed {
            Ok(()) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => {
                let why = err.diagnostics(paths::binding::member(index), "Cannot remove the project member");
                return Err((index, why));
            }
        }
    }
    Ok(())
}
