//! Update: the settings when they changed (or the last write ended `*Failed`, so is not in effect), then the tags,
//! then the config read back.

use std::collections::BTreeMap;
use std::time::Duration;

use super::super::model::PolicySettings;
use super::super::read::refreshed_state;
use super::super::schema::SchedulingPolicyModel;
use crate::aws::sagemaker::{self as sm, find_scheduler_config};
use crate::aws::scheduler_status::SchedulerStatus;
use crate::aws::{AwsError, ErrorCode, api_error, target_version};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::Model;
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;

/// Concurrent writers (the console, another pipeline) bump the version; re-read and retry this many times.
const UPDATE_ATTEMPTS: usize = 3;

pub async fn update(client: &HyperpodClient, prior: &Value, planned: &Value, context: &OperationContext) -> Applied {
    let prior_value = prior;
    let decoded =
        SchedulingPolicyModel::decode(prior).and_then(|prior| Ok((prior, SchedulingPolicyModel::decode(planned)?)));
    let (prior, planned) = match decoded {
        Ok(both) => both,
        Err(diagnostics) => return diagnostics.into(),
    };
    let id = prior.scheduler_config_id.as_known().cloned().unwrap_or_default();
    if let Err(failed) = update_settings(client, &id, (prior_value, &prior), &planned, context).await {
        return failed;
    }
    let arn = prior.arn.as_known().cloned().unwrap_or_default();
    let wanted_tags = planned.tags_all.as_known().cloned().unwrap_or_default();
    let prior_tags: BTreeMap<_, _> = prior.tags_all.as_known().cloned().unwrap_or_default();
    if wanted_tags != prior_tags
        && let Err(err) = sm::update_tags(&client.sagemaker, &arn, &prior_tags, &wanted_tags).await
    {
        return Applied::failed(
            Some(prior_value.clone()),
            err.diagnostics(SchedulingPolicyModel::TAGS.path(), "Updating tags failed"),
        );
    }
    let result = async {
        let record = find_scheduler_config(&client.sagemaker, &id).await?;
        refreshed_state(client, record, &planned).await
    }
    .await;
    match result {
        Ok(state) => Applied::ok(state.encode()),
        Err(err) => Applied::failed(
            Some(prior_value.clone()),
            err.diagnostics(AttributePath::root(), "Reading the updated policy failed"),
        ),
    }
}

/// Writes the settings when they changed, and waits for them; `Err` is the failed apply to return. `prior` is the
/// recorded state, as Terraform sent it and decoded.
async fn update_settings(
    client: &HyperpodClient,
    id: &str,
    (prior_value, prior): (&Value, &SchedulingPolicyModel),
    planned: &SchedulingPolicyModel,
    context: &OperationContext,
) -> Result<(), Applied> {
    let wanted = PolicySettings::of(planned);
    // A write that ended `*Failed` is not in effect even though SageMaker reports its settings: write it again.
    let last_write_failed = prior
        .status
        .as_known()
        .is_some_and(|status| SchedulerStatus::parse(status).is_failed());
    if wanted == PolicySettings::of(prior) && !last_write_failed {
        return Ok(());
    }
    let wait = context.time_left();
    if let Err(err) = write_settings(client, id, &wanted, wait, context).await {
        let summary = "Updating the scheduling policy failed";
        return Err(Applied::failed(
            Some(prior_value.clone()),
            err.diagnostics(AttributePath::root(), summary),
        ));
    }
    if let Err(err) = sm::wait_scheduler_config_ready(&client.sagemaker, id, wait, &context.stop).await {
        // Record what SageMaker now reports (e.g. `UpdateFailed` and the new version), so the next plan
        // proposes the update again even without a refresh; the prior state if it cannot be read.
        let summary = "The scheduling policy update did not complete";
        let state = match find_scheduler_config(&client.sagemaker, id).await {
            Ok(record) => refreshed_state(client, record, prior).await.ok(),
            Err(_) => None,
        };
        return Err(Applied::failed(
            Some(state.map_or_else(|| prior_value.clone(), |state| state.encode())),
            err.diagnostics(AttributePath::root(), summary),
        ));
    }
    Ok(())
}

/// `UpdateClusterSchedulerConfig` with `settings`, once any change in flight has settled; a conflict with a
/// concurrent writer is retried from the version re-read.
pub async fn write_settings(
    client: &HyperpodClient,
    id: &str,
    settings: &PolicySettings,
    wait: Duration,
    context: &OperationContext,
) -> Result<(), AwsError> {
    // A conflict on an unchanged version is the other `TargetVersion` reading (`aws::target_version`): retried at
    // once with it, from the version just re-read.
    let mut reread = None;
    for attempt in 1..=UPDATE_ATTEMPTS {
        let current = match reread.take() {
            Some(current) => current,
            None => find_scheduler_config(&client.sagemaker, id).await?,
        };
        let current = settled(client, id, current, wait, context).await?;
        let reading = target_version::LEARNED.reading();
        let result = client
            .sagemaker
            .update_cluster_scheduler_config()
            .cluster_scheduler_config_id(id)
            .target_version(reading.target(current.version))
            .scheduler_config(settings.to_sdk())
            .description(settings.update_description())
            .send()
            .await
            .map_err(|err| api_error("UpdateClusterSchedulerConfig", err));
        match result {
            Ok(_) => return Ok(()),
            Err(err) if err.is(ErrorCode::ConflictException) && attempt < UPDATE_ATTEMPTS => {
                let now = find_scheduler_config(&client.sagemaker, id).await?;
                let (version, status) = (now.version, &now.status);
                target_version::after_conflict(
                    "scheduler config",
                    id,
                    reading,
                    current.version,
                    version,
                    status,
                    attempt,
                )
                .await;
                reread = Some(now);
            }
            Err(err) => return Err(err),
        }
    }
    unreachable!("the last attempt returns")
}

/// SageMaker refuses updates while another change is in flight: a config `Creating` or `Updating` is waited for
/// first. A settle that ends in a failed state is fine: the update is what repairs it.
async fn settled(
    client: &HyperpodClient,
    id: &str,
    current: sm::SchedulerConfig,
    wait: Duration,
    context: &OperationContext,
) -> Result<sm::SchedulerConfig, AwsError> {
    if !current.status.is_being_written() {
        return Ok(current);
    }
    match sm::wait_scheduler_config_ready(&client.sagemaker, id, wait, &context.stop).await {
        Ok(settled) => Ok(settled),
        Err(_) => find_scheduler_config(&client.sagemaker, id).await,
    }
}
