//! Create: the cluster, the config it may already have, `CreateClusterSchedulerConfig`, and the config once ready.

use super::super::model::{PolicyConfig, default_name, with_owner};
use super::super::plan::{LiveSchedulerConfig, foreign_policy, governed_cluster, live_config};
use super::super::read::refreshed_state;
use super::super::schema::SchedulingPolicyModel;
use super::{PolicyWrite, adopt};
use crate::aws::api_error;
use crate::aws::sagemaker as sm;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;

pub async fn create(client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
    let planned = match SchedulingPolicyModel::decode(planned) {
        Ok(planned) => planned,
        Err(diagnostics) => return diagnostics.into(),
    };
    let cluster_name = planned.cluster_name.as_known().cloned().unwrap_or_default();
    let cluster_arn = match cluster_arn(client, &planned, &cluster_name).await {
        Ok(arn) => arn,
        Err(diagnostics) => return diagnostics.into(),
    };
    let write = PolicyWrite {
        client,
        planned: &planned,
        cluster_name,
        wait: context.time_left(),
        context,
    };
    // An earlier create of this resource that was interrupted after SageMaker accepted it left a config with
    // our ownership tag: adopt it. Any other config on the cluster is refused (the plan may not have seen it:
    // the cluster's name was unknown then, or the config appeared since).
    match live_config(client, &cluster_arn, &write.cluster_name).await {
        Ok(None) => {}
        Ok(Some(LiveSchedulerConfig { id, ours: true })) => return adopt::adopt(&write, &id).await,
        Ok(Some(LiveSchedulerConfig { id, ours: false })) => {
            return Diagnostics::from(foreign_policy(&write.cluster_name, &id)).into();
        }
        Err(err) => {
            return err
                .diagnostics(
                    SchedulingPolicyModel::CLUSTER_NAME.path(),
                    "Cannot read the cluster's scheduler config",
                )
                .into();
        }
    }
    match send(&write, &cluster_arn).await {
        Ok((id, arn)) => record(&write, &id, &arn).await,
        Err(diagnostics) => diagnostics.into(),
    }
}

/// The plan already resolved and checked the cluster; look it up (and judge it) only when its name was unknown then.
async fn cluster_arn(
    client: &HyperpodClient,
    planned: &SchedulingPolicyModel,
    cluster_name: &str,
) -> Result<String, Diagnostics> {
    match &planned.cluster_arn {
        Field::Known(arn) => Ok(arn.clone()),
        _ => Ok(governed_cluster(client, cluster_name).await?.arn),
    }
}

/// `CreateClusterSchedulerConfig` with the ownership tag; the new config's ID and ARN.
async fn send(write: &PolicyWrite<'_>, cluster_arn: &str) -> Result<(String, String), Diagnostics> {
    let config = PolicyConfig::of(write.planned);
    let name = config.name.unwrap_or_else(|| default_name(&write.cluster_name));
    let tags_all = write.planned.tags_all.as_known().cloned().unwrap_or_default();
    let tags: Vec<_> = with_owner(&tags_all, &write.cluster_name)
        .iter()
        .map(|(k, v)| sm::to_sdk_tag(k, v))
        .collect();
    let created = write
        .client
        .sagemaker
        .create_cluster_scheduler_config()
        .name(&name)
        .cluster_arn(cluster_arn)
        .scheduler_config(config.settings.to_sdk())
        .set_description(config.settings.description.clone())
        .set_tags((!tags.is_empty()).then_some(tags))
        .send()
        .await
        .map_err(|err| api_error("CreateClusterSchedulerConfig", err))
        .map_err(|err| err.diagnostics(AttributePath::root(), "Creating the scheduling policy failed"))?;
    let id = created.cluster_scheduler_config_id().unwrap_or_default().to_string();
    let arn = created.cluster_scheduler_config_arn().unwrap_or_default().to_string();
    Ok((id, arn))
}

/// The created config once ready. From here on the object exists: failures return its id so Terraform taints it
/// instead of forgetting it.
async fn record(write: &PolicyWrite<'_>, id: &str, arn: &str) -> Applied {
    let sagemaker = &write.client.sagemaker;
    let record = match sm::wait_scheduler_config_ready(sagemaker, id, write.wait, &write.context.stop).await {
        Ok(record) => record,
        Err(err) => {
            return Applied::failed(
                Some(write.partial_state(id, arn)),
                err.diagnostics(AttributePath::root(), "The scheduling policy did not become ready"),
            );
        }
    };
    match refreshed_state(write.client, record, write.planned).await {
        Ok(state) => Applied::ok(state.encode()),
        Err(err) => Applied::failed(
            Some(write.partial_state(id, arn)),
            err.diagnostics(AttributePath::root(), "Reading tags failed"),
        ),
    }
}
