//! Expanding planned values into SageMaker requests and flattening SageMaker responses into state.

use std::collections::BTreeMap;

use aws_sdk_sagemaker::types::{FairShare, IdleResourceSharing};

use crate::aws::sagemaker::{PriorityClass, SchedulerConfig};
use crate::protocol::object::{boolean, elements, int, integer, object, string, string_map, text, text_map};
use crate::protocol::plan::set_attr;
use crate::protocol::value::{Type, Value};

/// The user-controlled parts of a scheduling policy.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    pub priority_classes: Vec<PriorityClass>,
    pub fair_share: Option<bool>,
    pub idle_resource_sharing: Option<bool>,
    /// `None` for no description: SageMaker does not tell an empty one from none.
    pub description: Option<String>,
}

impl PolicySpec {
    pub fn from_value(value: &Value) -> Self {
        Self {
            priority_classes: elements(value, "priority_class")
                .iter()
                .filter_map(|class| {
                    Some(PriorityClass {
                        name: string(class, "name")?,
                        weight: i32::try_from(integer(class, "weight")?).ok()?,
                    })
                })
                .collect(),
            fair_share: boolean(value, "fair_share"),
            idle_resource_sharing: boolean(value, "idle_resource_sharing"),
            description: string(value, "description").filter(|d| !d.is_empty()),
        }
    }

    /// What a scheduler config SageMaker reports holds.
    pub fn from_record(record: &SchedulerConfig) -> Self {
        Self {
            priority_classes: record.priority_classes.clone(),
            fair_share: record.fair_share,
            idle_resource_sharing: record.idle_resource_sharing,
            description: record.description.clone().filter(|d| !d.is_empty()),
        }
    }

    /// True when `live` already holds what this spec asks for; a switch this spec leaves unset (the service default
    /// applies) matches anything.
    pub fn is_satisfied_by(&self, live: &PolicySpec) -> bool {
        self.priority_classes == live.priority_classes
            && self.description == live.description
            && self.fair_share.is_none_or(|on| live.fair_share == Some(on))
            && self
                .idle_resource_sharing
                .is_none_or(|on| live.idle_resource_sharing == Some(on))
    }

    /// The `Description` of an update: always sent, since an update without one keeps the old description (an empty
    /// one clears it).
    pub fn update_description(&self) -> String {
        self.description.clone().unwrap_or_default()
    }

    /// The request body's `SchedulerConfig`; unset switches are left to the service default.
    pub fn to_sdk(&self) -> aws_sdk_sagemaker::types::SchedulerConfig {
        let classes = self
            .priority_classes
            .iter()
            .map(|class| {
                aws_sdk_sagemaker::types::PriorityClass::builder()
                    .name(&class.name)
                    .weight(class.weight)
                    .build()
            })
            .collect();
        aws_sdk_sagemaker::types::SchedulerConfig::builder()
            .set_priority_classes(Some(classes))
            .set_fair_share(
                self.fair_share
                    .map(|on| if on { FairShare::Enabled } else { FairShare::Disabled }),
            )
            .set_idle_resource_sharing(self.idle_resource_sharing.map(|on| {
                if on {
                    IdleResourceSharing::Enabled
                } else {
                    IdleResourceSharing::Disabled
                }
            }))
            .build()
    }
}

/// Splits live tags into the resource's own `tags` and `tags_all`: a tag that equals a default tag belongs to
/// `tags` only if the configuration (prior state) had it there.
pub fn split_tags(
    live: &BTreeMap<String, String>,
    default_tags: &BTreeMap<String, String>,
    prior_tags: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    live.iter()
        .filter(|(key, value)| prior_tags.contains_key(*key) || default_tags.get(*key) != Some(*value))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `default_tags` overlaid with the resource's own tags.
pub fn merge_tags(
    default_tags: &BTreeMap<String, String>,
    tags: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut all = default_tags.clone();
    all.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
    all
}

/// State from what SageMaker reports; `cluster_name`, `timeouts` and an empty `tags` come from `prior`, since the
/// service does not return them.
pub fn flatten(
    config: &SchedulerConfig,
    cluster_name: &str,
    live_tags: &BTreeMap<String, String>,
    default_tags: &BTreeMap<String, String>,
    prior: &Value,
) -> Value {
    let prior_tags = string_map(prior, "tags");
    let tags = split_tags(live_tags, default_tags, &prior_tags);
    // Keep "no tags" as null rather than {} when the user wrote no tags, so plans stay empty.
    let tags_value = if tags.is_empty() && prior.get_attr("tags").is_none_or(Value::is_null) {
        Value::Null
    } else {
        text_map(&tags)
    };
    let mut state = object([
        ("id", text(cluster_name)),
        ("scheduler_config_id", text(&config.id)),
        ("arn", text(&config.arn)),
        ("cluster_name", text(cluster_name)),
        ("cluster_arn", text(&config.cluster_arn)),
        ("name", text(&config.name)),
        ("description", description_value(config.description.as_deref(), prior)),
        ("fair_share", config.fair_share.map_or(Value::Null, Value::Bool)),
        (
            "idle_resource_sharing",
            config.idle_resource_sharing.map_or(Value::Null, Value::Bool),
        ),
        ("tags", tags_value),
        ("tags_all", text_map(live_tags)),
        ("version", int(i64::from(config.version))),
        ("status", text(&config.status)),
        ("status_details", text_map(&config.status_details)),
        (
            "priority_class",
            Value::List(
                config
                    .priority_classes
                    .iter()
                    .map(|class| object([("name", text(&class.name)), ("weight", int(i64::from(class.weight)))]))
                    .collect(),
            ),
        ),
        ("timeouts", prior.get_attr("timeouts").cloned().unwrap_or(Value::Null)),
    ]);
    let facts = governance_value(&state);
    set_attr(&mut state, "governance", facts);
    state
}

/// SageMaker reports no description and an empty one alike; state keeps an empty one where the configuration (the
/// prior or planned value) wrote `""`, so the apply matches the plan.
fn description_value(live: Option<&str>, prior: &Value) -> Value {
    match live.filter(|d| !d.is_empty()) {
        Some(description) => text(description),
        None if string(prior, "description").as_deref() == Some("") => text(""),
        None => Value::Null,
    }
}

/// The `governance` attribute, derived from the policy's own attributes so it is known at plan time: what a
/// `hyperpod_tenant` checks its priority class (WKL-4) and fair-share weight (WKL-6) against. An unknown
/// `fair_share` (unset, SageMaker's default applies) stays unknown.
pub fn governance_value(policy: &Value) -> Value {
    let classes: Option<Vec<Value>> = match policy.get_attr("priority_class") {
        Some(Value::List(classes)) => classes
            .iter()
            .map(|class| string(class, "name").map(Value::String))
            .collect(),
        Some(Value::Null) | None => Some(Vec::new()),
        Some(_) => None,
    };
    object([
        (
            "cluster_name",
            policy.get_attr("cluster_name").cloned().unwrap_or(Value::Null),
        ),
        ("priority_classes", classes.map_or(Value::Unknown, Value::List)),
        (
            "fair_share",
            policy.get_attr("fair_share").cloned().unwrap_or(Value::Null),
        ),
    ])
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn default_tags_stay_out_of_tags_unless_configured() {
        let live = tags(&[("team", "ml"), ("env", "prod")]);
        let defaults = tags(&[("env", "prod")]);
        assert_eq!(split_tags(&live, &defaults, &tags(&[])), tags(&[("team", "ml")]));
        assert_eq!(split_tags(&live, &defaults, &tags(&[("env", "prod")])), live);
        // A default key overridden with another value is the resource's own tag.
        let overridden = tags(&[("env", "dev")]);
        assert_eq!(split_tags(&overridden, &defaults, &tags(&[])), overridden);
    }

    #[test]
    fn own_tags_win_over_default_tags() {
        let merged = merge_tags(&tags(&[("env", "prod"), ("a", "1")]), &tags(&[("env", "dev")]));
        assert_eq!(merged, tags(&[("env", "dev"), ("a", "1")]));
    }

    #[test]
    fn unset_switches_are_satisfied_by_any_service_default() {
        let class = PriorityClass {
            name: "production".into(),
            weight: 90,
        };
        let wanted = PolicySpec {
            priority_classes: vec![class.clone()],
            fair_share: None,
            idle_resource_sharing: Some(false),
            description: None,
        };
        let live = PolicySpec {
            fair_share: Some(true),
            ..wanted.clone()
        };
        assert!(wanted.is_satisfied_by(&live));
        let other = PolicySpec {
            idle_resource_sharing: Some(true),
            ..live.clone()
        };
        assert!(!wanted.is_satisfied_by(&other));
        let fewer = PolicySpec {
            priority_classes: Vec::new(),
            ..live
        };
        assert!(!wanted.is_satisfied_by(&fewer));
    }

    #[test]
    fn spec_round_trips_through_state() {
        let record = SchedulerConfig {
            id: "abcdef123456".into(),
            arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster-scheduler-config/abcdef123456".into(),
            name: "ml-capacity-policy".into(),
            cluster_arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/aaaaaaaaaaaa".into(),
            description: None,
            version: 2,
            status: "Updated".into(),
            failure_reason: None,
            status_details: BTreeMap::default(),
            priority_classes: vec![
                PriorityClass {
                    name: "production".into(),
                    weight: 90,
                },
                PriorityClass {
                    name: "research".into(),
                    weight: 10,
                },
            ],
            fair_share: Some(true),
            idle_resource_sharing: Some(false),
        };
        let state = flatten(&record, "ml-capacity", &BTreeMap::new(), &BTreeMap::new(), &Value::Null);
        let spec = PolicySpec::from_value(&state);
        assert_eq!(spec.priority_classes, record.priority_classes);
        assert_eq!(spec.fair_share, Some(true));
        assert_eq!(spec.idle_resource_sharing, Some(false));
        assert_eq!(state.get_attr("tags"), Some(&Value::Null));
        let sdk = spec.to_sdk();
        assert_eq!(sdk.priority_classes().len(), 2);
        assert_eq!(sdk.fair_share(), Some(&FairShare::Enabled));
    }
}
