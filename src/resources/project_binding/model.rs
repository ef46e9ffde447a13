//! From the resource's value to a typed binding spec and the engine's `Binding`, and memberships both ways.

use crate::aws::AwsError;
use crate::aws::datazone_connections::{self as dz, Membership};
use crate::client::HyperpodClient;
use crate::governance::{Binding, Member, MemberKind, paths};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::protocol::object::{elements, object, string, text};
use crate::protocol::value::Value;

/// Everything the user wrote about the binding, typed. `domain_id` and `connection_name` are `None` when left to
/// the provider (or still unknown); `None` from [`BindingSpec::from_value`] while a value the checks need is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingSpec {
    pub project_id: String,
    pub cluster_name: String,
    pub project_role_arn: String,
    pub domain_id: Option<String>,
    pub connection_name: Option<String>,
    pub description: Option<String>,
    pub members: Vec<Member>,
}

fn kind_of(text: &str) -> MemberKind {
    if text == "user" {
        MemberKind::User
    } else {
        MemberKind::Group
    }
}

fn kind_name(kind: MemberKind) -> &'static str {
    match kind {
        MemberKind::User => "user",
        MemberKind::Group => "group",
    }
}

/// The members of a value's `member` blocks; `None` while one is unknown, or the blocks themselves are (a dynamic
/// block over a value known only at apply), never read as "no members".
pub fn members_of(value: &Value) -> Option<Vec<Member>> {
    if value.get_attr("member").is_some_and(|members| !members.is_known()) {
        return None;
    }
    elements(value, "member")
        .iter()
        .map(|member| {
            member.is_wholly_known().then(|| Member {
                kind: kind_of(&string(member, "kind").unwrap_or_default()),
                name: string(member, "name").unwrap_or_default(),
                designation: string(member, "designation").unwrap_or_default(),
            })
        })
        .collect()
}

impl BindingSpec {
    pub fn from_value(value: &Value) -> Option<Self> {
        if value.get_attr("description").is_some_and(|d| !d.is_wholly_known()) {
            return None;
        }
        Some(Self {
            project_id: string(value, "project_id")?,
            cluster_name: string(value, "cluster_name")?,
            project_role_arn: string(value, "project_role_arn")?,
            domain_id: string(value, "domain_id"),
            connection_name: string(value, "connection_name"),
            description: string(value, "description"),
            members: members_of(value)?,
        })
    }

    /// The engine's binding.
    pub fn to_governance(&self) -> Binding {
        Binding {
            project_id: Some(self.project_id.clone()),
            cluster_name: self.cluster_name.clone(),
            project_role_arn: Some(self.project_role_arn.clone()),
            members: self.members.clone(),
        }
    }
}

/// `hyperpod-<cluster>-<project>`, cut to DataZone's 64 characters. The project is in the name because connection
/// names are unique within a domain, and every project on the cluster has one.
pub fn default_connection_name(cluster_name: &str, project_id: &str) -> String {
    let name = format!("hyperpod-{cluster_name}-{project_id}");
    name.chars()
        .take(64)
        .collect::<String>()
        .trim_end_matches('-')
        .to_string()
}

/// The membership of `member` as DataZone keeps it: under the profile ID its name resolves to.
pub fn membership(member: &Member, profile_id: &str) -> Membership {
    Membership {
        kind: member_kind(member),
        id: profile_id.to_string(),
        designation: member.designation.clone(),
    }
}

pub fn member_kind(member: &Member) -> dz::MembershipType {
    match member.kind {
        MemberKind::User => dz::MembershipType::User,
        MemberKind::Group => dz::MembershipType::Group,
    }
}

/// The profile ID a member's name (as the user wrote it: a name, an IAM ARN or an ID) resolves to in the domain;
/// `NotFound` when it names no user or group profile.
pub async fn resolve(client: &HyperpodClient, domain_id: &str, member: &Member) -> Result<String, AwsError> {
    match member.kind {
        MemberKind::User => client.user_profile_id(domain_id, &member.name).await,
        MemberKind::Group => client.group_profile_id(domain_id, &member.name).await,
    }
}

/// Every member resolved, concurrently, in order.
pub async fn resolve_all(
    client: &HyperpodClient,
    domain_id: &str,
    members: &[Member],
) -> Vec<Result<String, AwsError>> {
    futures::future::join_all(members.iter().map(|member| resolve(client, domain_id, member))).await
}

/// Every member's profile ID, or the diagnostics of those whose name resolves to none (each at its member).
pub async fn resolve_members(
    client: &HyperpodClient,
    domain_id: &str,
    members: &[Member],
) -> Result<Vec<String>, Diagnostics> {
    let mut ids = Vec::new();
    let mut diagnostics = Diagnostics::new();
    for (index, (member, resolved)) in members
        .iter()
        .zip(resolve_all(client, domain_id, members).await)
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

/// The diagnostic for a member whose name resolves to no profile, at its `name`.
pub fn unresolved(index: usize, member: &Member, domain_id: &str, err: &AwsError) -> Diagnostic {
    let (kind, search) = match member.kind {
        MemberKind::User => (
            "user",
            format!("aws datazone search-user-profiles --domain-identifier {domain_id} --user-type DATAZONE_SSO_USER"),
        ),
        MemberKind::Group => (
            "group",
            format!(
                "aws datazone search-group-profiles --domain-identifier {domain_id} --group-type DATAZONE_SSO_GROUP"
            ),
        ),
    };
    if err.is_not_found() {
        Diagnostic::invalid_value(
            paths::binding::member(index),
            format!("{:?}", member.name),
            &format!("no DataZone {kind} profile of that name or ID exists in domain {domain_id}"),
            &format!(
                "use the {kind}'s name, ID{} as Unified Studio knows it (`{search}`); an Identity Center {kind} needs \
                 a profile in the domain first",
                if member.kind == MemberKind::User {
                    ", or IAM ARN"
                } else {
                    ""
                }
            ),
        )
    } else {
        Diagnostic::error(
            paths::binding::member(index),
            format!("Cannot resolve the {kind} {:?}", member.name),
            err.to_string(),
        )
    }
}

/// Same person or group, whatever the designation.
pub fn same_member(a: &Member, b: &Member) -> bool {
    a.kind == b.kind && a.name == b.name
}

pub fn members_value(members: &[Member]) -> Value {
    Value::List(
        members
            .iter()
            .map(|member| {
                object([
                    ("kind", text(kind_name(member.kind))),
                    ("name", text(&member.name)),
                    ("designation", text(&member.designation)),
                ])
            })
            .collect(),
    )
}

/// `<domain_id>/<connection_id>`, both non-empty.
pub fn parse_id(id: &str) -> Option<(String, String)> {
    let (domain, connection) = id.trim().split_once('/')?;
    (!domain.is_empty() && !connection.is_empty() && !connection.contains('/'))
        .then(|| (domain.to_string(), connection.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_fit_datazone() {
        assert_eq!(
            default_connection_name("ml-capacity", "research000001"),
            "hyperpod-ml-capacity-research000001"
        );
        let long = default_connection_name(&format!("{}-{}", "a".repeat(54), "b".repeat(8)), "p");
        assert_eq!(long.len(), 63, "cut to 64, without a trailing hyphen");
        assert!(!long.ends_with('-'));
    }

    #[test]
    fn ids_need_both_parts() {
        assert_eq!(
            parse_id("dzd_capacity01/conn123"),
            Some(("dzd_capacity01".into(), "conn123".into()))
        );
        for bad in ["", "dzd_capacity01", "dzd_capacity01/", "/conn123", "a/b/c"] {
            assert_eq!(parse_id(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn members_round_trip_and_unknown_members_wait() {
        let members = vec![Member {
            kind: MemberKind::Group,
            name: "research-scientists".into(),
            designation: "PROJECT_CONTRIBUTOR".into(),
        }];
        let value = object([("member", members_value(&members))]);
        assert_eq!(members_of(&value), Some(members));
        let unknown = object([("member", Value::List(vec![Value::Unknown]))]);
        assert_eq!(members_of(&unknown), None);
        assert_eq!(members_of(&object([("member", Value::Unknown)])), None);
    }
}
