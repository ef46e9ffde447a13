//! Refresh: the scheduler config the state records, read back with its tags (the ownership tag left out); one gone
//! is removed from state. Apply records what it wrote the same way (`refreshed_state`).

use super::model::{SeenSchedulerConfigs, flatten, without_owner};
use crate::aws::sagemaker::{self as sm, find_scheduler_config};
use crate::aws::{AwsError, is_not_found_error};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{string, text};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

pub async fn read(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    current: &Value,
) -> Result<Option<Value>, Diagnostics> {
    let id = string(current, "scheduler_config_id").unwrap_or_default();
    seen.remember(&id);
    let record = match find_scheduler_config(&client.sagemaker, &id).await {
        Ok(record) => record,
        Err(err) if err.is_not_found() => return Ok(None),
        Err(err) => {
            return Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy failed"));
        }
    };
    let mut prior = current.clone();
    if string(current, "cluster_name").is_none() {
        // Imported by ARN or id: name the cluster from its ARN via SageMaker.
        let cluster = client.cluster(&record.cluster_arn).await.map_err(|err| {
            err.diagnostics(
                AttributePath::attr("cluster_name"),
                "Reading the policy's cluster failed",
            )
        })?;
        set_attr(&mut prior, "cluster_name", text(cluster.name));
    }
    match refreshed_state(client, record, &prior).await {
        Ok(state) => Ok(Some(state)),
        Err(err) if is_not_found_error(&err) => Ok(None),
        Err(err) => Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy's tags failed")),
    }
}

/// The state of a scheduler config SageMaker reports (after a write, or at refresh), with its tags read back.
pub async fn refreshed_state(
    client: &HyperpodClient,
    record: sm::SchedulerConfig,
    planned: &Value,
) -> Result<Value, AwsError> {
    let tags = without_owner(sm::list_tags(&client.sagemaker, &record.arn).await?);
    let cluster_name = string(planned, "cluster_name").unwrap_or_default();
    Ok(flatten(&record, &cluster_name, &tags, &client.default_tags, planned))
}
