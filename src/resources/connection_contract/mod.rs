//! `hyperpod_connection_contract`: the governance record for one project-to-cluster connection. No AWS object of its
//! own; at plan time it gathers live facts and asks the governance engine, and its computed attributes (review
//! status, the checklist, the `governance` facts) are known before apply. The files are the shape every resource
//! has (`docs/design/resource-shape.md`).

mod apply;
mod import;
mod model;
mod plan;
mod read;
mod schema;

/// A contract's `governance` value, for other resources' tests.
#[cfg(test)]
pub use model::governance_value;
pub use model::{contract_from_governance, lifecycle_problem, unreadable_contract};
pub use schema::{TYPE_NAME, governance_type};

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

pub struct ConnectionContractResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ConnectionContractResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ConnectionContractResource {
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

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        apply::record(client, planned, None).await
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
        apply::record(client, planned, Some(prior)).await
    }

    async fn delete(&self, _: &HyperpodClient, _: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        Ok(())
    }

    async fn import(&self, _: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(self.schema.block.null_value(), target)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
