//! Apply, second half: the tenant's Kubernetes objects, its Pod Identity association, the access entries of its
//! groups and the KMS grants on its data. The same reconcile rules as `compose.rs`: adopt only what is provably
//! this tenant's, record each object as soon as it exists, remove what is no longer wanted.

use super::compose::{Composer, PROPAGATION, failed, kube_failed};
use super::desired::*;
use super::manifests::{self, Manifest};
use crate::aws::eks_access::{self as access, PodIdentitySpec};
use crate::aws::kms;
use crate::kubernetes::{KubeClient, objects};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};

impl Composer<'_> {
    pub(super) async fn ensure_manifests(&mut self) -> Result<(), Diagnostics> {
        let namespace = self.target.spec.namespace();
        let wanted = manifests::render(&self.target.spec);
        let kube = self.kube().await?;
        for manifest in &wanted {
            objects::apply(&kube, manifest, &manifests::LABELS)
                .await
                .map_err(|err| kube_failed(&format!("Applying {} failed", manifest.describe()), err))?;
            self.components
                .insert(manifest.component(), format!("{namespace}/{}", manifest.name));
        }
        let keep: Vec<String> = wanted.iter().map(Manifest::component).collect();
        let stale: Vec<String> = self
            .components
            .keys()
            .filter(|key| key.starts_with("kubernetes/") && !keep.contains(key))
            .cloned()
            .collect();
        for key in stale {
            delete_manifest(&kube, &namespace, &key).await?;
            self.components.remove(&key);
        }
        Ok(())
    }

    pub(super) fn pod_identity_spec(&self) -> Option<PodIdentitySpec> {
        let workload = self.target.spec.workload.as_ref()?;
        Some(PodIdentitySpec {
            namespace: self.target.spec.namespace(),
            service_account: workload.service_account.clone(),
            role_arn: self.target.role_arn.clone(),
            target_role_arn: match &workload.target_role_arn {
                crate::governance::Setting::Set(arn) => Some(arn.clone()),
                _ => None,
            },
            disable_session_tags: workload.disable_session_tags,
            policy: workload.session_policy.clone(),
            tags: self.target.tags.clone(),
        })
    }

    pub(super) async fn ensure_pod_identity(&mut self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let Some(wanted) = self.pod_identity_spec() else {
            return Ok(());
        };
        let eks = &self.client.eks;
        let mut existing = None;
        if let Some(id) = self.components.get(POD_IDENTITY).cloned() {
            match access::find_pod_identity_association(eks, eks_name, &id).await {
                // Namespace and service account are immutable: a renamed service account needs a new association.
                Ok(found) if found.namespace != wanted.namespace || found.service_account != wanted.service_account => {
                    access::delete_pod_identity_association(eks, eks_name, &found.id)
                        .await
                        .map_err(|err| failed("Replacing the Pod Identity association failed", err))?;
                    self.components.remove(POD_IDENTITY);
                }
                Ok(found) => existing = Some(found),
                Err(err) if err.is_not_found() => {
                    self.components.remove(POD_IDENTITY);
                }
                Err(err) => return Err(failed("Reading the Pod Identity association failed", err)),
            }
        }
        if existing.is_none() {
            let found =
                access::find_pod_identity_association_for(eks, eks_name, &wanted.namespace, &wanted.service_account)
                    .await
                    .map_err(|err| failed("Listing Pod Identity associations failed", err))?;
            if let Some(found) = found {
                if found.role_arn != wanted.role_arn {
                    return Err(failed(
                        "The service account is already mapped to another role",
                        format!(
                            "Pod Identity association {} maps {}/{} to {}; the tenant maps it to {}. Remove that \
                             association or choose another workload.service_account.",
                            found.id, wanted.namespace, wanted.service_account, found.role_arn, wanted.role_arn
                        ),
                    ));
                }
                existing = Some(found);
            }
        }
        let association = match existing {
            Some(found) => {
                let differs = found.target_role_arn != wanted.target_role_arn
                    || found.disable_session_tags != wanted.disable_session_tags
                    || found.policy != wanted.policy;
                if differs {
                    access::update_pod_identity_association(eks, eks_name, &found.id, &wanted)
                        .await
                        .map_err(|err| failed("Updating the Pod Identity association failed", err))?;
                }
                found.id
            }
            None => {
                let created = crate::aws::wait::retry_propagation("the Pod Identity association", PROPAGATION, || {
                    access::create_pod_identity_association(eks, eks_name, &wanted)
                })
                .await
                .map_err(|err| failed("Creating the Pod Identity association failed", err))?;
                created.id
            }
        };
        self.components.insert(POD_IDENTITY.to_string(), association);
        Ok(())
    }

    pub(super) async fn ensure_access_entries(&mut self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let eks = &self.client.eks;
        let wanted = desired_entries(&self.target.spec);
        for entry in &wanted {
            let key = access_entry_component(&entry.principal_arn);
            let live = match access::find_access_entry(eks, eks_name, &entry.principal_arn).await {
                Ok(live) => Some(live),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading an access entry failed", err)),
            };
            match live {
                Some(live) if self.components.contains_key(&key) || self.tagged_as_ours(&live.tags) => {
                    // A principal that moved between viewers and operators keeps only its new policy.
                    for stale in live.policies.iter().filter(|p| {
                        [VIEW_POLICY, EDIT_POLICY].contains(&p.policy_arn.as_str()) && p.policy_arn != entry.policy_arn
                    }) {
                        access::disassociate_access_policy(eks, eks_name, &entry.principal_arn, &stale.policy_arn)
                            .await
                            .map_err(|err| failed("Removing a stale access policy failed", err))?;
                    }
                    if live.kubernetes_groups != entry.kubernetes_groups {
                        access::update_access_entry_groups(
                            eks,
                            eks_name,
                            &entry.principal_arn,
                            &entry.kubernetes_groups,
                        )
                        .await
                        .map_err(|err| failed("Updating an access entry failed", err))?;
                    }
                }
                Some(_) => {
                    return Err(Diagnostic::invalid_value(
                        AttributePath::attr(if entry.policy_arn == EDIT_POLICY {
                            "operator_principal_arns"
                        } else {
                            "viewer_principal_arns"
                        }),
                        format!("{:?}", entry.principal_arn),
                        "the principal already has an EKS access entry that this tenant did not create (EKS allows \
                         one per principal per cluster)",
                        "give each tenant group its own IAM role, or remove the principal from this tenant",
                    )
                    .into());
                }
                None => {
                    access::create_access_entry(
                        eks,
                        eks_name,
                        &entry.principal_arn,
                        &entry.kubernetes_groups,
                        &self.target.tags,
                    )
                    .await
                    .map_err(|err| failed("Creating an access entry failed", err))?;
                }
            }
            self.components.insert(key, entry.principal_arn.clone());
            access::associate_access_policy(
                eks,
                eks_name,
                &entry.principal_arn,
                &entry.policy_arn,
                &entry.namespaces,
            )
            .await
            .map_err(|err| failed("Associating the access policy failed", err))?;
        }
        let keep: Vec<String> = wanted
            .iter()
            .map(|e| access_entry_component(&e.principal_arn))
            .collect();
        let stale: Vec<(String, String)> = self
            .components
            .iter()
            .filter(|(key, _)| key.starts_with("access_entry/") && !keep.contains(key))
            .map(|(key, principal)| (key.clone(), principal.clone()))
            .collect();
        for (key, principal) in stale {
            access::delete_access_entry(eks, eks_name, &principal)
                .await
                .map_err(|err| failed("Deleting an access entry failed", err))?;
            self.components.remove(&key);
        }
        Ok(())
    }

    pub(super) fn grantee(&self) -> String {
        self.target
            .spec
            .data
            .grantee_role_arn
            .clone()
            .unwrap_or_else(|| self.target.role_arn.clone())
    }

    pub(super) async fn ensure_grants(&mut self) -> Result<(), Diagnostics> {
        let grantee = self.grantee();
        let name = self.target.role_name.clone();
        let keys = self.target.spec.data.kms_keys.clone();
        for key in &keys {
            let component = grant_component(key);
            if let Some(id) = self.components.get(&component).cloned() {
                match kms::find_grant(&self.client.kms, key, &id).await {
                    Ok(grant) if grant.grantee_principal == grantee => continue,
                    Ok(_) => {
                        // The grantee changed: grants are immutable, so revoke and grant again.
                        kms::revoke_grant(&self.client.kms, key, &id)
                            .await
                            .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                    }
                    Err(err) if err.is_not_found() => {}
                    Err(err) => return Err(failed("Reading a KMS grant failed", err)),
                }
                self.components.remove(&component);
            }
            let id = crate::aws::wait::retry_propagation("the KMS grant", PROPAGATION, || {
                kms::create_grant(&self.client.kms, key, &grantee, &name, &GRANT_OPERATIONS)
            })
            .await
            .map_err(|err| failed(&format!("Granting {grantee} use of KMS key {key} failed"), err))?;
            self.components.insert(component, id);
        }
        let stale: Vec<(String, String)> = self
            .components
            .iter()
            .filter_map(|(component, id)| {
                let key = component.strip_prefix("kms_grant/")?;
                (!keys.iter().any(|k| k == key)).then(|| (key.to_string(), id.clone()))
            })
            .collect();
        for (key, id) in stale {
            kms::revoke_grant(&self.client.kms, &key, &id)
                .await
                .map_err(|err| failed("Revoking a KMS grant failed", err))?;
            self.components.remove(&grant_component(&key));
        }
        Ok(())
    }
}

pub(super) async fn delete_manifest(kube: &KubeClient, namespace: &str, component: &str) -> Result<(), Diagnostics> {
    objects::delete_component(kube, namespace, component)
        .await
        .map_err(|err| kube_failed(&format!("Deleting {component} in {namespace} failed"), err))
}
