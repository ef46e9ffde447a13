//! `hyperpod_scheduling_policy` schema: the state upgrader, and what `terraform validate` checks beyond the
//! declaration's validators.

pub use crate::resources::governance_objects::PolicyGovernance;
use std::collections::HashSet;

use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::protocol::object::{elements, string};
use crate::protocol::state_upgrade::{RawState, StateUpgrader};
use crate::protocol::value::Value;
use crate::tags::POLICY_OWNER;

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`scheduling_policy.rs`), below the provider and the report alike.
pub use hyperpod_declarations::scheduling_policy::*;

/// What `terraform validate` checks beyond the attributes' validators: priority class names are distinct, and the
/// ownership tag's key is the provider's own.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    let mut seen = HashSet::new();
    let (classes, class_name) = (SchedulingPolicyModel::PRIORITY_CLASS, PriorityClassBlock::NAME);
    for (index, class) in elements(config, classes.name()).iter().enumerate() {
        // A null name or weight is the schema walk's "Missing required argument", reported once there.
        if let Some(name) = string(class, class_name.name())
            && !seen.insert(name.clone())
        {
            diagnostics.push(Diagnostic::invalid_value(
                classes.path().index(index).push_attr(class_name.name()),
                format!("{name:?}"),
                "another priority_class already has this name",
                "give every priority class a distinct name",
            ));
        }
    }
    if let Some(Value::Map(tags)) = config.get_attr(SchedulingPolicyModel::TAGS.name())
        && tags.contains_key(POLICY_OWNER)
    {
        diagnostics.push(Diagnostic::invalid_value(
            SchedulingPolicyModel::TAGS.path().key(POLICY_OWNER),
            format!("{POLICY_OWNER:?}"),
            "the provider writes this tag itself to recognise the configs it created",
            "use another tag key",
        ));
    }
}

/// Schema version 0 (0.1.0) kept SageMaker's scheduler config ID in `id`. Version 1 (0.2.0) makes `id` the cluster
/// name, known at plan time and equal to the import ID, and moves the config ID to `scheduler_config_id`.
pub const STATE_UPGRADERS: [StateUpgrader; 1] = [StateUpgrader {
    from: 0,
    change: "`id` becomes the cluster name; the scheduler config ID moves to `scheduler_config_id`",
    upgrade: id_is_the_cluster_name,
}];

fn id_is_the_cluster_name(state: &mut RawState) -> Result<(), String> {
    let (id, cluster) = (
        SchedulingPolicyModel::ID.name(),
        SchedulingPolicyModel::CLUSTER_NAME.name(),
    );
    let cluster_name = match state.get(cluster) {
        Some(serde_json::Value::String(name)) if !name.is_empty() => name.clone(),
        other => return Err(format!("`{cluster}` is {other:?}, not a cluster name")),
    };
    let config_id = state.remove(id).unwrap_or(serde_json::Value::Null);
    state.insert(SchedulingPolicyModel::SCHEDULER_CONFIG_ID.name().to_string(), config_id);
    state.insert(id.to_string(), serde_json::Value::String(cluster_name));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{int, object, text, text_map};
    use crate::protocol::state_upgrade::upgrade;

    #[test]
    fn duplicate_priority_class_names_are_refused_with_their_path() {
        let class = |name: &str| object([("name", text(name)), ("weight", int(1))]);
        let config = object([("priority_class", Value::List(vec![class("a"), class("b"), class("a")]))]);
        let mut diagnostics = Diagnostics::new();
        validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path.to_string(), "priority_class[2].name");
    }

    #[test]
    fn the_ownership_tag_key_is_reserved() {
        let config = object([("tags", text_map(&[(POLICY_OWNER.to_string(), "x".to_string())].into()))]);
        let mut diagnostics = Diagnostics::new();
        validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert!(diagnostics.0[0].path.to_string().starts_with("tags"));
    }

    #[test]
    fn version_0_state_keeps_the_config_id_and_takes_the_cluster_name_as_id() {
        let schema = schema();
        let upgrade_state = |version, json: &[u8]| upgrade(TYPE_NAME, &schema, &STATE_UPGRADERS, version, json);
        let version_0 = br#"{"id":"abcdef123456","cluster_name":"ml-capacity","version":3,
            "priority_class":[{"name":"production","weight":90}],"tags":{"team":"ml"}}"#;
        let state = upgrade_state(0, version_0).expect("version 0 upgrades");
        assert_eq!(string(&state, "id").as_deref(), Some("ml-capacity"));
        assert_eq!(string(&state, "scheduler_config_id").as_deref(), Some("abcdef123456"));
        assert_eq!(crate::protocol::object::integer(&state, "version"), Some(3));
        assert_eq!(
            state.get_attr("arn"),
            Some(&Value::Null),
            "absent attributes decode as null"
        );

        let version_1 = br#"{"id":"ml-capacity","scheduler_config_id":"abcdef123456","cluster_name":"ml-capacity"}"#;
        let current = upgrade_state(1, version_1).expect("the current version decodes as it is");
        assert_eq!(string(&current, "scheduler_config_id").as_deref(), Some("abcdef123456"));

        let newer = upgrade_state(7, version_1).expect_err("newer versions are refused");
        assert!(newer.0[0].detail.contains("schema version 7"));
        let broken =
            upgrade_state(0, br#"{"id":"abcdef123456"}"#).expect_err("version 0 state always had a cluster name");
        assert!(
            broken.0[0].detail.contains("`cluster_name` is None"),
            "{}",
            broken.0[0].detail
        );
    }

    #[test]
    fn schema_declares_every_attribute_with_a_description() {
        let schema = schema();
        for attribute in &schema.block.attributes {
            assert!(
                !attribute.description.is_empty(),
                "{} has no description",
                attribute.name
            );
        }
        assert_eq!(schema.block.blocks[0].max_items, 10);
    }
}
