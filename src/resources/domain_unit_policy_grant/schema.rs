//! `hyperpod_domain_unit_policy_grant` schema: what `terraform validate` checks beyond the declaration's validators
//! (one principal, at least one distinct, well-formed profile).

use std::collections::BTreeSet;

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::validators::Matches;
use crate::protocol::value::Value;

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`domain_unit_policy_grant.rs`), below the provider and the report alike.
pub use hyperpod_declarations::domain_unit_policy_grant::*;

/// The principal's attributes that each name a kind of principal (exactly one is set), each with whether it is set.
fn principal_kinds(principal: &GrantPrincipalBlock) -> [(&'static str, &Field<String>); 3] {
    [
        (GrantPrincipalBlock::GROUP_ID.name(), &principal.group_id),
        (GrantPrincipalBlock::USER_ID.name(), &principal.user_id),
        (GrantPrincipalBlock::DOMAIN_UNIT_ID.name(), &principal.domain_unit_id),
    ]
}

fn principal_path(name: &str) -> AttributePath {
    PolicyGrantModel::PRINCIPAL.path().push_attr(name)
}

/// What `terraform validate` checks beyond the attributes' validators (no I/O, unknown values skipped): exactly one
/// principal, `designation` exactly with `domain_unit_id`, and at least one distinct, well-formed project profile ID.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    // A value of the wrong type is Terraform's to refuse, against the schema.
    let Ok(grant) = PolicyGrantModel::decode(config) else {
        return;
    };
    if let Field::Known(principal) = &grant.principal {
        validate_principal(principal, diagnostics);
    }
    validate_profiles(&grant.project_profile_ids, diagnostics);
}

fn validate_principal(principal: &GrantPrincipalBlock, diagnostics: &mut Diagnostics) {
    // An unknown value will be set (or not) at apply; counting it as set is the conservative reading.
    let set: Vec<&str> = (principal_kinds(principal).into_iter())
        .filter(|(_, value)| **value != Field::Null)
        .map(|(name, _)| name)
        .collect();
    match set.as_slice() {
        [] => diagnostics.push(Diagnostic::error(
            PolicyGrantModel::PRINCIPAL.path(),
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
    let known_set = |value: &Field<String>| matches!(value, Field::Known(_));
    let designation_path = principal_path(GrantPrincipalBlock::DESIGNATION.name());
    if known_set(&principal.domain_unit_id) && principal.designation == Field::Null {
        diagnostics.push(Diagnostic::error(
            designation_path.clone(),
            "Missing designation",
            "principal.designation: a domain-unit principal names which of the unit's users are granted. Fix: add \
             `designation = \"OWNER\"`.",
        ));
    }
    if known_set(&principal.designation) && principal.domain_unit_id == Field::Null {
        diagnostics.push(Diagnostic::error(
            designation_path,
            "Designation without a domain unit",
            "principal.designation: only a domain-unit principal has a designation. Fix: remove it, or set \
             `principal.domain_unit_id`.",
        ));
    }
}

fn validate_profiles(profiles: &Field<Vec<Field<String>>>, diagnostics: &mut Diagnostics) {
    let path = PolicyGrantModel::PROJECT_PROFILE_IDS.path();
    let Field::Known(items) = profiles else {
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
        let Field::Known(id) = item else { continue };
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
        for attribute in schema
            .block
            .attributes
            .iter()
            .filter(|a| !a.presence.is_computed() || a.default.is_some())
        {
            assert!(attribute.requires_replace, "{}", attribute.name);
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
