//! What a provider, its resources, data sources and functions implement. The gRPC layer (`provider.rs`) turns
//! Terraform's requests into these calls; nothing here knows about AWS. `C` is the configured client a provider
//! hands its resources after `ConfigureProvider`.

use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;

use tokio::sync::watch;

use super::deadline::Deadline;
use super::diagnostics::Diagnostics;
use super::plan::PlannedChange;
use super::schema::{FunctionSignature, IdentitySchema, Schema};
use super::state_upgrade::{self, StateUpgrader};
use super::value::Value;

/// Per-call facts an operation may need: cancellation for waiters (StopProvider, and for a create, update or delete
/// its deadline too), that deadline, and the checks its plan left to it.
#[derive(Clone)]
pub struct OperationContext {
    pub stop: watch::Receiver<bool>,
    /// When a create, update or delete must be done: its `timeouts` value or the schema's default. `None` for reads
    /// and imports, and for a resource without a `timeouts` block.
    pub deadline: Option<Deadline>,
    /// What the plan could not check and this create or update must, before its first write
    /// (`PlannedChange::deferred_checks`, carried in the planned private data). Empty for reads, imports and deletes.
    pub deferred_checks: Vec<String>,
}

impl OperationContext {
    /// A context that only stops with the provider: no deadline, nothing deferred (reads, imports).
    pub fn stopped_by(stop: watch::Receiver<bool>) -> Self {
        Self {
            stop,
            deadline: None,
            deferred_checks: Vec::new(),
        }
    }

    pub fn is_stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// How long a wait may still take: until the deadline. Without one a wait ends only when stopped.
    pub fn time_left(&self) -> Duration {
        self.deadline.map_or(Duration::MAX, |deadline| deadline.time_left())
    }

    /// Runs a create, update or delete held to this context's deadline: inside its `deadline::scope`, with a context
    /// whose stop also turns at the deadline (so waiters end then), and abandoned `deadline::GRACE` after it (`None`):
    /// a call that hangs past its deadline leaves what a killed provider leaves, which the next apply adopts.
    pub async fn run<T, F, Fut>(self, operation: F) -> Option<T>
    where
        F: FnOnce(OperationContext) -> Fut,
        Fut: Future<Output = T>,
    {
        let Some(deadline) = self.deadline else {
            return Some(operation(self).await);
        };
        let (sender, receiver) = watch::channel(*self.stop.borrow());
        let stop = self.stop.clone();
        let relay = async move {
            let mut stop = stop;
            tokio::select! {
                // A closed sender means the provider is shutting down: stop as well.
                _ = stop.wait_for(|stopped| *stopped) => {}
                () = tokio::time::sleep_until(deadline.at) => {}
            }
            sender.send_replace(true);
            // Keep the sender: dropping it would read as "stopped" again to a waiter that checks `changed()`.
            std::future::pending::<()>().await;
        };
        let work = super::deadline::scope(Some(deadline), operation(OperationContext { stop: receiver, ..self }));
        tokio::select! {
            outcome = work => Some(outcome),
            () = relay => None,
            () = tokio::time::sleep_until(deadline.at + super::deadline::GRACE) => None,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadline::{GRACE, Operation, current};

    #[tokio::test(start_paused = true)]
    async fn an_operation_is_stopped_at_its_deadline_and_abandoned_after_the_grace() {
        let (_provider_stop, stop) = watch::channel(false);
        let deadline = Deadline::starting_now(Operation::Create, Duration::from_secs(2));
        // A waiter: ends when stopped, reporting how long it waited.
        let held = |deadline| OperationContext {
            deadline,
            ..OperationContext::stopped_by(stop.clone())
        };
        let waited = held(Some(deadline))
            .run(|context| async move {
                let started = tokio::time::Instant::now();
                let mut stop = context.stop.clone();
                let _ = stop.wait_for(|stopped| *stopped).await;
                (started.elapsed(), current())
            })
            .await
            .unwrap();
        assert_eq!(waited.0, Duration::from_secs(2));
        assert_eq!(waited.1, Some(deadline));
        // A call that never returns: abandoned at the deadline plus the grace.
        let deadline = Deadline::starting_now(Operation::Update, Duration::from_secs(2));
        let started = tokio::time::Instant::now();
        let hung = held(Some(deadline)).run(|_| std::future::pending::<()>()).await;
        assert_eq!(hung, None);
        assert_eq!(started.elapsed(), Duration::from_secs(2) + GRACE);
        // No deadline: as it is.
        assert_eq!(
            held(None).run(|context| async move { context.deadline }).await,
            Some(None)
        );
    }
}
