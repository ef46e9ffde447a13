//! `list "hyperpod_tenant"`: the compute quotas of one cluster, one result per team, each saying whether a tenant
//! governs it (see `resources::inventory`). The resource object is what `import` then `read` record.

use async_trait::async_trait;

use super::schema::{self, TYPE_NAME};
use crate::aws::compute_quota as cq;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::list::{ListRequest, ListResource, Listed};
use crate::protocol::schema::Schema;
use crate::resources::failed;
use crate::resources::inventory::{self, display_name, quota_governance};

pub struct TenantList {
    schema: Schema,
}

impl Default for TenantList {
    fn default() -> Self {
        Self {
            schema: inventory::schema(
                "Finds the compute quotas of a HyperPod cluster, one per team. Each result's display name says \
                 whether a tenant governs the quota (`<team> (governed by contract <name>)`) or not \
                 (`<team> (not governed)`): a tenant's quota carries its `hyperpod:tenant` and `hyperpod:cluster` \
                 tags.",
                inventory::cluster_name(),
            ),
        }
    }
}

#[async_trait]
impl ListResource<HyperpodClient> for TenantList {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn list(&self, client: &HyperpodClient, request: &ListRequest) -> Result<Vec<Listed>, Diagnostics> {
        let cluster = inventory::listed_cluster(client, request).await?;
        let mut quotas = cq::list_compute_quotas(&client.sagemaker, &cluster.arn)
            .await
            .map_err(|err| failed("Listing the cluster's compute quotas failed", err))?;
        quotas.sort_by(|a, b| a.team_name.cmp(&b.team_name));
        let mut listed = Vec::new();
        for quota in quotas.into_iter().take(request.limit) {
            let governance = match client.quota_tags(&quota.arn).await {
                Ok(tags) => quota_governance(&tags, &quota.team_name, &cluster.name),
                Err(err) if err.is_not_found() => continue, // deleted while listing
                Err(err) => return Err(failed("Reading a compute quota's tags failed", err)),
            };
            listed.push(Listed {
                identity: schema::identity(&cluster.name, &quota.team_name),
                display_name: display_name(&quota.team_name, &governance),
                resource_object: None,
            });
        }
        Ok(listed)
    }
}
