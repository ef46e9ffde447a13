//! `list "hyperpod_unified_studio_project_binding"`: the HYPERPOD connections of a Unified Studio domain (of one
//! project when `project_id` is set), each saying whether a contract governs it. DataZone connections carry no tags,
//! so governance is read from the connection's cluster: the connection is governed when a tenant onboarded its
//! project there (a compute quota on that cluster with this provider's tenant tags and `hyperpod:project` naming
//! the project, see `resources::inventory`).

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::schema::{self, TYPE_NAME};
use crate::aws::datazone_connections::{self as dz, Connection};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::list::{ListRequest, ListResource, Listed};
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::Schema;
use crate::resources::failed;
use crate::resources::inventory::{self, Governance, QuotaTags, display_name, quota_governance};
use crate::tags::PROJECT as PROJECT_TAG;

/// What a `list` block of bindings takes.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct BindingListConfig {
    /// The Unified Studio domain to search.
    #[tf(required)]
    pub domain_id: Field<String>,
    /// Only this project's connections.
    #[tf(optional)]
    pub project_id: Field<String>,
}

pub struct BindingList {
    schema: Schema,
}

impl Default for BindingList {
    fn default() -> Self {
        Self {
            schema: inventory::schema(
                "Finds the HYPERPOD connections of a Unified Studio domain. Each result's display name is the \
                 connection's name and says whether a contract governs it: `(governed by contract <name>)` when a \
                 tenant onboarded the connection's project on its cluster (a compute quota there carries the \
                 tenant's tags and `hyperpod:project` naming the project), `(not governed)` otherwise, and \
                 `(governance unknown: …)` when the cluster's quotas cannot be read.",
                BindingListConfig::block().attributes,
            ),
        }
    }
}

/// Governed when a tenant's quota on the connection's cluster names the connection's project.
fn governance(connection: &Connection, cluster: &Result<(String, QuotaTags), String>) -> Governance {
    let (cluster_name, quotas) = match cluster {
        Ok(found) => found,
        Err(why) => return Governance::Unknown(why.clone()),
    };
    let Some(project) = &connection.project_id else {
        return Governance::NotGoverned;
    };
    quotas
        .iter()
        .filter(|(_, tags)| tags.get(PROJECT_TAG) == Some(project))
        .map(|(team, tags)| quota_governance(tags, team, cluster_name))
        .find(|g| matches!(g, Governance::Governed { .. }))
        .unwrap_or(Governance::NotGoverned)
}

#[async_trait]
impl ListResource<HyperpodClient> for BindingList {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn list(&self, client: &HyperpodClient, request: &ListRequest) -> Result<Vec<Listed>, Diagnostics> {
        let config = BindingListConfig::decode(&request.config)?;
        let domain_id = config.domain_id.known().unwrap_or_default();
        let project_id = config.project_id.known();
        let mut connections = dz::list_hyperpod_connections(&client.datazone, &domain_id, project_id.as_deref())
            .await
            .map_err(|err| failed("Listing the domain's HyperPod connections failed", err))?;
        connections.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        let mut clusters: BTreeMap<String, Result<(String, QuotaTags), String>> = BTreeMap::new();
        let mut listed = Vec::new();
        for connection in connections.into_iter().take(request.limit) {
            let cluster_ref = connection
                .cluster_arn
                .clone()
                .or_else(|| connection.cluster_name.clone())
                .unwrap_or_default();
            if !clusters.contains_key(&cluster_ref) {
                let read = inventory::cluster_quota_tags(client, &cluster_ref)
                    .await
                    .map_err(|err| format!("cluster {cluster_ref:?} or its quotas could not be read: {err}"));
                clusters.insert(cluster_ref.clone(), read);
            }
            let governance = governance(&connection, &clusters[&cluster_ref]);
            listed.push(Listed {
                identity: schema::identity(&connection.domain_id, &connection.id),
                display_name: display_name(&connection.name, &governance),
                resource_object: None,
            });
        }
        Ok(listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection(project: &str) -> Connection {
        Connection {
            id: "c1".into(),
            domain_id: "dzd_1".into(),
            name: "hyperpod-ml-p".into(),
            connection_type: "HYPERPOD".into(),
            project_id: Some(project.into()),
            ..Connection::default()
        }
    }

    fn tenant_tags(team: &str, cluster: &str, project: &str) -> BTreeMap<String, String> {
        [
            ("hyperpod:tenant", team),
            ("hyperpod:cluster", cluster),
            ("hyperpod:contract", "research-capacity"),
            (PROJECT_TAG, project),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn a_connection_is_governed_when_a_tenant_onboarded_its_project_on_its_cluster() {
        let cluster = Ok((
            "ml".to_string(),
            vec![("research".to_string(), tenant_tags("research", "ml", "p1"))],
        ));
        assert_eq!(
            governance(&connection("p1"), &cluster),
            Governance::Governed {
                contract: Some("research-capacity".into())
            }
        );
        assert_eq!(governance(&connection("p2"), &cluster), Governance::NotGoverned);
        let foreign = Ok((
            "ml".to_string(),
            vec![("research".to_string(), tenant_tags("research", "other", "p1"))],
        ));
        assert_eq!(governance(&connection("p1"), &foreign), Governance::NotGoverned);
        assert!(matches!(
            governance(&connection("p1"), &Err("denied".into())),
            Governance::Unknown(_)
        ));
    }
}
