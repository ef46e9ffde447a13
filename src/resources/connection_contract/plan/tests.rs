//! The contract's plan without a sandbox: inputs built by hand (the engine's example contract and the live facts
//! that agree with it), the verdict and the planned attributes.

use std::collections::BTreeMap;

use super::super::model::partials::PARTIALS;
use super::super::model::{ContractConfig, DERIVED, RecordedContract};
use super::ContractPlanInputs;
use super::judge::{ContractVerdict, judge};
use super::predict::predict;
use crate::governance::examples::{self, contract};
use crate::governance::{ContractLiveFacts, Fact, Orchestrator, ReviewStatus};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::{object, text};
use crate::protocol::value::Value;

/// What the account says, agreeing with the example contract.
fn live() -> ContractLiveFacts {
    ContractLiveFacts {
        cluster: examples::live_cluster(examples::CAPACITY_ACCOUNT, "us-west-2", Orchestrator::Eks),
        project: examples::live_project("research_unit", Some(examples::PROJECT_ROLE)),
        project_role: examples::read_only_role(examples::PROJECT_ROLE),
        access_role: examples::read_only_role(examples::ACCESS_ROLE),
        eks: Some(examples::eks("API_AND_CONFIG_MAP", false, &[])),
        observability_addon: Some(examples::addon("v2.4.0-eksbuild.1", "ACTIVE")),
        node_roles: Some(examples::node_roles(true)),
    }
}

fn inputs() -> ContractPlanInputs {
    let contract = contract();
    ContractPlanInputs {
        config: ContractConfig {
            name: Some(contract.name.clone()),
            strict: None,
            unknown: Vec::new(),
            contract: Some(contract),
            unknown_arguments: Vec::new(),
        },
        prior: None,
        live: Some(live()),
        caller_arn: "arn:aws:sts::111122223333:assumed-role/ci-deployer/run-1".into(),
        today: examples::today(),
        strict: false,
    }
}

/// The state of the contract as applied, with `approved_facts` as given.
fn recorded(approved_facts: BTreeMap<String, String>, review_status: &str) -> RecordedContract {
    RecordedContract {
        contract: Some(contract()),
        approved_facts: Some(approved_facts),
        review_status: Some(review_status.into()),
        facts_changed: false,
    }
}

fn planned() -> Value {
    let mut fields = vec![("name", text("research-on-ml-capacity")), ("id", Value::Unknown)];
    fields.extend(DERIVED.iter().map(|name| (*name, Value::Unknown)));
    object(fields)
}

fn judged(inputs: &ContractPlanInputs) -> Value {
    let verdict = judge(inputs);
    let mut value = planned();
    predict(inputs, &verdict, &mut value);
    value
}

#[test]
fn a_contract_the_account_agrees_with_is_current_and_records_the_facts_it_was_approved_against() {
    let inputs = inputs();
    let ContractVerdict::Judged(judgement) = judge(&inputs) else {
        panic!("judged")
    };
    assert_eq!(judgement.status, ReviewStatus::Current);
    assert!(judgement.changed.is_empty());
    let value = judged(&inputs);
    assert_eq!(value.get_attr("id"), Some(&text("research-on-ml-capacity")));
    assert_eq!(value.get_attr("review_status"), Some(&text("current")));
    assert_eq!(value.get_attr("changed_facts"), Some(&Value::Null));
    let Some(Value::Map(approved)) = value.get_attr("approved_facts") else {
        panic!("{value:?}")
    };
    assert_eq!(
        approved.get("cluster"),
        Some(&text("arn:aws:sagemaker:us-west-2:111122223333:cluster/mlcapeks0001"))
    );
    let governance = value.get_attr("governance").expect("governance");
    assert_eq!(governance.get_attr("review_status"), Some(&text("current")));
    assert_eq!(governance.get_attr("cluster_name"), Some(&text("ml-capacity")));
}

#[test]
fn a_cluster_that_does_not_exist_is_refused_by_org_3_and_clu_1_is_not_checked() {
    let mut inputs = inputs();
    if let Some(live) = &mut inputs.live {
        live.cluster = Fact::Known(None);
    }
    let (warnings, refusals) = judge(&inputs).outcome();
    let summaries = |d: &Diagnostics| d.0.iter().map(|d| d.summary.clone()).collect::<Vec<_>>();
    assert!(
        summaries(&refusals).iter().any(|s| s.starts_with("[ORG-3]")),
        "{:?}",
        summaries(&refusals)
    );
    assert!(
        summaries(&warnings).iter().any(|s| s.starts_with("[CLU-1]")),
        "{:?}",
        summaries(&warnings)
    );
}

#[test]
fn a_value_known_only_at_apply_defers_every_rule_with_a_warning_and_a_refusal_only_under_strict() {
    let mut inputs = inputs();
    inputs.config.contract = None;
    inputs.config.unknown_arguments = vec!["approved_workload_types".into()];
    let (warnings, refusals) = judge(&inputs).outcome();
    assert!(refusals.is_empty(), "{refusals:?}");
    assert_eq!(warnings.0.len(), 1);
    assert!(warnings.0[0].summary.starts_with("[all rules] not checked at plan"));
    inputs.strict = true;
    let (warnings, refusals) = judge(&inputs).outcome();
    assert!(
        warnings.is_empty() && refusals.0.len() == 1,
        "{warnings:?} {refusals:?}"
    );
}

#[test]
fn a_fact_that_moved_since_approval_requires_review_and_names_the_change() {
    let mut inputs = inputs();
    let approved = BTreeMap::from([(
        "cluster".to_string(),
        "arn:aws:sagemaker:us-west-2:111122223333:cluster/before".to_string(),
    )]);
    inputs.prior = Some(recorded(approved.clone(), "current"));
    let value = judged(&inputs);
    assert_eq!(value.get_attr("review_status"), Some(&text("review_required")));
    let Some(Value::Map(changed)) = value.get_attr("changed_facts") else {
        panic!("{value:?}")
    };
    assert_eq!(
        changed.get("cluster"),
        Some(&text("arn:aws:sagemaker:us-west-2:111122223333:cluster/mlcapeks0001"))
    );
    // The facts stand approved as recorded until a re-approval.
    let Some(Value::Map(kept)) = value.get_attr("approved_facts") else {
        panic!("{value:?}")
    };
    assert_eq!(kept.get("cluster"), Some(&text(&approved["cluster"])));
}

#[test]
fn an_unknown_material_argument_on_an_update_leaves_what_it_decides_unknown() {
    let mut inputs = inputs();
    inputs.prior = Some(recorded(BTreeMap::new(), "current"));
    let namespaces = (PARTIALS.iter())
        .find(|p| (p.path)().to_string() == "eks_namespaces")
        .expect("partial");
    inputs.config.unknown = vec![namespaces];
    let value = judged(&inputs);
    assert_eq!(value.get_attr("review_status"), Some(&Value::Unknown));
    assert_eq!(value.get_attr("approved_facts"), Some(&Value::Unknown));
    let governance = value.get_attr("governance").expect("governance");
    assert_eq!(governance.get_attr("eks_namespaces"), Some(&Value::Unknown));
    assert_eq!(governance.get_attr("review_status"), Some(&Value::Unknown));
}

#[test]
fn a_contract_that_cannot_be_decoded_defers_every_rule_and_names_what_is_unknown() {
    let mut inputs = inputs();
    inputs.config.contract = None;
    inputs.live = None;
    inputs.config.unknown_arguments = vec!["owners".into(), "review".into()];
    let verdict = judge(&inputs);
    let ContractVerdict::Deferred(warnings) = &verdict else {
        panic!("deferred")
    };
    assert!(
        warnings.0[0].detail.contains("owners, review not known until apply"),
        "{:?}",
        warnings.0[0]
    );
    let mut value = planned();
    predict(&inputs, &verdict, &mut value);
    assert_eq!(value.get_attr("id"), Some(&text("research-on-ml-capacity")));
    for name in DERIVED.iter() {
        assert_eq!(value.get_attr(name), Some(&Value::Unknown), "{name}");
    }
}
