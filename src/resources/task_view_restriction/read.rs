//! Refresh: what the restriction added that still exists, as it is. A policy association that went missing or
//! changed scope, a deleted RBAC object or a removed tag drops out of `components`, so the next plan shows it and
//! apply restores it; when nothing is left, the restriction leaves state.

use super::model::{
    CONTRACT_TAG, RUN_AS_TAG, RestrictionConfig, component_path, contract_mark, object_value, policy_name, role_name,
    run_as_tag,
};
use super::schema::RestrictionModel;
use crate::aws::eks_access::AccessEntryRecord;
use crate::aws::iam;
use crate::client::HyperpodClient;
use crate::component::{Component, ComponentKind, Components};
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;
use crate::resources::failed;
use crate::resources::kubernetes_reads::{kube_client, kubernetes_object};
use crate::resources::{record_components, recorded_components};

/// The live state of a recorded restriction; `None` when nothing it added is left (or its cluster is gone).
pub async fn read(client: &HyperpodClient, current: &Value) -> Result<Option<Value>, Diagnostics> {
    let restriction = RestrictionModel::decode(current)?;
    // An import records only the cluster and the role: its first plan resolves the rest (namespaces from the
    // contract), and until then there is nothing recorded to refresh.
    if restriction.namespaces == Field::Null {
        return Ok(Some(current.clone()));
    }
    // From what the restriction recorded (`contract` is write-only, never in state): its resolved project role
    // and namespaces.
    let Some(config) = RestrictionConfig::of(&restriction, None, &[]) else {
        return Ok(Some(current.clone()));
    };
    let Some(eks_cluster) = cluster_of(client, &restriction).await? else {
        return Ok(None);
    };
    let recorded = recorded_components(RestrictionModel::COMPONENTS, current);
    let live = match eks_cluster.as_deref() {
        None => slurm_components(client, &config, &recorded).await?,
        Some(cluster) => {
            let mut live = entry_components(client, cluster, &config, &recorded).await?;
            live.extend(object_components(client, cluster, &recorded).await?);
            live
        }
    };
    if live.is_empty() {
        return Ok(None);
    }
    let mut state = current.clone();
    record_components(RestrictionModel::COMPONENTS, &mut state, &live);
    Ok(Some(state))
}

/// The HyperPod cluster behind the state (by ARN), and its EKS cluster; `None`: the cluster is gone.
pub async fn cluster_of(
    client: &HyperpodClient,
    restriction: &RestrictionModel,
) -> Result<Option<Option<String>>, Diagnostics> {
    let cluster_ref = (restriction.cluster_arn.as_known())
        .or(restriction.cluster_name.as_known())
        .cloned()
        .unwrap_or_default();
    match client.cluster(&cluster_ref).await {
        Ok(cluster) => Ok(Some(cluster.eks_cluster_name())),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod cluster")),
    }
}

/// Slurm: the Run As tag on the project role, while it still holds the recorded user.
async fn slurm_components(
    client: &HyperpodClient,
    config: &RestrictionConfig,
    recorded: &Components,
) -> Result<Components, Diagnostics> {
    let mut live = Components::new();
    let key = run_as_tag();
    if let Some(user) = recorded.get(&key) {
        match iam::find_role(&client.iam, role_name(&config.project_role_arn)).await {
            Ok(role) if role.tags.get(RUN_AS_TAG) == Some(user) => {
                live.insert(&key, user.clone());
            }
            Ok(_) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(failed("Reading the project role failed", err)),
        }
    }
    Ok(live)
}

/// EKS: what of the recorded access entry, its policy associations, contract mark and groups is still there.
async fn entry_components(
    client: &HyperpodClient,
    cluster: &str,
    config: &RestrictionConfig,
    recorded: &Components,
) -> Result<Components, Diagnostics> {
    let entry = match client.access_entry(cluster, &config.project_role_arn).await {
        Ok(entry) => entry,
        Err(err) if err.is_not_found() => return Ok(Components::new()),
        Err(err) => return Err(failed("Reading the project role's access entry failed", err)),
    };
    let mut live = Components::new();
    if recorded.contains(&Component::ProjectAccessEntry) {
        live.insert(&Component::ProjectAccessEntry, config.project_role_arn.clone());
    }
    live.extend(policy_components(&entry, recorded));
    if let Some(contract) = recorded.get(&contract_mark())
        && entry.tags.get(CONTRACT_TAG) == Some(contract)
    {
        live.insert(&contract_mark(), contract.clone());
    }
    for (component, group) in recorded.of_kind(ComponentKind::AccessEntryGroup) {
        if entry.kubernetes_groups.contains(group) {
            live.insert(&component, group.clone());
        }
    }
    Ok(live)
}

/// The recorded policy associations the entry still has, with the recorded scope.
fn policy_components(entry: &AccessEntryRecord, recorded: &Components) -> Components {
    let mut live = Components::new();
    for (component, scope) in recorded.of_kind(ComponentKind::AccessPolicy) {
        let policy = component.name().unwrap_or_default();
        let Some(found) = entry.policies.iter().find(|p| policy_name(&p.policy_arn) == policy) else {
            continue;
        };
        let live_scope = found.scope.to_string();
        if &live_scope == scope {
            live.insert(&component, live_scope);
        }
    }
    live
}

/// The recorded Kubernetes objects that still exist, each with its live content's digest (an edit shows as a
/// changed value at the next plan).
async fn object_components(
    client: &HyperpodClient,
    cluster: &str,
    recorded: &Components,
) -> Result<Components, Diagnostics> {
    let mut live = Components::new();
    let objects_recorded: Vec<Component> = (recorded.of_kind(ComponentKind::Kubernetes))
        .map(|(component, _)| component)
        .collect();
    if objects_recorded.is_empty() {
        return Ok(live);
    }
    let kube = kube_client(client, cluster)
        .await
        .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
    for key in objects_recorded {
        let Some(path) = component_path(&key) else { continue };
        match kubernetes_object(client, &kube, cluster, &path).await {
            Ok(Some(found)) => {
                live.insert(&key, object_value(&found));
            }
            Ok(None) => {}
            Err(err) => return Err(failed(&format!("Reading {key} failed"), err)),
        }
    }
    Ok(live)
}
