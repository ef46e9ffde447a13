//! What the allocation's plan reads: the configuration, and the cluster it names with its compute quotas (the teams
//! it does not list hold capacity all the same). The cluster is the run's shared read.

use super::super::model::AllocationConfig;
use crate::aws::sagemaker::ClusterOrchestrator;
use crate::client::HyperpodClient;
use crate::governance::{Capacity, Fact, TenantCapacity};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::value::Value;
use crate::resources::{cluster_facts, cluster_view};

/// Everything the allocation's judge and predict read, as one value a test can build by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationPlanInputs {
    pub config: AllocationConfig,
    /// `None` while the cluster's name is unknown (nothing is read then).
    pub cluster: Option<AllocatedCluster>,
}

/// The cluster as the allocation sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocatedCluster {
    pub arn: String,
    pub instance_groups: Vec<Capacity>,
    /// Every team's live compute quota (an EKS cluster's; a Slurm cluster has none).
    pub live_quotas: Fact<Vec<TenantCapacity>>,
}

pub async fn gather(client: &HyperpodClient, value: &Value) -> Result<AllocationPlanInputs, Diagnostics> {
    let config = AllocationConfig::decode(value);
    let Some(cluster_name) = &config.cluster_name else {
        return Ok(AllocationPlanInputs { config, cluster: None });
    };
    let found = cluster_facts::cluster_named(client, cluster_name, AttributePath::attr("cluster_name")).await?;
    // The quotas only matter once the allocation is known (its summary lists the teams it does not).
    let live_quotas = match (&found.orchestrator, &config.allocation) {
        (_, None) => Fact::Unavailable("not read while the allocation is unknown".to_string()),
        (ClusterOrchestrator::Slurm, _) => Fact::Known(Vec::new()),
        (ClusterOrchestrator::Eks { .. }, Some(_)) => match client.compute_quotas(&found.arn).await {
            Ok(quotas) => Fact::Known(quotas.iter().map(cluster_facts::capacity_of).collect()),
            Err(err) => Fact::unreadable("the cluster's compute quotas", &err),
        },
    };
    let cluster = AllocatedCluster {
        instance_groups: cluster_view::instance_group_capacity(&found),
        arn: found.arn,
        live_quotas,
    };
    Ok(AllocationPlanInputs {
        config,
        cluster: Some(cluster),
    })
}
