//! `hyperpod_domain_unit_policy_grant` schema: the attributes and their validators, the identity schema, and what
//! `terraform validate` checks beyond the validators (one principal, at least one distinct, well-formed profile).

use std::collections::BTreeSet;

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{nested, object};
use crate::protocol::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, Schema};
use crate::protocol::validators::{LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};

pub const TYPE_NAME: &str = "hyperpod_domain_unit_policy_grant";
/// The arguments; any change to one is a new grant.
pub const ARGUMENTS: [&str; 5] = [
    "domain_id",
    "domain_unit_id",
    "project_profile_ids",
    "include_child_domain_units",
    "principal",
];
/// The principal's attributes that each name a kind of principal; exactly one is set.
pub const PRINCIPAL_KINDS: [&str; 3] = ["group_id", "user_id", "domain_unit_id"];

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
                 that names no profile is refused here (a warning at plan, an error at apply). State keeps it as written.",
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

fn principal_path(name: &str) -> AttributePath {
    AttributePath::attr("principal").push_attr(name)
}

/// What `terraform validate` checks beyond the attributes' validators (no I/O, unknown values skipped): exactly one
/// principal, `designation` exactly with `domain_unit_id`, and at least one distinct, well-formed project profile ID.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    if let Some(principal) = nested(config, "principal") {
        validate_principal(principal, diagnostics);
    }
    validate_profiles(config, diagnostics);
}

fn validate_principal(principal: &Value, diagnostics: &mut Diagnostics) {
    // An unknown value will be set (or not) at apply; counting it as set is the conservative reading.
    let is_set = |name: &str| principal.get_attr(name).is_some_and(|v| !v.is_null());
    let set: Vec<&str> = PRINCIPAL_KINDS.iter().copied().filter(|name| is_set(name)).collect();
    match set.as_slice() {
        [] => diagnostics.push(Diagnostic::error(
            AttributePath::attr("principal"),
            "Missing principal",
            "principal: no principal is set. Fix: set exactly one of `group_id`, `user_id`, or `domain_unit_id` \
             with `designation = \"OWNER\"`.",
        )),
        [_] => {}
        [first, rest @ ..] => {
            for name in rest {
                diagnostics.push(Diagnostic::error(
                    principal_path(name),
                    "Conflicting principals",
                    format!(
                        "principal.{name}: a grant has exactly one principal, and `{first}` is set as well. Observed: \
                         {}. Fix: keep one of them; grant another principal with a second \
                         hyperpod_domain_unit_policy_grant.",
                        set.join(", ")
                    ),
                ));
            }
        }
    }
    // The pairing of unit and designation is judged only on known values: an unknown one is judged at plan.
    let known_set = |name: &str| principal.get_attr(name).is_some_and(|v| v.is_known() && !v.is_null());
    let known_null = |name: &str| principal.get_attr(name).is_none_or(Value::is_null);
    let unit_set = known_set("domain_unit_id");
    let designation_set = known_set("designation");
    if unit_set && known_null("designation") {
        diagnostics.push(Diagnostic::error(
            principal_path("designation"),
            "Missing designation",
            "principal.designation: a domain-unit principal names which of the unit's users are granted. Fix: add \
             `designation = \"OWNER\"`.",
        ));
    }
    if designation_set && known_null("domain_unit_id") {
        diagnostics.push(Diagnostic::error(
            principal_path("designation"),
            "Designation without a domain unit",
            "principal.designation: only a domain-unit principal has a designation. Fix: remove it, or set \
             `principal.domain_unit_id`.",
        ));
    }
}

fn validate_profiles(config: &Value, diagnostics: &mut Diagnostics) {
    let path = AttributePath::attr("project_profile_ids");
    let Some(Value::List(items)) = config.get_attr("project_profile_ids") else {
        return; // null is Terraform's to refuse (required); unknown is checked at apply
    };
    if items.is_empty() {
        diagnostics.push(Diagnostic::invalid_value(
            path,
            "[]",
            "a grant needs at least one project profile",
            "list the approved project profiles' IDs, e.g. [\"hyperpodprof01\"]",
        ));
        return;
    }
    let pattern = Matches::new(PROJECT_PROFILE_ID, "");
    let mut seen = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        let Value::String(id) = item else { continue };
        let item_path = path.index(index);
        if !pattern.is_match(id) {
            diagnostics.push(Diagnostic::invalid_value(
                item_path,
                format!("{id:?}"),
                "the value is not a project profile ID",
                "use the profile's ID (1 to 36 letters, digits, `_` and `-`), not its name",
            ));
        } else if !seen.insert(id.as_str()) {
            diagnostics.push(Diagnostic::invalid_value(
                item_path,
                format!("{id:?}"),
                "the profile is listed twice",
                "list each project profile once",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::test_values::{config, principal};
    use super::*;
    use crate::protocol::plan::set_attr;

    fn errors(config: &Value) -> Vec<(String, String)> {
        let mut diagnostics = Diagnostics::new();
        validate(config, &mut diagnostics);
        diagnostics
            .0
            .into_iter()
            .map(|d| (d.path.to_string(), d.summary))
            .collect()
    }

    #[test]
    fn exactly_one_principal_is_accepted() {
        for p in [
            principal(&[("group_id", "ml-admins")]),
            principal(&[("user_id", "u-1")]),
            principal(&[("domain_unit_id", "mlplatform0001"), ("designation", "OWNER")]),
        ] {
            assert_eq!(errors(&config(p, &["hyperpodprof01"])), Vec::<(String, String)>::new());
        }
    }

    #[test]
    fn two_principals_point_at_the_second() {
        let two = principal(&[("group_id", "ml-admins"), ("user_id", "u-1")]);
        assert_eq!(
            errors(&config(two, &["hyperpodprof01"])),
            [("principal.user_id".to_string(), "Conflicting principals".to_string())]
        );
        let none = principal(&[]);
        assert_eq!(errors(&config(none, &["p"]))[0].0, "principal");
    }

    #[test]
    fn designation_goes_with_a_domain_unit_only() {
        let missing = principal(&[("domain_unit_id", "mlplatform0001")]);
        assert_eq!(errors(&config(missing, &["p"]))[0].0, "principal.designation");
        let stray = principal(&[("group_id", "g"), ("designation", "OWNER")]);
        assert_eq!(errors(&config(stray, &["p"]))[0].1, "Designation without a domain unit");
    }

    #[test]
    fn unknown_principal_values_count_as_set() {
        let mut p = principal(&[("group_id", "g")]);
        set_attr(&mut p, "user_id", Value::Unknown);
        assert_eq!(errors(&config(p, &["p"])).len(), 1);
    }

    #[test]
    fn profiles_need_one_distinct_well_formed_id() {
        assert_eq!(
            errors(&config(principal(&[("group_id", "g")]), &[]))[0].0,
            "project_profile_ids"
        );
        let found = errors(&config(
            principal(&[("group_id", "g")]),
            &["a", "hyperpod projects", "a"],
        ));
        let paths: Vec<_> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["project_profile_ids[1]", "project_profile_ids[2]"]);
    }

    #[test]
    fn every_argument_forces_replacement() {
        let schema = schema();
        for name in ARGUMENTS.iter().filter(|name| **name != "principal") {
            let attribute = schema.block.find_attribute(name).expect("declared");
            assert!(attribute.requires_replace, "{name}");
        }
        assert_eq!(schema.block.blocks[0].name, "principal");
        assert_eq!(
            (schema.block.blocks[0].min_items, schema.block.blocks[0].max_items),
            (1, 1)
        );
        for attribute in &schema.block.attributes {
            assert!(
                !attribute.description.is_empty(),
                "{} has no description",
                attribute.name
            );
        }
        assert!(schema.block.description.contains("ORG-1"));
    }
}
