//! RBAC mode writes a Role and RoleBinding into each namespace, and HyperPod creates a team's `hyperpod-ns-<team>`
//! only with the team's compute quota (the tenant). The restriction is ordered after the tenants through an explicit
//! reference (`tenants = [hyperpod_tenant.<team>.governance]`, docs/design/cross-resource-rules.md), never a hidden
//! wait: the plan refuses a namespace that neither exists nor belongs to a referenced tenant, and apply checks again
//! before its first write, so a namespace missing then is a clear error, never a loop. Pure: `gather` reads the
//! namespaces this asks for.

use super::super::model::{RestrictionConfig, RestrictionMode};
use super::super::schema::RestrictionModel;
use crate::governance::{Referenced, TenantCapacity};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::value::Value;
use crate::resources::references;

/// The argument the namespace order points at.
pub const TENANTS: &str = RestrictionModel::TENANTS.name();

/// The tenants `tenants` references: those known, and whether any is not known until apply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestrictionTenants {
    pub known: Vec<Referenced<TenantCapacity>>,
    pub unknown: bool,
}

impl RestrictionTenants {
    /// The restriction's `tenants`.
    pub fn decode(tenants: &Value) -> Self {
        let references = references::tenants_in(tenants, TENANTS);
        Self {
            known: references.known,
            unknown: !references.unknown.is_empty(),
        }
    }
}

/// What the namespace order asks of the plan.
#[derive(Clone, Debug, PartialEq)]
pub enum NamespaceCheck {
    /// Nothing to check: access-policy mode, or every namespace is a referenced tenant's.
    Nothing,
    /// A referenced tenant of another cluster: an error at its reference.
    WrongCluster(Diagnostics),
    /// Checked at apply: a value known only then (why).
    Deferred(&'static str),
    /// These namespaces must exist already: `gather` reads them.
    Read(Vec<String>),
}

/// RBAC mode: every namespace exists or is a referenced tenant's (which Terraform then applies first). A tenant of
/// another cluster is an error at its reference, whatever the mode.
pub fn namespace_check(
    config: &RestrictionConfig,
    mode_known: bool,
    tenants: &RestrictionTenants,
    cluster_name: &str,
) -> NamespaceCheck {
    let wrong = wrong_cluster(tenants, cluster_name);
    if wrong.has_errors() {
        return NamespaceCheck::WrongCluster(wrong);
    }
    if !mode_known {
        return NamespaceCheck::Deferred("`mode` is not known until apply");
    }
    if config.mode != RestrictionMode::Rbac {
        return NamespaceCheck::Nothing;
    }
    if tenants.unknown {
        return NamespaceCheck::Deferred("`tenants` is not known until apply");
    }
    let referenced: Vec<String> = tenants
        .known
        .iter()
        .map(|tenant| crate::names::team_namespace(&tenant.item.team))
        .collect();
    let unreferenced: Vec<String> = config
        .namespaces
        .iter()
        .filter(|namespace| !referenced.contains(namespace))
        .cloned()
        .collect();
    if unreferenced.is_empty() {
        NamespaceCheck::Nothing
    } else {
        NamespaceCheck::Read(unreferenced)
    }
}

/// The referenced tenants of another cluster, each an error at its reference.
fn wrong_cluster(tenants: &RestrictionTenants, cluster_name: &str) -> Diagnostics {
    let mut wrong = Diagnostics::new();
    for tenant in &tenants.known {
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
    wrong
}

/// The warning for a check left to apply: `why` names the value known only then.
pub fn deferred(why: &str) -> Diagnostics {
    Diagnostics::from(Diagnostic::warning(
        AttributePath::attr(TENANTS),
        "Namespaces not checked at plan: a value is known only at apply",
        format!(
            "{why}. In rbac mode apply checks that each namespace exists before this restriction writes anything, \
             and fails there naming the tenant to reference."
        ),
    ))
}

/// The warning for namespaces the plan could not read.
pub fn unreadable(err: &str) -> Diagnostics {
    Diagnostics::from(Diagnostic::warning(
        AttributePath::attr(TENANTS),
        "Namespaces (not checked)",
        format!(
            "The cluster's namespaces could not be read: {err}. Apply checks them before this restriction writes \
             anything."
        ),
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
