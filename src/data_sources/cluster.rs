//! `hyperpod_cluster`: a HyperPod cluster's orchestrator and instance groups, for modules that check or reference it.

use async_trait::async_trait;

use crate::aws::sagemaker::ClusterOrchestrator;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{int, object, string, text};
use crate::protocol::resource::{DataSource, OperationContext};
use crate::protocol::schema::{Attribute, Block, Nesting, Schema};
use crate::protocol::value::Value;

pub struct ClusterDataSource {
    schema: Schema,
}

impl Default for ClusterDataSource {
    fn default() -> Self {
        let instance_group = vec![
            Attribute::string("name").computed().describe("Instance group name."),
            Attribute::string("instance_type")
                .computed()
                .describe("Instance type, e.g. `ml.p5.48xlarge`."),
            Attribute::number("current_count")
                .computed()
                .describe("Instances running now."),
            Attribute::number("target_count")
                .computed()
                .describe("Instances the group is scaled to."),
        ];
        Self {
            schema: Schema {
                version: 0,
                block: Block::new("Reads a SageMaker HyperPod cluster: its ARN, status, orchestrator and instance groups.")
                    .attribute(Attribute::string("name").required().describe("Cluster name or ARN."))
                    .attribute(Attribute::string("arn").computed().describe("Cluster ARN."))
                    .attribute(Attribute::string("status").computed().describe("Cluster status, e.g. `InService`."))
                    .attribute(Attribute::string("orchestrator").computed().describe("Which orchestrator runs the cluster: `eks` or `slurm`."))
                    .attribute(
                        Attribute::string("eks_cluster_arn")
                            .computed()
                            .describe("ARN of the EKS cluster that orchestrates it; null for Slurm clusters."),
                    )
                    .attribute(
                        Attribute::nested("instance_groups", Nesting::List, instance_group)
                            .computed()
                            .describe("The cluster's instance groups with their instance counts: the capacity that team quotas share."),
                    ),
            },
        }
    }
}

#[async_trait]
impl DataSource<HyperpodClient> for ClusterDataSource {
    fn type_name(&self) -> &'static str {
        "hyperpod_cluster"
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn read(&self, client: &HyperpodClient, config: &Value, _: &OperationContext) -> Result<Value, Diagnostics> {
        let name = string(config, "name").unwrap_or_default();
        let cluster = client.cluster(&name).await.map_err(|err| {
            if err.is_not_found() {
                Diagnostics::from(Diagnostic::invalid_value(
                    AttributePath::attr("name"),
                    format!("{name:?}"),
                    &format!(
                        "no HyperPod cluster of that name exists in account {} region {}",
                        client.account_id,
                        client.region.as_str()
                    ),
                    "check the name, or the provider's account and region",
                ))
            } else {
                err.diagnostics(AttributePath::attr("name"), "Reading the HyperPod cluster failed")
            }
        })?;
        let eks_cluster_arn = match &cluster.orchestrator {
            ClusterOrchestrator::Eks { eks_cluster_arn } => text(eks_cluster_arn),
            ClusterOrchestrator::Slurm => Value::Null,
        };
        Ok(object([
            ("name", text(&name)),
            ("arn", text(&cluster.arn)),
            ("status", text(&cluster.status)),
            ("orchestrator", text(cluster.orchestrator.name())),
            ("eks_cluster_arn", eks_cluster_arn),
            (
                "instance_groups",
                Value::List(
                    cluster
                        .instance_groups
                        .iter()
                        .map(|group| {
                            object([
                                ("name", text(&group.name)),
                                ("instance_type", text(&group.instance_type)),
                                ("current_count", int(i64::from(group.current_count))),
                                ("target_count", int(i64::from(group.target_count))),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]))
    }
}
