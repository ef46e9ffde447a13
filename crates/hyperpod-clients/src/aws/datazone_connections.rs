//! DataZone HyperPod connections and project memberships: what `hyperpod_unified_studio_project_binding` creates.
//! A connection has no status of its own (research 2.1): it is ready once `props.hyperPodProperties.clusterArn` is
//! filled in, and gone once `GetConnection` answers not found.

use std::time::Duration;

use aws_sdk_datazone::Client;
use aws_sdk_datazone::types::{
    AwsLocation, ConnectionPropertiesInput, ConnectionPropertiesOutput, ConnectionSummary, ConnectionType,
    HyperPodPropertiesInput, Member, MemberDetails, UserDesignation,
};

use super::wait::{HasStatus, WaitSpec, wait_for_status};
use super::{AwsError, api_error, not_found_as};
use crate::Stop;

pub const CONNECTION: &str = "DataZone connection";
pub const MEMBERSHIP: &str = "project membership";

/// A connection as the binding reads it; the HyperPod fields are `None` on other connection types.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    pub id: String,
    pub domain_id: String,
    pub name: String,
    /// `HYPERPOD`, `IAM`, ...
    pub connection_type: String,
    pub description: Option<String>,
    pub project_id: Option<String>,
    pub environment_id: Option<String>,
    /// `GetConnection` only: the project user role the connection is used with.
    pub environment_user_role: Option<String>,
    pub cluster_name: Option<String>,
    pub cluster_arn: Option<String>,
    /// `EKS` or `SLURM`.
    pub orchestrator: Option<String>,
}

impl Connection {
    pub fn is_hyperpod(&self) -> bool {
        self.connection_type == ConnectionType::Hyperpod.as_str()
    }
}

impl HasStatus for Connection {
    fn status(&self) -> &str {
        if self.cluster_arn.is_some() {
            "READY"
        } else {
            "CREATING"
        }
    }
    fn failure_reason(&self) -> Option<&str> {
        None
    }
}

type HyperPodFields = (Option<String>, Option<String>, Option<String>);

fn hyperpod_fields(props: Option<&ConnectionPropertiesOutput>) -> HyperPodFields {
    match props.and_then(|props| props.as_hyper_pod_properties().ok()) {
        Some(hyperpod) => (
            Some(hyperpod.cluster_name().to_string()),
            hyperpod.cluster_arn().map(str::to_string),
            hyperpod.orchestrator().map(|o| o.as_str().to_string()),
        ),
        None => (None, None, None),
    }
}

/// What `CreateConnection` needs for a HyperPod connection in a project's tooling environment.
pub struct NewConnection<'a> {
    pub domain_id: &'a str,
    pub environment_id: &'a str,
    pub name: &'a str,
    pub cluster_name: &'a str,
    pub account_id: &'a str,
    pub region: &'a str,
    pub description: Option<&'a str>,
    /// CreateConnection's idempotency token: the same token with the same request answers with the connection it
    /// created the first time, so a create interrupted after AWS accepted it is recognised on the next try.
    pub client_token: &'a str,
}

pub async fn create_hyperpod_connection(client: &Client, spec: &NewConnection<'_>) -> Result<Connection, AwsError> {
    let props = HyperPodPropertiesInput::builder()
        .cluster_name(spec.cluster_name)
        .build()
        .map_err(|err| AwsError::Api {
            operation: "CreateConnection",
            code: "InvalidInput".into(),
            message: err.to_string(),
        })?;
    let output = client
        .create_connection()
        .domain_identifier(spec.domain_id)
        .environment_identifier(spec.environment_id)
        .name(spec.name)
        .props(ConnectionPropertiesInput::HyperPodProperties(props))
        .aws_location(
            AwsLocation::builder()
                .aws_account_id(spec.account_id)
                .aws_region(spec.region)
                .build(),
        )
        .set_description(spec.description.map(str::to_string))
        .client_token(spec.client_token)
        .send()
        .await
        .map_err(|err| api_error("CreateConnection", err))?;
    let (cluster_name, cluster_arn, orchestrator) = hyperpod_fields(output.props());
    Ok(Connection {
        id: output.connection_id().to_string(),
        domain_id: output.domain_id().to_string(),
        name: output.name().to_string(),
        connection_type: output.r#type().as_str().to_string(),
        description: output.description().map(str::to_string),
        project_id: output.project_id().map(str::to_string),
        environment_id: output.environment_id().map(str::to_string),
        environment_user_role: None,
        cluster_name,
        cluster_arn,
        orchestrator,
    })
}

/// `GetConnection`; a missing connection is the typed `NotFound`.
pub async fn find_connection(client: &Client, domain_id: &str, connection_id: &str) -> Result<Connection, AwsError> {
    let output = client
        .get_connection()
        .domain_identifier(domain_id)
        .identifier(connection_id)
        .send()
        .await
        .map_err(|err| api_error("GetConnection", err))
        .map_err(|err| not_found_as(CONNECTION, connection_id, err))?;
    let (cluster_name, cluster_arn, orchestrator) = hyperpod_fields(output.props());
    Ok(Connection {
        id: output.connection_id().to_string(),
        domain_id: output.domain_id().to_string(),
        name: output.name().to_string(),
        connection_type: output.r#type().as_str().to_string(),
        description: output.description().map(str::to_string),
        project_id: output.project_id().map(str::to_string),
        environment_id: output.environment_id().map(str::to_string),
        environment_user_role: output.environment_user_role().map(str::to_string),
        cluster_name,
        cluster_arn,
        orchestrator,
    })
}

/// The domain's HyperPod connections, of one project or (`None`) of every project the caller may see.
pub async fn list_hyperpod_connections(
    client: &Client,
    domain_id: &str,
    project_id: Option<&str>,
) -> Result<Vec<Connection>, AwsError> {
    let mut pages = client
        .list_connections()
        .domain_identifier(domain_id)
        .set_project_identifier(project_id.map(str::to_string))
        .r#type(ConnectionType::Hyperpod)
        .into_paginator()
        .send();
    let mut connections = Vec::new();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListConnections", err))?;
        connections.extend(page.items().iter().map(from_summary));
    }
    Ok(connections)
}

/// A connection as `ListConnections` summarises it (no description or environment role).
fn from_summary(summary: &ConnectionSummary) -> Connection {
    let (cluster_name, cluster_arn, orchestrator) = hyperpod_fields(summary.props());
    Connection {
        id: summary.connection_id().to_string(),
        domain_id: summary.domain_id().to_string(),
        name: summary.name().to_string(),
        connection_type: summary.r#type().as_str().to_string(),
        project_id: summary.project_id().map(str::to_string),
        environment_id: summary.environment_id().map(str::to_string),
        cluster_name,
        cluster_arn,
        orchestrator,
        ..Connection::default()
    }
}

/// The domain's connection named `name` (names are unique in a domain), if any.
pub async fn find_connection_by_name(
    client: &Client,
    domain_id: &str,
    project_id: &str,
    name: &str,
) -> Result<Option<Connection>, AwsError> {
    let output = client
        .list_connections()
        .domain_identifier(domain_id)
        .project_identifier(project_id)
        .name(name)
        .send()
        .await
        .map_err(|err| api_error("ListConnections", err))?;
    Ok(output.items().iter().find(|c| c.name() == name).map(from_summary))
}

/// `UpdateConnection` of the description, the one HyperPod connection field the API can change (it cannot clear it).
pub async fn update_connection_description(
    client: &Client,
    domain_id: &str,
    connection_id: &str,
    description: &str,
) -> Result<(), AwsError> {
    client
        .update_connection()
        .domain_identifier(domain_id)
        .identifier(connection_id)
        .description(description)
        .send()
        .await
        .map_err(|err| api_error("UpdateConnection", err))
        .map_err(|err| not_found_as(CONNECTION, connection_id, err))?;
    Ok(())
}

pub async fn delete_connection(client: &Client, domain_id: &str, connection_id: &str) -> Result<(), AwsError> {
    client
        .delete_connection()
        .domain_identifier(domain_id)
        .identifier(connection_id)
        .send()
        .await
        .map_err(|err| api_error("DeleteConnection", err))
        .map_err(|err| not_found_as(CONNECTION, connection_id, err))?;
    Ok(())
}

/// Waits until the connection reports its cluster ARN.
pub async fn wait_connection_ready(
    client: &Client,
    domain_id: &str,
    connection_id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<Connection, AwsError> {
    let spec = WaitSpec {
        kind: CONNECTION,
        id: connection_id,
        pending: &["CREATING"],
        target: &["READY"],
        timeout,
        settles_after: Duration::ZERO,
    };
    wait_for_status(spec, stop, || find_connection(client, domain_id, connection_id)).await
}

struct Presence(bool);

impl HasStatus for Presence {
    fn status(&self) -> &str {
        if self.0 { "DELETING" } else { "DELETED" }
    }
    fn failure_reason(&self) -> Option<&str> {
        None
    }
}

/// Waits until `GetConnection` no longer finds the connection (DeleteConnection only starts the deletion).
pub async fn wait_connection_deleted(
    client: &Client,
    domain_id: &str,
    connection_id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<(), AwsError> {
    let spec = WaitSpec {
        kind: CONNECTION,
        id: connection_id,
        pending: &["DELETING"],
        target: &["DELETED"],
        timeout,
        settles_after: Duration::ZERO,
    };
    wait_for_status(spec, stop, || async {
        match find_connection(client, domain_id, connection_id).await {
            Ok(_) => Ok(Presence(true)),
            Err(err) if err.is_not_found() => Ok(Presence(false)),
            Err(err) => Err(err),
        }
    })
    .await
    .map(|_| ())
}

// ---- project memberships ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MembershipType {
    User,
    Group,
}

/// One project membership: a user or group profile ID (what ListProjectMemberships reports, and what the provider
/// sends once it has resolved a member's name) and its designation (`PROJECT_OWNER`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub kind: MembershipType,
    pub id: String,
    pub designation: String,
}

impl Membership {
    fn member(&self) -> Member {
        match self.kind {
            MembershipType::User => Member::UserIdentifier(self.id.clone()),
            MembershipType::Group => Member::GroupIdentifier(self.id.clone()),
        }
    }
}

pub async fn list_project_memberships(
    client: &Client,
    domain_id: &str,
    project_id: &str,
) -> Result<Vec<Membership>, AwsError> {
    let mut pages = client
        .list_project_memberships()
        .domain_identifier(domain_id)
        .project_identifier(project_id)
        .into_paginator()
        .send();
    let mut memberships = Vec::new();
    while let Some(page) = pages.next().await {
        let page = page
            .map_err(|err| api_error("ListProjectMemberships", err))
            .map_err(|err| not_found_as("Unified Studio project", project_id, err))?;
        for member in page.members() {
            let (kind, id) = match member.member_details() {
                Some(MemberDetails::Group(group)) => (MembershipType::Group, group.group_id()),
                Some(MemberDetails::User(user)) => (MembershipType::User, user.user_id()),
                _ => continue, // a member kind this SDK does not know is none of ours
            };
            memberships.push(Membership {
                kind,
                id: id.to_string(),
                designation: member.designation().as_str().to_string(),
            });
        }
    }
    Ok(memberships)
}

async fn send_create_project_membership(
    client: &Client,
    domain_id: &str,
    project_id: &str,
    membership: &Membership,
) -> Result<(), AwsError> {
    client
        .create_project_membership()
        .domain_identifier(domain_id)
        .project_identifier(project_id)
        .member(membership.member())
        .designation(UserDesignation::from(membership.designation.as_str()))
        .send()
        .await
        .map_err(|err| api_error("CreateProjectMembership", err))
        .map(|_| ())
}

/// `CreateProjectMembership`, `membership.id` being the member's profile ID (how the project lists it). A member that
/// already holds this designation counts as created: the call is then a no-op in effect, whatever the service answers
/// (after an import, or a create retried after a timeout). A member that holds another designation (one the binding
/// takes over, as its plan said) is refused by DataZone, which has no update: it is deleted and created again.
pub async fn create_project_membership(
    client: &Client,
    domain_id: &str,
    project_id: &str,
    membership: &Membership,
) -> Result<(), AwsError> {
    let Err(err) = send_create_project_membership(client, domain_id, project_id, membership).await else {
        return Ok(());
    };
    let existing = list_project_memberships(client, domain_id, project_id).await?;
    match existing
        .iter()
        .find(|m| m.kind == membership.kind && m.id == membership.id)
    {
        Some(found) if found.designation == membership.designation => Ok(()),
        Some(_) => {
            delete_project_membership(client, domain_id, project_id, membership).await?;
            send_create_project_membership(client, domain_id, project_id, membership).await
        }
        None => Err(err),
    }
}

/// `DeleteProjectMembership`; a member that is already gone is the typed `NotFound`.
pub async fn delete_project_membership(
    client: &Client,
    domain_id: &str,
    project_id: &str,
    membership: &Membership,
) -> Result<(), AwsError> {
    client
        .delete_project_membership()
        .domain_identifier(domain_id)
        .project_identifier(project_id)
        .member(membership.member())
        .send()
        .await
        .map_err(|err| api_error("DeleteProjectMembership", err))
        .map_err(|err| not_found_as(MEMBERSHIP, &membership.id, err))?;
    Ok(())
}
