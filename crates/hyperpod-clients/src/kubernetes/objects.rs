//! Objects a resource renders and keeps in shape: create when missing, replace when the fields the resource manages
//! drifted, delete when no longer wanted. `normalize` reduces a live object to those fields (identity, the labels
//! the resource sets, `rules`, `roleRef`, `subjects`, `spec`), so comparing it with the rendered body is drift.

use hyperpod_model::component::{Component, ObjectKey, ObjectScope};
use serde_json::Value as Json;

use super::{KubeClient, KubeError, paths};

pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY: &str = "terraform-provider-hyperpod";

/// One rendered object.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The API's plural resource name, for request paths.
    pub resource: &'static str,
    /// `None` for cluster-scoped kinds.
    pub namespace: Option<String>,
    pub name: String,
    pub body: Json,
}

impl Object {
    /// A rendered object of a kind `kind_path` knows; `body` carries its own metadata.
    pub fn new(kind: &'static str, namespace: Option<&str>, name: &str, body: Json) -> Self {
        let (api_version, resource) = kind_path(kind).unwrap_or(("v1", "unknown"));
        Self {
            api_version,
            kind,
            resource,
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
            body,
        }
    }
    /// The `components` key a tenant records it under: `kubernetes/<Kind>/<name>`, its namespace implied.
    pub fn component(&self) -> Component {
        Component::Kubernetes(ObjectKey::in_tenant_namespace(self.kind, &self.name))
    }
    /// Canonical JSON (keys sorted), as resources expose rendered objects.
    pub fn to_json(&self) -> String {
        self.body.to_string()
    }
    pub fn path(&self) -> String {
        match &self.namespace {
            Some(namespace) => paths::namespaced(self.api_version, self.resource, namespace, &self.name),
            None => paths::cluster_scoped(self.api_version, self.resource, &self.name),
        }
    }
    fn collection(&self) -> String {
        match &self.namespace {
            Some(namespace) => paths::namespaced_collection(self.api_version, self.resource, namespace),
            None => paths::cluster_collection(self.api_version, self.resource),
        }
    }
    /// `Role hyperpod-ns-research/name`, for messages.
    pub fn describe(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{} {namespace}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// The API version and plural resource of the kinds resources manage.
pub fn kind_path(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "ServiceAccount" => Some((paths::CORE_V1, "serviceaccounts")),
        "Role" => Some((paths::RBAC_V1, "roles")),
        "RoleBinding" => Some((paths::RBAC_V1, "rolebindings")),
        "ClusterRole" => Some((paths::RBAC_V1, "clusterroles")),
        "ClusterRoleBinding" => Some((paths::RBAC_V1, "clusterrolebindings")),
        "NetworkPolicy" => Some((paths::NETWORKING_V1, "networkpolicies")),
        _ => None,
    }
}

/// A live object in the rendered shape: identity, the labels named in `labels`, and the managed fields.
pub fn normalize(live: &Json, labels: &[&str]) -> Json {
    let mut out = serde_json::Map::new();
    for field in ["apiVersion", "kind"] {
        if let Some(value) = live.get(field) {
            out.insert(field.to_string(), value.clone());
        }
    }
    let meta = live.get("metadata").cloned().unwrap_or(Json::Null);
    let mut kept = serde_json::Map::new();
    if let Some(live_labels) = meta.get("labels").and_then(Json::as_object) {
        for key in labels {
            if let Some(value) = live_labels.get(*key) {
                kept.insert(key.to_string(), value.clone());
            }
        }
    }
    let mut metadata = serde_json::Map::new();
    for field in ["name", "namespace"] {
        if let Some(value) = meta.get(field) {
            metadata.insert(field.to_string(), value.clone());
        }
    }
    if !kept.is_empty() {
        metadata.insert("labels".to_string(), Json::Object(kept));
    }
    out.insert("metadata".to_string(), Json::Object(metadata));
    for field in ["rules", "roleRef", "subjects", "spec"] {
        if let Some(value) = live.get(field) {
            out.insert(field.to_string(), value.clone());
        }
    }
    Json::Object(out)
}

/// Creates the object, or replaces it when its managed fields drifted (`labels`: the label keys the resource sets).
/// `recorded`: the resource's state names the object, so it probably exists; otherwise it is created straight away
/// (one call), and one that exists anyway (an earlier, interrupted apply) is compared and replaced as usual.
pub async fn apply(kube: &KubeClient, object: &Object, labels: &[&str], recorded: bool) -> Result<(), KubeError> {
    let path = object.path();
    if !recorded {
        match kube.create(&object.collection(), &object.body).await {
            Err(KubeError::AlreadyExists { .. }) => {}
            created => return created.map(|_| ()),
        }
    }
    match kube.get(&path).await? {
        None => match kube.create(&object.collection(), &object.body).await {
            Ok(_) => Ok(()),
            // Created meanwhile (an earlier, interrupted apply that the API saw): replace it with ours.
            Err(KubeError::AlreadyExists { .. }) => kube.replace(&path, &object.body).await.map(|_| ()),
            Err(err) => Err(err),
        },
        Some(live) if normalize(&live, labels) == object.body => Ok(()),
        Some(live) => {
            let mut body = object.body.clone();
            if let (Some(version), Some(meta)) = (
                live.pointer("/metadata/resourceVersion").cloned(),
                body.get_mut("metadata").and_then(Json::as_object_mut),
            ) {
                meta.insert("resourceVersion".to_string(), version);
            }
            kube.replace(&path, &body).await.map(|_| ())
        }
    }
}

/// The API path of the object a key names; `None` when the key leaves its namespace out or names a kind this version
/// does not know.
pub fn object_path(object: &ObjectKey) -> Option<String> {
    let (api_version, resource) = kind_path(&object.kind)?;
    match &object.scope {
        ObjectScope::Cluster => Some(paths::cluster_scoped(api_version, resource, &object.name)),
        ObjectScope::Namespace(namespace) => Some(paths::namespaced(api_version, resource, namespace, &object.name)),
        ObjectScope::Implied => None,
    }
}

/// Deletes the object a tenant's `components` key names, in `namespace` (ignored for cluster-scoped kinds); one
/// already gone is fine.
pub async fn delete_component(kube: &KubeClient, namespace: &str, object: &ObjectKey) -> Result<(), KubeError> {
    let (kind, name) = (object.kind.as_str(), object.name.as_str());
    let Some((api_version, resource)) = kind_path(kind) else {
        return Ok(());
    };
    let path = if kind.starts_with("Cluster") {
        paths::cluster_scoped(api_version, resource, name)
    } else {
        paths::namespaced(api_version, resource, namespace, name)
    };
    kube.delete(&path).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalize_keeps_managed_fields_and_drops_server_metadata() {
        let rendered = json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": { "name": "deny", "namespace": "ns", "labels": { MANAGED_BY_LABEL: MANAGED_BY } },
            "spec": { "podSelector": {}, "policyTypes": ["Ingress", "Egress"] },
        });
        let mut live = rendered.clone();
        live["metadata"]["uid"] = json!("1234");
        live["metadata"]["resourceVersion"] = json!("7");
        live["metadata"]["labels"]["someone-else"] = json!("x");
        live["status"] = json!({});
        assert_eq!(normalize(&live, &[MANAGED_BY_LABEL]), rendered);
        live["spec"]["policyTypes"] = json!(["Ingress"]);
        assert_ne!(
            normalize(&live, &[MANAGED_BY_LABEL]),
            rendered,
            "a changed spec is drift"
        );
    }

    #[test]
    fn paths_follow_the_scope_of_the_kind() {
        let role = Object::new("Role", Some("ns"), "viewer", json!({}));
        assert_eq!(
            role.path(),
            "/apis/rbac.authorization.k8s.io/v1/namespaces/ns/roles/viewer"
        );
        let cluster_role = Object::new("ClusterRole", None, "probes", json!({}));
        assert_eq!(
            cluster_role.path(),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/probes"
        );
        assert_eq!(cluster_role.component().key(), "kubernetes/ClusterRole/probes");
    }
}
