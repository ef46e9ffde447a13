//! The state a grant records: flattened from what DataZone reports, and its `governance` value.

use std::collections::BTreeSet;

use super::super::schema::{DESIGNATIONS, GrantGovernance, GrantPrincipalBlock, PolicyGrantModel};
use crate::aws::datazone_grants::{GrantPrincipal, ProfileGrant};
use crate::protocol::model::Field;

/// The `principal` block for a principal DataZone reports. A kind this resource cannot express (a project, all
/// users) leaves every attribute null, which differs from any configuration: the plan shows it and replaces it.
pub fn principal_block(principal: &GrantPrincipal) -> GrantPrincipalBlock {
    let known = |id: &String| Field::Known(id.clone());
    match principal {
        GrantPrincipal::Group(id) => GrantPrincipalBlock {
            group_id: known(id),
            ..GrantPrincipalBlock::default()
        },
        GrantPrincipal::User(id) => GrantPrincipalBlock {
            user_id: known(id),
            ..GrantPrincipalBlock::default()
        },
        GrantPrincipal::DomainUnitOwners(id) => GrantPrincipalBlock {
            domain_unit_id: known(id),
            designation: Field::Known(DESIGNATIONS[0].to_string()),
            ..GrantPrincipalBlock::default()
        },
        GrantPrincipal::Other(_) => GrantPrincipalBlock::default(),
    }
}

/// `<domain>/<domain unit>/<grant>`.
pub fn grant_resource_id(domain_id: &str, domain_unit_id: &str, grant_id: &str) -> String {
    format!("{domain_id}/{domain_unit_id}/{grant_id}")
}

/// State from what DataZone reports. Profiles keep the prior order when they are the same set, so a reordered
/// response is no change.
pub fn flatten(
    grant: &ProfileGrant,
    domain_id: &str,
    domain_unit_id: &str,
    prior: &PolicyGrantModel,
) -> PolicyGrantModel {
    let prior_profiles: Vec<String> = match &prior.project_profile_ids {
        Field::Known(items) => items.iter().filter_map(|item| item.as_known().cloned()).collect(),
        _ => Vec::new(),
    };
    let same_set = prior_profiles.iter().collect::<BTreeSet<_>>() == grant.project_profile_ids.iter().collect()
        && prior_profiles.len() == grant.project_profile_ids.len();
    let profiles = if same_set {
        prior_profiles
    } else {
        grant.project_profile_ids.clone()
    };
    let mut state = PolicyGrantModel {
        id: Field::Known(grant_resource_id(domain_id, domain_unit_id, &grant.grant_id)),
        grant_id: Field::Known(grant.grant_id.clone()),
        domain_id: Field::Known(domain_id.to_string()),
        domain_unit_id: Field::Known(domain_unit_id.to_string()),
        project_profile_ids: Field::Known(profiles.into_iter().map(Field::Known).collect()),
        include_child_domain_units: Field::Known(grant.include_child_domain_units),
        governance: Field::Null,
        principal: Field::Known(principal_block(&grant.principal)),
    };
    state.governance = Field::Known(governance(&state));
    state
}

/// The `governance` attribute, derived from the grant's own arguments so it is known at plan time (an unknown
/// argument stays unknown in it).
pub fn governance(grant: &PolicyGrantModel) -> GrantGovernance {
    GrantGovernance {
        domain_id: grant.domain_id.clone(),
        domain_unit_id: grant.domain_unit_id.clone(),
        project_profile_ids: grant.project_profile_ids.clone(),
        include_child_domain_units: match &grant.include_child_domain_units {
            Field::Null => Field::Known(false),
            other => other.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::principal_of;
    use super::super::test_values::{config, principal};
    use super::*;
    use crate::protocol::model::{Known, Model};
    use crate::protocol::value::Value;

    fn model(value: &Value) -> PolicyGrantModel {
        PolicyGrantModel::decode(value).expect("a grant's value decodes")
    }

    fn profiles(state: &PolicyGrantModel) -> Vec<String> {
        match &state.project_profile_ids {
            Field::Known(items) => items.iter().filter_map(|item| item.as_known().cloned()).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn flatten_keeps_the_configured_profile_order_and_reads_the_principal() {
        let grant = ProfileGrant {
            grant_id: "AbCdEf0123".to_string(),
            principal: GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()),
            project_profile_ids: vec!["b".to_string(), "a".to_string()],
            include_child_domain_units: true,
            raw_principal: None,
        };
        let prior = model(&config(principal(&[]), &["a", "b"]));
        let state = flatten(&grant, "dzd_capacity01", "mlplatform0001", &prior);
        assert_eq!(profiles(&state), ["a", "b"]);
        assert_eq!(
            state.id,
            Field::Known("dzd_capacity01/mlplatform0001/AbCdEf0123".to_string())
        );
        let Field::Known(block) = &state.principal else {
            panic!("a principal")
        };
        assert_eq!(block.designation, Field::Known("OWNER".to_string()));
        assert_eq!(
            principal_of(&state),
            Some(GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()))
        );
        let Field::Known(facts) = &state.governance else {
            panic!("governance")
        };
        assert_eq!(facts.include_child_domain_units, Field::Known(true));
        // A changed set of profiles is reported as DataZone has it: drift.
        let other = model(&config(principal(&[]), &["a", "c"]));
        let drifted = flatten(&grant, "dzd_capacity01", "mlplatform0001", &other);
        assert_eq!(profiles(&drifted), ["b", "a"]);
    }

    #[test]
    fn a_principal_kind_the_resource_cannot_express_reads_as_no_principal() {
        let block = principal_block(&GrantPrincipal::Other("all users".to_string()));
        assert_eq!(block, GrantPrincipalBlock::default());
        assert_eq!(block.group_id, Field::Null);
    }

    #[test]
    fn governance_is_known_when_the_arguments_are() {
        let planned = config(principal(&[("group_id", "g")]), &["p"]);
        let facts = governance(&model(&planned));
        assert!(facts.encode_known().is_wholly_known());
        assert_eq!(facts.include_child_domain_units, Field::Known(false));
        let mut later = model(&planned);
        later.domain_unit_id = Field::Unknown;
        assert_eq!(governance(&later).domain_unit_id, Field::Unknown);
    }
}
