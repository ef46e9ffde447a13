//! `hyperpod_cluster_allocation`: the documented split of one cluster's guaranteed capacity. Its one AWS object is
//! its claim on the cluster (`apply::claim`: one allocation per cluster). At plan it reads the cluster once (its
//! instance groups) and checks each share against the instance types the cluster has; its `governance` is what
//! every tenant and binding of the cluster references, so WKL-3 and CLU-2 see the cluster's teams on the first plan
//! (`docs/design/cluster-allocation.md`). The files are the shape every resource has
//! (`docs/design/resource-shape.md`).

mod apply;
mod import;
mod model;
mod plan;
mod read;
mod schema;

pub use schema::{TYPE_NAME, governance_type};

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;

pub struct ClusterAllocationResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ClusterAllocationResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ClusterAllocationResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn state_upgraders(&self) -> &[crate::protocol::state_upgrade::StateUpgrader] {
        &schema::STATE_UPGRADERS
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        schema::validate(config, diagnostics);
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        apply::record(client, None, planned).await
    }

    async fn read(
        &self,
        _: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        Ok(Some(read::read(current)))
    }

    async fn update(&self, client: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        apply::record(client, Some(prior), planned).await
    }

    async fn delete(&self, client: &HyperpodClient, state: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        apply::forget(client, state).await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(client, self.schema.block.null_value(), target).await
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
