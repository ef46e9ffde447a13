//! SageMaker compute quotas (task governance): one per team and cluster, versioned like scheduler configs, with
//! asynchronous `Creating`/`Updating`/`Deleting` transitions.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    AcceleratorPartitionConfig, ActivationState, ClusterInstanceType, ComputeQuotaConfig, ComputeQuotaResourceConfig,
    ComputeQuotaSummary, ComputeQuotaTarget, MigProfileType, PreemptTeamTasks, ResourceSharingConfig,
    ResourceSharingStrategy,
};
use hyperpod_model::quota_settings::{Activation, Preemption, SharingStrategy};

use super::sagemaker::to_sdk_tag;
use super::scheduler_status::SchedulerStatus;
use super::target_version::Reading;
use super::wait::HasStatus;
use super::{AwsError, api_error, not_found_as};
use crate::Stop;

pub const COMPUTE_QUOTA: &str = "compute quota";

/// One instance type's allocation (a quota entry, or an absolute borrow limit): the model's one quota entry type,
/// which the engine counts and the configuration decodes into.
pub use hyperpod_model::quota::{Partition, QuotaShare};

/// What a create or update writes. An update replaces the whole config and target, so every field is sent each time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuotaSpec {
    pub name: String,
    pub cluster_arn: String,
    pub team_name: String,
    pub description: Option<String>,
    pub resources: Vec<QuotaShare>,
    /// `None` is the API's default, LendAndBorrow.
    pub sharing_strategy: Option<SharingStrategy>,
    pub borrow_limit: Option<i32>,
    /// `AbsoluteBorrowLimits`: the most of an instance type the team may borrow, whatever the percentage.
    pub absolute_borrow_limits: Vec<QuotaShare>,
    /// `None` is the API's default, LowerPriority.
    pub preempt_team_tasks: Option<Preemption>,
    pub fair_share_weight: Option<i32>,
    /// `None` is the API's default, Enabled.
    pub activation_state: Option<Activation>,
    /// Applied on create only; later changes go through `sagemaker::update_tags`.
    pub tags: BTreeMap<String, String>,
}

/// A compute quota as `DescribeComputeQuota` (or a `ListComputeQuotas` summary) returns it. Defaults the service
/// fills in (sharing strategy, borrow limit, vCPU/memory derived from accelerators) show up here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ComputeQuota {
    pub id: String,
    pub arn: String,
    pub name: String,
    pub cluster_arn: String,
    /// Not in list summaries (`None` there).
    pub description: Option<String>,
    pub version: i32,
    pub status: SchedulerStatus,
    pub failure_reason: Option<String>,
    pub team_name: String,
    pub resources: Vec<QuotaShare>,
    /// A setting whose name this version does not know reads as unset (see `known`).
    pub sharing_strategy: Option<SharingStrategy>,
    pub borrow_limit: Option<i32>,
    pub absolute_borrow_limits: Vec<QuotaShare>,
    pub preempt_team_tasks: Option<Preemption>,
    pub fair_share_weight: Option<i32>,
    pub activation_state: Option<Activation>,
    /// `CreationTime` as (seconds, nanoseconds) since the epoch: which of two quotas claimed capacity first.
    pub created: Option<(i64, u32)>,
}

impl HasStatus for ComputeQuota {
    fn status(&self) -> &str {
        self.status.as_str()
    }
    fn failure_reason(&self) -> Option<&str> {
        self.failure_reason.as_deref()
    }
}

/// Describes a compute quota; one that is deleted counts as not found.
pub async fn find_compute_quota(client: &Client, id: &str) -> Result<ComputeQuota, AwsError> {
    let output = client
        .describe_compute_quota()
        .compute_quota_id(id)
        .send()
        .await
        .map_err(|err| api_error("DescribeComputeQuota", err))
        .map_err(|err| not_found_as(COMPUTE_QUOTA, id, err))?;
    let status = SchedulerStatus::from(output.status());
    if status == SchedulerStatus::Deleted {
        return Err(AwsError::NotFound {
            kind: COMPUTE_QUOTA,
            id: id.to_string(),
        });
    }
    let mut quota = ComputeQuota {
        id: output.compute_quota_id().unwrap_or(id).to_string(),
        arn: output.compute_quota_arn().unwrap_or_default().to_string(),
        name: output.name().unwrap_or_default().to_string(),
        cluster_arn: output.cluster_arn().unwrap_or_default().to_string(),
        description: output.description().map(str::to_string),
        version: output.compute_quota_version().unwrap_or(0),
        status,
        failure_reason: output.failure_reason().map(str::to_string),
        activation_state: output
            .activation_state()
            .and_then(|a| known(a.as_str(), Activation::parse)),
        created: output.creation_time().map(|t| (t.secs(), t.subsec_nanos())),
        ..empty_quota()
    };
    apply_config(&mut quota, output.compute_quota_config(), output.compute_quota_target());
    Ok(quota)
}

/// The live compute quotas of a cluster (deleted and deleting ones left out), from the list summaries alone.
pub async fn list_compute_quotas(client: &Client, cluster_arn: &str) -> Result<Vec<ComputeQuota>, AwsError> {
    let mut quotas = Vec::new();
    let mut pages = client
        .list_compute_quotas()
        .cluster_arn(cluster_arn)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListComputeQuotas", err))?;
        for summary in page.compute_quota_summaries() {
            // The filter is the service's; checking again keeps another cluster's quotas out whatever it does.
            if super::sagemaker::is_live(summary.status()) && summary.cluster_arn() == Some(cluster_arn) {
                quotas.push(from_summary(summary));
            }
        }
    }
    Ok(quotas)
}

/// Creates a compute quota; returns its id and ARN. It starts `Creating`: follow with `wait_compute_quota_ready`.
pub async fn create_compute_quota(client: &Client, spec: &QuotaSpec) -> Result<(String, String), AwsError> {
    let tags: Vec<_> = spec.tags.iter().map(|(k, v)| to_sdk_tag(k, v)).collect();
    let output = client
        .create_compute_quota()
        .name(&spec.name)
        .cluster_arn(&spec.cluster_arn)
        // An empty description is none: sent as none, as AWS's own requests that set no description.
        .set_description(spec.description.clone().filter(|d| !d.is_empty()))
        .compute_quota_config(to_sdk_config(spec))
        .compute_quota_target(to_sdk_target(spec))
        .set_activation_state(spec.activation_state.map(|state| ActivationState::from(state.as_str())))
        .set_tags((!tags.is_empty()).then_some(tags))
        .send()
        .await
        .map_err(|err| api_error("CreateComputeQuota", err))?;
    Ok((
        output.compute_quota_id().unwrap_or_default().to_string(),
        output.compute_quota_arn().unwrap_or_default().to_string(),
    ))
}

/// Writes config, target, activation state and description as a new version; `current` is the version the change
/// was computed against and `reading` how `TargetVersion` names it (`target_version`; a `ConflictException` means
/// someone else wrote in between, or the other reading). Returns the new version. The quota's name, cluster and team
/// cannot change.
pub async fn update_compute_quota(
    client: &Client,
    id: &str,
    current: i32,
    reading: Reading,
    spec: &QuotaSpec,
) -> Result<i32, AwsError> {
    let output = client
        .update_compute_quota()
        .compute_quota_id(id)
        .target_version(reading.target(current))
        .compute_quota_config(to_sdk_config(spec))
        .compute_quota_target(to_sdk_target(spec))
        .activation_state(ActivationState::from(
            spec.activation_state.unwrap_or(Activation::Enabled).as_str(),
        ))
        // Omitting the description keeps the stored one; an empty one clears it.
        .description(spec.description.clone().unwrap_or_default())
        .send()
        .await
        .map_err(|err| api_error("UpdateComputeQuota", err))
        .map_err(|err| not_found_as(COMPUTE_QUOTA, id, err))?;
    Ok(output.compute_quota_version().unwrap_or(current + 1))
}

/// Starts deleting a compute quota; one that is already gone is fine. Follow with `wait_compute_quota_deleted`.
pub async fn delete_compute_quota(client: &Client, id: &str) -> Result<(), AwsError> {
    match client.delete_compute_quota().compute_quota_id(id).send().await {
        Ok(_) => Ok(()),
        Err(err) => match not_found_as(COMPUTE_QUOTA, id, api_error("DeleteComputeQuota", err)) {
            err if err.is_not_found() => Ok(()),
            err => Err(err),
        },
    }
}

/// Waits for a create or update to settle (`Created` / `Updated`); failure states surface `FailureReason`.
pub async fn wait_compute_quota_ready(
    client: &Client,
    id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<ComputeQuota, AwsError> {
    super::wait::wait_scheduler_resource_ready(COMPUTE_QUOTA, id, timeout, stop, || find_compute_quota(client, id))
        .await
}

/// Waits until the compute quota is gone.
pub async fn wait_compute_quota_deleted(
    client: &Client,
    id: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<(), AwsError> {
    super::wait::wait_scheduler_resource_deleted(COMPUTE_QUOTA, id, timeout, stop, || find_compute_quota(client, id))
        .await
}

/// A list summary carries everything but the description and the failure reason.
pub fn from_summary(summary: &ComputeQuotaSummary) -> ComputeQuota {
    let mut quota = ComputeQuota {
        id: summary.compute_quota_id().unwrap_or_default().to_string(),
        arn: summary.compute_quota_arn().unwrap_or_default().to_string(),
        name: summary.name().unwrap_or_default().to_string(),
        cluster_arn: summary.cluster_arn().unwrap_or_default().to_string(),
        version: summary.compute_quota_version().unwrap_or(0),
        status: SchedulerStatus::from(summary.status()),
        activation_state: summary
            .activation_state()
            .and_then(|a| known(a.as_str(), Activation::parse)),
        created: summary.creation_time().map(|t| (t.secs(), t.subsec_nanos())),
        ..empty_quota()
    };
    apply_config(
        &mut quota,
        summary.compute_quota_config(),
        summary.compute_quota_target(),
    );
    quota
}

fn empty_quota() -> ComputeQuota {
    ComputeQuota {
        id: String::new(),
        arn: String::new(),
        name: String::new(),
        cluster_arn: String::new(),
        description: None,
        version: 0,
        status: SchedulerStatus::Unreported,
        failure_reason: None,
        team_name: String::new(),
        resources: Vec::new(),
        sharing_strategy: None,
        borrow_limit: None,
        absolute_borrow_limits: Vec::new(),
        preempt_team_tasks: None,
        fair_share_weight: None,
        activation_state: None,
        created: None,
    }
}

fn apply_config(quota: &mut ComputeQuota, config: Option<&ComputeQuotaConfig>, target: Option<&ComputeQuotaTarget>) {
    if let Some(config) = config {
        quota.resources = config.compute_quota_resources().iter().map(from_sdk_resource).collect();
        let sharing = config.resource_sharing_config();
        quota.sharing_strategy =
            (sharing.and_then(|s| s.strategy())).and_then(|s| known(s.as_str(), SharingStrategy::parse));
        quota.borrow_limit = sharing.and_then(aws_sdk_sagemaker::types::ResourceSharingConfig::borrow_limit);
        quota.absolute_borrow_limits = sharing
            .map(|s| s.absolute_borrow_limits().iter().map(from_sdk_resource).collect())
            .unwrap_or_default();
        quota.preempt_team_tasks = (config.preempt_team_tasks()).and_then(|p| known(p.as_str(), Preemption::parse));
    }
    if let Some(target) = target {
        quota.team_name = target.team_name().unwrap_or_default().to_string();
        quota.fair_share_weight = target.fair_share_weight();
    }
}

fn from_sdk_resource(resource: &ComputeQuotaResourceConfig) -> QuotaShare {
    QuotaShare {
        instance_type: resource
            .instance_type()
            .map(|t| t.as_str().to_string())
            .unwrap_or_default(),
        count: resource.count().map(i64::from),
        accelerators: resource.accelerators().map(i64::from),
        vcpu: resource.v_cpu().map(widen),
        memory_gib: resource.memory_in_gib().map(widen),
        accelerator_partition: resource.accelerator_partition().map(|p| Partition {
            profile: p.r#type().map(|t| t.as_str().to_string()).unwrap_or_default(),
            count: p.count().map_or(0, i64::from),
        }),
    }
}

fn to_sdk_resource(resource: &QuotaShare) -> ComputeQuotaResourceConfig {
    ComputeQuotaResourceConfig::builder()
        .instance_type(ClusterInstanceType::from(resource.instance_type.as_str()))
        .set_count(resource.count.map(api_int))
        .set_accelerators(resource.accelerators.map(api_int))
        .set_v_cpu(resource.vcpu.map(|v| v as f32))
        .set_memory_in_gib(resource.memory_gib.map(|m| m as f32))
        .set_accelerator_partition(resource.accelerator_partition.as_ref().map(|p| {
            AcceleratorPartitionConfig::builder()
                .r#type(MigProfileType::from(p.profile.as_str()))
                .count(api_int(p.count))
                .build()
        }))
        .build()
}

/// An amount as the API's 32-bit integer. Configured amounts are validated to at most 10,000,000 where they enter;
/// anything larger saturates rather than wraps.
fn api_int(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(if n < 0 { i32::MIN } else { i32::MAX })
}

/// A setting SageMaker sent, typed; one this version does not know (a name added to the API later) is logged and
/// read as unset, so the configuration's own value is written back rather than compared with a name it cannot hold.
fn known<T>(name: &str, parse: fn(&str) -> Option<T>) -> Option<T> {
    let value = parse(name);
    if value.is_none() {
        tracing::warn!(
            setting = name,
            "SageMaker sent a compute quota setting this version does not know"
        );
    }
    value
}

/// The f64 nearest the decimal the service sent: `0.1_f32 as f64` is 0.10000000149011612, which would show as drift
/// against a configured `0.1`; the shortest decimal that round-trips the f32 is "0.1".
fn widen(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// The config as the API takes it. A borrow limit (a percentage or absolute) without a strategy goes with
/// `LendAndBorrow`, the only strategy that borrows (and the API's default).
pub fn to_sdk_config(spec: &QuotaSpec) -> ComputeQuotaConfig {
    let resources = spec.resources.iter().map(to_sdk_resource).collect();
    let borrows = spec.borrow_limit.is_some() || !spec.absolute_borrow_limits.is_empty();
    let strategy = match (spec.sharing_strategy, borrows) {
        (Some(strategy), _) => Some(ResourceSharingStrategy::from(strategy.as_str())),
        (None, true) => Some(ResourceSharingStrategy::Lendandborrow),
        (None, false) => None,
    };
    let absolute: Vec<ComputeQuotaResourceConfig> = spec.absolute_borrow_limits.iter().map(to_sdk_resource).collect();
    ComputeQuotaConfig::builder()
        .set_compute_quota_resources(Some(resources))
        .set_resource_sharing_config(strategy.map(|strategy| {
            ResourceSharingConfig::builder()
                .strategy(strategy)
                .set_borrow_limit(spec.borrow_limit)
                .set_absolute_borrow_limits((!absolute.is_empty()).then(|| absolute.clone()))
                .build()
        }))
        .set_preempt_team_tasks(
            spec.preempt_team_tasks
                .map(|preempt| PreemptTeamTasks::from(preempt.as_str())),
        )
        .build()
}

pub fn to_sdk_target(spec: &QuotaSpec) -> ComputeQuotaTarget {
    ComputeQuotaTarget::builder()
        .team_name(&spec.team_name)
        .set_fair_share_weight(spec.fair_share_weight)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sagemaker::types::SchedulerResourceStatus;

    fn spec() -> QuotaSpec {
        QuotaSpec {
            name: "research-quota".into(),
            cluster_arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc".into(),
            team_name: "research".into(),
            resources: vec![
                QuotaShare::instances("ml.p5.48xlarge", 2),
                QuotaShare {
                    instance_type: "ml.g5.8xlarge".into(),
                    vcpu: Some(0.1),
                    memory_gib: Some(12.5),
                    ..QuotaShare::default()
                },
                QuotaShare {
                    instance_type: "ml.p4d.24xlarge".into(),
                    accelerator_partition: Some(Partition {
                        profile: "mig-1g.5gb".into(),
                        count: 14,
                    }),
                    ..QuotaShare::default()
                },
            ],
            borrow_limit: Some(50),
            absolute_borrow_limits: vec![QuotaShare {
                instance_type: "ml.p5.48xlarge".into(),
                accelerators: Some(16),
                ..QuotaShare::default()
            }],
            preempt_team_tasks: Some(Preemption::Never),
            fair_share_weight: Some(10),
            ..QuotaSpec::default()
        }
    }

    #[test]
    fn spec_maps_to_the_api_shape() {
        let config = to_sdk_config(&spec());
        let resources = config.compute_quota_resources();
        assert_eq!(resources.len(), 3);
        let partition = resources[2].accelerator_partition().unwrap();
        assert_eq!(partition.r#type().unwrap().as_str(), "mig-1g.5gb");
        assert_eq!(partition.count(), Some(14));
        assert_eq!(resources[0].instance_type().unwrap().as_str(), "ml.p5.48xlarge");
        assert_eq!(resources[0].count(), Some(2));
        assert_eq!(resources[0].v_cpu(), None);
        assert_eq!(resources[1].v_cpu(), Some(0.1_f32));
        let sharing = config.resource_sharing_config().unwrap();
        assert_eq!(sharing.strategy().unwrap().as_str(), "LendAndBorrow");
        assert_eq!(sharing.borrow_limit(), Some(50));
        assert_eq!(sharing.absolute_borrow_limits().len(), 1);
        assert_eq!(sharing.absolute_borrow_limits()[0].accelerators(), Some(16));
        assert_eq!(config.preempt_team_tasks().unwrap().as_str(), "Never");
        let target = to_sdk_target(&spec());
        assert_eq!(target.team_name(), Some("research"));
        assert_eq!(target.fair_share_weight(), Some(10));

        let plain = QuotaSpec {
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
            ..spec()
        };
        let absolute_only = QuotaSpec {
            borrow_limit: None,
            ..spec()
        };
        let sharing = to_sdk_config(&absolute_only)
            .resource_sharing_config()
            .cloned()
            .unwrap();
        assert_eq!(
            sharing.strategy().unwrap().as_str(),
            "LendAndBorrow",
            "an absolute limit borrows"
        );
        assert!(to_sdk_config(&plain).resource_sharing_config().is_none());
        let lend = QuotaSpec {
            sharing_strategy: Some(SharingStrategy::Lend),
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
            ..spec()
        };
        let config = to_sdk_config(&lend);
        assert_eq!(
            config.resource_sharing_config().unwrap().strategy().unwrap().as_str(),
            "Lend"
        );
        assert_eq!(config.resource_sharing_config().unwrap().borrow_limit(), None);
    }

    #[test]
    fn summaries_map_back_with_decimal_floats() {
        let spec = spec();
        let summary = ComputeQuotaSummary::builder()
            .compute_quota_id("q-1")
            .compute_quota_arn("arn:aws:sagemaker:us-west-2:123456789012:compute-quota/q-1")
            .name(&spec.name)
            .cluster_arn(&spec.cluster_arn)
            .compute_quota_version(3)
            .status(SchedulerResourceStatus::Updated)
            .activation_state(ActivationState::Enabled)
            .compute_quota_config(to_sdk_config(&spec))
            .compute_quota_target(to_sdk_target(&spec))
            .build();
        let quota = from_summary(&summary);
        assert_eq!(quota.id, "q-1");
        assert_eq!(quota.version, 3);
        assert_eq!(quota.status, SchedulerStatus::Updated);
        assert_eq!(quota.team_name, "research");
        assert_eq!(quota.fair_share_weight, Some(10));
        assert_eq!(quota.activation_state, Some(Activation::Enabled));
        assert_eq!(quota.sharing_strategy, Some(SharingStrategy::LendAndBorrow));
        assert_eq!(quota.borrow_limit, Some(50));
        assert_eq!(quota.preempt_team_tasks, Some(Preemption::Never));
        assert_eq!(
            quota.resources, spec.resources,
            "0.1 and 12.5 come back as written, the partition too"
        );
        assert_eq!(quota.absolute_borrow_limits, spec.absolute_borrow_limits);
        assert_eq!(quota.description, None);
        assert_eq!(quota.failure_reason, None);
    }

    #[test]
    fn widening_keeps_the_decimal() {
        assert_eq!(widen(0.1), 0.1);
        assert_eq!(widen(96.0), 96.0);
        assert_eq!(widen(1.3), 1.3);
        assert_ne!(f64::from(0.1_f32), 0.1, "the plain widening is what `widen` avoids");
    }
}
