//! Destroy: every recorded component, in reverse order of apply; objects already gone are fine. KMS grants, access
//! entries and the Pod Identity association are independent and go at once.

use futures::future::join_all;

use super::super::model::components::{POD_IDENTITY, QUOTA, entry_principal, quota_id};
use super::access::delete_manifest;
use super::composer::{Composer, failed, first_failure};
use crate::aws::compute_quota as cq;
use crate::aws::eks_access as access;
use crate::aws::{eks, kms};
use crate::protocol::diagnostics::Diagnostics;

impl Composer<'_> {
    /// Destroy: every recorded component, in reverse order; objects already gone are fine. KMS grants, access
    /// entries and the Pod Identity association are independent and go at once.
    pub(super) async fn remove_all(&self) -> Result<(), Diagnostics> {
        let eks_name = self.target.eks_cluster_name.clone();
        let namespace = self.target.config.namespace();
        let recorded: Vec<(String, String)> = self.components.snapshot().into_iter().collect();
        let grants = recorded
            .iter()
            .filter(|(c, _)| c.starts_with("kms_grant/"))
            .map(|(component, id)| async move {
                let key = component.trim_start_matches("kms_grant/");
                kms::revoke_grant(&self.client.kms, key, id)
                    .await
                    .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                self.components.remove(component);
                Ok(())
            });
        let entries = recorded
            .iter()
            .filter(|(c, _)| c.starts_with("access_entry/"))
            .map(|(component, _)| {
                let eks_name = &eks_name;
                async move {
                    access::delete_access_entry(&self.client.eks, eks_name, entry_principal(component))
                        .await
                        .map_err(|err| failed("Deleting an access entry failed", err))?;
                    self.components.remove(component);
                    Ok(())
                }
            });
        let pod_identity = async {
            if let Some(id) = self.components.get(POD_IDENTITY) {
                access::delete_pod_identity_association(&self.client.eks, &eks_name, &id)
                    .await
                    .map_err(|err| failed("Deleting the Pod Identity association failed", err))?;
                self.components.remove(POD_IDENTITY);
            }
            Ok(())
        };
        let (grants, entries, pod_identity) = tokio::join!(join_all(grants), join_all(entries), pod_identity);
        first_failure(grants.into_iter().chain(entries).chain([pod_identity]))?;
        let mut kubernetes: Vec<&String> = recorded
            .iter()
            .map(|(c, _)| c)
            .filter(|c| c.starts_with("kubernetes/"))
            .collect();
        if !kubernetes.is_empty() {
            // Reverse of the apply order: network policies, bindings, roles, then the service account.
            kubernetes.sort_by_key(|c| delete_rank(c));
            match self.kube().await {
                Ok(kube) => {
                    for component in kubernetes {
                        delete_manifest(&kube, &namespace, component).await?;
                        self.components.remove(component);
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
        if let Some(id) = self.components.get(QUOTA).map(|value| quota_id(&value)) {
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
            self.components.remove(QUOTA);
        }
        self.remove_role().await
    }
}

fn delete_rank(component: &str) -> u8 {
    match component.split('/').nth(1) {
        Some("NetworkPolicy") => 0,
        Some("RoleBinding") => 1,
        Some("Role") => 2,
        _ => 3,
    }
}
