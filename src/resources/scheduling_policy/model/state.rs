//! The state a scheduling policy records: flattened from what SageMaker reports, and its `governance` value.

use std::collections::BTreeMap;

use super::super::schema::{PolicyGovernance, PriorityClassBlock, SchedulingPolicyModel};
use crate::aws::sagemaker::SchedulerConfig;
use crate::protocol::model::Field;

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

/// State from what SageMaker reports; `cluster_name`, `timeouts` and an empty `tags` come from `prior` (the planned
/// value, or the state refreshed), since the service does not return them.
pub fn flatten(
    config: &SchedulerConfig,
    cluster_name: &str,
    live_tags: &BTreeMap<String, String>,
    default_tags: &BTreeMap<String, String>,
    prior: &SchedulingPolicyModel,
) -> SchedulingPolicyModel {
    let prior_tags = prior.tags.as_known().cloned().unwrap_or_default();
    let tags = split_tags(live_tags, default_tags, &prior_tags);
    let mut state = SchedulingPolicyModel {
        id: Field::Known(cluster_name.to_string()),
        scheduler_config_id: Field::Known(config.id.clone()),
        arn: Field::Known(config.arn.clone()),
        cluster_name: Field::Known(cluster_name.to_string()),
        cluster_arn: Field::Known(config.cluster_arn.clone()),
        name: Field::Known(config.name.clone()),
        description: description(config.description.as_deref(), prior),
        fair_share: config.fair_share.into(),
        idle_resource_sharing: config.idle_resource_sharing.into(),
        // Keep "no tags" as null rather than {} when the user wrote no tags, so plans stay empty.
        tags: if tags.is_empty() && prior.tags == Field::Null {
            Field::Null
        } else {
            Field::Known(tags)
        },
        tags_all: Field::Known(live_tags.clone()),
        version: Field::Known(i64::from(config.version)),
        status: Field::Known(config.status.as_str().to_string()),
        status_details: Field::Known(
            (config.status_details.iter())
                .map(|(component, status)| (component.clone(), status.as_str().to_string()))
                .collect(),
        ),
        governance: Field::Null,
        priority_class: Field::Known(
            (config.priority_classes.iter())
                .map(|class| PriorityClassBlock {
                    name: Field::Known(class.name.clone()),
                    weight: Field::Known(class.weight),
                })
                .collect(),
        ),
        timeouts: prior.timeouts.clone(),
    };
    state.governance = Field::Known(governance(&state));
    state
}

/// SageMaker reports no description and an empty one alike; state keeps an empty one where the configuration (the
/// prior or planned value) wrote `""`, so the apply matches the plan.
fn description(live: Option<&str>, prior: &SchedulingPolicyModel) -> Field<String> {
    match live.filter(|d| !d.is_empty()) {
        Some(description) => Field::Known(description.to_string()),
        None if prior.description == Field::Known(String::new()) => Field::Known(String::new()),
        None => Field::Null,
    }
}

/// The `governance` attribute, derived from the policy's own attributes so it is known at plan time: what a
/// `hyperpod_tenant` checks its priority class (WKL-4) and fair-share weight (WKL-6) against. An unknown
/// `fair_share` (unset, SageMaker's default applies) stays unknown.
pub fn governance(policy: &SchedulingPolicyModel) -> PolicyGovernance {
    let priority_classes = match &policy.priority_class {
        Field::Known(classes) => (classes.iter())
            .map(|class| class.name.as_known().cloned())
            .collect::<Option<Vec<_>>>()
            .map_or(Field::Unknown, Field::Known),
        Field::Null => Field::Known(Vec::new()),
        Field::Unknown | Field::Invalid => Field::Unknown,
    };
    PolicyGovernance {
        cluster_name: policy.cluster_name.clone(),
        priority_classes,
        fair_share: policy.fair_share.clone(),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_sagemaker::types::FairShare;

    use super::super::PolicySettings;
    use super::*;
    use crate::aws::sagemaker::PriorityClass;
    use crate::protocol::model::Model;

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
        let prior = SchedulingPolicyModel::default();
        let state = flatten(&record, "ml-capacity", &BTreeMap::new(), &BTreeMap::new(), &prior);
        let spec = PolicySettings::of(&SchedulingPolicyModel::decode(&state.encode()).expect("a state decodes"));
        assert_eq!(spec.priority_classes, record.priority_classes);
        assert_eq!(spec.fair_share, Some(true));
        assert_eq!(spec.idle_resource_sharing, Some(false));
        assert_eq!(state.tags, Field::Null);
        let sdk = spec.to_sdk();
        assert_eq!(sdk.priority_classes().len(), 2);
        assert_eq!(sdk.fair_share(), Some(&FairShare::Enabled));
    }
}
