//! API paths: `/api/v1/...` for the core group, `/apis/<group>/<version>/...` for the others.
//!
//! `api_version` is what an object's `apiVersion` says: `"v1"` or `"rbac.authorization.k8s.io/v1"`. Names and
//! namespaces are escaped as path segments (valid Kubernetes names never need it).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

pub const CORE_V1: &str = "v1";
pub const RBAC_V1: &str = "rbac.authorization.k8s.io/v1";
pub const NETWORKING_V1: &str = "networking.k8s.io/v1";

fn group_root(api_version: &str) -> String {
    if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    }
}

/// The collection of a cluster-scoped kind (POST here to create): `/api/v1/namespaces`.
pub fn cluster_collection(api_version: &str, resource: &str) -> String {
    format!("{}/{}", group_root(api_version), segment(resource))
}

/// One cluster-scoped object: `/api/v1/namespaces/<name>`.
pub fn cluster_scoped(api_version: &str, resource: &str, name: &str) -> String {
    format!("{}/{}", cluster_collection(api_version, resource), segment(name))
}

/// The collection of a namespaced kind in `namespace` (POST here to create):
/// `/apis/rbac.authorization.k8s.io/v1/namespaces/<ns>/roles`.
pub fn namespaced_collection(api_version: &str, resource: &str, namespace: &str) -> String {
    format!(
        "{}/namespaces/{}/{}",
        group_root(api_version),
        segment(namespace),
        segment(resource)
    )
}

/// One namespaced object: `/apis/rbac.authorization.k8s.io/v1/namespaces/<ns>/roles/<name>`.
pub fn namespaced(api_version: &str, resource: &str, namespace: &str, name: &str) -> String {
    format!(
        "{}/{}",
        namespaced_collection(api_version, resource, namespace),
        segment(name)
    )
}

/// A namespace object (`/api/v1/namespaces/<name>`).
pub fn namespace(name: &str) -> String {
    cluster_scoped(CORE_V1, "namespaces", name)
}

/// Percent-escapes everything but RFC 3986 unreserved characters.
pub(crate) fn segment(value: &str) -> String {
    utf8_percent_encode(value, UNRESERVED_KEPT).to_string()
}

/// RFC 3986's unreserved characters stay as they are; every other byte is percent-encoded.
const UNRESERVED_KEPT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_and_group_paths() {
        assert_eq!(cluster_collection(CORE_V1, "namespaces"), "/api/v1/namespaces");
        assert_eq!(namespace("team-a"), "/api/v1/namespaces/team-a");
        assert_eq!(
            namespaced(CORE_V1, "serviceaccounts", "team-a", "runner"),
            "/api/v1/namespaces/team-a/serviceaccounts/runner"
        );
        assert_eq!(
            namespaced(RBAC_V1, "roles", "team-a", "edit"),
            "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/edit"
        );
        assert_eq!(
            namespaced_collection(NETWORKING_V1, "networkpolicies", "team-a"),
            "/apis/networking.k8s.io/v1/namespaces/team-a/networkpolicies"
        );
        assert_eq!(
            cluster_scoped(RBAC_V1, "clusterroles", "system:view"),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aview"
        );
        assert_eq!(namespace("a/b?c"), "/api/v1/namespaces/a%2Fb%3Fc");
    }
}
