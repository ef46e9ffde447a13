//! The state a scheduling policy records: flattened from what SageMaker reports, and its `governance` value.

use std::collections::BTreeMap;

use crate::aws::sagemaker::SchedulerConfig;
use crate::protocol::object::{int, object, string, string_map, text, text_map};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

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
        ("status", text(config.status.as_str())),
        (
            "status_details",
            Value::Map(
                (config.status_details.iter())
                    .map(|(component, status)| (component.clone(), text(status.as_str())))
                    .collect(),
            ),
        ),
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

#[cfg(test)]
mod tests {
    use aws_sdk_sagemaker::types::FairShare;

    use super::super::PolicySettings;
    use super::*;
    use crate::aws::sagemaker::PriorityClass;

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
    fn spec_round_trips_through_state() {
        let record = SchedulerConfig {
            id: "abcdef123456".into(),
            arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster-scheduler-config/abcdef123456".into(),
            name: "ml-capacity-policy".into(),
            cluster_arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/aaaaaaaaaaaa".into(),
            description: None,
            version: 2,
            status: crate::aws::scheduler_status::SchedulerStatus::Updated,
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
        let spec = PolicySettings::decode(&state);
        assert_eq!(spec.priority_classes, record.priority_classes);
        assert_eq!(spec.fair_share, Some(true));
        assert_eq!(spec.idle_resource_sharing, Some(false));
        assert_eq!(state.get_attr("tags"), Some(&Value::Null));
        let sdk = spec.to_sdk();
        assert_eq!(sdk.priority_classes().len(), 2);
        assert_eq!(sdk.fair_share(), Some(&FairShare::Enabled));
    }
}
