//! DataZone (SageMaker Unified Studio) organization layer: domain units, project profiles, and the
//! `CREATE_PROJECT_FROM_PROJECT_PROFILE` policy grants on domain units (`AddPolicyGrant` / `ListPolicyGrants` /
//! `RemovePolicyGrant`). Missing domains, domain units, profiles and grants are the typed `AwsError::NotFound`.

use aws_sdk_datazone::Client;
use aws_sdk_datazone::types::{
    CreateProjectFromProjectProfilePolicyGrantDetail, DomainUnitDesignation, DomainUnitPolicyGrantPrincipal,
    GroupPolicyGrantPrincipal, ManagedPolicyType, PolicyGrantDetail, PolicyGrantMember, PolicyGrantPrincipal,
    TargetEntityType, UserPolicyGrantPrincipal,
};

use super::{AwsError, api_error, not_found_as};

/// The one policy type this module grants.
pub const POLICY_TYPE: &str = "CREATE_PROJECT_FROM_PROJECT_PROFILE";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainUnit {
    pub id: String,
    pub name: String,
    pub parent_domain_unit_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectProfile {
    pub id: String,
    pub name: String,
    /// `ENABLED` or `DISABLED`; a disabled profile creates no projects whatever is granted.
    pub status: Option<String>,
    pub domain_unit_id: Option<String>,
}

impl ProjectProfile {
    pub fn is_enabled(&self) -> bool {
        self.status.as_deref().is_none_or(|status| status == "ENABLED")
    }
}

/// Who a grant lets create projects. DataZone has more principal kinds (projects, all users); grants to those are
/// read as `Other` and never written by this provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrantPrincipal {
    /// An IAM Identity Center group (`groupIdentifier`).
    Group(String),
    /// A user (`userIdentifier`: user profile ID, IAM ARN or SSO user).
    User(String),
    /// The owners of a domain unit (`domainUnitDesignation` OWNER).
    DomainUnitOwners(String),
    /// Any other principal, described for diagnostics.
    Other(String),
}

impl GrantPrincipal {
    pub fn to_sdk(&self) -> Result<PolicyGrantPrincipal, AwsError> {
        Ok(match self {
            Self::Group(id) => PolicyGrantPrincipal::Group(GroupPolicyGrantPrincipal::GroupIdentifier(id.clone())),
            Self::User(id) => PolicyGrantPrincipal::User(UserPolicyGrantPrincipal::UserIdentifier(id.clone())),
            Self::DomainUnitOwners(unit) => PolicyGrantPrincipal::DomainUnit(
                DomainUnitPolicyGrantPrincipal::builder()
                    .domain_unit_designation(DomainUnitDesignation::Owner)
                    .domain_unit_identifier(unit)
                    .build()
                    .map_err(|err| AwsError::Api {
                        operation: "AddPolicyGrant",
                        code: "InvalidRequest".into(),
                        message: err.to_string(),
                    })?,
            ),
            Self::Other(description) => {
                return Err(AwsError::Api {
                    operation: "AddPolicyGrant",
                    code: "InvalidRequest".into(),
                    message: format!("principal {description} cannot be granted by this provider"),
                });
            }
        })
    }

    pub fn from_sdk(principal: Option<&PolicyGrantPrincipal>) -> Self {
        match principal {
            Some(PolicyGrantPrincipal::Group(GroupPolicyGrantPrincipal::GroupIdentifier(id))) => {
                Self::Group(id.clone())
            }
            Some(PolicyGrantPrincipal::User(UserPolicyGrantPrincipal::UserIdentifier(id))) => Self::User(id.clone()),
            Some(PolicyGrantPrincipal::User(UserPolicyGrantPrincipal::AllUsersGrantFilter(_))) => {
                Self::Other("all users".to_string())
            }
            Some(PolicyGrantPrincipal::DomainUnit(unit))
                if *unit.domain_unit_designation() == DomainUnitDesignation::Owner
                    && unit.domain_unit_grant_filter().is_none() =>
            {
                match unit.domain_unit_identifier() {
                    Some(id) => Self::DomainUnitOwners(id.to_string()),
                    None => Self::Other("domain unit owners (no domain unit)".to_string()),
                }
            }
            Some(PolicyGrantPrincipal::DomainUnit(unit)) => Self::Other(format!(
                "domain unit {} ({}, with a grant filter)",
                unit.domain_unit_identifier().unwrap_or("?"),
                unit.domain_unit_designation().as_str()
            )),
            Some(PolicyGrantPrincipal::Project(project)) => Self::Other(format!(
                "project {} ({})",
                project.project_identifier().unwrap_or("(by filter)"),
                project.project_designation().as_str()
            )),
            Some(_) => Self::Other("a principal kind this provider does not know".to_string()),
            None => Self::Other("no principal".to_string()),
        }
    }
}

/// A `CREATE_PROJECT_FROM_PROJECT_PROFILE` grant on a domain unit, as DataZone reports it.
#[derive(Clone, Debug)]
pub struct ProfileGrant {
    pub grant_id: String,
    pub principal: GrantPrincipal,
    pub project_profile_ids: Vec<String>,
    pub include_child_domain_units: bool,
    /// The principal exactly as DataZone returned it: `RemovePolicyGrant` must name it the same way.
    pub raw_principal: Option<PolicyGrantPrincipal>,
}

impl ProfileGrant {
    fn from_member(member: &PolicyGrantMember) -> Self {
        let (project_profile_ids, include_child_domain_units) = match member.detail() {
            Some(PolicyGrantDetail::CreateProjectFromProjectProfile(detail)) => (
                detail.project_profiles().to_vec(),
                detail.include_child_domain_units().unwrap_or(false),
            ),
            _ => (Vec::new(), false),
        };
        Self {
            grant_id: member.grant_id().unwrap_or_default().to_string(),
            principal: GrantPrincipal::from_sdk(member.principal()),
            project_profile_ids,
            include_child_domain_units,
            raw_principal: member.principal().cloned(),
        }
    }

    /// Same principal and the same profiles (in any order) and child-unit scope.
    pub fn same_terms(
        &self,
        principal: &GrantPrincipal,
        profiles: &[String],
        include_child_domain_units: bool,
    ) -> bool {
        let mut mine = self.project_profile_ids.clone();
        let mut theirs = profiles.to_vec();
        mine.sort();
        theirs.sort();
        self.principal == *principal && mine == theirs && self.include_child_domain_units == include_child_domain_units
    }
}

fn policy_type() -> ManagedPolicyType {
    ManagedPolicyType::from(POLICY_TYPE)
}

pub async fn find_domain(client: &Client, domain_id: &str) -> Result<String, AwsError> {
    let output = client
        .get_domain()
        .identifier(domain_id)
        .send()
        .await
        .map_err(|err| api_error("GetDomain", err))
        .map_err(|err| not_found_as("Unified Studio domain", domain_id, err))?;
    Ok(output.id().to_string())
}

pub async fn find_domain_unit(client: &Client, domain_id: &str, domain_unit_id: &str) -> Result<DomainUnit, AwsError> {
    let output = client
        .get_domain_unit()
        .domain_identifier(domain_id)
        .identifier(domain_unit_id)
        .send()
        .await
        .map_err(|err| api_error("GetDomainUnit", err))
        .map_err(|err| not_found_as("domain unit", domain_unit_id, err))?;
    Ok(DomainUnit {
        id: output.id().to_string(),
        name: output.name().to_string(),
        parent_domain_unit_id: output.parent_domain_unit_id().map(str::to_string),
    })
}

pub async fn find_project_profile(
    client: &Client,
    domain_id: &str,
    profile_id: &str,
) -> Result<ProjectProfile, AwsError> {
    let output = client
        .get_project_profile()
        .domain_identifier(domain_id)
        .identifier(profile_id)
        .send()
        .await
        .map_err(|err| api_error("GetProjectProfile", err))
        .map_err(|err| not_found_as("project profile", profile_id, err))?;
    Ok(ProjectProfile {
        id: output.id().to_string(),
        name: output.name().to_string(),
        status: output.status().map(|s| s.as_str().to_string()),
        domain_unit_id: output.domain_unit_id().map(str::to_string),
    })
}

/// Every project profile of the domain.
pub async fn list_project_profiles(client: &Client, domain_id: &str) -> Result<Vec<ProjectProfile>, AwsError> {
    let mut profiles = Vec::new();
    let mut pages = client
        .list_project_profiles()
        .domain_identifier(domain_id)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page
            .map_err(|err| api_error("ListProjectProfiles", err))
            .map_err(|err| not_found_as("Unified Studio domain", domain_id, err))?;
        profiles.extend(page.items().iter().map(|summary| ProjectProfile {
            id: summary.id().to_string(),
            name: summary.name().to_string(),
            status: summary.status().map(|s| s.as_str().to_string()),
            domain_unit_id: summary.domain_unit_id().map(str::to_string),
        }));
    }
    Ok(profiles)
}

/// Grants a principal the right to create projects in a domain unit from the given project profiles; returns the
/// grant ID. `client_token` is the request's idempotency token: a repeat answers the first request's grant ID.
pub async fn add_project_profile_grant(
    client: &Client,
    domain_id: &str,
    domain_unit_id: &str,
    principal: &GrantPrincipal,
    project_profile_ids: &[String],
    include_child_domain_units: bool,
    client_token: &str,
) -> Result<String, AwsError> {
    let detail = CreateProjectFromProjectProfilePolicyGrantDetail::builder()
        .set_project_profiles(Some(project_profile_ids.to_vec()))
        .include_child_domain_units(include_child_domain_units)
        .build();
    let output = client
        .add_policy_grant()
        .domain_identifier(domain_id)
        .entity_type(TargetEntityType::DomainUnit)
        .entity_identifier(domain_unit_id)
        .policy_type(policy_type())
        .principal(principal.to_sdk()?)
        .detail(PolicyGrantDetail::CreateProjectFromProjectProfile(detail))
        .client_token(client_token)
        .send()
        .await
        .map_err(|err| api_error("AddPolicyGrant", err))?;
    output.grant_id().map(str::to_string).ok_or_else(|| AwsError::Api {
        operation: "AddPolicyGrant",
        code: "MissingGrantId".into(),
        message: "DataZone accepted the grant but returned no grant ID".to_string(),
    })
}

/// The `CREATE_PROJECT_FROM_PROJECT_PROFILE` grants on a domain unit. A missing domain or domain unit is `NotFound`.
pub async fn list_project_profile_grants(
    client: &Client,
    domain_id: &str,
    domain_unit_id: &str,
) -> Result<Vec<ProfileGrant>, AwsError> {
    let mut grants = Vec::new();
    let mut pages = client
        .list_policy_grants()
        .domain_identifier(domain_id)
        .entity_type(TargetEntityType::DomainUnit)
        .entity_identifier(domain_unit_id)
        .policy_type(policy_type())
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page
            .map_err(|err| api_error("ListPolicyGrants", err))
            .map_err(|err| not_found_as("domain unit", domain_unit_id, err))?;
        grants.extend(page.grant_list().iter().map(ProfileGrant::from_member));
    }
    Ok(grants)
}

/// One grant by ID; `NotFound` when it (or its domain unit) no longer exists.
pub async fn find_project_profile_grant(
    client: &Client,
    domain_id: &str,
    domain_unit_id: &str,
    grant_id: &str,
) -> Result<ProfileGrant, AwsError> {
    list_project_profile_grants(client, domain_id, domain_unit_id)
        .await?
        .into_iter()
        .find(|grant| grant.grant_id == grant_id)
        .ok_or_else(|| AwsError::NotFound {
            kind: "policy grant",
            id: format!("{domain_id}/{domain_unit_id}/{grant_id}"),
        })
}

/// Removes one grant, naming its principal as DataZone reported it. Removing a grant that is gone succeeds.
pub async fn remove_project_profile_grant(
    client: &Client,
    domain_id: &str,
    domain_unit_id: &str,
    grant: &ProfileGrant,
) -> Result<(), AwsError> {
    let principal = match &grant.raw_principal {
        Some(principal) => principal.clone(),
        None => grant.principal.to_sdk()?,
    };
    let removed = client
        .remove_policy_grant()
        .domain_identifier(domain_id)
        .entity_type(TargetEntityType::DomainUnit)
        .entity_identifier(domain_unit_id)
        .policy_type(policy_type())
        .principal(principal)
        .grant_identifier(&grant.grant_id)
        .send()
        .await
        .map_err(|err| api_error("RemovePolicyGrant", err));
    match removed {
        Ok(_) => Ok(()),
        Err(err) if super::is_not_found_error(&err) => Ok(()),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_round_trip_through_the_sdk_union() {
        for principal in [
            GrantPrincipal::Group("ml-platform-admins".to_string()),
            GrantPrincipal::User("arn:aws:iam::123456789012:role/Admin".to_string()),
            GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()),
        ] {
            let sdk = principal.to_sdk().expect("representable");
            assert_eq!(GrantPrincipal::from_sdk(Some(&sdk)), principal);
        }
        assert!(GrantPrincipal::Other("x".to_string()).to_sdk().is_err());
        let all_users = PolicyGrantPrincipal::User(UserPolicyGrantPrincipal::AllUsersGrantFilter(
            aws_sdk_datazone::types::AllUsersGrantFilter::builder().build(),
        ));
        assert!(matches!(
            GrantPrincipal::from_sdk(Some(&all_users)),
            GrantPrincipal::Other(_)
        ));
        assert!(matches!(GrantPrincipal::from_sdk(None), GrantPrincipal::Other(_)));
    }

    #[test]
    fn grant_terms_ignore_profile_order() {
        let grant = ProfileGrant {
            grant_id: "AbCdEf0123".to_string(),
            principal: GrantPrincipal::Group("g".to_string()),
            project_profile_ids: vec!["b".to_string(), "a".to_string()],
            include_child_domain_units: false,
            raw_principal: None,
        };
        let group = GrantPrincipal::Group("g".to_string());
        assert!(grant.same_terms(&group, &["a".to_string(), "b".to_string()], false));
        assert!(!grant.same_terms(&group, &["a".to_string()], false));
        assert!(!grant.same_terms(&group, &["a".to_string(), "b".to_string()], true));
        assert!(!grant.same_terms(
            &GrantPrincipal::User("g".to_string()),
            &["a".to_string(), "b".to_string()],
            false
        ));
    }
}
