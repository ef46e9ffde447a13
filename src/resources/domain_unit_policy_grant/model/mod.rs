//! The grant's configuration, typed (`GrantConfig`, and `GrantTerms` once every part is known), the import ID, and
//! the state it records (`state`), with how a grant is known as this resource's own (`ownership`).

mod ownership;
mod state;
#[cfg(test)]
pub(super) mod test_values;

pub use ownership::{SeenGrants, next_client_token};
pub use state::{flatten, governance, grant_resource_id, principal_block};

use super::schema::{GrantPrincipalBlock, PolicyGrantModel};
use crate::aws::datazone_grants::{GrantPrincipal, ProfileGrant};
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::Field;

/// What the configuration (or a planned value) says, each `None` while unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantConfig {
    pub domain_id: Option<String>,
    pub domain_unit_id: Option<String>,
    /// The known project profile IDs, each with its index in `project_profile_ids`.
    pub project_profile_ids: Vec<(usize, String)>,
    /// `principal.domain_unit_id`: the domain unit whose owners are granted.
    pub principal_unit: Option<String>,
    /// The principal; `None` while it is unknown or not exactly one kind.
    pub principal: Option<GrantPrincipal>,
    /// The whole grant, once every part of it is known.
    pub terms: Option<GrantTerms>,
}

impl GrantConfig {
    pub fn of(grant: &PolicyGrantModel) -> Self {
        let project_profile_ids = match &grant.project_profile_ids {
            Field::Known(items) => (items.iter().enumerate())
                .filter_map(|(index, item)| item.as_known().cloned().map(|id| (index, id)))
                .collect(),
            _ => Vec::new(),
        };
        let principal_unit = match &grant.principal {
            Field::Known(principal) => principal.domain_unit_id.as_known().cloned(),
            _ => None,
        };
        let principal = principal_of(grant);
        Self {
            domain_id: grant.domain_id.as_known().cloned(),
            domain_unit_id: grant.domain_unit_id.as_known().cloned(),
            project_profile_ids,
            principal_unit,
            terms: principal
                .clone()
                .and_then(|principal| GrantTerms::with(grant, principal)),
            principal,
        }
    }
}

/// What the configuration asks DataZone to grant, once every value is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantTerms {
    pub domain_id: String,
    pub domain_unit_id: String,
    pub project_profile_ids: Vec<String>,
    pub include_child_domain_units: bool,
    pub principal: GrantPrincipal,
}

impl GrantTerms {
    /// `None` while any part is unknown (it comes from a resource not created yet).
    pub fn of(grant: &PolicyGrantModel) -> Option<Self> {
        Self::with(grant, principal_of(grant)?)
    }

    /// [`GrantTerms::of`] for a principal already read from `grant`.
    fn with(grant: &PolicyGrantModel, principal: GrantPrincipal) -> Option<Self> {
        let Field::Known(profiles) = &grant.project_profile_ids else {
            return None;
        };
        Some(Self {
            domain_id: grant.domain_id.as_known().cloned()?,
            domain_unit_id: grant.domain_unit_id.as_known().cloned()?,
            project_profile_ids: profiles
                .iter()
                .map(|id| id.as_known().cloned())
                .collect::<Option<_>>()?,
            include_child_domain_units: grant.include_child_domain_units.as_known().copied().unwrap_or(false),
            principal,
        })
    }

    /// Whether `grant` has exactly these terms (the same principal, profiles in any order, and child-unit scope).
    pub fn is_granted_by(&self, grant: &ProfileGrant) -> bool {
        grant.same_terms(
            &self.principal,
            &self.project_profile_ids,
            self.include_child_domain_units,
        )
    }
}

/// The configured principal; `None` when it is unknown or not exactly one kind.
pub fn principal_of(grant: &PolicyGrantModel) -> Option<GrantPrincipal> {
    let Field::Known(principal) = &grant.principal else {
        return None;
    };
    let parts = [
        &principal.group_id,
        &principal.user_id,
        &principal.domain_unit_id,
        &principal.designation,
    ];
    if parts.iter().any(|part| part.is_unknown()) {
        return None;
    }
    match (
        principal.group_id.as_known().cloned(),
        principal.user_id.as_known().cloned(),
        principal.domain_unit_id.as_known().cloned(),
    ) {
        (Some(group), None, None) => Some(GrantPrincipal::Group(group)),
        (None, Some(user), None) => Some(GrantPrincipal::User(user)),
        (None, None, Some(unit)) => Some(GrantPrincipal::DomainUnitOwners(unit)),
        _ => None,
    }
}

/// Where a principal is configured: `principal.group_id` or `principal.user_id`.
pub fn principal_path(principal: &GrantPrincipal) -> AttributePath {
    let name = match principal {
        GrantPrincipal::User(_) => GrantPrincipalBlock::USER_ID.name(),
        GrantPrincipal::DomainUnitOwners(_) => GrantPrincipalBlock::DOMAIN_UNIT_ID.name(),
        _ => GrantPrincipalBlock::GROUP_ID.name(),
    };
    PolicyGrantModel::PRINCIPAL.path().push_attr(name)
}

/// Splits an import ID. Grant IDs may contain `/` (`[A-Za-z0-9+/]{10}`); domain and domain unit IDs never do, so
/// only the first two slashes separate.
pub fn parse_resource_id(id: &str) -> Option<(String, String, String)> {
    let mut parts = id.trim().splitn(3, '/');
    let (domain, unit, grant) = (parts.next()?, parts.next()?, parts.next()?);
    if domain.is_empty() || unit.is_empty() || grant.is_empty() {
        return None;
    }
    Some((domain.to_string(), unit.to_string(), grant.to_string()))
}

/// `domain_id`, `domain_unit_id` and `grant_id` of a state, falling back to the `id` for the parts missing.
pub fn grant_ids(state: &PolicyGrantModel) -> Option<(String, String, String)> {
    let from_id = state.id.as_known().and_then(|id| parse_resource_id(id));
    let part = |field: &Field<String>, index: usize| {
        field.as_known().cloned().or_else(|| {
            from_id.as_ref().map(|(domain, unit, grant)| match index {
                0 => domain.clone(),
                1 => unit.clone(),
                _ => grant.clone(),
            })
        })
    };
    Some((
        part(&state.domain_id, 0)?,
        part(&state.domain_unit_id, 1)?,
        part(&state.grant_id, 2)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_ids_split_on_the_first_two_slashes() {
        assert_eq!(
            parse_resource_id("dzd_capacity01/mlplatform0001/ab/Cd+ef12"),
            Some((
                "dzd_capacity01".to_string(),
                "mlplatform0001".to_string(),
                "ab/Cd+ef12".to_string()
            ))
        );
        assert_eq!(parse_resource_id("dzd_capacity01/mlplatform0001"), None);
        assert_eq!(parse_resource_id("dzd_capacity01//x"), None);
        let id = grant_resource_id("d", "u", "g/h");
        assert_eq!(parse_resource_id(&id).map(|(_, _, g)| g), Some("g/h".to_string()));
    }
}
