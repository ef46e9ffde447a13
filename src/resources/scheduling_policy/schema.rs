//! `hyperpod_scheduling_policy` schema: the attributes and their validators, the identity schema, the state
//! upgrader, and what `terraform validate` checks beyond the validators.

use std::collections::HashSet;
use std::time::Duration;

use crate::names::ENTITY_NAME;
use crate::protocol::deadline::Operation;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{elements, object, string};
use crate::protocol::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, Schema};
use crate::protocol::state_upgrade::{RawState, StateUpgrader};
use crate::protocol::validators::{IntBetween, LengthBetween, Matches};
use crate::protocol::value::{Type, Value};
use crate::resources::printable_text::PrintableText;
use crate::tags::POLICY_OWNER;

pub const TYPE_NAME: &str = "hyperpod_scheduling_policy";
/// SageMaker priority class names (DNS-label-like, at most 40 characters).
pub const PRIORITY_CLASS_NAME: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?";
pub const MAX_PRIORITY_CLASSES: i64 = 10;
/// SageMaker `EntityDescription`: at most 1024 characters of letters, marks, separators, symbols, numbers and
/// punctuation — no control characters (newlines and tabs included).
pub const DESCRIPTION_MAX: usize = 1024;
/// SageMaker `TagList`: at most 50 tags per resource.
pub const MAX_TAGS: usize = 50;

fn entity_name() -> Matches {
    Matches::new(
        ENTITY_NAME,
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
    )
}

pub fn schema() -> Schema {
    let priority_class =
        Block::new("A priority class tasks can name. Higher weights are scheduled first and may preempt lower ones.")
            .attribute(
                Attribute::string("name")
                    .required()
                    .describe("Priority class name; workloads and team quotas refer to it by this name (rule WKL-4 checks they exist).")
                    .validate(Matches::new(
                        PRIORITY_CLASS_NAME,
                        "lowercase letters, digits and hyphens, starting and ending with a letter or digit",
                    ))
                    .validate(LengthBetween { min: 1, max: 40 }),
            )
            .attribute(
                Attribute::number("weight")
                    .required()
                    .describe("Scheduling weight of the class.")
                    .validate(IntBetween { min: 0, max: 100 }),
            );

    Schema {
        version: 1,
        block: Block::new(
            "The cluster policy of an EKS-orchestrated HyperPod cluster (a SageMaker *cluster scheduler config*): \
             priority classes, fair share and idle-resource sharing. A cluster has exactly one; import an existing \
             one by cluster name.",
        )
        .attribute(Attribute::string("id").computed().describe(
            "The cluster's name, known at plan time: a cluster has exactly one scheduling policy. Also the import ID.",
        ))
        .attribute(
            Attribute::string("scheduler_config_id")
                .computed()
                .use_state_for_unknown()
                .describe("The scheduler config's ID (`ClusterSchedulerConfigId`, 12 characters)."),
        )
        .attribute(
            Attribute::string("arn")
                .computed()
                .use_state_for_unknown()
                .describe("The scheduler config's ARN."),
        )
        .attribute(
            Attribute::string("cluster_name")
                .required()
                .requires_replace()
                .describe("Name of the EKS-orchestrated HyperPod cluster the policy governs. Checked at plan time.")
                .validate(entity_name()),
        )
        .attribute(
            Attribute::string("cluster_arn")
                .computed()
                .use_state_for_unknown()
                .describe("ARN of the HyperPod cluster, resolved at plan time."),
        )
        .attribute(
            Attribute::string("name")
                .optional_computed()
                .requires_replace()
                .describe("Name of the scheduler config. Defaults to `<cluster_name>-policy`.")
                .validate(entity_name()),
        )
        .attribute(
            Attribute::string("description")
                .optional()
                .describe("What the policy is for; shown in the SageMaker console.")
                .validate(LengthBetween {
                    min: 0,
                    max: DESCRIPTION_MAX,
                })
                .validate(PrintableText),
        )
        .attribute(
            Attribute::bool("fair_share")
                .optional_computed()
                .use_state_for_unknown()
                .describe(
                    "Whether idle capacity is shared by fair-share weight across teams (`FairShare`). When unset, \
                     SageMaker's default applies (documented as enabled) and is recorded.",
                ),
        )
        .attribute(
            Attribute::bool("idle_resource_sharing")
                .optional_computed()
                .use_state_for_unknown()
                .describe(
                    "Whether unallocated capacity is offered to teams to borrow (`IdleResourceSharing`). When \
                     unset, the service default applies and is recorded.",
                ),
        )
        .attribute(
            Attribute::new("tags", Type::Map(Box::new(Type::String)))
                .optional()
                .describe(
                    "Tags for the scheduler config. The provider's `default_tags` are added, and so is the ownership \
                     tag `hyperpod-governance:owner` (not shown here or in `tags_all`), so 49 remain.",
                )
                .validate(crate::resources::validators::AwsTags),
        )
        .attribute(
            Attribute::new("tags_all", Type::Map(Box::new(Type::String)))
                .computed()
                .describe(
                    "All tags on the scheduler config, `default_tags` included (the provider's ownership tag aside).",
                ),
        )
        .attribute(
            Attribute::number("version").computed().describe(
                "Version of the scheduler config (`ClusterSchedulerConfigVersion`); every update increments it.",
            ),
        )
        .attribute(Attribute::string("status").computed().describe(
            "Status reported by SageMaker, e.g. `Created`, with `StatusDetails` folded in: a config reported \
             `Created` or `Updated` while one of its components ended `*Failed` reads as that component's status. \
             After a write that ended `*Failed` (e.g. `UpdateFailed`, reported asynchronously) the next plan \
             proposes the write again, and apply fails with SageMaker's reason.",
        ))
        .attribute(
            Attribute::new("status_details", Type::Map(Box::new(Type::String)))
                .computed()
                .describe(
                    "`StatusDetails`: the status of each component of the config (`PriorityClasses`, `FairShare`, \
                     `IdleResourceSharing`), so a partly applied config shows which part failed.",
                ),
        )
        .attribute(Attribute::new("governance", governance_type()).computed().describe(
            "The facts a `hyperpod_tenant` checks against (`cluster_name`, `priority_classes`, `fair_share`), \
                     known at plan time: pass it as the tenant's `scheduling_policy`.",
        ))
        .block(NestedBlock::list("priority_class", priority_class).max_items(MAX_PRIORITY_CLASSES))
        .timeouts(
            &[Operation::Create, Operation::Update, Operation::Delete],
            Duration::from_mins(10),
        ),
    }
}

/// The type of `governance`.
pub fn governance_type() -> Type {
    Type::Object(
        [
            ("cluster_name".to_string(), Type::String),
            ("priority_classes".to_string(), Type::list(Type::String)),
            ("fair_share".to_string(), Type::Bool),
        ]
        .into(),
    )
}

/// What `terraform validate` checks beyond the attributes' validators: priority class names are distinct, and the
/// ownership tag's key is the provider's own.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    let mut seen = HashSet::new();
    for (index, class) in elements(config, "priority_class").iter().enumerate() {
        // A null name or weight is the schema walk's "Missing required argument", reported once there.
        if let Some(name) = string(class, "name")
            && !seen.insert(name.clone())
        {
            diagnostics.push(Diagnostic::invalid_value(
                AttributePath::attr("priority_class").index(index).push_attr("name"),
                format!("{name:?}"),
                "another priority_class already has this name",
                "give every priority class a distinct name",
            ));
        }
    }
    if let Some(Value::Map(tags)) = config.get_attr("tags")
        && tags.contains_key(POLICY_OWNER)
    {
        diagnostics.push(Diagnostic::invalid_value(
            AttributePath::attr("tags").key(POLICY_OWNER),
            format!("{POLICY_OWNER:?}"),
            "the provider writes this tag itself to recognise the configs it created",
            "use another tag key",
        ));
    }
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema {
        version: 0,
        attributes: vec![
            IdentityAttribute {
                name: "cluster_name",
                ty: Type::String,
                description: "Name of the HyperPod cluster whose scheduling policy this is.".to_string(),
                required_for_import: true,
            },
            IdentityAttribute {
                name: "account_id",
                ty: Type::String,
                description: "Account of the cluster. Defaults to the provider's account.".to_string(),
                required_for_import: false,
            },
            IdentityAttribute {
                name: "region",
                ty: Type::String,
                description: "Region of the cluster. Defaults to the provider's region.".to_string(),
                required_for_import: false,
            },
        ],
    }
}

/// An identity value from its parts.
pub fn identity(cluster_name: &str, account_id: &str, region: &str) -> Value {
    object([
        ("cluster_name", Value::String(cluster_name.to_string())),
        ("account_id", Value::String(account_id.to_string())),
        ("region", Value::String(region.to_string())),
    ])
}

/// Schema version 0 (0.1.0) kept SageMaker's scheduler config ID in `id`. Version 1 (0.2.0) makes `id` the cluster
/// name, known at plan time and equal to the import ID, and moves the config ID to `scheduler_config_id`.
pub const STATE_UPGRADERS: [StateUpgrader; 1] = [StateUpgrader {
    from: 0,
    change: "`id` becomes the cluster name; the scheduler config ID moves to `scheduler_config_id`",
    upgrade: id_is_the_cluster_name,
}];

fn id_is_the_cluster_name(state: &mut RawState) -> Result<(), String> {
    let cluster_name = match state.get("cluster_name") {
        Some(serde_json::Value::String(name)) if !name.is_empty() => name.clone(),
        other => return Err(format!("`cluster_name` is {other:?}, not a cluster name")),
    };
    let config_id = state.remove("id").unwrap_or(serde_json::Value::Null);
    state.insert("scheduler_config_id".to_string(), config_id);
    state.insert("id".to_string(), serde_json::Value::String(cluster_name));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{int, text, text_map};
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
