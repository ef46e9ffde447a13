//! `hyperpod_task_view_restriction`: what a Unified Studio project's users see of a shared cluster. On EKS the
//! project role's access entry with HyperPod Studio access policies scoped to the project's namespaces, or Kubernetes
//! RBAC; on Slurm the role's Run As tag. Its plan judges CLU-1, CLU-9, CLU-3, CLU-4, CLU-5, CLU-7, CLU-8, LIF-3 and
//! WKL-12, and its `governance` is what a binding references (CLU-2 is judged there). The files are the shape every
//! resource has (`docs/design/resource-shape.md`).

mod apply;
mod import;
mod list;
mod model;
mod plan;
mod read;
mod schema;

pub use list::RestrictionList;
// What the governance evidence reads of a restriction's `components`.
pub use model::{component_path, component_policy_arn};
use schema::RestrictionModel;
pub use schema::TYPE_NAME;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::state_upgrade::StateUpgrader;
use crate::protocol::value::Value;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub struct TaskViewRestrictionResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for TaskViewRestrictionResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for TaskViewRestrictionResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn state_upgraders(&self) -> &[StateUpgrader] {
        &model::STATE_UPGRADERS
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    /// The other resources' checks see the project role's access policies as they now are.
    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        client.reads.forget_kubernetes_objects();
        for role in states
            .into_iter()
            .filter_map(|state| RestrictionModel::PROJECT_ROLE_ARN.known(state))
        {
            client.reads.forget_access_entry(&role);
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        apply::write(client, planned, None).await
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        read::read(client, current).await
    }

    async fn update(&self, client: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        apply::write(client, planned, Some(prior)).await
    }

    async fn delete(&self, client: &HyperpodClient, prior: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        apply::delete(client, prior).await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(client, self.schema.block.null_value(), &target)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
