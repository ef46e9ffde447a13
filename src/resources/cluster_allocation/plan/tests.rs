//! The allocation's plan without a sandbox: inputs built by hand, the verdict and the planned attributes.

use std::collections::BTreeMap;

use super::gather::AllocatedCluster;
use super::{AllocationPlanInputs, judge::judge, predict::predict};
use crate::governance::{Allocation, Capacity, QuotaShare};
use crate::protocol::object::{object, text};
use crate::protocol::value::Value;
use crate::resources::cluster_allocation::model::AllocationConfig;

fn count(instance_type: &str, count: i64) -> QuotaShare {
    QuotaShare {
        instance_type: instance_type.to_string(),
        count: Some(count),
        ..QuotaShare::default()
    }
}

fn inputs(teams: &[(&str, Vec<QuotaShare>)]) -> AllocationPlanInputs {
    AllocationPlanInputs {
        config: AllocationConfig {
            cluster_name: Some("ml".into()),
            allocation: Some(Allocation {
                cluster_name: "ml".into(),
                teams: teams.iter().map(|(t, s)| (t.to_string(), s.clone())).collect(),
                sharing: BTreeMap::new(),
            }),
        },
        cluster: Some(AllocatedCluster {
            arn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc".into(),
            instance_groups: vec![Capacity {
                instance_type: "ml.p5.48xlarge".into(),
                count: 8,
                partition_layout: None,
            }],
        }),
    }
}

fn planned() -> Value {
    object([
        ("cluster_name", text("ml")),
        ("teams", Value::Map(BTreeMap::new())),
        ("id", Value::Unknown),
        ("cluster_arn", Value::Unknown),
        ("capacity", Value::Unknown),
        ("governance", Value::Unknown),
    ])
}

#[test]
fn a_share_of_a_type_the_cluster_has_no_group_of_fails_at_its_entry() {
    let inputs = inputs(&[("research", vec![count("ml.p5.48xlarge", 2), count("ml.g5.8xlarge", 1)])]);
    let errors = judge(&inputs).expect_err("the g5 share cannot be held");
    assert_eq!(errors.0.len(), 1);
    assert_eq!(
        errors.0[0].path.to_string(),
        r#"teams["research"].quota[1].instance_type"#
    );
    assert!(errors.0[0].summary.starts_with("[WKL-3]"), "{}", errors.0[0].summary);
}

#[test]
fn capacity_lists_every_team_against_the_instance_groups_and_nothing_live() {
    let inputs = inputs(&[("research", vec![count("ml.p5.48xlarge", 2)])]);
    judge(&inputs).expect("fits");
    let mut value = planned();
    predict(&inputs, &mut value);
    assert_eq!(value.get_attr("id"), Some(&text("ml")));
    let Some(Value::Map(capacity)) = value.get_attr("capacity") else {
        panic!("{value:?}")
    };
    // Nothing live in a planned value: it must read the same when Terraform plans again at apply, whatever another
    // pipeline did meanwhile.
    assert_eq!(
        capacity["ml.p5.48xlarge"],
        text("8 instances (64 accelerators, 1536 vCPU, 16384 GiB): research 2 instances")
    );
}

#[test]
fn an_unknown_cluster_name_leaves_what_it_decides_unknown() {
    let mut inputs = inputs(&[]);
    inputs.config.cluster_name = None;
    inputs.cluster = None;
    let mut value = planned();
    predict(&inputs, &mut value);
    for name in ["id", "cluster_arn", "capacity"] {
        assert_eq!(value.get_attr(name), Some(&Value::Unknown), "{name}");
    }
}

#[test]
fn a_mig_share_of_a_type_whose_groups_are_not_partitioned_is_refused_at_its_entry() {
    let mut slices = count("ml.p5.48xlarge", 0);
    slices.count = None;
    slices.accelerator_partition = Some(crate::governance::Partition::new("mig-1g.10gb", 4));
    let errors = judge(&inputs(&[("research", vec![slices])])).expect_err("no MIG layout on the p5 group");
    let paths: Vec<String> = errors.0.iter().map(|d| d.path.to_string()).collect();
    assert_eq!(paths, [r#"teams["research"].quota[0].accelerator_partition"#]);
}

#[test]
fn shares_that_overcommit_the_cluster_are_refused_on_the_team_admitted_last_before_any_tenant_exists() {
    // 9 of 8 p5 instances: teams are admitted by name, so zeta's share is the one that does not fit.
    let inputs = inputs(&[
        ("alpha", vec![count("ml.p5.48xlarge", 5)]),
        ("zeta", vec![count("ml.p5.48xlarge", 4)]),
    ]);
    let errors = judge(&inputs).expect_err("9 of 8 instances");
    let paths: Vec<String> = errors.0.iter().map(|d| d.path.to_string()).collect();
    assert_eq!(paths, [r#"teams["zeta"].quota[0].count"#]);
    assert!(errors.0[0].summary.starts_with("[WKL-3]"), "{}", errors.0[0].summary);
    assert!(errors.0[0].detail.contains("overcommit"), "{}", errors.0[0].detail);
    // Exactly full is fine.
    judge(&self::inputs(&[
        ("alpha", vec![count("ml.p5.48xlarge", 4)]),
        ("zeta", vec![count("ml.p5.48xlarge", 4)]),
    ]))
    .expect("8 of 8 fit");
}
