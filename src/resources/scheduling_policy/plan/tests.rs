//! The policy's plan without a sandbox: inputs built by hand, the verdict and the planned attributes.

use std::collections::BTreeMap;

use super::gather::{LiveSchedulerConfig, PolicyCluster, PolicyPrior};
use super::{PolicyPlanInputs, judge};
use crate::protocol::model::Model;
use crate::protocol::object::{int, object, text};
use crate::protocol::value::Value;
use crate::resources::scheduling_policy::model::{PolicyConfig, PolicySettings};
use crate::resources::scheduling_policy::schema::SchedulingPolicyModel;

fn inputs(tags: Option<BTreeMap<String, String>>) -> PolicyPlanInputs {
    PolicyPlanInputs {
        config: PolicyConfig {
            cluster_name: Some("ml-capacity".into()),
            name: None,
            tags,
            settings: PolicySettings {
                priority_classes: Vec::new(),
                fair_share: None,
                idle_resource_sharing: None,
                description: None,
            },
        },
        name_configured: false,
        default_tags: [("env".to_string(), "prod".to_string())].into(),
        prior: None,
        cluster: None,
    }
}

/// The plan's prediction over a planned value, as `plan` runs it.
fn predict(inputs: &PolicyPlanInputs, value: &mut Value) {
    let planned = SchedulingPolicyModel::decode(value).expect("the planned value decodes");
    super::predict::predict(inputs, &planned, value);
}

fn cluster(existing: Option<LiveSchedulerConfig>, existing_in_state: bool) -> PolicyCluster {
    PolicyCluster {
        name: "ml-capacity".into(),
        arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/aaaaaaaaaaaa".into(),
        existing,
        existing_in_state,
    }
}

fn planned() -> Value {
    object([
        ("cluster_name", text("ml-capacity")),
        ("id", Value::Unknown),
        ("name", Value::Unknown),
        ("tags", Value::Null),
        ("tags_all", Value::Unknown),
        ("cluster_arn", Value::Unknown),
        ("status", text("UpdateFailed")),
        ("version", int(3)),
        (
            "priority_class",
            Value::List(vec![object([("name", text("production"))])]),
        ),
        ("fair_share", Value::Unknown),
        ("governance", Value::Unknown),
    ])
}

#[test]
fn fifty_tags_with_the_default_tags_leave_no_room_for_the_ownership_tag() {
    let own: BTreeMap<String, String> = (0..49).map(|i| (format!("k{i}"), "v".to_string())).collect();
    let errors = judge::tags(&inputs(Some(own.clone()))).expect_err("50 tags with env");
    assert_eq!(errors.0[0].path.to_string(), "tags");
    assert!(
        errors.0[0].detail.contains("use at most 49 tags"),
        "{}",
        errors.0[0].detail
    );
    let fewer: BTreeMap<String, String> = own.into_iter().skip(1).collect();
    judge::tags(&inputs(Some(fewer))).expect("49 tags fit");
    judge::tags(&inputs(None)).expect("a tag known only at apply is counted then");
}

#[test]
fn a_foreign_config_is_refused_and_an_own_or_replaced_one_is_not() {
    let mut inputs = inputs(Some(BTreeMap::new()));
    let live = |ours| {
        Some(LiveSchedulerConfig {
            id: "abcdef123456".into(),
            ours,
        })
    };
    inputs.cluster = Some(cluster(live(false), false));
    let errors = judge::scheduler_config(&inputs).expect_err("foreign");
    assert_eq!(errors.0[0].summary, "Cluster already has a scheduling policy");
    assert_eq!(errors.0[0].path.to_string(), "cluster_name");
    for (existing, in_state) in [(live(true), false), (live(false), true), (None, false)] {
        inputs.cluster = Some(cluster(existing, in_state));
        judge::scheduler_config(&inputs).expect("own, replaced or none");
    }
}

#[test]
fn the_plan_knows_id_name_tags_all_governance_and_the_cluster_arn() {
    let mut inputs = inputs(Some(BTreeMap::new()));
    inputs.cluster = Some(cluster(None, false));
    inputs.prior = Some(PolicyPrior {
        cluster_name: None,
        name: None,
        status: Some("UpdateFailed".into()),
    });
    let mut value = planned();
    predict(&inputs, &mut value);
    assert_eq!(value.get_attr("id"), Some(&text("ml-capacity")));
    assert_eq!(value.get_attr("name"), Some(&text("ml-capacity-policy")));
    assert_eq!(
        value.get_attr("tags_all"),
        Some(&Value::Map([("env".to_string(), text("prod"))].into()))
    );
    assert_eq!(
        value.get_attr("cluster_arn"),
        Some(&text("arn:aws:sagemaker:us-west-2:123456789012:cluster/aaaaaaaaaaaa"))
    );
    assert_eq!(
        value.get_attr("status"),
        Some(&Value::Unknown),
        "a failed write is planned again"
    );
    assert_eq!(value.get_attr("version"), Some(&Value::Unknown));
    let governance = value.get_attr("governance").expect("governance");
    assert_eq!(
        governance.get_attr("priority_classes"),
        Some(&Value::List(vec![text("production")]))
    );
    assert_eq!(governance.get_attr("fair_share"), Some(&Value::Unknown));
}

#[test]
fn an_unknown_cluster_name_reads_nothing_and_leaves_the_name_alone() {
    let mut inputs = inputs(None);
    inputs.config.cluster_name = None;
    assert_eq!(inputs.cluster_to_check(), None);
    let mut value = planned();
    predict(&inputs, &mut value);
    for name in ["id", "name", "tags_all", "cluster_arn"] {
        assert_eq!(value.get_attr(name), Some(&Value::Unknown), "{name}");
    }
}

#[test]
fn only_a_cluster_new_to_the_resource_is_read() {
    let mut inputs = inputs(None);
    assert_eq!(inputs.cluster_to_check(), Some("ml-capacity"));
    inputs.prior = Some(PolicyPrior {
        cluster_name: Some("ml-capacity".into()),
        name: None,
        status: None,
    });
    assert_eq!(inputs.cluster_to_check(), None);
}

#[test]
fn an_unset_name_keeps_the_configs_own_on_its_cluster_and_defaults_elsewhere() {
    let mut inputs = inputs(Some(BTreeMap::new()));
    inputs.prior = Some(PolicyPrior {
        cluster_name: Some("ml-capacity".into()),
        name: Some("console-policy".into()),
        status: None,
    });
    let mut value = planned();
    predict(&inputs, &mut value);
    assert_eq!(
        value.get_attr("name"),
        Some(&text("console-policy")),
        "an imported name stays"
    );
    inputs.prior = Some(PolicyPrior {
        cluster_name: Some("legacy-capacity".into()),
        name: Some("legacy-capacity-policy".into()),
        status: None,
    });
    let mut moved = planned();
    predict(&inputs, &mut moved);
    assert_eq!(
        moved.get_attr("name"),
        Some(&text("ml-capacity-policy")),
        "another cluster: the default"
    );
}
