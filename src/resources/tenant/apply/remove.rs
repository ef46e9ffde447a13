//! Destroy: every recorded component, in reverse order of apply; objects already gone are fine. KMS grants, access
//! entries and the Pod Identity association are independent and go at once.

use futures::future::join_all;

use super::super::model::components::quota_id;
use super::access::delete_manifest;
use super::composer::{Composer, failed, first_failure};
use crate::aws::compute_quota as cq;
use crate::aws::eks_access as access;
use crate::aws::{eks, kms};
use crate::component::{Component, ComponentKind, ObjectKey};
use crate::protocol::diagnostics::Diagnostics;

impl Composer<'_> {
    /// Destroy: every recorded component, in reverse order; objects already gone are fine. KMS grants, access
    /// entries and the Pod Identity association are independent and go at once.
    pub(super) async fn remove_all(&self) -> Result<(), Diagnostics> {
        let eks_name = self.target.eks_cluster_name.clone();
        let namespace = self.target.config.namespace();
        let grants = self
            .components
            .of_kind(ComponentKind::KmsGrant)
            .into_iter()
            .map(|(component, id)| async move {
                let key = component.name().unwrap_or_default();
                kms::revoke_grant(&self.client.kms, key, &id)
                    .await
                    .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                self.components.remove(&component);
                Ok(())
            });
        let entries = self
            .components
            .of_kind(ComponentKind::AccessEntry)
            .into_iter()
            .map(|(component, _)| {
                let eks_name = &eks_name;
                async move {
                    let principal = component.name().unwrap_or_default();
                    access::delete_access_entry(&self.client.eks, eks_name, principal)
                        .await
                        .map_err(|err| failed("Deleting an access entry failed", err))?;
                    self.components.remove(&component);
                    Ok(())
                }
            });
        let pod_identity = async {
            if let Some(id) = self.components.get(&Component::PodIdentityAssociation) {
                access::delete_pod_identity_association(&self.client.eks, &eks_name, &id)
                    .await
                    .map_err(|err| failed("Deleting the Pod Identity association failed", err))?;
                self.components.remove(&Component::PodIdentityAssociation);
            }
            Ok(())
        };
        let (grants, entries, pod_identity) = tokio::join!(join_all(grants), join_all(entries), pod_identity);
        first_failure(grants.into_iter().chain(entries).chain([pod_identity]))?;
        let mut kubernetes: Vec<ObjectKey> = (self.components.of_kind(ComponentKind::Kubernetes).into_iter())
            .filter_map(|(component, _)| component.into_object())
            .collect();
        if !kubernetes.is_empty() {
            // Reverse of the apply order: network policies, bindings, roles, then the service account.
            kubernetes.sort_by_key(delete_rank);
            match self.kube().await {
                Ok(kube) => {
                    for object in kubernetes {
                        delete_manifest(&kube, &namespace, &object).await?;
                        self.components.remove(&Component::Kubernetes(object));
                    }
                }
                // The EKS cluster is gone, and its objects with it.
                Err(_)
                    if eks::find_cluster(&self.client.eks, &eks_name)
                        .await
                        .is_err_and(|e| e.is_not_found()) => {}
                Err(diagnostics) => return Err(diagnostics),
            }
        }
        if let Some(id) = self
            .components
            .get(&Component::ComputeQuota)
            .map(|value| quota_id(&value))
        {
            cq::delete_compute_quota(&self.client.sagemaker, &id)
                .await
                .map_err(|err| failed("Deleting the compute quota failed", err))?;
            cq::wait_compute_quota_deleted(
                &self.client.sagemaker,
                &id,
                self.context.time_left(),
                &self.context.stop,
            )
            .await
            .map_err(|err| failed("The compute quota was not deleted", err))?;
            self.components.remove(&Component::ComputeQuota);
        }
        self.remove_role().await
    }
}

fn delete_rank(object: &ObjectKey) -> u8 {
    match object.kind.as_str() {
        "NetworkPolicy" => 0,
        "RoleBinding" => 1,
        "Role" => 2,
        _ => 3,
    }
}
