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

use super::model::SeenSchedulerConfigs;

pub use gather::{LiveSchedulerConfig, PolicyPlanInputs, live_config};
pub use judge::foreign_policy;

/// Plans the policy: the derived attributes, or the plan fails with the first refusal.
pub async fn plan(
    client: &HyperpodClient,
    seen: &SeenSchedulerConfigs,
    change: &mut PlannedChange,
) -> Result<(), Diagnostics> {
    let mut inputs = gather::configuration(client, seen, change);
    judge::tags(&inputs)?;
    if let Some(cluster_name) = inputs.cluster_to_check().map(str::to_string) {
        let cluster = governed_cluster(client, &cluster_name).await?;
        inputs.cluster = Some(gather::scheduler_config(client, seen, cluster, &cluster_name).await?);
        judge::scheduler_config(&inputs)?;
    }
    predict::predict(&inputs, &mut change.planned);
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
