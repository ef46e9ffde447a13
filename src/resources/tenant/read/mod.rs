//! Read: what of the tenant still exists, as it is. Only the objects state records are read. A component deleted
//! out of band drops out of `components` (and its detail attributes), a changed one shows its live shape, so the
//! next plan shows the drift and apply repairs it. Only when nothing of the tenant is left does it leave state.

mod quota_state;

use crate::resources::{record_components, recorded_components};
use std::collections::BTreeMap;

use super::model::components;
use super::model::manifests;
use super::schema::TenantModel as M;
use crate::aws::compute_quota as cq;
use crate::aws::eks_access::{self as access, AccessScope};
use crate::aws::{AwsError, iam, kms};
use crate::client::HyperpodClient;
use crate::component::{Component, ComponentKind, Components, ObjectKey};
use crate::kubernetes::paths;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::model::Field;
use crate::protocol::value::Value;
use crate::resources::failed;
use crate::resources::kubernetes_reads::{kube_client, kubernetes_object};

pub use quota_state::flatten_quota;

/// Missing is fine (the component is gone); other errors fail the read.
pub fn present<T>(result: Result<T, AwsError>, what: &str) -> Result<Option<T>, Diagnostics> {
    match result {
        Ok(found) => Ok(Some(found)),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(failed(&format!("Reading {what} failed"), err)),
    }
}

/// The state with what exists now; `None` when nothing of the tenant is left.
pub async fn refresh(client: &HyperpodClient, current: &Value) -> Result<Option<Value>, Diagnostics> {
    let cluster_ref = (M::CLUSTER_ARN.known(current))
        .or_else(|| M::CLUSTER_NAME.known(current))
        .unwrap_or_default();
    let Some(cluster) = present(client.cluster(&cluster_ref).await, "the cluster")? else {
        return Ok(None); // the cluster is gone, and every tenant object with it
    };
    let Some(eks_cluster) = cluster.eks_cluster_name() else {
        return Ok(Some(current.clone())); // Slurm: rendered artefacts only, nothing in AWS to refresh
    };
    let mut read = Refresh {
        client,
        eks_cluster,
        recorded: recorded_components(M::COMPONENTS, current),
        current,
        state: current.clone(),
        live: Components::new(),
    };
    read.role().await?;
    read.quota().await?;
    read.kubernetes_objects().await?;
    read.pod_identity().await?;
    read.access_entries().await?;
    read.grants().await?;
    Ok(read.finish())
}

/// One read of the tenant: what state recorded, and what of it exists (`live`, the new `components`).
struct Refresh<'a> {
    client: &'a HyperpodClient,
    eks_cluster: String,
    recorded: Components,
    current: &'a Value,
    state: Value,
    live: Components,
}

impl Refresh<'_> {
    fn recorded(&self, component: &Component) -> Option<&String> {
        self.recorded.get(component)
    }

    /// The recorded components of `kind`, with their values.
    fn recorded_of(&self, kind: ComponentKind) -> Vec<(Component, String)> {
        (self.recorded.of_kind(kind))
            .map(|(component, value)| (component, value.clone()))
            .collect()
    }

    fn found(&mut self, component: &Component, value: String) {
        self.live.insert(component, value);
    }

    async fn role(&mut self) -> Result<(), Diagnostics> {
        let iam_client = &self.client.iam;
        let role_name = M::WORKLOAD_ROLE_NAME.known(self.current).unwrap_or_default();
        if self.recorded(&Component::IamRole).is_none()
            || present(iam::find_role(iam_client, &role_name).await, "the workload role")?.is_none()
        {
            return Ok(());
        }
        self.found(&Component::IamRole, role_name.clone());
        for (policy, value) in self.recorded_of(ComponentKind::IamPolicy) {
            let name = policy.name().unwrap_or_default();
            let found = iam::find_role_policy(iam_client, &role_name, name).await;
            if present(found, "a role policy")?.is_some() {
                self.found(&policy, value);
            }
        }
        Ok(())
    }

    async fn quota(&mut self) -> Result<(), Diagnostics> {
        let Some(id) = self
            .recorded(&Component::ComputeQuota)
            .map(|value| components::quota_id(value))
        else {
            return Ok(());
        };
        let found = cq::find_compute_quota(&self.client.sagemaker, &id).await;
        if let Some(quota) = present(found, "the compute quota")? {
            // A last write that failed is drift: not in effect, so the plan writes it again.
            let value = components::quota_component(&quota.id, &quota.status);
            self.found(&Component::ComputeQuota, value);
            M::COMPUTE_QUOTA_ARN.set(&mut self.state, &Field::Known(quota.arn.clone()));
            // The name and description as they are (a quota imported, or described in the console, keeps its own).
            M::COMPUTE_QUOTA_NAME.set(&mut self.state, &Field::Known(quota.name.clone()));
            if let Some(description) = &quota.description {
                M::COMPUTE_QUOTA_DESCRIPTION.set(&mut self.state, &Field::Known(description.clone()));
            }
            flatten_quota(&mut self.state, &quota);
        }
        Ok(())
    }

    /// Each object is read back and recorded with the digest of its live content: one that differs from what the
    /// provider writes shows as a changed `components` value at the next plan, which names it and warns.
    async fn kubernetes_objects(&mut self) -> Result<(), Diagnostics> {
        let namespace = M::NAMESPACE.known(self.current).unwrap_or_default();
        let objects: Vec<Component> = (self.recorded_of(ComponentKind::Kubernetes).into_iter())
            .map(|(component, _)| component)
            .collect();
        if objects.is_empty() {
            return Ok(());
        }
        let kube = kube_client(self.client, &self.eks_cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
        for component in objects {
            let Component::Kubernetes(ObjectKey { kind, name, .. }) = &component else {
                continue;
            };
            let Some((api_version, resource)) = crate::kubernetes::objects::kind_path(kind) else {
                continue;
            };
            let path = paths::namespaced(api_version, resource, &namespace, name);
            match kubernetes_object(self.client, &kube, &self.eks_cluster, &path).await {
                Ok(Some(object)) => {
                    self.found(&component, manifests::component_value(&namespace, &object));
                }
                Ok(None) => {}
                Err(err) => return Err(failed(&format!("Reading {kind} {namespace}/{name} failed"), err)),
            }
        }
        Ok(())
    }

    async fn pod_identity(&mut self) -> Result<(), Diagnostics> {
        if let Some(id) = self.recorded(&Component::PodIdentityAssociation) {
            let found = access::find_pod_identity_association(&self.client.eks, &self.eks_cluster, id).await;
            if let Some(association) = present(found, "the Pod Identity association")? {
                self.found(&Component::PodIdentityAssociation, association.id.clone());
                self.workload_from(&association);
            }
        }
        let id = self.live.get(&Component::PodIdentityAssociation).cloned();
        M::POD_IDENTITY_ASSOCIATION_ID.set(&mut self.state, &id.into());
        Ok(())
    }

    /// The `workload` block as the association is: its target role, session tags and session policy.
    fn workload_from(&mut self, association: &access::PodIdentityAssociation) {
        let Some(mut workload) = M::WORKLOAD.known(&self.state) else {
            return;
        };
        workload.target_role_arn = association.target_role_arn.clone().into();
        let tags_were_set = M::WORKLOAD
            .known(self.current)
            .is_some_and(|w| w.disable_session_tags != Field::Null);
        if association.disable_session_tags || tags_were_set {
            workload.disable_session_tags = Field::Known(association.disable_session_tags);
        }
        workload.session_policy = association.policy.clone().into();
        M::WORKLOAD.set(&mut self.state, &Field::Known(workload));
    }

    async fn access_entries(&mut self) -> Result<(), Diagnostics> {
        for (entry, _) in self.recorded_of(ComponentKind::AccessEntry) {
            let principal = entry.name().unwrap_or_default();
            let found = self.client.access_entry(&self.eks_cluster, principal).await;
            if let Some(record) = present(found, "an access entry")? {
                self.found(&entry, live_entry_value(&record));
            }
        }
        Ok(())
    }

    async fn grants(&mut self) -> Result<(), Diagnostics> {
        let mut grants_now = BTreeMap::new();
        for (grant, id) in self.recorded_of(ComponentKind::KmsGrant) {
            let key_arn = grant.name().unwrap_or_default();
            if present(kms::find_grant(&self.client.kms, key_arn, &id).await, "a KMS grant")?.is_some() {
                grants_now.insert(key_arn.to_string(), id.clone());
                self.found(&grant, id);
            }
        }
        M::KMS_GRANTS.set(&mut self.state, &Field::Known(grants_now));
        Ok(())
    }

    fn finish(mut self) -> Option<Value> {
        if self.live.is_empty() {
            return None;
        }
        let quota_id = (self.live.get(&Component::ComputeQuota)).map(|value| components::quota_id(value));
        M::COMPUTE_QUOTA_ID.set(&mut self.state, &quota_id.into());
        record_components(M::COMPONENTS, &mut self.state, &self.live);
        Some(self.state)
    }
}

/// An access entry's `components` value from its live record (see `components::entry_content`).
pub fn live_entry_value(record: &access::AccessEntryRecord) -> String {
    let policies: Vec<(String, Vec<String>)> = record
        .policies
        .iter()
        .map(|p| {
            let namespaces = match &p.scope {
                AccessScope::Namespaces(namespaces) => namespaces.clone(),
                AccessScope::Cluster => vec!["*".to_string()],
            };
            (p.policy_arn.clone(), namespaces)
        })
        .collect();
    components::entry_value_of(&record.kubernetes_groups, &policies)
}
