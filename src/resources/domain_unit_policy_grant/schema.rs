//! `hyperpod_domain_unit_policy_grant` schema and identity schema.

use crate::protocol::object::object;
use crate::protocol::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, Schema};
use crate::protocol::validators::{LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};

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

pub fn principal_block() -> Block {
    Block::new(
        "Who may create projects: exactly one of `group_id`, `user_id`, or `domain_unit_id` with `designation`. \
         Grant to groups rather than individuals.",
    )
    .attribute(
        Attribute::string("group_id")
            .optional()
            .describe(
                "An IAM Identity Center group, by name or ID, or a DataZone group profile ID: its members may create \
                 projects. Resolved to the group profile at plan time (DataZone lists grants by profile ID); a name \
                 that names no profile fails the plan here. State keeps it as written.",
            )
            .validate(LengthBetween { min: 1, max: 1024 }),
    )
    .attribute(
        Attribute::string("user_id")
            .optional()
            .describe(
                "A user: an Identity Center user name, a user profile ID or an IAM ARN. Resolved to the user profile \
                 at plan time, like `group_id`.",
            )
            .validate(LengthBetween { min: 1, max: 1024 }),
    )
    .attribute(
        Attribute::string("domain_unit_id")
            .optional()
            .describe(
                "A domain unit whose users of `designation` may create projects (e.g. the unit's owners). Checked at \
                 plan time to exist in the domain.",
            )
            .validate(domain_unit_id())
            .validate(LengthBetween { min: 1, max: 256 }),
    )
    .attribute(
        Attribute::string("designation")
            .optional()
            .describe("With `domain_unit_id` (and only with it): which of the unit's users, `OWNER`.")
            .validate(OneOf(DESIGNATIONS)),
    )
}

pub fn schema() -> Schema {
    Schema {
        version: 0,
        block: Block::new(
            "A Unified Studio (DataZone) authorization policy on a domain unit: lets one principal create projects in \
             the unit from approved project profiles (`AddPolicyGrant` with policy type \
             `CREATE_PROJECT_FROM_PROJECT_PROFILE`). This keeps the organization layer in code: which teams may start \
             projects, where, and from which profiles (for example the one whose projects may connect to HyperPod).\n\n\
             Rule ORG-1 of `hyperpod_connection_contract` checks that the contract's project lives in the contract's \
             `unified_studio.domain_unit_id`; this grant is what lets projects be created in that domain unit from \
             approved profiles in the first place. `governance` carries the facts (domain, domain unit, profiles, \
             child-unit scope) a contract can be checked against, known at plan time.\n\n\
             Grants are immutable: changing any argument removes the grant and adds a new one (`RemovePolicyGrant`, \
             `AddPolicyGrant`). At plan time the domain unit, the principal's domain unit and every project profile \
             are checked to exist in the domain. An apply interrupted after DataZone added the grant is completed by \
             the next one: `AddPolicyGrant`'s idempotency token is derived from the grant's terms, so DataZone answers \
             with that same grant. An identical grant added outside this resource is not adopted: the plan warns and \
             the apply fails, naming its import ID. Import by `<domain ID>/<domain unit ID>/<grant ID>`.",
        )
        .attribute(
            Attribute::string("id")
                .computed()
                .use_state_for_unknown()
                .describe("`<domain ID>/<domain unit ID>/<grant ID>`."),
        )
        .attribute(
            Attribute::string("grant_id")
                .computed()
                .use_state_for_unknown()
                .describe("The grant's ID, as DataZone returned it (10 characters)."),
        )
        .attribute(
            Attribute::string("domain_id")
                .required()
                .requires_replace()
                .describe("The Unified Studio (DataZone) domain, e.g. `dzd_capacity01`.")
                .validate(Matches::new(DOMAIN_ID, "a DataZone domain ID such as `dzd_abc123`")),
        )
        .attribute(
            Attribute::string("domain_unit_id")
                .required()
                .requires_replace()
                .describe(
                    "The domain unit projects may be created in. Checked at plan time (`GetDomainUnit`); the \
                     contract's ORG-1 checks its project lives in such a unit.",
                )
                .validate(domain_unit_id())
                .validate(LengthBetween { min: 1, max: 256 }),
        )
        .attribute(
            Attribute::new("project_profile_ids", Type::list(Type::String))
                .required()
                .requires_replace()
                .describe(
                    "The approved project profiles projects may be created from (at least one, no duplicates). Each \
                     is checked at plan time to exist in the domain (`GetProjectProfile`); a disabled profile is a \
                     warning.",
                ),
        )
        .attribute(
            Attribute::bool("include_child_domain_units")
                .default_value(Value::Bool(false))
                .requires_replace()
                .describe("Whether the grant also applies in the domain unit's child units."),
        )
        .attribute(Attribute::new("governance", governance_type()).computed().describe(
            "The grant's organization-layer facts (`domain_id`, `domain_unit_id`, `project_profile_ids`, \
                     `include_child_domain_units`), known at plan time, for checking a connection contract's domain \
                     unit (ORG-1) against.",
        ))
        .block(NestedBlock::single("principal", principal_block()).required()),
    }
}

/// The type of `governance`.
pub fn governance_type() -> Type {
    Type::Object(
        [
            ("domain_id".to_string(), Type::String),
            ("domain_unit_id".to_string(), Type::String),
            ("project_profile_ids".to_string(), Type::list(Type::String)),
            ("include_child_domain_units".to_string(), Type::Bool),
        ]
        .into(),
    )
}

pub fn identity_schema() -> IdentitySchema {
    let attribute = |name, description: &str| IdentityAttribute {
        name,
        ty: Type::String,
        description: description.to_string(),
        required_for_import: true,
    };
    IdentitySchema {
        version: 0,
        attributes: vec![
            attribute("domain_id", "The Unified Studio (DataZone) domain."),
            attribute("domain_unit_id", "The domain unit the grant is on."),
            attribute("grant_id", "The grant's ID."),
        ],
    }
}

/// An identity value from its parts.
pub fn identity(domain_id: &str, domain_unit_id: &str, grant_id: &str) -> Value {
    object([
        ("domain_id", Value::String(domain_id.to_string())),
        ("domain_unit_id", Value::String(domain_unit_id.to_string())),
        ("grant_id", Value::String(grant_id.to_string())),
    ])
}
