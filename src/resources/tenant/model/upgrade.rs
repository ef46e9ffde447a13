//! `hyperpod_tenant`'s state upgrades: version 0 (before 0.3.0) to 1.

use super::super::schema::{TenantModel, schema};

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `kubernetes_manifests` and `access_entries` are gone (`components` carries a digest of each object instead).
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `kubernetes_manifests` and \
                 `access_entries` are removed; `contract`, `scheduling_policy` and `borrows_from` become write-only; \
                 `components` names the role and its policies by the role's name",
        upgrade: upgrade_state,
    }];

/// The step from version 0: the checklist (`checklist::upgrade_state`), and the rendered objects dropped. Each
/// Kubernetes object's and access entry's `components` value gets the digest of the content state recorded for it
/// (what the last refresh read), so the first refresh after the upgrade reports no change.
pub fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    use crate::component::{Component, ComponentKind, ObjectKey};
    use serde_json::Value as Json;
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    let manifests = crate::resources::take_recorded_manifests(state);
    let entries = state.remove("access_entries");
    let Some(Json::Object(components)) = state.get_mut(TenantModel::COMPONENTS.name()) else {
        return Ok(());
    };
    // The role by name (was its ARN) and each inline policy by the role it is on (was `<role>/<policy>`).
    for (key, value) in components.iter_mut() {
        let Json::String(text) = value else { continue };
        let named = match Component::parse(key).map(|component| component.kind()) {
            Some(ComponentKind::IamRole) => text.rsplit('/').next(),
            Some(ComponentKind::IamPolicy) => text.split('/').next(),
            _ => None,
        };
        if let Some(name) = named.map(str::to_string) {
            *text = name;
        }
    }
    for object in &manifests {
        let field = |pointer: &str| object.pointer(pointer).and_then(Json::as_str).unwrap_or_default();
        let (kind, namespace, name) = (field("/kind"), field("/metadata/namespace"), field("/metadata/name"));
        let key = Component::Kubernetes(ObjectKey::in_tenant_namespace(kind, name)).key();
        if let Some(value) = components.get_mut(&key) {
            *value = Json::String(super::manifests::component_value(namespace, object));
        }
    }
    let entries = entries.as_ref().and_then(Json::as_array).cloned().unwrap_or_default();
    for entry in &entries {
        let strings = |name: &str| -> Vec<String> {
            entry[name]
                .as_array()
                .map(|items| items.iter().filter_map(Json::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let (Some(principal), Some(policy)) = (entry["principal_arn"].as_str(), entry["policy_arn"].as_str()) else {
            continue;
        };
        if let Some(value) = components.get_mut(&Component::AccessEntry(principal.to_string()).key()) {
            *value = Json::String(super::components::entry_value_of(
                &strings("kubernetes_groups"),
                &[(policy.to_string(), strings("namespaces"))],
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A tenant of the recorded 0.3.0-dev quickstart state (`resources::recorded_state`).
    #[test]
    fn upgraded_tenant_state_drops_the_rendered_objects_and_keeps_its_components() {
        // The research tenant: its role has inline policies.
        let mut raw = crate::resources::recorded_state::instance("hyperpod_tenant", "research");
        let components = raw["components"].clone();
        assert!(raw["kubernetes_manifests"].as_array().is_some_and(|m| !m.is_empty()));
        let deny = "kubernetes/NetworkPolicy/hyperpod-tenant-default-deny";
        super::upgrade_state(&mut raw).expect("upgrades");
        for gone in ["kubernetes_manifests", "access_entries", "checks"] {
            assert!(!raw.contains_key(gone), "{gone}");
        }
        // Every component stays; an object's value gains the digest of what state recorded of it.
        assert_eq!(
            raw["components"]
                .as_object()
                .map(|c| c.keys().cloned().collect::<Vec<_>>()),
            components.as_object().map(|c| c.keys().cloned().collect::<Vec<_>>())
        );
        // An object's value becomes its namespace and the digest of what state recorded of it.
        let recorded = components[deny].as_str().unwrap_or_default();
        let namespace = recorded.split('/').next().unwrap_or_default();
        let upgraded = raw["components"][deny].as_str().unwrap_or_default();
        assert!(
            upgraded.starts_with(&format!("{namespace}@")) && upgraded.len() == namespace.len() + 9,
            "{upgraded}"
        );
        // The role and its inline policies are named by the role's name, not its ARN or `<role>/<policy>`.
        let role = raw["workload_role_name"].as_str().unwrap_or_default().to_string();
        assert!(!role.is_empty());
        assert_eq!(raw["components"]["iam_role"].as_str(), Some(role.as_str()));
        let policies: Vec<&serde_json::Value> = raw["components"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, _)| key.starts_with("iam_policy/"))
            .map(|(_, value)| value)
            .collect();
        assert!(!policies.is_empty() && policies.iter().all(|value| value.as_str() == Some(role.as_str())));
        assert!(raw["passed_checks"].as_str().is_some_and(|ids| ids.contains("WKL-8")));
        // The upgraded state decodes under this schema.
        let json = serde_json::Value::Object(raw).to_string();
        crate::protocol::value::Value::decode_json(json.as_bytes(), &super::schema().value_type()).expect("decodes");
    }
}
