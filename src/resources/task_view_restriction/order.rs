//! RBAC mode writes a Role and RoleBinding into each namespace, and HyperPod creates a team's `hyperpod-ns-<team>`
//! only with the team's compute quota (the tenant). The restriction is ordered after the tenants through an explicit
//! reference (`tenants = [hyperpod_tenant.<team>.governance]`, docs/design/cross-resource-rules.md), never a hidden
//! wait: the plan refuses a namespace that neither exists nor belongs to a referenced tenant, and apply checks again
//! before its first write, so a namespace missing then is a clear error, never a loop.

use crate::kubernetes::{KubeClient, find_namespace};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::value::Value;
use crate::resources::references;

pub const TENANTS: &str = "tenants";

/// The namespaces the referenced tenants create, or `None` while a reference is unknown (judged at apply).
/// A tenant of another cluster is an error at its reference.
pub fn referenced_namespaces(value: &Value, cluster_name: &str) -> Result<Option<Vec<String>>, Diagnostics> {
    let references = references::tenants(value, TENANTS);
    let mut wrong = Diagnostics::new();
    for tenant in &references.known {
        if tenant.cluster_name != cluster_name {
            wrong.push(Diagnostic::invalid_value(
                tenant.at.clone(),
                format!(
                    "the tenant of team {:?} on cluster {:?}",
                    tenant.item.team, tenant.cluster_name
                ),
                &format!("the restriction is on cluster {cluster_name:?}"),
                "reference the tenants of this restriction's cluster",
            ));
        }
    }
    if wrong.has_errors() {
        return Err(wrong);
    }
    if !references.unknown.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        references
            .known
            .iter()
            .map(|tenant| crate::names::team_namespace(&tenant.item.team))
            .collect(),
    ))
}

/// The error for a namespace that does not exist; `when`: "at plan" or "at apply".
pub fn missing(namespace: &str, when: &str) -> Diagnostic {
    let fix = match crate::names::team_of_namespace(namespace) {
        Some(team) => format!(
            "HyperPod creates it with team {team:?}'s compute quota: add that team's tenant \
             (`hyperpod_tenant.<name>.governance`, the one with team = {team:?}) to `tenants`, which also applies \
             the tenant first"
        ),
        None => "create the namespace first, or remove it from `namespaces`".to_string(),
    };
    Diagnostic::error(
        AttributePath::attr(TENANTS),
        format!("Namespace {namespace:?} does not exist"),
        format!(
            "{TENANTS}: rbac mode writes a Role and RoleBinding into {namespace:?}, which does not exist {when} and \
             is not the namespace of a tenant in `{TENANTS}`. {fix}."
        ),
    )
}

/// The namespaces among `wanted` that the cluster does not have (one read each).
pub async fn absent(kube: &KubeClient, wanted: &[String]) -> Result<Vec<String>, crate::kubernetes::KubeError> {
    let mut out = Vec::new();
    for namespace in wanted {
        if find_namespace(kube, namespace).await?.is_none() {
            out.push(namespace.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_names_the_tenant_of_a_team_namespace() {
        let diagnostic = missing("hyperpod-ns-research", "at apply");
        assert_eq!(diagnostic.path, AttributePath::attr(TENANTS));
        assert!(
            diagnostic.detail.contains(r#"team = "research""#),
            "{}",
            diagnostic.detail
        );
        assert!(!missing("default", "at plan").detail.contains("hyperpod_tenant"));
    }
}
