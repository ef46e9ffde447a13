//! SageMaker reads and waits: HyperPod clusters and cluster scheduler configs.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{FairShare, IdleResourceSharing, SchedulerResourceStatus};

use super::scheduler_status::SchedulerStatus;
use super::wait::HasStatus;
use super::{AwsError, api_error, not_found_as};
use crate::Stop;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterOrchestrator {
    Eks { eks_cluster_arn: String },
    Slurm,
}

impl ClusterOrchestrator {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Eks { .. } => "eks",
            Self::Slurm => "slurm",
        }
    }
}

#[derive(Clone, Debug)]
pub struct InstanceGroup {
    pub name: String,
    pub instance_type: String,
    pub current_count: i32,
    pub target_count: i32,
    /// The IAM role the group's nodes run as (OBS-1 looks for the CloudWatch agent's policy on it).
    pub execution_role: String,
    /// `KubernetesConfig.CurrentLabels` (the desired ones while none are current): the MIG layout is the label
    /// `nvidia.com/mig.config`.
    pub kubernetes_labels: BTreeMap<String, String>,
}

/// The node label through which HyperPod configures an instance group's GPU partitions (MIG).
pub const MIG_CONFIG_LABEL: &str = "nvidia.com/mig.config";

impl InstanceGroup {
    /// The group's MIG layout (`all-1g.10gb`, a custom layout name), `None` when its GPUs are not partitioned.
    pub fn partition_layout(&self) -> Option<&str> {
        self.kubernetes_labels
            .get(MIG_CONFIG_LABEL)
            .map(String::as_str)
            .filter(|layout| !layout.is_empty() && *layout != "all-disabled")
    }
}

#[derive(Clone, Debug)]
pub struct HyperPodCluster {
    pub name: String,
    pub arn: String,
    pub status: String,
    pub orchestrator: ClusterOrchestrator,
    pub instance_groups: Vec<InstanceGroup>,
}

impl HyperPodCluster {
    /// The name of the EKS cluster that orchestrates this one (from its ARN); `None` for a Slurm cluster.
    pub fn eks_cluster_name(&self) -> Option<String> {
        match &self.orchestrator {
            ClusterOrchestrator::Eks { eks_cluster_arn } => {
                Some(hyperpod_model::ids::Arn::resource_id_of(eks_cluster_arn))
            }
            ClusterOrchestrator::Slurm => None,
        }
    }
}

/// Describes a HyperPod cluster by name or ARN.
pub async fn find_cluster(client: &Client, name_or_arn: &str) -> Result<HyperPodCluster, AwsError> {
    let output = client
        .describe_cluster()
        .cluster_name(name_or_arn)
        .send()
        .await
        .map_err(|err| api_error("DescribeCluster", err))
        .map_err(|err| not_found_as("HyperPod cluster", name_or_arn, err))?;
    // A cluster without an EKS orchestrator block is Slurm-orchestrated (the API's default).
    let orchestrator = match output.orchestrator().and_then(|o| o.eks()) {
        Some(eks) => ClusterOrchestrator::Eks {
            eks_cluster_arn: eks.cluster_arn().unwrap_or_default().to_string(),
        },
        None => ClusterOrchestrator::Slurm,
    };
    Ok(HyperPodCluster {
        name: output.cluster_name().unwrap_or(name_or_arn).to_string(),
        arn: output.cluster_arn().unwrap_or_default().to_string(),
        status: output
            .cluster_status()
            .map(|s| s.as_str().to_string())
            .unwrap_or_default(),
        orchestrator,
        instance_groups: output
            .instance_groups()
            .iter()
            .map(|group| InstanceGroup {
                name: group.instance_group_name().unwrap_or_default().to_string(),
                instance_type: group
                    .instance_type()
                    .map(|t| t.as_str().to_string())
                    .unwrap_or_default(),
                current_count: group.current_count().unwrap_or(0),
                target_count: group.target_count().unwrap_or(0),
                execution_role: group.execution_role().unwrap_or_default().to_string(),
                kubernetes_labels: group
                    .kubernetes_config()
                    .and_then(|k| k.current_labels().or(k.desired_labels()))
                    .map(|labels| labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default(),
            })
            .collect(),
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityClass {
    pub name: String,
    pub weight: i32,
}

/// A cluster scheduler config as `DescribeClusterSchedulerConfig` returns it.
#[derive(Clone, Debug)]
pub struct SchedulerConfig {
    pub id: String,
    pub arn: String,
    pub name: String,
    pub cluster_arn: String,
    pub description: Option<String>,
    pub version: i32,
    /// The status, with `StatusDetails` folded in: a config SageMaker reports `Created` or `Updated` while one of
    /// its components (`FairShare`, ...) ended `*Failed` is not in effect, and reads as that component's status.
    pub status: SchedulerStatus,
    /// `FailureReason`, with the failed components named.
    pub failure_reason: Option<String>,
    /// `StatusDetails`: each component's status.
    pub status_details: BTreeMap<String, SchedulerStatus>,
    pub priority_classes: Vec<PriorityClass>,
    pub fair_share: Option<bool>,
    pub idle_resource_sharing: Option<bool>,
}

impl HasStatus for SchedulerConfig {
    fn status(&self) -> &str {
        self.status.as_str()
    }
    fn failure_reason(&self) -> Option<&str> {
        self.failure_reason.as_deref()
    }
}

pub const SCHEDULER_CONFIG: &str = "cluster scheduler config";

/// Describes a scheduler config; one that is deleted (or being deleted) counts as not found.
pub async fn find_scheduler_config(client: &Client, id: &str) -> Result<SchedulerConfig, AwsError> {
    let output = client
        .describe_cluster_scheduler_config()
        .cluster_scheduler_config_id(id)
        .send()
        .await
        .map_err(|err| api_error("DescribeClusterSchedulerConfig", err))
        .map_err(|err| not_found_as(SCHEDULER_CONFIG, id, err))?;
    let status = SchedulerStatus::from(output.status());
    if status == SchedulerStatus::Deleted {
        return Err(AwsError::NotFound {
            kind: SCHEDULER_CONFIG,
            id: id.to_string(),
        });
    }
    let scheduler_config = output.scheduler_config();
    let status_details: BTreeMap<String, SchedulerStatus> = output
        .status_details()
        .map(|details| {
            details
                .iter()
                .map(|(component, status)| (component.as_str().to_string(), SchedulerStatus::from(Some(status))))
                .collect()
        })
        .unwrap_or_default();
    let (status, failure_reason) =
        fold_status_details(status, output.failure_reason().map(str::to_string), &status_details);
    Ok(SchedulerConfig {
        id: output.cluster_scheduler_config_id().unwrap_or(id).to_string(),
        arn: output.cluster_scheduler_config_arn().unwrap_or_default().to_string(),
        name: output.name().unwrap_or_default().to_string(),
        cluster_arn: output.cluster_arn().unwrap_or_default().to_string(),
        description: output.description().map(str::to_string),
        version: output.cluster_scheduler_config_version().unwrap_or(0),
        status,
        failure_reason,
        status_details,
        priority_classes: scheduler_config
            .map(|c| {
                c.priority_classes()
                    .iter()
                    .map(|p| PriorityClass {
                        name: p.name().unwrap_or_default().to_string(),
                        weight: p.weight().unwrap_or(0),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        fair_share: scheduler_config
            .and_then(|c| c.fair_share())
            .map(|f| *f == FairShare::Enabled),
        idle_resource_sharing: scheduler_config
            .and_then(|c| c.idle_resource_sharing())
            .map(|i| *i == IdleResourceSharing::Enabled),
    })
}

/// A settled status with a failed component reads as the component's failure; the reason names the components.
fn fold_status_details(
    status: SchedulerStatus,
    reason: Option<String>,
    details: &BTreeMap<String, SchedulerStatus>,
) -> (SchedulerStatus, Option<String>) {
    let failed: Vec<(&String, &SchedulerStatus)> = details
        .iter()
        .filter(|(_, component_status)| component_status.is_failed())
        .collect();
    if failed.is_empty() {
        return (status, reason);
    }
    let named = failed
        .iter()
        .map(|(component, component_status)| format!("{component} {component_status}"))
        .collect::<Vec<_>>()
        .join(", ");
    let reason = Some(match reason {
        Some(reason) => format!("{reason} (StatusDetails: {named})"),
        None => format!("StatusDetails: {named}"),
    });
    let status = if status.is_failed() {
        status
    } else {
        failed[0].1.clone()
    };
    (status, reason)
}

/// A task-governance object (scheduler config, compute quota) that is neither deleted nor being deleted.
pub fn is_live(status: Option<&SchedulerResourceStatus>) -> bool {
    !matches!(
        status,
        Some(SchedulerResourceStatus::Deleted | SchedulerResourceStatus::Deleting)
    )
}

/// The id of the cluster's live scheduler config, if it has one (a cluster has at most one).
pub async fn find_scheduler_config_for_cluster(client: &Client, cluster_arn: &str) -> Result<Option<String>, AwsError> {
    let mut pages = client
        .list_cluster_scheduler_configs()
        .cluster_arn(cluster_arn)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListClusterSchedulerConfigs", err))?;
        for summary in page.cluster_scheduler_config_summaries() {
            if is_live(summary.status()) && summary.cluster_arn() == Some(cluster_arn) {
                return Ok(summary.cluster_scheduler_config_id().map(str::to_string));
            }
        }
    }
    Ok(None)
}

/// Waits for a create or update to settle (`Created` / `Updated`); failure states surface `FailureReason`.
pub async fn wait_scheduler_config_ready(
    client: &Client,
    id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<SchedulerConfig, AwsError> {
    super::wait::wait_scheduler_resource_ready(SCHEDULER_CONFIG, id, timeout, stop, || {
        find_scheduler_config(client, id)
    })
    .await
}

/// Waits until the scheduler config is gone.
pub async fn wait_scheduler_config_deleted(
    client: &Client,
    id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<(), AwsError> {
    super::wait::wait_scheduler_resource_deleted(SCHEDULER_CONFIG, id, timeout, stop, || {
        find_scheduler_config(client, id)
    })
    .await
}

/// The tags on a SageMaker resource.
pub async fn list_tags(client: &Client, arn: &str) -> Result<BTreeMap<String, String>, AwsError> {
    let mut tags = BTreeMap::new();
    let mut pages = client.list_tags().resource_arn(arn).into_paginator().send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListTags", err))?;
        for tag in page.tags() {
            if let (Some(key), Some(value)) = (tag.key(), tag.value()) {
                tags.insert(key.to_string(), value.to_string());
            }
        }
    }
    Ok(tags)
}

/// Brings a resource's tags from `current` to `wanted` with AddTags / DeleteTags.
pub async fn update_tags(
    client: &Client,
    arn: &str,
    current: &BTreeMap<String, String>,
    wanted: &BTreeMap<String, String>,
) -> Result<(), AwsError> {
    let removed: Vec<String> = current.keys().filter(|k| !wanted.contains_key(*k)).cloned().collect();
    if !removed.is_empty() {
        client
            .delete_tags()
            .resource_arn(arn)
            .set_tag_keys(Some(removed))
            .send()
            .await
            .map_err(|err| api_error("DeleteTags", err))?;
    }
    let changed: Vec<_> = wanted
        .iter()
        .filter(|(k, v)| current.get(*k) != Some(*v))
        .map(|(k, v)| to_sdk_tag(k, v))
        .collect();
    if !changed.is_empty() {
        client
            .add_tags()
            .resource_arn(arn)
            .set_tags(Some(changed))
            .send()
            .await
            .map_err(|err| api_error("AddTags", err))?;
    }
    Ok(())
}

pub fn to_sdk_tag(key: &str, value: &str) -> aws_sdk_sagemaker::types::Tag {
    aws_sdk_sagemaker::types::Tag::builder().key(key).value(value).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_component_makes_a_settled_config_read_as_failed() {
        use SchedulerStatus::{UpdateFailed, Updated};
        let details: BTreeMap<String, SchedulerStatus> = [
            ("FairShare".to_string(), UpdateFailed),
            ("PriorityClasses".to_string(), Updated),
        ]
        .into();
        let (status, reason) = fold_status_details(Updated, None, &details);
        assert_eq!(status, UpdateFailed);
        assert_eq!(reason.as_deref(), Some("StatusDetails: FairShare UpdateFailed"));
        let (status, reason) = fold_status_details(Updated, Some("quota busy".into()), &details);
        assert_eq!(
            (status, reason.as_deref()),
            (UpdateFailed, Some("quota busy (StatusDetails: FairShare UpdateFailed)"))
        );
        let fine: BTreeMap<String, SchedulerStatus> = [("FairShare".to_string(), Updated)].into();
        assert_eq!(fold_status_details(Updated, None, &fine), (Updated, None));
    }

    #[test]
    fn only_a_mig_label_other_than_all_disabled_is_a_partition_layout() {
        let group = |labels: &[(&str, &str)]| InstanceGroup {
            name: "g".into(),
            instance_type: "ml.p4d.24xlarge".into(),
            current_count: 1,
            target_count: 1,
            execution_role: String::new(),
            kubernetes_labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        assert_eq!(
            group(&[(MIG_CONFIG_LABEL, "all-1g.5gb")]).partition_layout(),
            Some("all-1g.5gb")
        );
        assert_eq!(group(&[(MIG_CONFIG_LABEL, "all-disabled")]).partition_layout(), None);
        assert_eq!(group(&[("team", "a")]).partition_layout(), None);
    }
}
