//! `hyperpod_scheduling_policy`: a HyperPod cluster's scheduler config (SageMaker
//! `Create/Describe/Update/Delete/ListClusterSchedulerConfig(s)`). A cluster has exactly one: the plan refuses a
//! foreign one, and a create interrupted after SageMaker accepted it is adopted by its ownership tag. The files are
//! the shape every resource has (`docs/design/resource-shape.md`).

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
use crate::protocol::state_upgrade::StateUpgrader;
use crate::protocol::value::Value;
use model::SeenSchedulerConfigs;

pub struct SchedulingPolicyResource {
    schema: Schema,
    identity: IdentitySchema,
    /// The scheduler configs seen in Terraform's state: how a replacement's plan tells the config it replaces from a
    /// foreign one.
    seen: SeenSchedulerConfigs,
}

impl Default for SchedulingPolicyResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
            seen: SeenSchedulerConfigs::default(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for SchedulingPolicyResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn state_upgraders(&self) -> &[StateUpgrader] {
        &schema::STATE_UPGRADERS
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        schema::validate(config, diagnostics);
    }

    /// The tenants' checks see the cluster's scheduler config as it now is.
    fn after_apply(&self, client: &HyperpodClient, _states: [&Value; 3]) {
        client.reads.forget_scheduler_configs();
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, &self.seen, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
        apply::create(client, planned, context).await
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        read::read(client, &self.seen, current).await
    }

    async fn update(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        planned: &Value,
        context: &OperationContext,
    ) -> Applied {
        apply::update(client, prior, planned, context).await
    }

    async fn delete(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        context: &OperationContext,
    ) -> Result<(), Diagnostics> {
        apply::delete(client, prior, context).await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(client, target).await
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
