//! What the policy's plan reads, as one `PolicyPlanInputs`: the configuration and the prior state (no I/O), then,
//! when the cluster is new to this resource, the cluster (the run's shared read), its task-governance add-on, and the
//! scheduler config it already has. Each read is made only once the judgement of the one before let the plan go on.

use std::collections::BTreeMap;

use super::super::model::{PolicyConfig, SeenSchedulerConfigs, is_ours};
use super::super::schema::SchedulingPolicyModel;
use crate::aws::AwsError;
use crate::aws::sagemaker::{self as sm, HyperPodCluster, find_scheduler_config, find_scheduler_config_for_cluster};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::Check;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::model::{Field, Model};
use crate::protocol::plan::PlannedChange;
use crate::resources::cluster_facts;

/// Everything the policy's judge and predict read, as one value a test can build by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyPlanInputs {
    /// The planned value, typed.
    pub config: PolicyConfig,
    /// Whether the configuration sets `name` (else it is `<cluster_name>-policy`).
    pub name_configured: bool,
    /// The provider's `default_tags`, under the resource's own in `tags_all`.
    pub default_tags: BTreeMap<String, String>,
    /// What the prior state records (`None` on create).
    pub prior: Option<PolicyPrior>,
    /// The cluster and its scheduler config, read when the cluster is new to this resource (`cluster_to_check`).
    pub cluster: Option<PolicyCluster>,
}

/// The prior state, as far as the plan reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyPrior {
    pub cluster_name: Option<String>,
    /// The scheduler config's name: kept while the configuration leaves `name` unset (an imported config keeps the
    /// name it was made with, whatever the default would be).
    pub name: Option<String>,
    /// SageMaker's status when it was recorded (`UpdateFailed`...).
    pub status: Option<String>,
}

/// The cluster the policy governs, and the scheduler config it already has.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyCluster {
    /// The cluster's name, as configured.
    pub name: String,
    pub arn: String,
    pub existing: Option<LiveSchedulerConfig>,
    /// Whether `existing` is a config this provider process has seen in Terraform's state (the one a replacement
    /// replaces).
    pub existing_in_state: bool,
}

/// A cluster's live scheduler config, and whether its ownership tag proves it this resource's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSchedulerConfig {
    pub id: String,
    pub ours: bool,
}

impl PolicyPlanInputs {
    /// The cluster to read and judge: its name once known, unless the prior state already governs it.
    pub fn cluster_to_check(&self) -> Option<&str> {
        let cluster_name = self.config.cluster_name.as_deref()?;
        let prior = self.prior.as_ref().and_then(|prior| prior.cluster_name.as_deref());
        (prior != Some(cluster_name)).then_some(cluster_name)
    }
}

/// The configuration (`planned`, the planned value decoded) and the prior state; remembers the config the prior
/// state holds (no I/O).
pub fn configuration(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    change: &PlannedChange,
    planned: &SchedulingPolicyModel,
) -> Result<PolicyPlanInputs, Diagnostics> {
    let prior = change.prior.as_ref().map(SchedulingPolicyModel::decode).transpose()?;
    if let Some(Field::Known(id)) = prior.as_ref().map(|prior| &prior.scheduler_config_id) {
        seen.remember(id);
    }
    Ok(PolicyPlanInputs {
        config: PolicyConfig::of(planned),
        name_configured: SchedulingPolicyModel::NAME.get(&change.config)? != Field::Null,
        default_tags: client.default_tags.clone(),
        prior: prior.map(|prior| PolicyPrior {
            cluster_name: prior.cluster_name.known(),
            name: prior.name.known(),
            status: prior.status.known(),
        }),
        cluster: None,
    })
}

/// The HyperPod cluster by name; one that does not exist is an error at `cluster_name`.
pub async fn cluster(client: &HyperpodClient, cluster_name: &str) -> Result<HyperPodCluster, Diagnostics> {
    cluster_facts::cluster_named(client, cluster_name, SchedulingPolicyModel::CLUSTER_NAME.path()).await
}

/// CLU-10's check of the cluster's task-governance add-on (`None` for a Slurm cluster).
pub async fn task_governance(client: &HyperpodClient, cluster: &HyperPodCluster) -> Option<Check> {
    cluster_facts::task_governance(client, cluster, SchedulingPolicyModel::CLUSTER_NAME.path()).await
}

/// The scheduler config the cluster (configured as `cluster_name`) already has, if any.
pub async fn scheduler_config(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    cluster: HyperPodCluster,
    cluster_name: &str,
) -> Result<PolicyCluster, Diagnostics> {
    let existing = live_config(client, &cluster.arn, cluster_name).await.map_err(|err| {
        err.diagnostics(
            SchedulingPolicyModel::CLUSTER_NAME.path(),
            "Cannot read the cluster's scheduler config",
        )
    })?;
    Ok(PolicyCluster {
        existing_in_state: existing.as_ref().is_some_and(|live| seen.contains(&live.id)),
        existing,
        name: cluster_name.to_string(),
        arn: cluster.arn,
    })
}

/// The cluster's live scheduler config, if it has one, and whether its ownership tag proves it this resource's.
pub async fn live_config(
    client: &HyperpodClient,
    cluster_arn: &str,
    cluster_name: &str,
) -> Result<Option<LiveSchedulerConfig>, AwsError> {
    let Some(id) = find_scheduler_config_for_cluster(&client.sagemaker, cluster_arn).await? else {
        return Ok(None);
    };
    let arn = find_scheduler_config(&client.sagemaker, &id).await?.arn;
    let tags = sm::list_tags(&client.sagemaker, &arn).await?;
    let ours = is_ours(&tags, cluster_name);
    Ok(Some(LiveSchedulerConfig { id, ours }))
}
