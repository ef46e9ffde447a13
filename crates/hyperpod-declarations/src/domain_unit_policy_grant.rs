//! `hyperpod_domain_unit_policy_grant` declaration: the attributes and their validators, the identity schema. What
//! `terraform validate` checks beyond the validators is the provider's (`resources/domain_unit_policy_grant/schema.rs`).

use crate::protocol::model::{Field, Known, Model};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::validators::{LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};

// The resource's one declaration (`#[derive(Model)]`, docs/design/typed-values.md): its schema, docs and typed value
// come from it. Doc comments are the user-facing descriptions.

pub const TYPE_NAME: &str = "hyperpod_domain_unit_policy_grant";

/// DataZone `DomainId`.
pub const DOMAIN_ID: &str = "dzd[-_][a-zA-Z0-9_-]{1,36}";
/// DataZone `DomainUnitId`.
pub const DOMAIN_UNIT_ID: &str = "[a-z0-9_\\-]+";
/// DataZone `ProjectProfileId`.
pub const PROJECT_PROFILE_ID: &str = "[a-zA-Z0-9_-]{1,36}";
/// The only designation DataZone has for domain-unit principals.
pub const DESIGNATIONS: &[&str] = &["OWNER"];

fn domain_unit_id() -> Matches {
    Matches::new(
        DOMAIN_UNIT_ID,
        "a DataZone domain unit ID (lowercase letters, digits, `_` and `-`)",
    )
}

/// A Unified Studio (DataZone) authorization policy on a domain unit: lets one principal create projects in the unit
/// from approved project profiles (`AddPolicyGrant` with policy type `CREATE_PROJECT_FROM_PROJECT_PROFILE`). This
/// keeps the organization layer in code: which teams may start projects, where, and from which profiles (for example
/// the one whose projects may connect to HyperPod).
///
/// Rule ORG-1 of `hyperpod_connection_contract` checks that the contract's project lives in the contract's
/// `unified_studio.domain_unit_id`; this grant is what lets projects be created in that domain unit from approved
/// profiles in the first place. `governance` carries the facts (domain, domain unit, profiles, child-unit scope) a
/// contract can be checked against, known at plan time.
///
/// Grants are immutable: changing any argument removes the grant and adds a new one (`RemovePolicyGrant`,
/// `AddPolicyGrant`). At plan time the domain unit, the principal's domain unit and every project profile are checked
/// to exist in the domain. An apply interrupted after DataZone added the grant is completed by the next one:
/// `AddPolicyGrant`'s idempotency token is derived from the grant's terms, so DataZone answers with that same grant.
/// An identical grant added outside this resource is not adopted: the plan warns and the apply fails, naming its
/// import ID. Import by `<domain ID>/<domain unit ID>/<grant ID>`.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct PolicyGrantModel {
    /// `<domain ID>/<domain unit ID>/<grant ID>`.
    #[tf(computed, use_state_for_unknown)]
    pub id: Field<String>,
    /// The grant's ID, as DataZone returned it (10 characters).
    #[tf(computed, use_state_for_unknown)]
    pub grant_id: Field<String>,
    /// The Unified Studio (DataZone) domain, e.g. `dzd_capacity01`.
    #[tf(required, requires_replace, validate = Matches::new(DOMAIN_ID, "a DataZone domain ID such as `dzd_abc123`"))]
    pub domain_id: Field<String>,
    /// The domain unit projects may be created in. Checked at plan time (`GetDomainUnit`); the contract's ORG-1
    /// checks its project lives in such a unit.
    #[tf(required, requires_replace, validate = domain_unit_id(), validate = LengthBetween { min: 1, max: 256 })]
    pub domain_unit_id: Field<String>,
    /// The approved project profiles projects may be created from (at least one, no duplicates). Each is checked at
    /// plan time to exist in the domain (`GetProjectProfile`); a disabled profile is a warning.
    #[tf(required, requires_replace)]
    pub project_profile_ids: Field<Vec<Field<String>>>,
    /// Whether the grant also applies in the domain unit's child units.
    #[tf(default = Value::Bool(false), requires_replace)]
    pub include_child_domain_units: Field<bool>,
    /// The grant's organization-layer facts (`domain_id`, `domain_unit_id`, `project_profile_ids`,
    /// `include_child_domain_units`), known at plan time, for checking a connection contract's domain unit (ORG-1)
    /// against.
    #[tf(computed)]
    pub governance: Field<GrantGovernance>,
    #[tf(block = single, required)]
    pub principal: Field<GrantPrincipalBlock>,
}

/// Who may create projects: exactly one of `group_id`, `user_id`, or `domain_unit_id` with `designation`. Grant to
/// groups rather than individuals.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct GrantPrincipalBlock {
    /// An IAM Identity Center group, by name or ID, or a DataZone group profile ID: its members may create projects.
    /// Resolved to the group profile at plan time (DataZone lists grants by profile ID); a name that names no profile
    /// is refused here (a warning at plan, an error at apply). State keeps it as written.
    #[tf(optional, validate = LengthBetween { min: 1, max: 1024 })]
    pub group_id: Field<String>,
    /// A user: an Identity Center user name, a user profile ID or an IAM ARN. Resolved to the user profile at plan
    /// time, like `group_id`.
    #[tf(optional, validate = LengthBetween { min: 1, max: 1024 })]
    pub user_id: Field<String>,
    /// A domain unit whose users of `designation` may create projects (e.g. the unit's owners). Checked at plan time
    /// to exist in the domain.
    #[tf(optional, validate = domain_unit_id(), validate = LengthBetween { min: 1, max: 256 })]
    pub domain_unit_id: Field<String>,
    /// With `domain_unit_id` (and only with it): which of the unit's users, `OWNER`.
    #[tf(optional, validate = OneOf(DESIGNATIONS))]
    pub designation: Field<String>,
}

/// The grant's `governance` value: what a connection contract's `domain_unit_policy_grant` takes.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct GrantGovernance {
    pub domain_id: Field<String>,
    pub domain_unit_id: Field<String>,
    pub project_profile_ids: Field<Vec<Field<String>>>,
    pub include_child_domain_units: Field<bool>,
}

/// What identifies a grant (`import { identity = { … } }`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
#[allow(clippy::struct_field_names)] // the fields are the attribute names
pub struct GrantIdentity {
    /// The Unified Studio (DataZone) domain.
    #[tf(required)]
    pub domain_id: Field<String>,
    /// The domain unit the grant is on.
    #[tf(required)]
    pub domain_unit_id: Field<String>,
    /// The grant's ID.
    #[tf(required)]
    pub grant_id: Field<String>,
}

pub fn schema() -> Schema {
    Schema {
        version: 0,
        block: PolicyGrantModel::block(),
    }
}

/// The type of `governance`.
pub fn governance_type() -> Type {
    GrantGovernance::terraform_type()
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &GrantIdentity::block())
}

/// An identity value from its parts.
pub fn identity(domain_id: &str, domain_unit_id: &str, grant_id: &str) -> Value {
    GrantIdentity {
        domain_id: Field::Known(domain_id.to_string()),
        domain_unit_id: Field::Known(domain_unit_id.to_string()),
        grant_id: Field::Known(grant_id.to_string()),
    }
    .encode()
}
