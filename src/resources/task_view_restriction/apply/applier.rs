//! What one apply or destroy works with, and its order: on EKS the namespaces (rbac mode), the access entry, its
//! policy associations, then the RBAC objects; on Slurm the Run As tag. Each step records what it added in
//! `components` before the next, so an interrupted apply is adopted next time.

use std::collections::BTreeMap;

use super::super::model::{RestrictionConfig, RestrictionMode};
use crate::client::HyperpodClient;
use crate::component::Components;
use crate::kubernetes::KubeClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;
use crate::resources::kubernetes_reads::kube_client;

pub struct RestrictionApplier<'a> {
    pub client: &'a HyperpodClient,
    pub config: &'a RestrictionConfig,
    pub eks_cluster: Option<String>,
    pub partition: String,
    pub tags: BTreeMap<String, String>,
    /// On create: the restriction's `id`. An existing entry tagged with it is ours (recorded, deleted on destroy):
    /// an earlier apply made it and was killed or failed before saving state. The plan decides the same way.
    pub owner: Option<String>,
    pub components: Components,
}

impl RestrictionApplier<'_> {
    pub async fn apply(&mut self) -> Result<(), Diagnostics> {
        match self.eks_cluster.clone() {
            Some(cluster) => self.apply_eks(&cluster).await,
            None => self.apply_slurm().await,
        }
    }

    /// Destroy: what `components` names, nothing else of an adopted entry.
    pub async fn remove(&mut self) -> Result<(), Diagnostics> {
        match self.eks_cluster.clone() {
            Some(cluster) => self.remove_eks(&cluster).await,
            None => self.remove_slurm().await,
        }
    }

    pub async fn kube(&self, cluster: &str) -> Result<KubeClient, Diagnostics> {
        kube_client(self.client, cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))
    }

    async fn apply_eks(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        // Before the first write: the Roles' namespaces exist (a referenced tenant, applied first, made its own).
        let kube = if self.config.mode == RestrictionMode::Rbac {
            Some(self.namespaces_exist(cluster).await?)
        } else {
            None
        };
        self.entry(cluster).await?;
        self.policies(cluster).await?;
        self.objects(cluster, kube).await
    }
}
