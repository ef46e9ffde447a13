//! `hyperpod_domain_unit_policy_grant`: a DataZone `CREATE_PROJECT_FROM_PROJECT_PROFILE` policy grant on a domain
//! unit (`AddPolicyGrant` / `ListPolicyGrants` / `RemovePolicyGrant`), the organization layer's "who may create
//! projects where, from which profiles". Grants are immutable: every argument forces replacement. The files are the
//! shape every resource has (`docs/design/resource-shape.md`).

mod apply;
mod import;
mod list;
mod model;
mod plan;
mod read;
mod schema;

pub use list::GrantList;
pub use schema::{GrantGovernance, TYPE_NAME, governance_type};

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use model::SeenGrants;

pub struct DomainUnitPolicyGrantResource {
    schema: Schema,
    identity: IdentitySchema,
    /// The grants seen in Terraform's state: how a replacement's plan tells the grant it replaces from a foreign
    /// identical one.
    seen: SeenGrants,
}

impl Default for DomainUnitPolicyGrantResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
            seen: SeenGrants::default(),
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for DomainUnitPolicyGrantResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        schema::validate(config, diagnostics);
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        plan::plan(client, &self.seen, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        apply::create(client, &self.seen, planned).await
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        read::read(client, &self.seen, current).await
    }

    async fn update(&self, _: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        apply::update(prior, planned)
    }

    async fn delete(&self, client: &HyperpodClient, prior: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        apply::delete(client, prior).await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        import::import(client, &self.seen, target).await
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        import::identity(state)
    }
}
