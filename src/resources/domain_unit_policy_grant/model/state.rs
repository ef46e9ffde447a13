//! The state a grant records: flattened from what DataZone reports, and its `governance` value.

use std::collections::BTreeSet;

use super::super::schema::DESIGNATIONS;
use crate::aws::datazone_grants::{GrantPrincipal, ProfileGrant};
use crate::protocol::object::{object, strings, text, text_list};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

/// The `principal` block for a principal DataZone reports. A kind this resource cannot express (a project, all
/// users) leaves every attribute null, which differs from any configuration: the plan shows it and replaces it.
pub fn principal_value(principal: &GrantPrincipal) -> Value {
    let (group, user, unit, designation) = match principal {
        GrantPrincipal::Group(id) => (text(id), Value::Null, Value::Null, Value::Null),
        GrantPrincipal::User(id) => (Value::Null, text(id), Value::Null, Value::Null),
        GrantPrincipal::DomainUnitOwners(id) => (Value::Null, Value::Null, text(id), text(DESIGNATIONS[0])),
        GrantPrincipal::Other(_) => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    object([
        ("group_id", group),
        ("user_id", user),
        ("domain_unit_id", unit),
        ("designation", designation),
    ])
}

/// `<domain>/<domain unit>/<grant>`.
pub fn grant_resource_id(domain_id: &str, domain_unit_id: &str, grant_id: &str) -> String {
    format!("{domain_id}/{domain_unit_id}/{grant_id}")
}

/// State from what DataZone reports. Profiles keep the prior order when they are the same set, so a reordered
/// response is no change.
pub fn flatten(grant: &ProfileGrant, domain_id: &str, domain_unit_id: &str, prior: &Value) -> Value {
    let prior_profiles = strings(prior, "project_profile_ids");
    let same_set = prior_profiles.iter().collect::<BTreeSet<_>>() == grant.project_profile_ids.iter().collect()
        && prior_profiles.len() == grant.project_profile_ids.len();
    let profiles = if same_set {
        prior_profiles
    } else {
        grant.project_profile_ids.clone()
    };
    let mut state = object([
        (
            "id",
            text(grant_resource_id(domain_id, domain_unit_id, &grant.grant_id)),
        ),
        ("grant_id", text(&grant.grant_id)),
        ("domain_id", text(domain_id)),
        ("domain_unit_id", text(domain_unit_id)),
        ("project_profile_ids", text_list(&profiles)),
        (
            "include_child_domain_units",
            Value::Bool(grant.include_child_domain_units),
        ),
        ("principal", principal_value(&grant.principal)),
    ]);
    let facts = governance_value(&state);
    set_attr(&mut state, "governance", facts);
    state
}

/// The `governance` attribute, derived from the grant's own arguments so it is known at plan time (an unknown
/// argument stays unknown in it).
pub fn governance_value(grant: &Value) -> Value {
    let attr = |name: &str| grant.get_attr(name).cloned().unwrap_or(Value::Null);
    let include_children = match grant.get_attr("include_child_domain_units") {
        Some(Value::Null) | None => Value::Bool(false),
        Some(other) => other.clone(),
    };
    object([
        ("domain_id", attr("domain_id")),
        ("domain_unit_id", attr("domain_unit_id")),
        ("project_profile_ids", attr("project_profile_ids")),
        ("include_child_domain_units", include_children),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::super::schema::PRINCIPAL_KINDS;
    use super::super::principal_from_value;
    use super::super::test_values::{config, principal};
    use super::*;
    use crate::protocol::object::{boolean, nested, string};

    #[test]
    fn flatten_keeps_the_configured_profile_order_and_reads_the_principal() {
        let grant = ProfileGrant {
            grant_id: "AbCdEf0123".to_string(),
            principal: GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()),
            project_profile_ids: vec!["b".to_string(), "a".to_string()],
            include_child_domain_units: true,
            raw_principal: None,
        };
        let prior = config(principal(&[]), &["a", "b"]);
        let state = flatten(&grant, "dzd_capacity01", "mlplatform0001", &prior);
        assert_eq!(strings(&state, "project_profile_ids"), ["a", "b"]);
        assert_eq!(
            string(&state, "id").as_deref(),
            Some("dzd_capacity01/mlplatform0001/AbCdEf0123")
        );
        let p = nested(&state, "principal").expect("principal");
        assert_eq!(string(p, "designation").as_deref(), Some("OWNER"));
        assert_eq!(
            principal_from_value(&state),
            Some(GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()))
        );
        let governance = state.get_attr("governance").expect("governance");
        assert_eq!(boolean(governance, "include_child_domain_units"), Some(true));
        // A changed set of profiles is reported as DataZone has it: drift.
        let other = config(principal(&[]), &["a", "c"]);
        let drifted = flatten(&grant, "dzd_capacity01", "mlplatform0001", &other);
        assert_eq!(strings(&drifted, "project_profile_ids"), ["b", "a"]);
    }

    #[test]
    fn a_principal_kind_the_resource_cannot_express_reads_as_no_principal() {
        let value = principal_value(&GrantPrincipal::Other("all users".to_string()));
        assert!(
            PRINCIPAL_KINDS
                .iter()
                .all(|name| value.get_attr(name) == Some(&Value::Null))
        );
    }

    #[test]
    fn governance_is_known_when_the_arguments_are() {
        let planned = config(principal(&[("group_id", "g")]), &["p"]);
        let facts = governance_value(&planned);
        assert!(facts.is_wholly_known());
        assert_eq!(boolean(&facts, "include_child_domain_units"), Some(false));
        let mut later = planned.clone();
        set_attr(&mut later, "domain_unit_id", Value::Unknown);
        assert_eq!(
            governance_value(&later).get_attr("domain_unit_id"),
            Some(&Value::Unknown)
        );
    }
}
