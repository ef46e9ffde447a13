//! Read and import: what the restriction added that still exists, as it is. A policy association that went missing
//! or changed scope, a deleted RBAC object or a removed tag drops out of `components`, so the next plan shows it and
//! apply restores it; when nothing is left, the restriction leaves state.

use std::collections::BTreeMap;

use super::model::{
    CONTRACT_TAG, CONTRACT_TAG_COMPONENT, ENTRY, RUN_AS_TAG, RestrictionConfig, component_path, object_value,
    policy_name, role_name,
};
use crate::aws::iam;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::{string_map, text};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;
use crate::resources::kubernetes_reads::{kube_client, kubernetes_object};

use crate::resources::failed;

/// The live state; `eks_cluster` is `None` on Slurm.
pub async fn refresh(
    client: &HyperpodClient,
    current: &Value,
    spec: &RestrictionConfig,
    eks_cluster: Option<&str>,
) -> Result<Option<Value>, Diagnostics> {
    let recorded = string_map(current, "components");
    let mut live: BTreeMap<String, String> = BTreeMap::new();
    let mut state = current.clone();
    match eks_cluster {
        None => {
            let key = format!("role_tag/{RUN_AS_TAG}");
            if let Some(user) = recorded.get(&key) {
                match iam::find_role(&client.iam, role_name(&spec.project_role_arn)).await {
                    Ok(role) if role.tags.get(RUN_AS_TAG) == Some(user) => {
                        live.insert(key, user.clone());
                    }
                    Ok(_) => {}
                    Err(err) if err.is_not_found() => {}
                    Err(err) => return Err(failed("Reading the project role failed", err)),
                }
            }
        }
        Some(cluster) => {
            let entry = match client.access_entry(cluster, &spec.project_role_arn).await {
                Ok(entry) => Some(entry),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading the project role's access entry failed", err)),
            };
            if let Some(entry) = &entry {
                if recorded.contains_key(ENTRY) {
                    live.insert(ENTRY.to_string(), spec.project_role_arn.clone());
                }
                for (key, scope) in recorded.iter().filter(|(k, _)| k.starts_with("access_policy/")) {
                    let policy = key.trim_start_matches("access_policy/");
                    let Some(found) = entry.policies.iter().find(|p| policy_name(&p.policy_arn) == policy) else {
                        continue;
                    };
                    let live_scope = if found.scope_type == "namespace" {
                        format!("namespace:{}", found.namespaces.join(","))
                    } else {
                        "cluster".to_string()
                    };
                    if &live_scope == scope {
                        live.insert(key.clone(), live_scope.clone());
                    }
                }
                if let Some(contract) = recorded.get(CONTRACT_TAG_COMPONENT)
                    && entry.tags.get(CONTRACT_TAG) == Some(contract)
                {
                    live.insert(CONTRACT_TAG_COMPONENT.to_string(), contract.clone());
                }
                for (key, group) in recorded.iter().filter(|(k, _)| k.starts_with("access_entry_group/")) {
                    if entry.kubernetes_groups.contains(group) {
                        live.insert(key.clone(), group.clone());
                    }
                }
            }
            let objects_recorded: Vec<&String> = recorded.keys().filter(|k| k.starts_with("kubernetes/")).collect();
            if !objects_recorded.is_empty() {
                let kube = kube_client(client, cluster)
                    .await
                    .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
                for key in objects_recorded {
                    let Some(path) = component_path(key) else { continue };
                    match kubernetes_object(client, &kube, cluster, &path).await {
                        // Recorded with the live content's digest: an edit shows as a changed value at the next plan.
                        Ok(Some(found)) => {
                            live.insert(key.clone(), object_value(&found));
                        }
                        Ok(None) => {}
                        Err(err) => return Err(failed(&format!("Reading {key} failed"), err)),
                    }
                }
            }
        }
    }
    if live.is_empty() {
        return Ok(None);
    }
    set_attr(
        &mut state,
        "components",
        Value::Map(live.into_iter().map(|(k, v)| (k, text(v))).collect()),
    );
    Ok(Some(state))
}
