//! Refresh: the connection as DataZone has it (gone: the binding leaves state, so the next plan creates it again)
//! and the managed members as the project has them: one deleted out of band drops out of `member`, one with another
//! designation shows it, and the next plan restores both.

use super::model::{flatten, member_blocks, member_kind, members_of, without_connection};
use super::plan::profile_ids;
use super::schema::BindingModel;
use crate::aws::datazone_connections as dz;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::Member;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::value::Value;

/// The managed members that still exist, each with its live designation, in the recorded order. Each member comes
/// with the profile ID its name resolves to (`None`: it names no profile any more, so it is no member either); the
/// project lists members by profile ID.
fn still_members(managed: &[(Member, Option<String>)], live: &[dz::Membership]) -> Vec<Member> {
    managed
        .iter()
        .filter_map(|(member, profile_id)| {
            let profile_id = profile_id.as_ref()?;
            live.iter()
                .find(|m| m.kind == member_kind(member) && &m.id == profile_id)
                .map(|found| Member {
                    designation: found.designation.clone(),
                    ..member.clone()
                })
        })
        .collect()
}

pub async fn read(client: &HyperpodClient, current: &Value) -> Result<Option<Value>, Diagnostics> {
    let (Some(domain_id), Some(connection_id)) = (
        BindingModel::DOMAIN_ID.known(current),
        BindingModel::CONNECTION_ID.known(current),
    ) else {
        return Ok(None); // nothing was ever created
    };
    let connection = match client.connection(&domain_id, &connection_id).await {
        Ok(connection) if connection.is_hyperpod() => Some(connection),
        Ok(_) => None,
        Err(err) if err.is_not_found() => None,
        Err(err) => return Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod connection")),
    };
    let mut state = current.clone();
    if let Some(connection) = &connection {
        flatten(&mut state, connection);
    }
    let managed = members_of(current).unwrap_or_default();
    let members = if managed.is_empty() {
        Vec::new()
    } else {
        let project_id = BindingModel::PROJECT_ID.known(&state).unwrap_or_default();
        let (live, resolved) = tokio::join!(
            client.project_memberships(&domain_id, &project_id),
            profile_ids(client, &domain_id, &managed)
        );
        let live = match live {
            Ok(live) => live,
            Err(err) if err.is_not_found() => Vec::new(),
            Err(err) => {
                let at = BindingModel::MEMBER.path();
                return Err(err.diagnostics(at, "Cannot read the project's memberships"));
            }
        };
        let mut with_ids = Vec::new();
        for (member, profile_id) in managed.into_iter().zip(resolved) {
            match profile_id {
                Ok(id) => with_ids.push((member, Some(id))),
                Err(err) if err.is_not_found() => with_ids.push((member, None)),
                Err(err) => {
                    let at = crate::governance::paths::binding::member(with_ids.len());
                    return Err(err.diagnostics(at, "Cannot resolve the project member"));
                }
            }
        }
        still_members(&with_ids, &live)
    };
    match connection {
        Some(_) => BindingModel::MEMBER.set(&mut state, &member_blocks(&members)),
        // The connection is gone: the binding leaves state only once its memberships are gone too, so none is
        // orphaned; until then it names them (and no connection), and the next plan replaces it.
        None if members.is_empty() => return Ok(None),
        None => state = without_connection(&state, &members),
    }
    Ok(Some(state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::MemberKind;

    fn member(name: &str, designation: &str) -> Member {
        Member {
            kind: MemberKind::Group,
            name: name.into(),
            designation: designation.into(),
        }
    }

    #[test]
    fn a_deleted_member_drops_out_and_a_changed_one_shows_its_live_designation() {
        let managed = [
            (
                member("scientists", "PROJECT_CONTRIBUTOR"),
                Some("id-scientists".to_string()),
            ),
            (member("leads", "PROJECT_OWNER"), Some("id-leads".to_string())),
            (member("gone", "PROJECT_OWNER"), None), // its profile no longer exists
        ];
        let live = [
            dz::Membership {
                kind: dz::MembershipType::Group,
                id: "id-leads".into(),
                designation: "PROJECT_CONTRIBUTOR".into(),
            },
            dz::Membership {
                kind: dz::MembershipType::User,
                id: "id-scientists".into(), // a user of the same ID is someone else
                designation: "PROJECT_CONTRIBUTOR".into(),
            },
            dz::Membership {
                kind: dz::MembershipType::Group,
                id: "leads".into(), // listed by profile ID, never by the name as written
                designation: "PROJECT_OWNER".into(),
            },
        ];
        assert_eq!(still_members(&managed, &live), [member("leads", "PROJECT_CONTRIBUTOR")]);
    }
}
