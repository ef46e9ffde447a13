//! DataZone (SageMaker Unified Studio) reads: projects and the project's tooling environment with its user role.
//! Connections and memberships are in `datazone_connections`.

use aws_sdk_datazone::Client;

use super::{AwsError, api_error, not_found_as};

#[derive(Clone, Debug)]
pub struct Project {
    pub id: String,
    pub name: String,
    pub domain_unit_id: Option<String>,
    pub project_profile_id: Option<String>,
}

pub async fn find_project(client: &Client, domain_id: &str, project_id: &str) -> Result<Project, AwsError> {
    let output = client
        .get_project()
        .domain_identifier(domain_id)
        .identifier(project_id)
        .send()
        .await
        .map_err(|err| api_error("GetProject", err))
        .map_err(|err| not_found_as("Unified Studio project", project_id, err))?;
    Ok(Project {
        id: output.id().to_string(),
        name: output.name().to_string(),
        domain_unit_id: output.domain_unit_id().map(str::to_string),
        project_profile_id: output.project_profile_id().map(str::to_string),
    })
}

/// Studio's blueprints for a project's tooling environment, in the order Studio itself tries them.
const TOOLING_BLUEPRINTS: [&str; 2] = ["Tooling", "ToolingLite"];

/// A project's tooling environment: where Studio's connections live, and the project user role it provisioned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolingEnvironment {
    pub id: String,
    /// `userRoleArn` among its provisioned resources; `None` while it has none.
    pub user_role_arn: Option<String>,
}

/// The ids of the domain's managed blueprints that Studio provisions tooling environments from, in Studio's order.
pub async fn find_tooling_blueprints(client: &Client, domain_id: &str) -> Result<Vec<String>, AwsError> {
    let mut ids = Vec::new();
    for blueprint_name in TOOLING_BLUEPRINTS {
        let blueprints = client
            .list_environment_blueprints()
            .domain_identifier(domain_id)
            .managed(true)
            .name(blueprint_name)
            .send()
            .await
            .map_err(|err| api_error("ListEnvironmentBlueprints", err))?;
        ids.extend(
            blueprints
                .items()
                .iter()
                .filter(|b| b.name() == blueprint_name)
                .map(|b| b.id().to_string()),
        );
    }
    Ok(ids)
}

/// The project's tooling environment among those of `blueprint_ids` (`find_tooling_blueprints`): the first one with
/// a user role, else the first one found. `None` when the project has none.
pub async fn find_tooling_environment(
    client: &Client,
    domain_id: &str,
    project_id: &str,
    blueprint_ids: &[String],
) -> Result<Option<ToolingEnvironment>, AwsError> {
    let mut without_role = None;
    for blueprint_id in blueprint_ids {
        let environments = client
            .list_environments()
            .domain_identifier(domain_id)
            .project_identifier(project_id)
            .environment_blueprint_identifier(blueprint_id)
            .send()
            .await
            .map_err(|err| api_error("ListEnvironments", err))?;
        for summary in environments.items() {
            let Some(environment_id) = summary.id() else { continue };
            let environment = client
                .get_environment()
                .domain_identifier(domain_id)
                .identifier(environment_id)
                .send()
                .await
                .map_err(|err| api_error("GetEnvironment", err))?;
            let role = environment
                .provisioned_resources()
                .iter()
                .find(|resource| resource.name() == Some("userRoleArn"))
                .map(|resource| resource.value().to_string());
            let found = ToolingEnvironment {
                id: environment_id.to_string(),
                user_role_arn: role,
            };
            if found.user_role_arn.is_some() {
                return Ok(Some(found));
            }
            without_role.get_or_insert(found);
        }
    }
    Ok(without_role)
}
