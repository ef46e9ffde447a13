//! The binding's plan without a sandbox: inputs built by hand (the engine's example contract, project and cluster
//! view, which every rule accepts), the verdict and the planned attributes.

use super::super::model::{BindingConfig, RecordedBinding};
use super::BindingPlanInputs;
use super::gather::BindingCluster;
use super::judge::judge;
use super::predict::{predict, replacements};
use crate::aws::datazone_connections::Connection;
use crate::governance::examples::{self, PROJECT_ROLE};
use crate::governance::{Fact, Member, MemberKind};
use crate::protocol::diagnostics::Severity;
use crate::protocol::object::{object, text};
use crate::protocol::value::Value;
use crate::resources::project_facts::ProjectFacts;

const CLUSTER_ARN: &str = "arn:aws:sagemaker:us-west-2:111122223333:cluster/mlcapeks0001";

fn inputs() -> BindingPlanInputs {
    BindingPlanInputs {
        config: BindingConfig {
            project_id: "prj-research".into(),
            cluster_name: "ml-capacity".into(),
            project_role_arn: PROJECT_ROLE.into(),
            domain_id: None,
            connection_name: None,
            description: None,
            members: vec![Member {
                kind: MemberKind::Group,
                name: "research-scientists".into(),
                designation: "PROJECT_CONTRIBUTOR".into(),
            }],
        },
        contract: examples::contract(),
        domain_id: "dzd_abc123".into(),
        cluster: BindingCluster {
            arn: CLUSTER_ARN.into(),
            name: "ml-capacity".into(),
            orchestrator: "EKS",
        },
        view: examples::view(),
        project: ProjectFacts {
            project: examples::live_project("research_unit", Some(PROJECT_ROLE)),
            tooling_environment_id: Fact::Known(Some("env-tooling".into())),
        },
        connections: Vec::new(),
        memberships: Some(Vec::new()),
        profiles: vec![Ok("profile-research-scientists".into())],
        unlisted: Vec::new(),
        prior: None,
        today: examples::today(),
        strict: false,
    }
}

fn connection(id: &str) -> Connection {
    Connection {
        id: id.into(),
        domain_id: "dzd_abc123".into(),
        name: "hyperpod-ml-capacity-prj-research".into(),
        project_id: Some("prj-research".into()),
        cluster_name: Some("ml-capacity".into()),
        ..Connection::default()
    }
}

fn summaries(inputs: &BindingPlanInputs) -> Vec<String> {
    let verdict = judge(inputs);
    verdict.warnings.0.iter().map(|d| d.summary.clone()).collect()
}

#[test]
fn a_binding_every_layer_agrees_on_plans_where_the_connection_goes() {
    let inputs = inputs();
    let verdict = judge(&inputs);
    assert!(verdict.warnings.0.iter().all(|d| d.severity != Severity::Error));
    let planned = predict(&inputs, &verdict);
    assert_eq!(planned["domain_id"], text("dzd_abc123"));
    assert_eq!(planned["connection_name"], text("hyperpod-ml-capacity-prj-research"));
    assert_eq!(planned["environment_id"], text("env-tooling"));
    assert_eq!(planned["cluster_arn"], text(CLUSTER_ARN));
    assert_eq!(planned["orchestrator"], text("EKS"));
    // Created at apply: no identity yet.
    assert_eq!(planned["id"], Value::Unknown);
    assert_eq!(planned["connection_id"], Value::Unknown);
    let Value::String(passed) = &planned["passed_checks"] else {
        panic!("{planned:?}")
    };
    assert!(passed.contains("PRJ-3") && passed.contains("CLU-2"), "{passed}");
}

#[test]
fn a_project_without_a_tooling_environment_fails_at_project_id() {
    let mut inputs = inputs();
    inputs.project.tooling_environment_id = Fact::Known(None);
    let refusals = judge(&inputs).refusals;
    let paths: Vec<String> = refusals.0.iter().map(|d| d.path.to_string()).collect();
    assert_eq!(paths, ["project_id"]);
}

#[test]
fn an_unread_environment_is_known_after_apply() {
    let mut inputs = inputs();
    inputs.project.tooling_environment_id = Fact::Unavailable("AccessDenied".into());
    let verdict = judge(&inputs);
    assert_eq!(predict(&inputs, &verdict)["environment_id"], Value::Unknown);
}

#[test]
fn a_connection_no_binding_manages_is_named_and_the_recorded_one_is_not() {
    let mut inputs = inputs();
    inputs.connections = vec![connection("c1")];
    inputs.unlisted = vec!["ThrottlingException".into()];
    assert_eq!(
        summaries(&inputs),
        [
            "HyperPod connections not checked",
            "HyperPod connections without a contract"
        ]
    );
    inputs.unlisted.clear();
    inputs.prior = Some(RecordedBinding {
        id: Some("dzd_abc123/c1".into()),
        connection_id: Some("c1".into()),
        connection_name: Some("made-in-the-console".into()),
        members: Vec::new(),
    });
    assert!(summaries(&inputs).is_empty());
    let verdict = judge(&inputs);
    let planned = predict(&inputs, &verdict);
    assert_eq!(planned["id"], text("dzd_abc123/c1"));
    assert_eq!(planned["connection_id"], text("c1"));
    // An imported connection keeps its name while the configuration leaves connection_name unset.
    assert_eq!(planned["connection_name"], text("made-in-the-console"));
}

#[test]
fn a_binding_whose_connection_is_gone_or_moved_is_replaced() {
    let prior = object([
        ("cluster_arn", Value::Null),
        ("environment_id", text("env-before")),
        ("description", text("research")),
    ]);
    let planned = object([
        ("cluster_arn", text(CLUSTER_ARN)),
        ("environment_id", text("env-tooling")),
        ("description", Value::Null),
    ]);
    let replaced: Vec<String> = replacements(&prior, &planned).iter().map(ToString::to_string).collect();
    assert_eq!(replaced, ["cluster_arn", "environment_id", "description"]);
    assert!(replacements(&planned, &planned).is_empty());
}
