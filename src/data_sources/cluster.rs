//! `hyperpod_cluster`: a HyperPod cluster's orchestrator and instance groups, for modules that check or reference it.
//! One module: its declaration (`ClusterModel`) and its one read.

use async_trait::async_trait;

use crate::aws::sagemaker::{ClusterOrchestrator, HyperPodCluster};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::{DataSource, OperationContext};
use crate::protocol::schema::Schema;
use crate::protocol::value::Value;

pub const TYPE_NAME: &str = "hyperpod_cluster";

/// Reads a SageMaker HyperPod cluster: its ARN, status, orchestrator and instance groups.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ClusterModel {
    /// Cluster name or ARN.
    #[tf(required)]
    pub name: Field<String>,
    /// Cluster ARN.
    #[tf(computed)]
    pub arn: Field<String>,
    /// Cluster status, e.g. `InService`.
    #[tf(computed)]
    pub status: Field<String>,
    /// Which orchestrator runs the cluster: `eks` or `slurm`.
    #[tf(computed)]
    pub orchestrator: Field<String>,
    /// ARN of the EKS cluster that orchestrates it; null for Slurm clusters.
    #[tf(computed)]
    pub eks_cluster_arn: Field<String>,
    /// The cluster's instance groups with their instance counts: the capacity that team quotas share.
    #[tf(computed, nested)]
    pub instance_groups: Field<Vec<InstanceGroupModel>>,
}

/// One instance group of the cluster.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct InstanceGroupModel {
    /// Instance group name.
    #[tf(computed)]
    pub name: Field<String>,
    /// Instance type, e.g. `ml.p5.48xlarge`.
    #[tf(computed)]
    pub instance_type: Field<String>,
    /// Instances running now.
    #[tf(computed)]
    pub current_count: Field<i64>,
    /// Instances the group is scaled to.
    #[tf(computed)]
    pub target_count: Field<i64>,
}

impl ClusterModel {
    /// The data source's value for the cluster `name` names.
    fn of(name: String, cluster: &HyperPodCluster) -> Self {
        let eks_cluster_arn = match &cluster.orchestrator {
            ClusterOrchestrator::Eks { eks_cluster_arn } => Field::Known(eks_cluster_arn.clone()),
            ClusterOrchestrator::Slurm => Field::Null,
        };
        let instance_groups = (cluster.instance_groups.iter())
            .map(|group| InstanceGroupModel {
                name: Field::Known(group.name.clone()),
                instance_type: Field::Known(group.instance_type.clone()),
                current_count: Field::Known(i64::from(group.current_count)),
                target_count: Field::Known(i64::from(group.target_count)),
            })
            .collect();
        Self {
            name: Field::Known(name),
            arn: Field::Known(cluster.arn.clone()),
            status: Field::Known(cluster.status.clone()),
            orchestrator: Field::Known(cluster.orchestrator.name().to_string()),
            eks_cluster_arn,
            instance_groups: Field::Known(instance_groups),
        }
    }
}

pub struct ClusterDataSource {
    schema: Schema,
}

impl Default for ClusterDataSource {
    fn default() -> Self {
        Self {
            schema: Schema {
                version: 0,
                block: ClusterModel::block(),
            },
        }
    }
}

#[async_trait]
impl DataSource<HyperpodClient> for ClusterDataSource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn read(&self, client: &HyperpodClient, config: &Value, _: &OperationContext) -> Result<Value, Diagnostics> {
        let name = ClusterModel::decode(config)?.name.known().unwrap_or_default();
        let cluster = client.cluster(&name).await.map_err(|err| {
            if err.is_not_found() {
                Diagnostics::from(Diagnostic::invalid_value(
                    ClusterModel::NAME.path(),
                    format!("{name:?}"),
                    &format!(
                        "no HyperPod cluster of that name exists in account {} region {}",
                        client.account_id,
                        client.region.as_str()
                    ),
                    "check the name, or the provider's account and region",
                ))
            } else {
                err.diagnostics(ClusterModel::NAME.path(), "Reading the HyperPod cluster failed")
            }
        })?;
        Ok(ClusterModel::of(name, &cluster).encode())
    }
}
