//! What a provider, its resources, data sources and functions implement. The gRPC layer (`provider.rs`) turns
//! Terraform's requests into these calls; nothing here knows about AWS. `C` is the configured client a provider
//! hands its resources after `ConfigureProvider`.

use async_trait::async_trait;
use tokio::sync::watch;

use super::diagnostics::Diagnostics;
use super::plan::PlannedChange;
use super::schema::{FunctionSignature, IdentitySchema, Schema};
use super::state_upgrade::{self, StateUpgrader};
use super::value::Value;

/// Per-call facts an operation may need: cancellation (StopProvider) for waiters.
#[derive(Clone)]
pub struct OperationContext {
    pub stop: watch::Receiver<bool>,
}

impl OperationContext {
    pub fn is_stopped(&self) -> bool {
        *self.stop.borrow()
    }
}

/// The outcome of create or update. With errors and a state, Terraform records the object as tainted, so the next
/// apply replaces it: that is how a half-finished create is remembered instead of orphaned.
pub struct Applied {
    pub state: Option<Value>,
    pub diagnostics: Diagnostics,
}

impl Applied {
    pub fn ok(state: Value) -> Self {
        Self {
            state: Some(state),
            diagnostics: Diagnostics::new(),
        }
    }
    pub fn failed(state: Option<Value>, diagnostics: Diagnostics) -> Self {
        Self { state, diagnostics }
    }
}

impl From<Diagnostics> for Applied {
    fn from(diagnostics: Diagnostics) -> Self {
        Self::failed(None, diagnostics)
    }
}

/// How `terraform import` (or an `import` block) names the object.
pub enum ImportTarget {
    /// `terraform import ADDR ID` or `import { id = … }`.
    Id(String),
    /// `import { identity = { … } }`, as an object of the identity schema's type.
    Identity(Value),
}

#[async_trait]
pub trait Resource<C>: Send + Sync {
    fn type_name(&self) -> &'static str;
    fn schema(&self) -> &Schema;
    fn identity_schema(&self) -> Option<&IdentitySchema> {
        None
    }
    /// Cross-attribute checks on configuration; no I/O (the provider may not be configured yet).
    fn validate(&self, _config: &Value, _diagnostics: &mut Diagnostics) {}
    /// Resource-specific planning after the schema's defaults, unknowns and replacements are applied; may read AWS.
    async fn modify_plan(&self, _client: &C, _change: &mut PlannedChange) -> Result<(), Diagnostics> {
        Ok(())
    }
    async fn create(&self, client: &C, planned: &Value, context: &OperationContext) -> Applied;
    /// `Ok(None)` when the object no longer exists; the framework then removes it from state with a warning.
    async fn read(&self, client: &C, current: &Value, context: &OperationContext)
    -> Result<Option<Value>, Diagnostics>;
    async fn update(&self, client: &C, prior: &Value, planned: &Value, context: &OperationContext) -> Applied;
    /// Succeeds when the object is already gone.
    async fn delete(&self, client: &C, prior: &Value, context: &OperationContext) -> Result<(), Diagnostics>;
    /// Destroy as Terraform sees it. A resource made of several objects overrides it to return, when it fails
    /// part-way, `Applied::failed(Some(remaining), ..)`: the state then names only what is left, and the next destroy
    /// removes the rest. The default keeps the prior state on failure.
    async fn destroy(&self, client: &C, prior: &Value, context: &OperationContext) -> Applied
    where
        C: Sync,
    {
        match self.delete(client, prior, context).await {
            Ok(()) => Applied {
                state: None,
                diagnostics: Diagnostics::new(),
            },
            Err(diagnostics) => Applied::failed(Some(prior.clone()), diagnostics),
        }
    }
    /// Called after every create, update or delete, complete or not, with the prior, planned and new state: what
    /// the client remembers of the objects they name is stale now.
    fn after_apply(&self, _client: &C, _states: [&Value; 3]) {}
    /// Finds the object and returns enough state for `read` to fill in the rest.
    async fn import(&self, client: &C, target: ImportTarget) -> Result<Value, Diagnostics>;
    /// The identity of an object from its state (required when `identity_schema` is given).
    fn identity(&self, _state: &Value) -> Option<Value> {
        None
    }
    /// The steps that read state of earlier schema versions (`Schema::version`); empty while the schema is at its
    /// first version.
    fn state_upgraders(&self) -> &[StateUpgrader] {
        &[]
    }
    /// Upgrades state written by this or an older schema version, given as JSON.
    fn upgrade_state(&self, version: i64, json: &[u8]) -> Result<Value, Diagnostics> {
        state_upgrade::upgrade(self.type_name(), self.schema(), self.state_upgraders(), version, json)
    }
}

#[async_trait]
pub trait DataSource<C>: Send + Sync {
    fn type_name(&self) -> &'static str;
    fn schema(&self) -> &Schema;
    fn validate(&self, _config: &Value, _diagnostics: &mut Diagnostics) {}
    async fn read(&self, client: &C, config: &Value, context: &OperationContext) -> Result<Value, Diagnostics>;
}

/// A provider function: pure, called as `provider::hyperpod::NAME(args)`.
pub trait Function: Send + Sync {
    fn name(&self) -> &'static str;
    fn signature(&self) -> &FunctionSignature;
    /// Errors name the argument (by index) that is wrong.
    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError>;
}

pub struct FunctionError {
    pub text: String,
    pub argument: Option<usize>,
}
