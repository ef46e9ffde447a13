//! The restriction's plan without a sandbox: inputs built by hand, the verdict and the planned attributes.

use std::collections::BTreeMap;

use super::super::model::{GROUP_MAX, RestrictionConfig, RestrictionMode};
use super::super::schema::schema;
use super::RestrictionPlanInputs;
use super::gather::{RestrictionCluster, RestrictionLiveFacts};
use super::judge::{group_problem, judge};
use super::order::{RestrictionTenants, TENANTS};
use super::predict::predict;
use crate::component::Component;
use crate::governance::examples::{self, PROJECT_ROLE};
use crate::governance::{Fact, Referenced, RestrictionFacts, TenantCapacity};
use crate::protocol::object::{text, text_list};
use crate::protocol::value::Value;

/// A restriction on the example contract's EKS cluster, in `mode`, where every rule passes.
fn inputs(mode: RestrictionMode) -> RestrictionPlanInputs {
    let contract = examples::contract();
    RestrictionPlanInputs {
        config: RestrictionConfig {
            project_role_arn: PROJECT_ROLE.into(),
            namespaces: contract.eks_namespaces.clone(),
            mode,
            access_policies: vec!["AmazonSagemakerHyperpodTrainingPolicy".into()],
            space_templates: false,
            space_template_namespace: "jupyter-k8s-shared".into(),
            user_cluster_policy: true,
            kubernetes_group: "hyperpod-studio-research".into(),
            slurm_os_user: None,
        },
        contract,
        mode_known: true,
        grants_known: true,
        tenants: RestrictionTenants::default(),
        cluster: RestrictionCluster {
            name: "ml-capacity".into(),
            arn: "arn:aws:sagemaker:us-west-2:111122223333:cluster/abc123".into(),
            eks_name: Some("ml-capacity-eks".into()),
        },
        live: Some(RestrictionLiveFacts {
            facts: RestrictionFacts::Eks {
                entries: Fact::Known(Vec::new()),
                eks: examples::eks("API", false, &[]),
            },
            absent_namespaces: None,
        }),
        partition: "aws".into(),
        today: examples::today(),
    }
}

fn planned() -> Value {
    schema().block.null_value()
}

fn tenant(team: &str, cluster_name: &str) -> Referenced<TenantCapacity> {
    Referenced {
        at: crate::protocol::diagnostics::AttributePath::attr(TENANTS).index(0),
        cluster_name: cluster_name.into(),
        item: TenantCapacity {
            team: team.into(),
            quota: Vec::new(),
            sharing: None,
        },
    }
}

#[test]
fn a_restriction_every_rule_admits_plans_its_access_policies_and_checklist() {
    let inputs = inputs(RestrictionMode::AccessPolicy);
    let verdict = judge(&inputs, false).expect("every rule passes");
    assert!(verdict.diagnostics.0.is_empty(), "{:?}", verdict.diagnostics);
    let mut value = planned();
    predict(&inputs, &verdict.report, Some(false), &mut value);
    assert_eq!(
        value.get_attr("id"),
        Some(&text("ml-capacity/datazone_usr_role_abc123"))
    );
    assert_eq!(value.get_attr("orchestrator"), Some(&text("eks")));
    assert_eq!(value.get_attr("private_data_conf"), Some(&Value::Null));
    assert_eq!(
        value.get_attr("namespaces"),
        Some(&text_list(&["hyperpod-ns-research".to_string()]))
    );
    let Some(Value::Map(components)) = value.get_attr("components") else {
        panic!("{value:?}")
    };
    let keys: Vec<&str> = components.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "access_entry",
            "access_policy/AmazonSagemakerHyperpodTrainingPolicy",
            "access_policy/AmazonSagemakerHyperpodUserClusterPolicy",
        ]
    );
    assert_eq!(components[&Component::ProjectAccessEntry.key()], text(PROJECT_ROLE));
    let Some(Value::String(passed)) = value.get_attr("passed_checks") else {
        panic!("{value:?}")
    };
    assert!(passed.contains("CLU-3") && passed.contains("WKL-12"), "{passed}");
}

#[test]
fn an_unknown_grant_or_an_entry_the_plan_cannot_read_leaves_components_unknown() {
    let mut inputs = inputs(RestrictionMode::AccessPolicy);
    let verdict = judge(&inputs, false).expect("every rule passes");
    let mut value = planned();
    predict(&inputs, &verdict.report, None, &mut value);
    assert_eq!(value.get_attr("components"), Some(&Value::Unknown));
    inputs.grants_known = false;
    let mut value = planned();
    predict(&inputs, &verdict.report, Some(true), &mut value);
    assert_eq!(value.get_attr("components"), Some(&Value::Unknown));
    assert_eq!(
        value.get_attr("id"),
        Some(&text("ml-capacity/datazone_usr_role_abc123"))
    );
}

#[test]
fn a_cluster_orchestrated_otherwise_than_the_contract_says_fails_clu_1() {
    let mut inputs = inputs(RestrictionMode::AccessPolicy);
    inputs.cluster.eks_name = None;
    inputs.live = None;
    let errors = judge(&inputs, false).expect_err("CLU-1");
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].path.to_string(), "contract.orchestrator");
    assert!(
        errors.0[0]
            .detail
            .contains(r#"[CLU-1] cluster "ml-capacity" is orchestrated by slurm"#),
        "{}",
        errors.0[0].detail
    );
}

#[test]
fn rbac_mode_is_refused_for_a_namespace_that_neither_exists_nor_is_a_referenced_tenant_s() {
    let mut inputs = inputs(RestrictionMode::Rbac);
    if let Some(live) = &mut inputs.live {
        live.absent_namespaces = Some(Ok(vec!["hyperpod-ns-research".into()]));
    }
    let errors = judge(&inputs, false).expect("a verdict").refusals;
    assert_eq!(errors.0.len(), 1);
    assert_eq!(
        errors.0[0].summary,
        r#"Namespace "hyperpod-ns-research" does not exist"#
    );
    assert!(
        errors.0[0].detail.contains("does not exist at plan"),
        "{}",
        errors.0[0].detail
    );
}

#[test]
fn a_referenced_tenant_of_another_cluster_is_refused_at_its_reference_whatever_the_mode() {
    let mut inputs = inputs(RestrictionMode::AccessPolicy);
    inputs.tenants.known = vec![tenant("research", "other-cluster")];
    let errors = judge(&inputs, false).expect("a verdict").refusals;
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].path.to_string(), "tenants[0]");
}

#[test]
fn rbac_mode_with_tenants_unknown_warns_that_apply_checks_the_namespaces() {
    let mut inputs = inputs(RestrictionMode::Rbac);
    inputs.tenants.unknown = true;
    let verdict = judge(&inputs, false).expect("a warning only");
    assert_eq!(verdict.diagnostics.0.len(), 1);
    assert!(
        verdict.diagnostics.0[0]
            .detail
            .starts_with("`tenants` is not known until apply."),
        "{}",
        verdict.diagnostics.0[0].detail
    );
    let mut value = planned();
    predict(&inputs, &verdict.report, Some(false), &mut value);
    let Some(Value::Map(components)) = value.get_attr("components") else {
        panic!("{value:?}")
    };
    let groups: BTreeMap<&String, &Value> = components
        .iter()
        .filter(|(key, _)| key.starts_with("access_entry_group/"))
        .collect();
    assert_eq!(groups.len(), 1, "{components:?}");
}

#[test]
fn groups_fit_the_probe_cluster_role_name() {
    assert!(group_problem("hyperpod-studio-research").is_none());
    assert!(group_problem(&"g".repeat(GROUP_MAX)).is_none());
    assert!(group_problem(&"g".repeat(GROUP_MAX + 1)).is_some());
    assert!(group_problem("a..b").is_some() && group_problem("-a").is_some());
}

#[test]
fn an_unknown_argument_is_never_read_as_unset() {
    use crate::protocol::object::{object, text, text_list};
    let mut full = schema().block.null_value();
    for (name, field) in [
        ("project_role_arn", text("arn:aws:iam::123456789012:role/p")),
        ("namespaces", text_list(&["hyperpod-ns-research".to_string()])),
        ("mode", text("rbac")),
        (
            "access_policies",
            text_list(&["AmazonSagemakerHyperpodTrainingPolicy".to_string()]),
        ),
        ("space_templates", Value::Bool(true)),
        ("kubernetes_group", text("studio")),
        ("slurm", object([("os_user", text("alice"))])),
    ] {
        crate::protocol::plan::set_attr(&mut full, name, field);
    }
    let decode = |value: &Value| RestrictionConfig::from_value(value, None, &[]);
    assert!(decode(&full).is_some(), "the baseline decodes");
    let wrong = crate::resources::decode_property::unknown_read_as_unset(
        &schema().block,
        &full,
        // the contract's facts: `contract_from_governance`, which defers on unknown; the tenants: read by
        // `RestrictionTenants::decode` (`order.rs`), which defers the namespace check on unknown
        &["contract", "tenants"],
        decode,
    );
    assert!(wrong.is_empty(), "read as unset while unknown: {wrong:?}");
}
