//! `hyperpod_task_view_restriction`'s state upgrades: version 0 (before 0.3.0) to 1.

use super::super::schema::{RestrictionModel, schema};
use super::{object_value, policy_name};

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `associated_policies` and `kubernetes_manifests` are removed; `components` names access policies by name.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `associated_policies` and \
                 `kubernetes_manifests` are removed; `contract` and `tenants` become write-only; `components` keys \
                 access policies by name",
        upgrade: upgrade_state,
    }];

/// The step from version 0: the checklist (`checklist::upgrade_state`), and `associated_policies` and
/// `kubernetes_manifests` dropped (`components` names the same; the next refresh records each object's digest).
pub fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    use crate::component::{Component, ObjectKey};
    use serde_json::Value as Json;
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    state.remove("associated_policies");
    let manifests = crate::resources::take_recorded_manifests(state);
    let Some(Json::Object(components)) = state.get_mut(RestrictionModel::COMPONENTS.name()) else {
        return Ok(());
    };
    // `access_policy/<ARN>` becomes `access_policy/<name>` (see `Association::component`).
    let by_arn: Vec<String> = (components.keys())
        .filter(|key| matches!(Component::parse(key), Some(Component::AccessPolicy(name)) if name.starts_with("arn:")))
        .cloned()
        .collect();
    for key in by_arn {
        if let Some(scope) = components.remove(&key) {
            components.insert(Component::AccessPolicy(policy_name(&key).to_string()).key(), scope);
        }
    }
    // Each object's value gains the digest of the content state recorded (what the last refresh read), so the
    // first refresh after the upgrade reports no change.
    for object in &manifests {
        let field = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Json::as_str)
                .unwrap_or("-")
                .to_string()
        };
        let namespace = object.pointer("/metadata/namespace").and_then(Json::as_str);
        let key = Component::Kubernetes(ObjectKey::placed(&field("/kind"), namespace, &field("/metadata/name"))).key();
        if components.contains_key(&key) {
            components.insert(key, Json::String(object_value(object)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The first restriction of the recorded 0.3.0-dev quickstart state (`team["production"]`).
    #[test]
    fn upgraded_restriction_state_keys_its_access_policies_by_name_with_their_scopes() {
        let mut raw = crate::resources::recorded_state::instance("hyperpod_task_view_restriction", "team");
        let training = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy";
        let scope = raw["components"][format!("access_policy/{training}")].clone();
        assert!(scope.as_str().is_some_and(|s| s.starts_with("namespace:")), "{scope}");
        super::upgrade_state(&mut raw).expect("upgrades");
        let components = raw["components"].as_object().cloned().unwrap_or_default();
        assert_eq!(components["access_policy/AmazonSagemakerHyperpodTrainingPolicy"], scope);
        assert!(
            !components.keys().any(|key| key.starts_with("access_policy/arn:")),
            "{components:?}"
        );
        assert_eq!(components["access_entry"], raw["project_role_arn"]);
    }
}
