//! `hyperpod_tenant`: one team on a shared HyperPod cluster, with everything the governance model asks for it. The
//! files are the shape every resource has (`docs/design/resource-shape.md`; the path of one tenant through them:
//! `docs/design/tenant-map.md`):
//!
//! - `schema.rs`: arguments, computed attributes, the identity and the state upgraders;
//! - `model/`: the typed configuration (`TenantConfig`) and what it composes, as pure values (components and desired
//!   AWS objects, Kubernetes manifests, Slurm artefacts, what is left to the live quota, ownership refusals);
//! - `plan/`: gather (the plan's only reads) → judge (the rules, in the engine) → predict (every object, named);
//! - `apply/`: create and update as one reconciler in steps (quota, role, access), and destroy;
//! - `read/`: refresh of what state records; `import.rs`: adoption by `<cluster>/<team>`; `list.rs`: the list resource.

mod apply;
mod import;
mod list;
mod model;
mod plan;
mod read;
mod schema;

use crate::resources::recorded_components;
use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::component::ComponentKind;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use schema::TenantModel;

pub use list::TenantList;
pub use model::role_arn;
pub use schema::TYPE_NAME;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub struct TenantResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for TenantResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

/// The state with its `governance` derived from its own arguments, as the plan derives it.
fn with_governance(mut state: Value) -> Value {
    // State holds no unknowns: a fact missing there (an imported tenant has no contract yet) is null.
    let facts = unknowns_to_null(model::governance::governance_value(&state));
    set_attr(&mut state, TenantModel::GOVERNANCE.name(), facts);
    state
}

#[async_trait]
impl Resource<HyperpodClient> for TenantResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn state_upgraders(&self) -> &[crate::protocol::state_upgrade::StateUpgrader] {
        &model::STATE_UPGRADERS
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        schema::validate(config, diagnostics);
    }

    /// The other resources' checks see this tenant's quota tags and access policies as they now are.
    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        client.reads.forget_kubernetes_objects();
        for state in states {
            client
                .reads
                .forget_compute_quota(TenantModel::COMPUTE_QUOTA_ARN.known(state).as_deref());
            let components = recorded_components(TenantModel::COMPONENTS, state);
            for (component, _) in components.of_kind(ComponentKind::AccessEntry) {
                client.reads.forget_access_entry(component.name().unwrap_or_default());
            }
        }
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
        Ok(read::refresh(client, current).await?.map(with_governance))
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
        import::import(client, self.schema.block.null_value(), target)
            .await
            .map(with_governance)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(schema::identity(
            &TenantModel::CLUSTER_NAME.known(state)?,
            &TenantModel::TEAM.known(state)?,
        ))
    }
}
