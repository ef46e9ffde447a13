//! The policy's configuration, typed (`PolicyConfig`, with the settings SageMaker holds as `PolicySettings`), and
//! the state it records (`state`), with which scheduler configs are this resource's own (`ownership`).

mod ownership;
mod state;

pub use ownership::{OWNER_TAG, SeenSchedulerConfigs, is_ours, with_owner, without_owner};
pub use state::{flatten, governance};

use std::collections::BTreeMap;

use aws_sdk_sagemaker::types::{FairShare, IdleResourceSharing};

use super::schema::SchedulingPolicyModel;
use crate::aws::sagemaker::{PriorityClass, SchedulerConfig};
use crate::protocol::model::Field;

/// What the configuration (or a planned or recorded value) says, each `None` while unknown.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyConfig {
    /// The cluster's name (unknown while it comes from a resource not created yet).
    pub cluster_name: Option<String>,
    /// The scheduler config's name, `None` while unknown (or unset: it is then `<cluster_name>-policy`).
    pub name: Option<String>,
    /// The resource's own `tags` (empty when null); `None` while a tag is unknown.
    pub tags: Option<BTreeMap<String, String>>,
    pub settings: PolicySettings,
}

impl PolicyConfig {
    pub fn of(policy: &SchedulingPolicyModel) -> Self {
        Self {
            cluster_name: policy.cluster_name.as_known().cloned(),
            name: policy.name.as_known().cloned(),
            tags: policy.tags.clone().or_empty(),
            settings: PolicySettings::of(policy),
        }
    }

    /// `tags_all`: the provider's `default_tags` overlaid with the resource's own; `None` while a tag is unknown.
    pub fn tags_all(&self, default_tags: &BTreeMap<String, String>) -> Option<BTreeMap<String, String>> {
        self.tags.as_ref().map(|tags| merge_tags(default_tags, tags))
    }
}

/// The user-controlled settings of a scheduling policy, as SageMaker holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySettings {
    pub priority_classes: Vec<PriorityClass>,
    pub fair_share: Option<bool>,
    pub idle_resource_sharing: Option<bool>,
    /// `None` for no description: SageMaker does not tell an empty one from none.
    pub description: Option<String>,
}

impl PolicySettings {
    /// The settings a planned or recorded policy holds; a priority class not wholly known yet is left out.
    pub fn of(policy: &SchedulingPolicyModel) -> Self {
        let classes = match &policy.priority_class {
            Field::Known(classes) => classes.as_slice(),
            _ => &[],
        };
        Self {
            priority_classes: classes
                .iter()
                .filter_map(|class| {
                    Some(PriorityClass {
                        name: class.name.as_known().cloned()?,
                        weight: class.weight.as_known().copied()?,
                    })
                })
                .collect(),
            fair_share: policy.fair_share.as_known().copied(),
            idle_resource_sharing: policy.idle_resource_sharing.as_known().copied(),
            description: policy.description.as_known().cloned().filter(|d| !d.is_empty()),
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

    /// True when `live` already holds what these settings ask for; a switch they leave unset (the service default
    /// applies) matches anything.
    pub fn is_satisfied_by(&self, live: &PolicySettings) -> bool {
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

/// The default scheduler config name for a cluster: `<cluster>-policy`, shortened to fit 63 characters.
pub fn default_name(cluster_name: &str) -> String {
    let stem: String = cluster_name.chars().take(63 - "-policy".len()).collect();
    format!("{}-policy", stem.trim_end_matches('-'))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn own_tags_win_over_default_tags() {
        let merged = merge_tags(&tags(&[("env", "prod"), ("a", "1")]), &tags(&[("env", "dev")]));
        assert_eq!(merged, tags(&[("env", "dev"), ("a", "1")]));
    }

    #[test]
    fn default_names_fit_the_entity_name_pattern() {
        let pattern = crate::protocol::validators::Matches::new(crate::names::ENTITY_NAME, "");
        assert_eq!(default_name("ml-capacity"), "ml-capacity-policy");
        let long = "a".repeat(63);
        assert!(pattern.is_match(&default_name(&long)), "{}", default_name(&long));
        let hyphen_at_cut = format!("{}-b", "a".repeat(55));
        assert!(pattern.is_match(&default_name(&hyphen_at_cut)));
    }

    #[test]
    fn unset_switches_are_satisfied_by_any_service_default() {
        let class = PriorityClass {
            name: "production".into(),
            weight: 90,
        };
        let wanted = PolicySettings {
            priority_classes: vec![class.clone()],
            fair_share: None,
            idle_resource_sharing: Some(false),
            description: None,
        };
        let live = PolicySettings {
            fair_share: Some(true),
            ..wanted.clone()
        };
        assert!(wanted.is_satisfied_by(&live));
        let other = PolicySettings {
            idle_resource_sharing: Some(true),
            ..live.clone()
        };
        assert!(!wanted.is_satisfied_by(&other));
        let fewer = PolicySettings {
            priority_classes: Vec::new(),
            ..live
        };
        assert!(!wanted.is_satisfied_by(&fewer));
    }
}
