//! How resources read a cluster's Kubernetes API: a client with a fresh token, and objects found in their collection
//! as this process last listed it (one list per kind and namespace serves every object of it).

use std::time::SystemTime;

use crate::aws::eks;
use crate::caller::CallerName;
use crate::client::HyperpodClient;
use crate::kubernetes::KubeClient;

/// A client for the cluster's Kubernetes API with a fresh token (tokens live 60 seconds: one per operation).
pub async fn kube_client(client: &HyperpodClient, eks_cluster_name: &str) -> Result<KubeClient, String> {
    let cluster = client
        .eks_cluster(eks_cluster_name)
        .await
        .map_err(|err| format!("cannot describe EKS cluster {eks_cluster_name}: {err}"))?;
    let token = eks::token(&client.eks_tokens, eks_cluster_name, SystemTime::now())
        .await
        .map_err(|err| format!("cannot sign a Kubernetes token: {err}"))?;
    KubeClient::new(&cluster.endpoint, &cluster.certificate_authority_pem, &token)
        .map(|kube| {
            kube.with_caller(CallerName(crate::protocol::caller::current))
                .with_deadline(crate::client::operation_deadline())
        })
        .map_err(|err| err.to_string())
}

/// The namespaced object at `path`, found in its collection as this process last listed it (one list per kind
/// and namespace serves every object of it); a cluster-scoped object is read by itself. `None` when absent.
pub async fn kubernetes_object(
    client: &HyperpodClient,
    kube: &KubeClient,
    eks_cluster_name: &str,
    path: &str,
) -> Result<Option<serde_json::Value>, crate::kubernetes::KubeError> {
    let Some((collection, name)) = path
        .rsplit_once('/')
        .filter(|(collection, _)| collection.contains("/namespaces/"))
    else {
        return kube.get(path).await;
    };
    let items = client
        .reads
        .kubernetes_collections
        .get(&(eks_cluster_name.to_string(), collection.to_string()), || async {
            let Some(list) = kube.get(collection).await? else {
                return Ok(Vec::new());
            };
            Ok::<_, crate::kubernetes::KubeError>(list_items(list))
        })
        .await?;
    Ok(items
        .into_iter()
        .find(|item| item.pointer("/metadata/name").and_then(serde_json::Value::as_str) == Some(name)))
}

/// The items of a Kubernetes list, each with the `apiVersion` and `kind` that the API leaves out of list items.
fn list_items(list: serde_json::Value) -> Vec<serde_json::Value> {
    let api_version = list.get("apiVersion").cloned();
    let kind = list
        .get("kind")
        .and_then(serde_json::Value::as_str)
        .and_then(|kind| kind.strip_suffix("List"))
        .map(|kind| serde_json::Value::String(kind.to_string()));
    let serde_json::Value::Object(mut list) = list else {
        return Vec::new();
    };
    let Some(serde_json::Value::Array(items)) = list.remove("items") else {
        return Vec::new();
    };
    items
        .into_iter()
        .map(|mut item| {
            if let Some(object) = item.as_object_mut() {
                for (field, value) in [("apiVersion", &api_version), ("kind", &kind)] {
                    if let (false, Some(value)) = (object.contains_key(field), value) {
                        object.insert(field.to_string(), value.clone());
                    }
                }
            }
            item
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items_get_the_kind_and_api_version_the_api_leaves_out() {
        let list = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleList",
            "items": [{"metadata": {"name": "a"}}, {"kind": "Role", "apiVersion": "v9", "metadata": {"name": "b"}}],
        });
        let items = list_items(list);
        assert_eq!(items[0]["kind"], "Role");
        assert_eq!(items[0]["apiVersion"], "rbac.authorization.k8s.io/v1");
        assert_eq!(items[1]["apiVersion"], "v9");
    }
}
