//! EKS `rbac` mode: the Kubernetes objects a restriction writes (a viewer Role and RoleBinding per namespace, a
//! cluster-scoped grant for Studio's probes), and how `components` names them.

use serde_json::json;

use super::super::schema::PROBES_PREFIX;
use super::config::{RestrictionConfig, RestrictionMode};
use crate::component::{Component, ObjectKey};
use crate::kubernetes::objects::{MANAGED_BY, MANAGED_BY_LABEL, Object};

pub const VIEWER_ROLE: &str = "hyperpod-studio-viewer";
const RBAC: &str = "rbac.authorization.k8s.io";
const RBAC_V1: &str = "rbac.authorization.k8s.io/v1";

impl RestrictionConfig {
    /// EKS RBAC mode: a viewer Role and RoleBinding per namespace, and the cluster-scoped probe grant Studio needs.
    pub fn manifests(&self) -> Vec<Object> {
        if self.mode != RestrictionMode::Rbac {
            return Vec::new();
        }
        let group = &self.kubernetes_group;
        let mut out: Vec<Object> = self
            .namespaces
            .iter()
            .flat_map(|namespace| viewer(namespace, group))
            .collect();
        out.extend(probes(group));
        out
    }
}

/// The labels of every object the restriction writes.
fn labels() -> serde_json::Value {
    json!({ MANAGED_BY_LABEL: MANAGED_BY })
}

/// The subjects of its bindings: the access entry's Kubernetes group.
fn subjects(group: &str) -> serde_json::Value {
    json!([{ "apiGroup": RBAC, "kind": "Group", "name": group }])
}

/// A namespace's viewer Role (pods, logs, events, jobs, PyTorch jobs, Kueue workloads) and its RoleBinding.
fn viewer(namespace: &str, group: &str) -> [Object; 2] {
    let metadata = json!({ "name": VIEWER_ROLE, "namespace": namespace, "labels": labels() });
    [
        Object::new(
            "Role",
            Some(namespace),
            VIEWER_ROLE,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "Role",
                "metadata": metadata,
                "rules": [
                    { "apiGroups": [""], "resources": ["pods", "pods/log", "events"], "verbs": ["get", "list", "watch"] },
                    { "apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"] },
                    { "apiGroups": ["kubeflow.org"], "resources": ["pytorchjobs"], "verbs": ["get", "list", "watch"] },
                    { "apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"], "verbs": ["get", "list", "watch"] },
                ],
            }),
        ),
        Object::new(
            "RoleBinding",
            Some(namespace),
            VIEWER_ROLE,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "RoleBinding",
                "metadata": metadata,
                "roleRef": { "apiGroup": RBAC, "kind": "Role", "name": VIEWER_ROLE },
                "subjects": subjects(group),
            }),
        ),
    ]
}

/// The cluster-scoped grant Studio's probes need (CRDs, `SelfSubjectAccessReview`) and its ClusterRoleBinding.
fn probes(group: &str) -> [Object; 2] {
    let probes = format!("{PROBES_PREFIX}{group}");
    let metadata = json!({ "name": probes, "labels": labels() });
    [
        Object::new(
            "ClusterRole",
            None,
            &probes,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "ClusterRole",
                "metadata": metadata,
                "rules": [
                    { "apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["get"] },
                    { "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews"], "verbs": ["create"] },
                ],
            }),
        ),
        Object::new(
            "ClusterRoleBinding",
            None,
            &probes,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "ClusterRoleBinding",
                "metadata": metadata,
                "roleRef": { "apiGroup": RBAC, "kind": "ClusterRole", "name": probes },
                "subjects": subjects(group),
            }),
        ),
    ]
}

/// The `components` key of a Kubernetes object: kind, namespace (`-` when cluster-scoped) and name.
pub fn object_component(object: &Object) -> Component {
    Component::Kubernetes(ObjectKey::placed(
        object.kind,
        object.namespace.as_deref(),
        &object.name,
    ))
}

/// The `components` value of a Kubernetes object: the short digest of its content (`resources::short_digest`; the
/// key names the object). `body` is the rendered object, or the live one at refresh.
pub fn object_value(body: &serde_json::Value) -> String {
    let normalized = crate::kubernetes::objects::normalize(body, &[MANAGED_BY_LABEL]);
    crate::resources::short_digest(&normalized.to_string())
}

/// The API path of the object a component names (`kubernetes/<Kind>/<namespace or ->/<name>`); `None` for any other
/// component, an object whose namespace the key leaves out, or a kind this version does not know.
pub fn component_path(component: &Component) -> Option<String> {
    match component {
        Component::Kubernetes(object) => crate::kubernetes::objects::object_path(object),
        _ => None,
    }
}
