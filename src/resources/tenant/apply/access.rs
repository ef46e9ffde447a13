//! Apply, second half: the tenant's Kubernetes objects, its Pod Identity association, the access entries of its
//! groups and the KMS grants on its data. The same reconcile rules as every step (`composer.rs`): adopt only what is provably
//! this tenant's, record each object as soon as it exists, remove what is no longer wanted. Objects of one kind are
//! independent of each other and are written at once.

use super::super::model::components::{
    DesiredEntry, EDIT_POLICY, GRANT_OPERATIONS, VIEW_POLICY, desired_entries, entry_value, grant_name,
};
use super::super::model::manifests::{self, Manifest};
use super::super::schema::TenantModel as M;
use super::composer::{Composer, PROPAGATION, failed, first_failure, kube_failed};
use crate::aws::ErrorCode;
use crate::aws::eks_access::{self as access, PodIdentitySpec};
use crate::aws::kms;
use crate::component::{Component, ComponentKind, ObjectKey};
use crate::kubernetes::{KubeClient, objects};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use futures::future::join_all;

impl Composer<'_> {
    pub(super) async fn ensure_manifests(&self) -> Result<(), Diagnostics> {
        let namespace = self.target.config.namespace();
        let wanted = manifests::render(&self.target.config);
        let kube = self.kube().await?;
        let applied = join_all(wanted.iter().map(|manifest| {
            let (kube, namespace) = (&kube, &namespace);
            async move {
                let recorded = self.components.contains_key(&manifest.component());
                objects::apply(kube, manifest, &manifests::LABELS, recorded)
                    .await
                    .map_err(|err| kube_failed(&format!("Applying {} failed", manifest.describe()), err))?;
                self.components
                    .insert(&manifest.component(), manifests::rendered_value(namespace, manifest));
                Ok(())
            }
        }))
        .await;
        first_failure(applied)?;
        let keep: Vec<Component> = wanted.iter().map(Manifest::component).collect();
        let stale: Vec<Component> = (self.components.of_kind(ComponentKind::Kubernetes).into_iter())
            .map(|(component, _)| component)
            .filter(|component| !keep.contains(component))
            .collect();
        for component in stale {
            if let Component::Kubernetes(object) = &component {
                delete_manifest(&kube, &namespace, object).await?;
            }
            self.components.remove(&component);
        }
        Ok(())
    }

    pub(super) fn pod_identity_spec(&self) -> Option<PodIdentitySpec> {
        let workload = self.target.config.workload.as_ref()?;
        Some(PodIdentitySpec {
            namespace: self.target.config.namespace(),
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

    pub(super) async fn ensure_pod_identity(&self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let Some(wanted) = self.pod_identity_spec() else {
            // No workload block (any more): the association it had goes.
            if let Some(id) = self.components.get(&Component::PodIdentityAssociation) {
                access::delete_pod_identity_association(&self.client.eks, eks_name, &id)
                    .await
                    .map_err(|err| failed("Deleting the Pod Identity association failed", err))?;
                self.components.remove(&Component::PodIdentityAssociation);
            }
            return Ok(());
        };
        let eks = &self.client.eks;
        let mut existing = None;
        let recorded = self.components.get(&Component::PodIdentityAssociation);
        if recorded.is_none() {
            // Not in state: most likely absent, so create first; one that exists is looked up below.
            match self.create_pod_identity(&wanted).await {
                Ok(id) => {
                    self.components.insert(&Component::PodIdentityAssociation, id);
                    return Ok(());
                }
                Err(err) if err.is(ErrorCode::ResourceInUseException) => {}
                Err(err) => return Err(failed("Creating the Pod Identity association failed", err)),
            }
        }
        if let Some(id) = recorded {
            match access::find_pod_identity_association(eks, eks_name, &id).await {
                // Namespace and service account are immutable: a renamed service account needs a new association.
                Ok(found) if found.namespace != wanted.namespace || found.service_account != wanted.service_account => {
                    access::delete_pod_identity_association(eks, eks_name, &found.id)
                        .await
                        .map_err(|err| failed("Replacing the Pod Identity association failed", err))?;
                    self.components.remove(&Component::PodIdentityAssociation);
                }
                Ok(found) => existing = Some(found),
                Err(err) if err.is_not_found() => {
                    self.components.remove(&Component::PodIdentityAssociation);
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
            None => self
                .create_pod_identity(&wanted)
                .await
                .map_err(|err| failed("Creating the Pod Identity association failed", err))?,
        };
        self.components.insert(&Component::PodIdentityAssociation, association);
        Ok(())
    }

    /// The role was created moments ago: EKS may not see it yet.
    async fn create_pod_identity(&self, wanted: &PodIdentitySpec) -> Result<String, crate::aws::AwsError> {
        let (eks, eks_name) = (&self.client.eks, &self.target.eks_cluster_name);
        crate::aws::wait::retry_propagation("the Pod Identity association", PROPAGATION, || {
            access::create_pod_identity_association(eks, eks_name, wanted)
        })
        .await
        .map(|created| created.id)
    }

    pub(super) async fn ensure_access_entries(&self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let eks = &self.client.eks;
        let wanted = desired_entries(&self.target.config);
        first_failure(join_all(wanted.iter().map(|entry| self.ensure_access_entry(entry))).await)?;
        let stale: Vec<Component> = (self.components.of_kind(ComponentKind::AccessEntry).into_iter())
            .map(|(component, _)| component)
            .filter(|component| {
                !wanted
                    .iter()
                    .any(|e| component.name() == Some(e.principal_arn.as_str()))
            })
            .collect();
        for component in stale {
            access::delete_access_entry(eks, eks_name, component.name().unwrap_or_default())
                .await
                .map_err(|err| failed("Deleting an access entry failed", err))?;
            self.components.remove(&component);
        }
        Ok(())
    }

    /// One principal's entry, then its policy: EKS allows one entry per principal per cluster.
    async fn ensure_access_entry(&self, entry: &DesiredEntry) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let eks = &self.client.eks;
        let key = Component::AccessEntry(entry.principal_arn.clone());
        // Not in state: most likely absent, so create first (one call); an entry that exists is judged below.
        let created = !self.components.contains_key(&key)
            && match self.create_entry(entry).await {
                Ok(()) => true,
                Err(err) if err.is(ErrorCode::ResourceInUseException) => false,
                Err(err) => return Err(failed("Creating an access entry failed", err)),
            };
        if created {
            self.components.insert(&key, entry_value(entry));
            return self.associate(entry).await;
        }
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
                    access::update_access_entry_groups(eks, eks_name, &entry.principal_arn, &entry.kubernetes_groups)
                        .await
                        .map_err(|err| failed("Updating an access entry failed", err))?;
                }
            }
            Some(_) => {
                return Err(Diagnostic::invalid_value(
                    if entry.policy_arn == EDIT_POLICY {
                        M::OPERATOR_PRINCIPAL_ARNS.path()
                    } else {
                        M::VIEWER_PRINCIPAL_ARNS.path()
                    },
                    format!("{:?}", entry.principal_arn),
                    "the principal already has an EKS access entry that this tenant did not create (EKS allows \
                     one per principal per cluster)",
                    "give each tenant group its own IAM role, or remove the principal from this tenant",
                )
                .into());
            }
            None => {
                self.create_entry(entry)
                    .await
                    .map_err(|err| failed("Creating an access entry failed", err))?;
            }
        }
        self.components.insert(&key, entry_value(entry));
        self.associate(entry).await
    }

    async fn create_entry(&self, entry: &DesiredEntry) -> Result<(), crate::aws::AwsError> {
        access::create_access_entry(
            &self.client.eks,
            &self.target.eks_cluster_name,
            &entry.principal_arn,
            &entry.kubernetes_groups,
            &self.target.tags,
        )
        .await
    }

    async fn associate(&self, entry: &DesiredEntry) -> Result<(), Diagnostics> {
        access::associate_access_policy(
            &self.client.eks,
            &self.target.eks_cluster_name,
            &entry.principal_arn,
            &entry.policy_arn,
            &entry.namespaces,
        )
        .await
        .map_err(|err| failed("Associating the access policy failed", err))
    }

    pub(super) fn grantee(&self) -> String {
        self.target
            .config
            .data
            .grantee_role_arn
            .clone()
            .unwrap_or_else(|| self.target.role_arn.clone())
    }

    pub(super) async fn ensure_grants(&self) -> Result<(), Diagnostics> {
        let grantee = self.grantee();
        let keys = &self.target.config.data.kms_keys;
        first_failure(join_all(keys.iter().map(|key| self.ensure_grant(key, &grantee))).await)?;
        let stale: Vec<(Component, String)> = (self.components.of_kind(ComponentKind::KmsGrant).into_iter())
            .filter(|(component, _)| !keys.iter().any(|k| component.name() == Some(k.as_str())))
            .collect();
        for (component, id) in stale {
            kms::revoke_grant(&self.client.kms, component.name().unwrap_or_default(), &id)
                .await
                .map_err(|err| failed("Revoking a KMS grant failed", err))?;
            self.components.remove(&component);
        }
        Ok(())
    }

    /// One key's grant to `grantee`; grants are immutable, so a changed grantee is revoked and granted again.
    async fn ensure_grant(&self, key: &str, grantee: &str) -> Result<(), Diagnostics> {
        let component = Component::KmsGrant(key.to_string());
        if let Some(id) = self.components.get(&component) {
            match kms::find_grant(&self.client.kms, key, &id).await {
                Ok(grant) if grant.grantee_principal == grantee => return Ok(()),
                Ok(_) => {
                    kms::revoke_grant(&self.client.kms, key, &id)
                        .await
                        .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                }
                Err(err) if err.is_not_found() => {}
                Err(err) => return Err(failed("Reading a KMS grant failed", err)),
            }
            self.components.remove(&component);
        }
        let name = grant_name(&self.target.cluster_name, &self.target.config.team);
        let id = crate::aws::wait::retry_propagation("the KMS grant", PROPAGATION, || {
            kms::create_grant(&self.client.kms, key, grantee, &name, &GRANT_OPERATIONS)
        })
        .await
        .map_err(|err| failed(&format!("Granting {grantee} use of KMS key {key} failed"), err))?;
        self.components.insert(&component, id);
        Ok(())
    }
}

pub(super) async fn delete_manifest(kube: &KubeClient, namespace: &str, object: &ObjectKey) -> Result<(), Diagnostics> {
    objects::delete_component(kube, namespace, object)
        .await
        .map_err(|err| kube_failed(&format!("Deleting {object} in {namespace} failed"), err))
}
