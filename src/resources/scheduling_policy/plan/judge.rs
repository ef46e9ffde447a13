//! The policy's plan-time refusals, from what was read: too many tags for SageMaker, a Slurm cluster (no task
//! governance), CLU-10 (the task-governance add-on, from the engine), and a scheduler config on the cluster that is
//! not provably this resource's (a cluster has exactly one).

use super::super::model::OWNER_TAG;
use super::super::schema::{MAX_TAGS, SchedulingPolicyModel, TYPE_NAME};
use super::PolicyPlanInputs;
use crate::aws::sagemaker::{ClusterOrchestrator, HyperPodCluster};
use crate::findings::ToDiagnostics;
use crate::governance::{Check, Report};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};

fn cluster_path() -> AttributePath {
    SchedulingPolicyModel::CLUSTER_NAME.path()
}

/// SageMaker's tag limit, counting the provider's `default_tags` and its ownership tag.
pub fn tags(inputs: &PolicyPlanInputs) -> Result<(), Diagnostics> {
    let Some(all) = inputs.config.tags_all(&inputs.default_tags) else {
        return Ok(()); // a tag known only at apply
    };
    if all.len() < MAX_TAGS {
        return Ok(());
    }
    Err(Diagnostic::invalid_value(
        SchedulingPolicyModel::TAGS.path(),
        format!("{} tags with the provider's default_tags", all.len()),
        &format!("SageMaker allows {MAX_TAGS} tags on a scheduler config, and the provider adds its ownership tag"),
        &format!("use at most {} tags, default_tags included", MAX_TAGS - 1),
    )
    .into())
}

/// Task governance exists only for EKS-orchestrated clusters.
pub fn orchestrator(cluster_name: &str, cluster: &HyperPodCluster) -> Result<(), Diagnostics> {
    if cluster.orchestrator != ClusterOrchestrator::Slurm {
        return Ok(());
    }
    Err(Diagnostic::invalid_value(
        cluster_path(),
        format!("{cluster_name:?} (orchestrator: slurm)"),
        "scheduling policies (HyperPod task governance) exist only for EKS-orchestrated clusters",
        "use Slurm's QoS, priority and fair-share on this cluster (hyperpod_tenant with a Slurm contract), \
         or choose an EKS-orchestrated cluster",
    )
    .into())
}

/// CLU-10: a scheduler config needs the task-governance add-on. Only its errors count (its warnings are not shown).
pub fn task_governance(check: Option<Check>, strict: bool) -> Result<(), Diagnostics> {
    let Some(check) = check else {
        return Ok(());
    };
    let diagnostics = Report::from_iter([check]).diagnostics(strict);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(())
}

/// A cluster has one scheduler config: creating a second fails at apply, so say so now. One this resource created
/// in an apply that was interrupted before recording it (its ownership tag) is adopted at apply instead; the one a
/// replacement replaces is in state.
pub fn scheduler_config(inputs: &PolicyPlanInputs) -> Result<(), Diagnostics> {
    let Some(cluster) = &inputs.cluster else {
        return Ok(());
    };
    match &cluster.existing {
        Some(existing) if !existing.ours && !cluster.existing_in_state => {
            Err(foreign_policy(&cluster.name, &existing.id).into())
        }
        _ => Ok(()),
    }
}

/// The refusal of a cluster's scheduler config that is not provably this resource's own, with its import ID.
pub fn foreign_policy(cluster_name: &str, existing: &str) -> Diagnostic {
    Diagnostic::error(
        cluster_path(),
        "Cluster already has a scheduling policy",
        format!(
            "HyperPod cluster {cluster_name:?} already has scheduler config {existing}, which this resource did not \
             create (it lacks the `{OWNER_TAG}` tag naming this cluster); a cluster has exactly one. Fix: import it \
             (`terraform import {TYPE_NAME}.<name> {cluster_name}` or an `import` block with \
             `identity = {{ cluster_name = \"{cluster_name}\" }}`) instead of creating another."
        ),
    )
}
