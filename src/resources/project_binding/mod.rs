//! `hyperpod_unified_studio_project_binding`: the HyperPod connection of a Unified Studio project, and the groups
//! that collaborate in it, created only when the four control layers agree. The files are the shape every resource
//! has (`docs/design/resource-shape.md`); `list.rs` is its list resource.

mod apply;
mod import;
mod list;
mod model;
mod plan;
mod read;
mod schema;

pub use list::BindingList;
pub use schema::TYPE_NAME;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub struct ProjectBindingResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ProjectBindingResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ProjectBindingResource {
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
        model::validate(config, diagnostics);
    }

    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        apply::forget(client, states);
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, change).await
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
        read::read(client, current).await
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
        let applied = apply::destroy(client, prior, context).await;
        if applied.diagnostics.has_errors() {
            Err(applied.diagnostics)
        } else {
            Ok(())
        }
    }

    async fn destroy(&self, client: &HyperpodClient, prior: &Value, context: &OperationContext) -> Applied {
        apply::destroy(client, prior, context).await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(client, self.schema.block.null_value(), target).await
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
