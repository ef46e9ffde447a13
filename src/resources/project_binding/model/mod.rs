//! The binding's configuration, typed (`BindingConfig`, and the engine's `Binding` from it), the contract it takes,
//! what its state recorded (`RecordedBinding`), and the project memberships both ways. Pure: resolving a member's
//! name to its DataZone profile is a read (`plan/gather.rs`).

mod validate;

pub use validate::validate;

use super::schema::{BindingModel, MEMBER_KINDS, MemberBlock};
use crate::aws::AwsError;
use crate::aws::datazone_connections::{self as dz, Connection, Membership};
use crate::governance::{Binding, Contract, Member, MemberKind, paths};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::protocol::model::{Attr, Field, Model};
use crate::protocol::object::unknowns_to_null;
use crate::protocol::value::Value;
use crate::resources::connection_contract::contract_from_governance;
use crate::resources::governance_objects::ContractArgument;

/// Everything the user wrote about the binding, typed. `domain_id` and `connection_name` are `None` when left to
/// the provider (or still unknown); `None` from [`BindingConfig::decode`] while a value the checks need is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingConfig {
    pub project_id: String,
    pub cluster_name: String,
    pub project_role_arn: String,
    pub domain_id: Option<String>,
    pub connection_name: Option<String>,
    pub description: Option<String>,
    pub members: Vec<Member>,
}

/// A member's kind by its name in the schema (`MEMBER_KINDS`): `user`, else a group (the default).
pub(super) fn kind_of(name: &str) -> MemberKind {
    if name == kind_name(MemberKind::User) {
        MemberKind::User
    } else {
        MemberKind::Group
    }
}

fn kind_name(kind: MemberKind) -> &'static str {
    match kind {
        MemberKind::Group => MEMBER_KINDS[0],
        MemberKind::User => MEMBER_KINDS[1],
    }
}

/// A field known or null, never unknown: a null one reads as empty.
fn settled(field: &Field<String>) -> Option<String> {
    field.clone().or_empty()
}

/// The members of a binding's `member` blocks; `None` while one is unknown, or the blocks themselves are (a dynamic
/// block over a value known only at apply), never read as "no members".
pub fn members_in(binding: &BindingModel) -> Option<Vec<Member>> {
    let blocks = binding.member.clone().or_empty()?;
    blocks
        .iter()
        .map(|member| {
            Some(Member {
                kind: kind_of(&settled(&member.kind)?),
                name: settled(&member.name)?,
                designation: settled(&member.designation)?,
            })
        })
        .collect()
}

/// [`members_in`] of a value.
pub fn members_of(value: &Value) -> Option<Vec<Member>> {
    members_in(&BindingModel::decode(value).ok()?)
}

impl BindingConfig {
    pub fn decode(value: &Value) -> Option<Self> {
        Self::of(&BindingModel::decode(value).ok()?)
    }

    fn of(binding: &BindingModel) -> Option<Self> {
        if binding.description.is_unknown() {
            return None;
        }
        Some(Self {
            project_id: binding.project_id.clone().known()?,
            cluster_name: binding.cluster_name.clone().known()?,
            project_role_arn: binding.project_role_arn.clone().known()?,
            domain_id: binding.domain_id.clone().known(),
            connection_name: binding.connection_name.clone().known(),
            description: binding.description.clone().known(),
            members: members_in(binding)?,
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

    /// The binding's domain: its own `domain_id`, else the contract's; they must agree.
    pub fn domain_in(&self, contract: &Contract) -> Result<String, Diagnostics> {
        match (&self.domain_id, &contract.unified_studio.domain_id) {
            (Some(own), Some(approved)) if own != approved => Err(Diagnostic::invalid_value(
                BindingModel::DOMAIN_ID.path(),
                format!("{own:?}"),
                &format!("contract {:?} approves a project of domain {approved:?}", contract.name),
                "leave domain_id unset (it defaults to the contract's), or reference that domain's contract",
            )
            .into()),
            (Some(domain), _) | (None, Some(domain)) => Ok(domain.clone()),
            // The domain is missing from the contract's facts: the finding sits where the value comes from.
            (None, None) => Err(Diagnostics::error(
                ContractArgument::CONTRACT.path(),
                "Unknown Unified Studio domain",
                "Neither the binding nor its contract names a domain (the contract's domain_id is null); set \
                 domain_id on the binding or unified_studio.domain_id on the contract.",
            )),
        }
    }

    /// The connection's name: the one configured, else [`default_connection_name`].
    pub fn connection_name_or_default(&self) -> String {
        self.connection_name
            .clone()
            .unwrap_or_else(|| default_connection_name(&self.cluster_name, &self.project_id))
    }
}

/// The contract and the configuration, or `None` while either depends on a resource not created yet. `chosen`
/// holds the user's own `domain_id` and `connection_name` (the configuration at plan time); null there means
/// "derive it".
pub fn contract_and_config(value: &Value, chosen: &Value) -> Option<(Contract, BindingConfig)> {
    let binding = BindingModel::decode(value).ok()?;
    let contract = contract_from_governance(binding.contract.facts())?;
    let mut config = BindingConfig::of(&binding)?;
    // Null: derive it; unknown: so is everything it decides.
    config.domain_id = BindingModel::DOMAIN_ID.get(chosen).ok()?.optional()?;
    config.connection_name = BindingModel::CONNECTION_NAME.get(chosen).ok()?.optional()?;
    Some((contract, config))
}

/// What the state recorded: the connection's identity, and the members the binding manages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedBinding {
    pub id: Option<String>,
    pub connection_id: Option<String>,
    /// The connection's name: kept while the configuration leaves `connection_name` unset (an imported connection
    /// keeps the name it was made with, whatever the default would be).
    pub connection_name: Option<String>,
    pub members: Vec<Member>,
}

impl RecordedBinding {
    pub fn decode(prior: &Value) -> Self {
        let recorded = BindingModel::decode(prior).unwrap_or_default();
        Self {
            members: members_in(&recorded).unwrap_or_default(),
            id: recorded.id.known(),
            connection_id: recorded.connection_id.known(),
            connection_name: recorded.connection_name.known(),
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

/// The `member` blocks of `members`.
pub fn member_blocks(members: &[Member]) -> Field<Vec<MemberBlock>> {
    Field::Known(
        members
            .iter()
            .map(|member| MemberBlock {
                kind: Field::Known(kind_name(member.kind).to_string()),
                name: Field::Known(member.name.clone()),
                designation: Field::Known(member.designation.clone()),
            })
            .collect(),
    )
}

/// The value of the `member` blocks of `members`.
#[cfg(test)]
pub fn members_value(members: &[Member]) -> Value {
    crate::protocol::model::FieldType::encode(&member_blocks(members))
}

/// The binding's `id`: `<domain_id>/<connection_id>`.
pub fn binding_id(connection: &Connection) -> Field<String> {
    Field::Known(format!("{}/{}", connection.domain_id, connection.id))
}

/// A value read back from the connection; unset when the connection does not say.
fn read_back(state: &mut Value, attribute: Attr<BindingModel, Field<String>>, read: Option<&String>) {
    if let Some(read) = read {
        attribute.set(state, &Field::Known(read.clone()));
    }
}

/// `value` with what exists: the connection's identity and read-back facts, and the members that exist.
pub fn state_after(value: &Value, connection: Option<&Connection>, members: &[Member]) -> Value {
    let mut state = value.clone();
    if let Some(connection) = connection {
        BindingModel::ID.set(&mut state, &binding_id(connection));
        BindingModel::CONNECTION_ID.set(&mut state, &Field::Known(connection.id.clone()));
        BindingModel::DOMAIN_ID.set(&mut state, &Field::Known(connection.domain_id.clone()));
        read_back(
            &mut state,
            BindingModel::ENVIRONMENT_ID,
            connection.environment_id.as_ref(),
        );
        read_back(&mut state, BindingModel::CLUSTER_ARN, connection.cluster_arn.as_ref());
        read_back(&mut state, BindingModel::ORCHESTRATOR, connection.orchestrator.as_ref());
    }
    BindingModel::MEMBER.set(&mut state, &member_blocks(members));
    unknowns_to_null(state)
}

/// The connection's own attributes, as read (by refresh and by import).
pub fn flatten(state: &mut Value, connection: &Connection) {
    let description = connection.description.clone().filter(|d| !d.is_empty());
    BindingModel::ID.set(state, &binding_id(connection));
    BindingModel::DOMAIN_ID.set(state, &Field::Known(connection.domain_id.clone()));
    BindingModel::CONNECTION_ID.set(state, &Field::Known(connection.id.clone()));
    BindingModel::CONNECTION_NAME.set(state, &Field::Known(connection.name.clone()));
    BindingModel::DESCRIPTION.set(state, &description.into());
    read_back(state, BindingModel::PROJECT_ID, connection.project_id.as_ref());
    read_back(state, BindingModel::ENVIRONMENT_ID, connection.environment_id.as_ref());
    read_back(state, BindingModel::CLUSTER_NAME, connection.cluster_name.as_ref());
    read_back(state, BindingModel::CLUSTER_ARN, connection.cluster_arn.as_ref());
    read_back(state, BindingModel::ORCHESTRATOR, connection.orchestrator.as_ref());
}

/// `prior` once its connection is gone: the read-back connection facts cleared (what marks a binding whose
/// connection no longer exists; refresh and plan then replace it), and only the members still to remove.
pub fn without_connection(prior: &Value, members: &[Member]) -> Value {
    let mut state = prior.clone();
    BindingModel::CLUSTER_ARN.set(&mut state, &Field::Null);
    BindingModel::ORCHESTRATOR.set(&mut state, &Field::Null);
    BindingModel::MEMBER.set(&mut state, &member_blocks(members));
    state
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
    use crate::protocol::object::object;

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
        let name_unknown = crate::protocol::object::object([
            ("kind", crate::protocol::object::text("group")),
            ("name", Value::Unknown),
            ("designation", crate::protocol::object::text("PROJECT_OWNER")),
        ]);
        assert_eq!(members_of(&object([("member", Value::List(vec![name_unknown]))])), None);
    }

    fn config() -> BindingConfig {
        BindingConfig {
            project_id: "prj-research".into(),
            cluster_name: "ml-capacity".into(),
            project_role_arn: "arn:aws:iam::111122223333:role/datazone_usr_role_abc123".into(),
            domain_id: None,
            connection_name: None,
            description: None,
            members: Vec::new(),
        }
    }

    #[test]
    fn the_domain_defaults_to_the_contracts_and_must_agree_with_it() {
        let contract = crate::governance::examples::contract;
        assert_eq!(config().domain_in(&contract()).ok().as_deref(), Some("dzd_abc123"));
        let mut elsewhere = config();
        elsewhere.domain_id = Some("dzd_other".into());
        let errors = elsewhere.domain_in(&contract()).err().unwrap_or_default();
        assert_eq!(errors.0[0].path.to_string(), "domain_id");
    }
}
