//! Create's path for a config an interrupted create of this resource left (its ownership tag proves it): wait for
//! it, bring it to the plan, record it. A config that ended `CreateFailed` is recorded (tainted) like a fresh create
//! that failed, and replaced next.

use super::super::model::{PolicySettings, with_owner};
use super::super::read::refreshed_state;
use super::PolicyWrite;
use super::update::write_settings;
use crate::aws::AwsError;
use crate::aws::sagemaker::{self as sm, find_scheduler_config};
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::Model;
use crate::protocol::resource::Applied;

pub async fn adopt(write: &PolicyWrite<'_>, id: &str) -> Applied {
    tracing::info!(
        id,
        cluster_name = write.cluster_name,
        "adopting the scheduler config an interrupted create left"
    );
    let sagemaker = &write.client.sagemaker;
    let record = match find_scheduler_config(sagemaker, id).await {
        Ok(record) => record,
        Err(err) => {
            return err
                .diagnostics(AttributePath::root(), "Reading the scheduling policy failed")
                .into();
        }
    };
    let partial = write.partial_state(&record.id, &record.arn);
    let result = async {
        let record = sm::wait_scheduler_config_ready(sagemaker, id, write.wait, &write.context.stop).await?;
        converge(write, record).await
    }
    .await;
    let record = match result {
        Ok(record) => record,
        Err(err) => {
            let summary = "The scheduling policy left by an interrupted create could not be adopted";
            return Applied::failed(Some(partial), err.diagnostics(AttributePath::root(), summary));
        }
    };
    match refreshed_state(write.client, record, write.planned).await {
        Ok(state) => Applied::ok(state.encode()),
        Err(err) => Applied::failed(
            Some(partial),
            err.diagnostics(AttributePath::root(), "Reading tags failed"),
        ),
    }
}

/// Brings an adopted config to the plan: its settings, then its tags.
async fn converge(write: &PolicyWrite<'_>, record: sm::SchedulerConfig) -> Result<sm::SchedulerConfig, AwsError> {
    let (client, sagemaker) = (write.client, &write.client.sagemaker);
    let wanted = PolicySettings::of(write.planned);
    let mut record = record;
    if !wanted.is_satisfied_by(&PolicySettings::from_record(&record)) {
        write_settings(client, &record.id, &wanted, write.wait, write.context).await?;
        record = sm::wait_scheduler_config_ready(sagemaker, &record.id, write.wait, &write.context.stop).await?;
    }
    let live_tags = sm::list_tags(sagemaker, &record.arn).await?;
    let tags_all = write.planned.tags_all.as_known().cloned().unwrap_or_default();
    let wanted_tags = with_owner(&tags_all, &write.cluster_name);
    if live_tags != wanted_tags {
        sm::update_tags(sagemaker, &record.arn, &live_tags, &wanted_tags).await?;
    }
    Ok(record)
}
