//! `list "hyperpod_domain_unit_policy_grant"`: the `CREATE_PROJECT_FROM_PROJECT_PROFILE` grants on one domain unit,
//! each saying whether a contract governs it. DataZone grants carry no tags, so governance is read from what rests
//! on the grant: it is governed when a governed project (one a tenant onboarded, see `resources::inventory`) was
//! created from one of its profiles in its unit, or in a child unit when the grant includes them — the grant a
//! contract's `organization` names. A grant nothing governed rests on is "not governed": a candidate for revocation.
//! Grants to principals this resource cannot express (all users, projects, filtered domain units) are not listed:
//! they could not be imported.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::schema::{self, TYPE_NAME};
use crate::aws::AwsError;
use crate::aws::datazone;
use crate::aws::datazone_grants::{
    self as grants, GrantPrincipal, ProfileGrant, find_domain_unit, list_project_profile_grants,
};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::list::{ListRequest, ListResource, Listed};
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::Schema;
use crate::resources::failed;
use crate::resources::inventory::{self, Governance, display_name};

/// How far up the domain-unit tree a project's unit is followed (DataZone nests units a few levels deep).
const MAX_UNIT_DEPTH: usize = 16;

/// The list's configuration.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct GrantListConfig {
    /// The Unified Studio domain.
    #[tf(required)]
    pub domain_id: Field<String>,
    /// The domain unit whose grants to list.
    #[tf(required)]
    pub domain_unit_id: Field<String>,
}

pub struct GrantList {
    schema: Schema,
}

impl Default for GrantList {
    fn default() -> Self {
        Self {
            schema: inventory::schema(
                "Finds the `CREATE_PROJECT_FROM_PROJECT_PROFILE` policy grants on a domain unit: who may create \
                 projects there, from which project profiles. Each result's display name names the principal and \
                 the profiles and says whether a contract governs the grant: `(governed by contract <name>)` when \
                 a governed project (one a tenant onboarded on a cluster) was created from one of its profiles in \
                 the unit (or a child unit, when the grant includes them), `(not governed)` when nothing governed \
                 rests on it, `(governance unknown: …)` when that could not be read. Grants to principals the \
                 resource cannot express (all users, projects) are not listed.",
                GrantListConfig::block().attributes,
            ),
        }
    }
}

/// A governed project placed in the domain: the contract that governs it, the profile it was created from, and its
/// domain unit followed by that unit's ancestors.
#[derive(Clone, Debug)]
struct PlacedProject {
    contract: Option<String>,
    profile_id: Option<String>,
    units: Vec<String>,
}

/// Governed when a governed project's creation rests on the grant: made from one of its profiles, in its unit or
/// (with `include_child_domain_units`) below it. Several contracts are named together.
fn governance(grant: &ProfileGrant, unit: &str, projects: &[PlacedProject]) -> Governance {
    let mut contracts: Vec<String> = Vec::new();
    let mut governed = false;
    for project in projects {
        let from_profile = project
            .profile_id
            .as_ref()
            .is_some_and(|profile| grant.project_profile_ids.contains(profile));
        let in_scope = match project.units.iter().position(|u| u == unit) {
            Some(0) => true,
            Some(_) => grant.include_child_domain_units,
            None => false,
        };
        if from_profile && in_scope {
            governed = true;
            contracts.extend(project.contract.clone());
        }
    }
    contracts.sort();
    contracts.dedup();
    match (governed, contracts.is_empty()) {
        (false, _) => Governance::NotGoverned,
        (true, true) => Governance::Governed { contract: None },
        (true, false) => Governance::Governed {
            contract: Some(contracts.join(", ")),
        },
    }
}

/// The result's name: `<principal>: <profiles>` and `(and child units)` when the grant includes them.
fn name(grant: &ProfileGrant) -> String {
    let principal = match &grant.principal {
        GrantPrincipal::Group(id) => format!("group {id}"),
        GrantPrincipal::User(id) => format!("user {id}"),
        GrantPrincipal::DomainUnitOwners(unit) => format!("owners of {unit}"),
        GrantPrincipal::Other(description) => description.clone(),
    };
    let mut profiles = grant.project_profile_ids.clone();
    profiles.sort();
    let children = if grant.include_child_domain_units {
        " (and child units)"
    } else {
        ""
    };
    format!("{principal}: {}{children}", profiles.join(", "))
}

/// A unit and its ancestors, root last; `parents` memoizes the reads across projects.
async fn unit_chain(
    client: &HyperpodClient,
    domain_id: &str,
    unit: &str,
    parents: &mut BTreeMap<String, Option<String>>,
) -> Result<Vec<String>, AwsError> {
    let mut chain = vec![unit.to_string()];
    while chain.len() < MAX_UNIT_DEPTH {
        let current = chain.last().cloned().unwrap_or_default();
        let parent = if let Some(parent) = parents.get(&current) {
            parent.clone()
        } else {
            let parent = find_domain_unit(&client.datazone, domain_id, &current)
                .await?
                .parent_domain_unit_id;
            parents.insert(current, parent.clone());
            parent
        };
        match parent {
            Some(parent) => chain.push(parent),
            None => break,
        }
    }
    Ok(chain)
}

/// Every governed project of the domain with its profile and unit chain; `Err` says what could not be read.
async fn placed_projects(client: &HyperpodClient, domain_id: &str) -> Result<Vec<PlacedProject>, String> {
    let mut parents = BTreeMap::new();
    let mut placed = Vec::new();
    for (project_id, contract) in inventory::governed_projects(client, domain_id).await? {
        let project = match datazone::find_project(&client.datazone, domain_id, &project_id).await {
            Ok(project) => project,
            Err(err) if err.is_not_found() => continue, // its tenant outlived it: nothing rests on a grant
            Err(err) => return Err(format!("project {project_id} could not be read: {err}")),
        };
        let units = match &project.domain_unit_id {
            Some(unit) => unit_chain(client, domain_id, unit, &mut parents)
                .await
                .map_err(|err| format!("the domain units above project {project_id} could not be read: {err}"))?,
            None => Vec::new(),
        };
        placed.push(PlacedProject {
            contract,
            profile_id: project.project_profile_id,
            units,
        });
    }
    Ok(placed)
}

#[async_trait]
impl ListResource<HyperpodClient> for GrantList {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn list(&self, client: &HyperpodClient, request: &ListRequest) -> Result<Vec<Listed>, Diagnostics> {
        let config = GrantListConfig::decode(&request.config)?;
        let domain_id = config.domain_id.known().unwrap_or_default();
        let unit_id = config.domain_unit_id.known().unwrap_or_default();
        let mut found = list_project_profile_grants(&client.datazone, &domain_id, &unit_id)
            .await
            .map_err(|err| {
                failed(
                    &format!("Listing the domain unit's {} grants failed", grants::POLICY_TYPE),
                    err,
                )
            })?;
        found.retain(|grant| !matches!(grant.principal, GrantPrincipal::Other(_)));
        if found.is_empty() {
            return Ok(Vec::new());
        }
        found.sort_by(|a, b| a.grant_id.cmp(&b.grant_id));
        let projects = placed_projects(client, &domain_id).await;
        Ok(found
            .iter()
            .take(request.limit)
            .map(|grant| {
                let governance = match &projects {
                    Ok(projects) => governance(grant, &unit_id, projects),
                    Err(why) => Governance::Unknown(why.clone()),
                };
                Listed {
                    identity: schema::identity(&domain_id, &unit_id, &grant.grant_id),
                    display_name: display_name(&name(grant), &governance),
                    resource_object: None,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(profiles: &[&str], include_children: bool) -> ProfileGrant {
        ProfileGrant {
            grant_id: "g1".into(),
            principal: GrantPrincipal::Group("ml-platform".into()),
            project_profile_ids: profiles.iter().map(std::string::ToString::to_string).collect(),
            include_child_domain_units: include_children,
            raw_principal: None,
        }
    }

    fn project(contract: &str, profile: &str, units: &[&str]) -> PlacedProject {
        PlacedProject {
            contract: Some(contract.into()),
            profile_id: Some(profile.into()),
            units: units.iter().map(std::string::ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_grant_is_governed_when_a_governed_project_was_created_under_it() {
        let in_unit = project("research-capacity", "pp_hyperpod", &["ml", "root"]);
        assert_eq!(
            governance(&grant(&["pp_hyperpod"], false), "ml", std::slice::from_ref(&in_unit)),
            Governance::Governed {
                contract: Some("research-capacity".into())
            }
        );
        // Another profile, or another unit: nothing governed rests on it.
        assert_eq!(
            governance(&grant(&["pp_other"], false), "ml", std::slice::from_ref(&in_unit)),
            Governance::NotGoverned
        );
        assert_eq!(
            governance(&grant(&["pp_hyperpod"], false), "finance", &[in_unit]),
            Governance::NotGoverned
        );
    }

    #[test]
    fn a_child_unit_s_project_counts_only_when_the_grant_includes_child_units() {
        let below = project("vision-capacity", "pp_hyperpod", &["vision", "ml", "root"]);
        assert_eq!(
            governance(&grant(&["pp_hyperpod"], false), "ml", std::slice::from_ref(&below)),
            Governance::NotGoverned
        );
        assert_eq!(
            governance(&grant(&["pp_hyperpod"], true), "ml", std::slice::from_ref(&below)),
            Governance::Governed {
                contract: Some("vision-capacity".into())
            }
        );
        let two = [below, project("research-capacity", "pp_hyperpod", &["ml", "root"])];
        assert_eq!(
            governance(&grant(&["pp_hyperpod"], true), "ml", &two),
            Governance::Governed {
                contract: Some("research-capacity, vision-capacity".into())
            }
        );
    }

    #[test]
    fn the_name_says_who_may_create_projects_from_which_profiles() {
        assert_eq!(name(&grant(&["pp_b", "pp_a"], false)), "group ml-platform: pp_a, pp_b");
        assert_eq!(
            name(&grant(&["pp_a"], true)),
            "group ml-platform: pp_a (and child units)"
        );
    }
}
