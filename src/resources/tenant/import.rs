//! Import by `<cluster>/<team>` (or identity): finds the team's quota and the objects the tenant composes by their
//! deterministic names and this provider's tags; read then fills in the rest. Config-only arguments
//! (`priority_class`) come from the configuration at the next plan, which shows them as an in-place update;
//! `contract` is write-only, never in state.

use std::collections::BTreeMap;

use super::model::components;
use super::model::{self as tenant_model, manifests};
use super::read::{flatten_quota, live_entry_value, present};
use super::schema::{SharingBlock, TYPE_NAME, TenantIdentity, TenantModel as M, WorkloadBlock};
use crate::aws::compute_quota::{self as cq, ComputeQuota};
use crate::aws::eks_access::{self as access, AccessScope};
use crate::aws::iam;
use crate::client::HyperpodClient;
use crate::component::{Component, ObjectKey};
use crate::kubernetes::paths;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::Field;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;
use crate::resources::failed;
use crate::resources::kubernetes_reads::kube_client;

/// The tenant behind an import ID (`<cluster>/<team>`) or identity, as state records it.
pub async fn import(client: &HyperpodClient, null_state: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
    let (cluster, team) = crate::resources::import_id::two_parts(&target, TYPE_NAME, IDENTITY, "ml-capacity/research")?;
    let found = Found::read(client, &cluster, &team).await?;
    Ok(found.state(null_state))
}

/// The identity's parts, in the import ID's order.
const IDENTITY: [&str; 2] = [TenantIdentity::CLUSTER_NAME.name(), TenantIdentity::TEAM.name()];

/// What import found of the tenant: its quota, and its objects by name and tags.
struct Found {
    cluster_name: String,
    cluster_arn: String,
    team: String,
    quota: ComputeQuota,
    role_name: String,
    role_arn: Option<String>,
    workload: Option<WorkloadBlock>,
    components: BTreeMap<String, String>,
}

impl Found {
    async fn read(client: &HyperpodClient, cluster_ref: &str, team: &str) -> Result<Self, Diagnostics> {
        let cluster = client
            .cluster(cluster_ref)
            .await
            .map_err(|err| failed("Cannot import the tenant", err))?;
        let quota = team_quota(client, &cluster.arn, &cluster.name, team).await?;
        let mut found = Self {
            role_name: tenant_model::default_role_name(&cluster.name, team),
            components: BTreeMap::from([(Component::ComputeQuota.key(), quota.id.clone())]),
            cluster_name: cluster.name.clone(),
            cluster_arn: cluster.arn.clone(),
            team: team.to_string(),
            quota,
            role_arn: None,
            workload: None,
        };
        found.role(client).await?;
        if let Some(eks_cluster) = cluster.eks_cluster_name() {
            found.pod_identity(client, &eks_cluster).await?;
            found.manifests(client, &eks_cluster).await?;
            found.access_entries(client, &eks_cluster).await?;
        }
        Ok(found)
    }

    fn ours(&self, tags: &BTreeMap<String, String>) -> bool {
        crate::tags::is_tenants_own(tags, &self.cluster_name, &self.team)
    }

    fn namespace(&self) -> String {
        crate::names::team_namespace(&self.team)
    }

    /// The workload role of the default name, when its tags name the tenant, and its inline policies.
    async fn role(&mut self, client: &HyperpodClient) -> Result<(), Diagnostics> {
        let Some(role) = present(iam::find_role(&client.iam, &self.role_name).await, "the workload role")? else {
            return Ok(());
        };
        if !self.ours(&role.tags) {
            return Ok(());
        }
        self.components.insert(Component::IamRole.key(), self.role_name.clone());
        self.role_arn = Some(role.arn.clone());
        for name in [components::TARGET_POLICY, components::DATA_POLICY] {
            let policy = iam::find_role_policy(&client.iam, &self.role_name, name).await;
            if present(policy, "a role policy")?.is_some() {
                let policy = Component::IamPolicy(name.to_string());
                self.components.insert(policy.key(), self.role_name.clone());
            }
        }
        Ok(())
    }

    /// The Pod Identity association of the workload role in the team's namespace, and the `workload` block it says.
    async fn pod_identity(&mut self, client: &HyperpodClient, eks_cluster: &str) -> Result<(), Diagnostics> {
        let associations = access::list_pod_identity_associations(&client.eks, eks_cluster, &self.namespace())
            .await
            .map_err(|err| failed("Listing Pod Identity associations failed", err))?;
        let Some(association) = associations
            .into_iter()
            .find(|a| Some(&a.role_arn) == self.role_arn.as_ref())
        else {
            return Ok(());
        };
        (self.components).insert(Component::PodIdentityAssociation.key(), association.id.clone());
        self.workload = Some(WorkloadBlock {
            service_account: Field::Known(association.service_account.clone()),
            target_role_arn: association.target_role_arn.clone().into(),
            disable_session_tags: association.disable_session_tags.then_some(true).into(),
            session_policy: association.policy.clone().into(),
        });
        Ok(())
    }

    /// The Kubernetes objects the tenant writes, by their names in the team's namespace.
    async fn manifests(&mut self, client: &HyperpodClient, eks_cluster: &str) -> Result<(), Diagnostics> {
        let namespace = self.namespace();
        let mut named: Vec<(&str, String)> = Vec::new();
        if let Some(account) = self.workload.as_ref().and_then(|w| w.service_account.as_known()) {
            named.push(("ServiceAccount", account.clone()));
        }
        for name in [manifests::VIEWER, manifests::OPERATOR] {
            named.push(("Role", name.to_string()));
            named.push(("RoleBinding", name.to_string()));
        }
        for name in [
            manifests::DEFAULT_DENY,
            manifests::ALLOW_DNS,
            manifests::ALLOW_SAME_NAMESPACE,
            manifests::ALLOW_EGRESS,
        ] {
            named.push(("NetworkPolicy", name.to_string()));
        }
        let kube = kube_client(client, eks_cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
        for (kind, name) in named {
            let Some((api_version, resource)) = crate::kubernetes::objects::kind_path(kind) else {
                continue;
            };
            let path = paths::namespaced(api_version, resource, &namespace, &name);
            if let Ok(Some(found)) = kube.get(&path).await {
                let value = manifests::component_value(&namespace, &found);
                let object = Component::Kubernetes(ObjectKey::in_tenant_namespace(kind, &name));
                self.components.insert(object.key(), value);
            }
        }
        Ok(())
    }

    /// The cluster's access entries the tenant made: its tags, scoped to the team's namespace.
    async fn access_entries(&mut self, client: &HyperpodClient, eks_cluster: &str) -> Result<(), Diagnostics> {
        let namespace = self.namespace();
        let principals = access::list_access_entries(&client.eks, eks_cluster)
            .await
            .map_err(|err| failed("Listing access entries failed", err))?;
        for principal in principals {
            let found = access::find_access_entry(&client.eks, eks_cluster, &principal).await;
            let Some(record) = present(found, "an access entry")? else {
                continue;
            };
            let scoped = (record.policies.iter())
                .any(|p| matches!(&p.scope, AccessScope::Namespaces(scoped) if scoped.contains(&namespace)));
            if self.ours(&record.tags) && scoped {
                let component = Component::AccessEntry(principal.clone());
                self.components.insert(component.key(), live_entry_value(&record));
            }
        }
        Ok(())
    }

    fn state(self, null_state: Value) -> Value {
        let mut state = null_state;
        let known = |text: &str| Field::Known(text.to_string());
        M::ID.set(&mut state, &known(&format!("{}/{}", self.cluster_name, self.team)));
        M::TEAM.set(&mut state, &known(&self.team));
        M::CLUSTER_NAME.set(&mut state, &known(&self.cluster_name));
        M::CLUSTER_ARN.set(&mut state, &known(&self.cluster_arn));
        M::NAMESPACE.set(&mut state, &known(&self.namespace()));
        M::WORKLOAD_ROLE_NAME.set(&mut state, &known(&self.role_name));
        M::WORKLOAD_ROLE_ARN.set(&mut state, &self.role_arn.clone().into());
        M::COMPUTE_QUOTA_ID.set(&mut state, &known(&self.quota.id));
        M::COMPUTE_QUOTA_ARN.set(&mut state, &known(&self.quota.arn));
        M::QUOTA.set(&mut state, &Field::Known(Vec::new()));
        if let Some(sharing) = imported_sharing(&self.quota) {
            M::SHARING.set(&mut state, &Field::Known(sharing));
        }
        if let Some(workload) = self.workload {
            M::WORKLOAD.set(&mut state, &Field::Known(workload));
        }
        M::KMS_GRANTS.set(&mut state, &Field::Known(BTreeMap::new()));
        M::COMPONENTS.set(&mut state, &Field::Known(self.components));
        flatten_quota(&mut state, &self.quota);
        state
    }
}

/// The team's compute quota on the cluster; there is nothing to import without one.
async fn team_quota(
    client: &HyperpodClient,
    cluster_arn: &str,
    cluster_name: &str,
    team: &str,
) -> Result<ComputeQuota, Diagnostics> {
    let quotas = cq::list_compute_quotas(&client.sagemaker, cluster_arn)
        .await
        .map_err(|err| failed("Listing the cluster's compute quotas failed", err))?;
    quotas.into_iter().find(|q| q.team_name == team).ok_or_else(|| {
        Diagnostics::error(
            AttributePath::root(),
            "Nothing to import",
            format!("HyperPod cluster {cluster_name:?} has no compute quota for team {team:?}."),
        )
    })
}

/// A quota with absolute borrow limits: its sharing config as it holds it, so the limits are imported too (the
/// borrow limit only where the configuration sets one: `flatten_quota`). Otherwise, as before, the first apply
/// records the sharing block from the configuration (an imported default sharing config would plan a removal
/// against a configuration that has none).
fn imported_sharing(quota: &ComputeQuota) -> Option<SharingBlock> {
    let strategy = quota
        .sharing_strategy
        .filter(|_| !quota.absolute_borrow_limits.is_empty())?;
    Some(SharingBlock {
        strategy: Field::Known(strategy.as_str().to_string()),
        ..SharingBlock::default()
    })
}
