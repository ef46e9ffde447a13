//! Apply, as steps. Create: the cluster (judged now when its name was unknown at plan), the scheduler config it
//! already has (one an interrupted create of this resource left is adopted, any other refused), then
//! `CreateClusterSchedulerConfig` with the ownership tag, and the config once ready. Update: the settings (retried
//! on a concurrent writer's version), then the tags. Delete: `DeleteClusterSchedulerConfig` and its end. From the
//! first write on, a failure records the config's ID so Terraform taints it instead of forgetting it.

mod adopt;
mod create;
mod update;

pub use create::create;
pub use update::update;

use std::time::Duration;

use super::schema::SchedulingPolicyModel;
use crate::aws::sagemaker as sm;
use crate::aws::{api_error, is_not_found_error};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::OperationContext;
use crate::protocol::value::Value;

/// What one create writes toward: the planned value, for which cluster, and how long to wait for SageMaker.
pub struct PolicyWrite<'a> {
    pub client: &'a HyperpodClient,
    pub planned: &'a SchedulingPolicyModel,
    pub cluster_name: String,
    pub wait: Duration,
    pub context: &'a OperationContext,
}

impl PolicyWrite<'_> {
    /// The planned state with the IDs of a config that exists: what a failed step records.
    fn partial_state(&self, id: &str, arn: &str) -> Value {
        let mut state = self.planned.clone();
        state.scheduler_config_id = Field::Known(id.to_string());
        state.arn = Field::Known(arn.to_string());
        unknowns_to_null(state.encode())
    }
}

pub async fn delete(client: &HyperpodClient, prior: &Value, context: &OperationContext) -> Result<(), Diagnostics> {
    // Never blocks destroy: a recorded ID that does not decode deletes nothing (SageMaker finds no config "").
    let id = (SchedulingPolicyModel::SCHEDULER_CONFIG_ID.get(prior).ok())
        .and_then(Field::known)
        .unwrap_or_default();
    let deleted = client
        .sagemaker
        .delete_cluster_scheduler_config()
        .cluster_scheduler_config_id(&id)
        .send()
        .await
        .map_err(|err| api_error("DeleteClusterSchedulerConfig", err));
    match deleted {
        Ok(_) => {}
        Err(err) if is_not_found_error(&err) => return Ok(()),
        Err(err) => {
            return Err(err.diagnostics(AttributePath::root(), "Deleting the scheduling policy failed"));
        }
    }
    let wait = context.time_left();
    sm::wait_scheduler_config_deleted(&client.sagemaker, &id, wait, &context.stop)
        .await
        .map_err(|err| err.diagnostics(AttributePath::root(), "The scheduling policy was not deleted"))
}
