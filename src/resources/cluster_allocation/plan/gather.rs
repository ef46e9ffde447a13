//! What the allocation's plan reads: the configuration, and the cluster it names (its instance groups). The
//! cluster is the run's shared read. Nothing live of other teams: the allocation's planned values must read the same
//! when Terraform plans again at apply (`docs/design/where-rules-run.md`).

use super::super::model::AllocationConfig;
use super::super::schema::AllocationModel;
use crate::client::HyperpodClient;
use crate::governance::Capacity;
use crate::protocol::diagnostics::Diagnostics;
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
}

pub async fn gather(client: &HyperpodClient, value: &Value) -> Result<AllocationPlanInputs, Diagnostics> {
    let config = AllocationConfig::decode(value);
    let Some(cluster_name) = &config.cluster_name else {
        return Ok(AllocationPlanInputs { config, cluster: None });
    };
    let found = cluster_facts::cluster_named(client, cluster_name, AllocationModel::CLUSTER_NAME.path()).await?;
    let cluster = AllocatedCluster {
        instance_groups: cluster_view::instance_group_capacity(&found),
        arn: found.arn,
    };
    Ok(AllocationPlanInputs {
        config,
        cluster: Some(cluster),
    })
}
