//! Plan time, in stages, since a refusal stops the reads after it: the configuration is judged first (the tag
//! count); then, when the cluster is new to this resource, the cluster is read and judged (EKS-orchestrated, CLU-10's
//! add-on), and then the scheduler config it already has (a foreign one is refused). `predict` fills the planned
//! attributes. Only a plan that moves the policy to another cluster reads anything; apply runs `governed_cluster`
//! when the cluster's name was unknown at plan.

mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use crate::aws::sagemaker::HyperPodCluster;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::resources::checklist;

use super::model::SeenSchedulerConfigs;
use super::schema::SchedulingPolicyModel;
use crate::protocol::model::Model;

pub use gather::{LiveSchedulerConfig, PolicyPlanInputs, live_config};
pub use judge::foreign_policy;

/// Plans the policy: the derived attributes and, beside them, the first refusal, which apply enforces. What the plan
/// could read is predicted either way, so a refusal that appears only when Terraform plans again at apply changes no
/// value the plan showed.
pub async fn plan(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    change: &mut PlannedChange,
) -> Result<(), Diagnostics> {
    let planned = SchedulingPolicyModel::decode(&change.planned)?;
    let mut inputs = gather::configuration(client, seen, change, &planned)?;
    let refused = judged_inputs(client, seen, &mut inputs).await;
    predict::predict(&inputs, &planned, &mut change.planned);
    // Apply reads the config back after it writes: what SageMaker reports then is known only after.
    if change.prior.as_ref().is_some_and(|prior| *prior != change.planned) {
        predict::reported_after_write(&mut change.planned);
    }
    if let Err(refusals) = refused {
        checklist::refuse(change, refusals);
    }
    Ok(())
}

/// Reads and judges in stages: a refusal stops the reads after it.
async fn judged_inputs(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    inputs: &mut PolicyPlanInputs,
) -> Result<(), Diagnostics> {
    judge::tags(inputs)?;
    if let Some(cluster_name) = inputs.cluster_to_check().map(str::to_string) {
        let cluster = governed_cluster(client, &cluster_name).await?;
        inputs.cluster = Some(gather::scheduler_config(client, seen, cluster, &cluster_name).await?);
        judge::scheduler_config(inputs)?;
    }
    Ok(())
}

/// The cluster a policy may govern, judged as it is read: it exists, is EKS-orchestrated, and has the
/// task-governance add-on (CLU-10). At plan, or at apply before the create when the cluster's name was unknown at
/// plan.
pub async fn governed_cluster(client: &HyperpodClient, cluster_name: &str) -> Result<HyperPodCluster, Diagnostics> {
    let cluster = gather::cluster(client, cluster_name).await?;
    judge::orchestrator(cluster_name, &cluster)?;
    let add_on = gather::task_governance(client, &cluster).await;
    judge::task_governance(add_on, client.strict)?;
    Ok(cluster)
}
