//! Refresh: the scheduler config the state records, read back with its tags (the ownership tag left out); one gone
//! is removed from state. Apply records what it wrote the same way (`refreshed_state`).

use super::model::{SeenSchedulerConfigs, flatten, without_owner};
use super::schema::SchedulingPolicyModel;
use crate::aws::sagemaker::{self as sm, find_scheduler_config};
use crate::aws::{AwsError, is_not_found_error};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;

pub async fn read(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    current: &Value,
) -> Result<Option<Value>, Diagnostics> {
    let mut prior = SchedulingPolicyModel::decode(current)?;
    let id = prior.scheduler_config_id.as_known().cloned().unwrap_or_default();
    seen.remember(&id);
    let record = match find_scheduler_config(&client.sagemaker, &id).await {
        Ok(record) => record,
        Err(err) if err.is_not_found() => return Ok(None),
        Err(err) => {
            return Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy failed"));
        }
    };
    if !matches!(prior.cluster_name, Field::Known(_)) {
        // Imported by ARN or id: name the cluster from its ARN via SageMaker.
        let cluster = client.cluster(&record.cluster_arn).await.map_err(|err| {
            err.diagnostics(
                SchedulingPolicyModel::CLUSTER_NAME.path(),
                "Reading the policy's cluster failed",
            )
        })?;
        prior.cluster_name = Field::Known(cluster.name);
    }
    match refreshed_state(client, record, &prior).await {
        Ok(state) => Ok(Some(state.encode())),
        Err(err) if is_not_found_error(&err) => Ok(None),
        Err(err) => Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy's tags failed")),
    }
}

/// The state of a scheduler config SageMaker reports (after a write, or at refresh), with its tags read back.
pub async fn refreshed_state(
    client: &HyperpodClient,
    record: sm::SchedulerConfig,
    planned: &SchedulingPolicyModel,
) -> Result<SchedulingPolicyModel, AwsError> {
    let tags = without_owner(sm::list_tags(&client.sagemaker, &record.arn).await?);
    let cluster_name = planned.cluster_name.as_known().cloned().unwrap_or_default();
    Ok(flatten(&record, &cluster_name, &tags, &client.default_tags, planned))
}
