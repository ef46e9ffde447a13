//! A tenant's plan without a sandbox: `TenantPlanInputs` built by hand, then the verdict (`judge`) and the planned
//! state (`predict`), as `modify_plan` would plan them.

use std::collections::BTreeMap;

use super::gather::{ExistingQuota, PlanContext, TenantPlanInputs, TenantReferences};
use super::judge::judge;
use super::predict::{predict, predicted_components};
use crate::aws::compute_quota::ComputeQuota;
use crate::aws::sagemaker::{ClusterOrchestrator, HyperPodCluster, InstanceGroup};
use crate::governance::examples;
use crate::governance::{
    Check, Fact, Orchestrator, Phase, QuotaShare, RuleId, Setting, Sharing, SharingStrategy, TenantCapacity,
};
use crate::protocol::object::text;
use crate::protocol::value::Value;
use crate::resources::cluster_facts::{ClusterFacts, TaskGovernanceAddon};
use crate::resources::references::{PolicyReference, References};
use crate::resources::tenant::model::manifests::tests::spec;
use crate::resources::tenant::model::{SlurmAccountConfig, TenantConfig};

const CLUSTER_ARN: &str = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdef123456";

fn cluster(orchestrator: ClusterOrchestrator, p5_instances: i32) -> HyperPodCluster {
    HyperPodCluster {
        name: "ml-capacity".into(),
        arn: CLUSTER_ARN.into(),
        status: "InService".into(),
        orchestrator,
        instance_groups: vec![InstanceGroup {
            name: "p5".into(),
            instance_type: "ml.p5.48xlarge".into(),
            current_count: p5_instances,
            target_count: p5_instances,
            execution_role: "arn:aws:iam::111122223333:role/hyperpod-nodes".into(),
            kubernetes_labels: BTreeMap::new(),
        }],
    }
}

fn eks() -> ClusterOrchestrator {
    ClusterOrchestrator::Eks {
        eks_cluster_arn: "arn:aws:eks:us-west-2:111122223333:cluster/ml-capacity-eks".into(),
    }
}

/// The research team: p5 instances guaranteed, lending its idle capacity, at its own priority class.
fn config(instances: i64) -> TenantConfig {
    let mut config = spec();
    config.quota = vec![examples::share("ml.p5.48xlarge", instances)];
    config.sharing = Some(Sharing {
        strategy: SharingStrategy::Lend,
        borrow_limit: None,
        absolute_borrow_limits: Vec::new(),
    });
    config.priority_class = Some("research".into());
    config.fair_share_weight = Some(10);
    config
}

fn inputs(config: TenantConfig, cluster: HyperPodCluster) -> TenantPlanInputs {
    TenantPlanInputs {
        handoff: Value::Unknown,
        role_name: "hyperpod-ml-capacity-research".into(),
        cluster: ClusterFacts {
            cluster,
            tenants: Fact::Known(Vec::new()),
            projects: Fact::Unavailable("not read for this resource".into()),
            scheduling_policy: Fact::Known(Some(examples::policy(&["production", "research"], true))),
            access_entries: Fact::Known(Vec::new()),
        },
        references: TenantReferences {
            lenders: References::default(),
            allocation: examples::allocation(&[("research", config.quota[0].count.unwrap_or(0))]),
            // Referenced, as the docs teach: the live policy is not counted in what the plan records.
            policy: PolicyReference::Known(examples::policy(&["production", "research"], true)),
        },
        task_governance: Some(TaskGovernanceAddon {
            eks_cluster: "ml-capacity-eks".into(),
            addon: examples::addon("v1.0.0-eksbuild.1", "ACTIVE"),
        }),
        existing_quota: ExistingQuota::None,
        context: PlanContext {
            partition: "aws".into(),
            default_tags: BTreeMap::new(),
            strict: false,
            phase: Phase::Plan,
            today: examples::today(),
            prior_components: BTreeMap::new(),
            prior_quota_arn: None,
        },
        contract: examples::contract(),
        config,
    }
}

#[test]
fn a_tenant_that_fits_is_judged_on_every_rule_and_each_object_is_named_before_it_exists() {
    let inputs = inputs(config(2), cluster(eks(), 4));
    let verdict = judge(&inputs).unwrap_or_else(|errors| panic!("{errors:?}"));
    let planned = predict(&inputs, &verdict);
    let Value::String(passed) = &planned["passed_checks"] else {
        panic!("{planned:?}")
    };
    for rule in ["WKL-3", "WKL-4", "CLU-6", "CLU-10"] {
        assert!(passed.split(' ').any(|id| id == rule), "{rule} not in {passed}");
    }
    assert_eq!(planned["id"], text("ml-capacity/research"));
    assert_eq!(planned["namespace"], text("hyperpod-ns-research"));
    assert_eq!(
        planned["workload_role_arn"],
        text("arn:aws:iam::111122223333:role/hyperpod-ml-capacity-research")
    );
    // Names known now, IDs AWS assigns unknown until apply.
    assert_eq!(planned["compute_quota_arn"], Value::Unknown);
    let Value::Map(components) = &planned["components"] else {
        panic!("{planned:?}")
    };
    assert_eq!(components["iam_role"], text("hyperpod-ml-capacity-research"));
    assert_eq!(components["compute_quota"], Value::Unknown);
    assert!(components.contains_key("kubernetes/NetworkPolicy/hyperpod-tenant-default-deny"));
    assert_eq!(planned["slurm_artefacts"], Value::Null);
}

#[test]
fn a_quota_whose_allocation_entry_the_instance_groups_cannot_hold_is_the_allocations_to_refuse() {
    // The allocation gives research 6 of 4 p5 instances and the tenant asks for exactly that: the split is the
    // allocation's, refused there at its entry (`cluster_allocation::plan`); the tenant does not report it again.
    let inputs = inputs(config(6), cluster(eks(), 4));
    let verdict = judge(&inputs).expect("a verdict");
    assert!(
        verdict.refusals.is_empty() && verdict.live_refusals.is_empty(),
        "{verdict:?}"
    );
    let wkl_3 = verdict.report.check(RuleId::Wkl3).expect("WKL-3 judged");
    let crate::governance::Outcome::NotApplicable { why } = &wkl_3.outcome else {
        panic!("{wkl_3:?}")
    };
    assert!(why.contains("hyperpod_cluster_allocation"), "{why}");
    // Without an allocation the tenant itself is refused, in the live judgement and at apply.
    let mut alone = self::inputs(config(6), cluster(eks(), 4));
    alone.references.allocation = Setting::Unset;
    let verdict = judge(&alone).expect("a verdict");
    let refused: Vec<String> = verdict
        .refusals
        .iter()
        .chain(verdict.live_refusals.iter())
        .filter(|d| d.summary.starts_with("[WKL-3]"))
        .map(|d| d.path.to_string())
        .collect();
    assert_eq!(refused, ["quota[0].count"], "{verdict:?}");
}

/// research asking 2 of the cluster's 4 p5 instances while another team's live quota holds 3.
fn beside_an_outsider_holding_three_of_four() -> TenantPlanInputs {
    let mut inputs = inputs(config(2), cluster(eks(), 4));
    inputs.cluster.tenants = Fact::Known(vec![TenantCapacity {
        team: "outsider".into(),
        quota: vec![QuotaShare::instances("ml.p5.48xlarge", 3)],
        sharing: None,
    }]);
    inputs
}

#[test]
fn a_live_quota_that_leaves_no_room_is_a_refusal_on_live_state_and_not_in_the_checklist() {
    // Four p5 of which another team holds three live: the allocation (research 2) fits the groups, the live
    // cluster does not. What the plan records must read the same at apply, whatever another pipeline did
    // meanwhile: WKL-3 passes there; the live overcommit is a refusal apply judges again.
    let inputs = beside_an_outsider_holding_three_of_four();
    let verdict = judge(&inputs).expect("a verdict");
    assert!(verdict.refusals.is_empty(), "{verdict:?}");
    let [live] = &verdict.live_refusals.0[..] else {
        panic!("{verdict:?}")
    };
    assert!(
        live.summary.starts_with("[WKL-3]") && live.detail.contains("outsider"),
        "{live:?}"
    );
    assert!(
        verdict.report.check(RuleId::Wkl3).is_some_and(Check::is_passed),
        "{verdict:?}"
    );
}

#[test]
fn the_quota_an_interrupted_apply_left_is_judged_by_the_claim_check_not_refused_at_plan() {
    // The same live overcommit, but the tenant's own quota is already there (an apply died in its claim window):
    // a refusal would stop the apply that adopts and withdraws it, so the quota would stay for good. A warning
    // says what apply will do instead.
    let mut inputs = beside_an_outsider_holding_three_of_four();
    inputs.existing_quota = ExistingQuota::Own;
    let verdict = judge(&inputs).expect("a verdict");
    assert!(
        verdict.refusals.is_empty() && verdict.live_refusals.is_empty(),
        "{verdict:?}"
    );
    let [warning] = &verdict.warnings.0[..] else {
        panic!("{verdict:?}")
    };
    assert!(
        warning.summary.starts_with("[WKL-3]") && warning.detail.contains("withdraws it"),
        "{warning:?}"
    );
    // `strict` refuses warnings of rules; this one is not a rule's verdict, so the apply that withdraws still runs.
    inputs.context.strict = true;
    let verdict = judge(&inputs).expect("a verdict");
    assert!(
        verdict.refusals.is_empty() && verdict.live_refusals.is_empty(),
        "{verdict:?}"
    );
}

#[test]
fn a_compute_quota_of_the_team_that_is_not_the_tenants_is_refused_at_team() {
    let mut inputs = inputs(config(2), cluster(eks(), 4));
    inputs.existing_quota = ExistingQuota::Foreign(Box::new(ComputeQuota {
        name: "research-quota".into(),
        id: "q1234567890a".into(),
        team_name: "research".into(),
        ..ComputeQuota::default()
    }));
    let refusals = judge(&inputs).expect("a verdict").refusals;
    assert_eq!(refusals.0.len(), 1, "{refusals:?}");
    assert_eq!(refusals.0[0].path.to_string(), "team");
    assert!(
        refusals.0[0].detail.contains("terraform import"),
        "{}",
        refusals.0[0].detail
    );
}

#[test]
fn a_contract_that_names_another_orchestrator_fails_clu_1_at_the_contract() {
    let mut inputs = inputs(config(2), cluster(eks(), 4));
    inputs.contract.cluster.orchestrator = Orchestrator::Slurm;
    let errors = judge(&inputs).expect_err("EKS cluster, Slurm contract");
    assert_eq!(errors.0[0].path.to_string(), "contract.orchestrator");
    assert!(errors.0[0].detail.contains("[CLU-1]"), "{}", errors.0[0].detail);
}

#[test]
fn a_slurm_tenant_plans_its_accounting_and_no_eks_object() {
    let mut config = config(2);
    config.workload = None;
    config.sharing = None;
    config.slurm = Some(SlurmAccountConfig {
        users: vec!["alice".into()],
        ..SlurmAccountConfig::default()
    });
    let mut inputs = inputs(config, cluster(ClusterOrchestrator::Slurm, 4));
    inputs.contract = examples::slurm_contract();
    inputs.task_governance = None;
    inputs.references.allocation = Setting::Unset;
    let verdict = judge(&inputs).unwrap_or_else(|errors| panic!("{errors:?}"));
    let planned = predict(&inputs, &verdict);
    assert_eq!(planned["components"], Value::Map(BTreeMap::new()));
    assert_eq!(planned["namespace"], Value::Null);
    let Some(Value::String(account)) = planned["slurm_artefacts"].get_attr("account") else {
        panic!("{planned:?}")
    };
    assert_eq!(account, "research");
}

#[test]
fn predictions_name_every_object_and_leave_aws_ids_unknown() {
    let mut spec = spec();
    spec.viewer_principal_arns = vec!["arn:aws:iam::123456789012:role/research-viewers".into()];
    spec.data.kms_keys = vec!["arn:aws:kms:us-west-2:123456789012:key/k".into()];
    let components = predicted_components(&spec, "hyperpod-ml-capacity-research", "aws", &BTreeMap::new());
    assert_eq!(components["iam_role"], text("hyperpod-ml-capacity-research"));
    assert_eq!(
        components["iam_policy/hyperpod-tenant-data"],
        text("hyperpod-ml-capacity-research")
    );
    let Value::String(deny) = &components["kubernetes/NetworkPolicy/hyperpod-tenant-default-deny"] else {
        panic!("{components:?}")
    };
    let (namespace, digest) = deny.split_once('@').unwrap_or_default();
    assert_eq!(namespace, "hyperpod-ns-research");
    assert!(
        digest.len() == 8 && digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{deny}"
    );
    assert_eq!(components["compute_quota"], Value::Unknown);
    assert_eq!(components["pod_identity_association"], Value::Unknown);
    assert_eq!(
        components["kms_grant/arn:aws:kms:us-west-2:123456789012:key/k"],
        Value::Unknown
    );
    assert!(components.contains_key("access_entry/arn:aws:iam::123456789012:role/research-viewers"));
}

#[test]
fn recorded_ids_are_kept_and_a_missing_component_is_planned_again() {
    let spec = spec();
    let prior: BTreeMap<String, String> = [("compute_quota".to_string(), "abcdef123456".to_string())].into();
    let components = predicted_components(&spec, "r", "aws", &prior);
    assert_eq!(components["compute_quota"], text("abcdef123456"));
    // Deleted out of band: not in the recorded components, so the plan shows it (unknown until re-created).
    assert_eq!(components["pod_identity_association"], Value::Unknown);
}

#[test]
fn a_quota_raised_outside_terraform_that_overcommits_the_cluster_is_named_beside_the_change_that_restores_it() {
    // Four p5; the allocation and the configuration give research 2; live, someone raised it to 6.
    let mut inputs = inputs(config(2), cluster(eks(), 4));
    inputs.cluster.tenants = Fact::Known(vec![TenantCapacity {
        team: "research".into(),
        quota: vec![QuotaShare::instances("ml.p5.48xlarge", 6)],
        sharing: None,
    }]);
    let verdict = judge(&inputs).expect("a verdict");
    assert!(
        verdict.refusals.is_empty() && verdict.live_refusals.is_empty(),
        "{verdict:?}"
    );
    let drift: Vec<_> = verdict
        .warnings
        .iter()
        .filter(|d| d.summary.starts_with("[WKL-3]"))
        .collect();
    let [warning] = drift[..] else { panic!("{verdict:?}") };
    assert_eq!(warning.path.to_string(), "quota[0].count");
    assert!(
        warning.summary.ends_with("(live, set outside Terraform)"),
        "{}",
        warning.summary
    );
    assert!(
        warning.detail.contains("6 instances") && warning.detail.contains("restores"),
        "{}",
        warning.detail
    );
    // The same quota live as configured: nothing to name.
    inputs.cluster.tenants = Fact::Known(vec![TenantCapacity {
        team: "research".into(),
        quota: vec![QuotaShare::instances("ml.p5.48xlarge", 2)],
        sharing: None,
    }]);
    let clean = judge(&inputs).expect("a verdict");
    assert!(clean.warnings.is_empty(), "{clean:?}");
}

/// A verdict as a reviewer reads it: each rule's outcome (without its wording) and where each finding points.
fn verdict_of(config: &Value) -> Vec<(String, String)> {
    let config = TenantConfig::from_value(config).expect("a wholly known configuration decodes");
    let verdict = judge(&inputs(config, cluster(eks(), 8))).unwrap_or_else(|errors| panic!("{errors:?}"));
    verdict
        .report
        .checks
        .iter()
        .map(|check| {
            let outcome = match &check.outcome {
                crate::governance::Outcome::Failed(findings) => {
                    let paths: Vec<String> = findings.iter().map(|f| f.path.to_string()).collect();
                    format!("failed at {}", paths.join(", "))
                }
                other => format!("{other:?}")
                    .split([' ', '{', '('])
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            };
            (check.rule.id().to_string(), outcome)
        })
        .collect()
}

/// The effective configuration decides, not its spelling: every input a rule reads that SageMaker (or EKS) gives a
/// default when it is left out — the sharing (WKL-5, WKL-12), the borrow limit (WKL-5), the fair-share weight
/// (WKL-6), the NetworkPolicy block (WKL-8), session tags (WKL-9) — plans one verdict written out or not. (Defaults
/// of the schema itself, such as the verbs, are filled in by the protocol before any rule reads them.)
#[test]
fn a_default_written_out_or_left_out_is_one_verdict() {
    use crate::protocol::object::object;
    let base = || {
        vec![
            ("team", text("research")),
            (
                "quota",
                Value::List(vec![object([
                    ("instance_type", text("ml.p5.48xlarge")),
                    ("count", Value::from(2_i64)),
                ])]),
            ),
            ("priority_class", text("research")),
            ("preempt_team_tasks", text("LowerPriority")),
            ("activation_state", text("Enabled")),
            ("viewer_groups", Value::List(vec![text("research-viewers")])),
            ("operator_groups", Value::List(vec![text("research-operators")])),
            ("viewer_verbs", Value::List(["get", "list", "watch"].map(text).to_vec())),
            ("operator_verbs", Value::List(["create", "delete"].map(text).to_vec())),
            ("workload", object([("service_account", text("research"))])),
        ]
    };
    let with = |extra: Vec<(&'static str, Value)>| {
        let mut attributes = base();
        for (name, value) in extra {
            attributes.retain(|(n, _)| *n != name);
            attributes.push((name, value));
        }
        object(attributes)
    };
    let sharing = |strategy: &str, limit: Option<i64>| {
        object([
            ("strategy", text(strategy)),
            ("borrow_limit", limit.map_or(Value::Null, Value::from)),
        ])
    };
    let spaces = object([("priority_class", text("production"))]);
    // (what the case shows, the attributes left out, the same written out)
    type Spelling = Vec<(&'static str, Value)>;
    let cases: Vec<(&str, Spelling, Spelling)> = vec![
        (
            "no sharing block is SageMaker's LendAndBorrow, 50 %",
            vec![],
            vec![("sharing", sharing("LendAndBorrow", Some(50)))],
        ),
        (
            "a LendAndBorrow block without borrow_limit borrows 50 %",
            vec![("sharing", sharing("LendAndBorrow", None))],
            vec![("sharing", sharing("LendAndBorrow", Some(50)))],
        ),
        (
            "no fair-share weight is weight 0",
            vec![],
            vec![("fair_share_weight", Value::from(0_i64))],
        ),
        (
            "no network_policy block is default deny, DNS and same-namespace allowed",
            vec![],
            vec![(
                "network_policy",
                object([
                    ("default_deny", Value::Bool(true)),
                    ("allow_dns", Value::Bool(true)),
                    ("allow_same_namespace", Value::Bool(true)),
                ]),
            )],
        ),
        (
            "session tags are on unless disabled",
            vec![],
            vec![(
                "workload",
                object([
                    ("service_account", text("research")),
                    ("disable_session_tags", Value::Bool(false)),
                ]),
            )],
        ),
        (
            "spaces without a sharing block lend and never borrow",
            vec![("spaces", spaces.clone())],
            vec![("spaces", spaces), ("sharing", sharing("Lend", None))],
        ),
    ];
    for (case, left_out, written_out) in cases {
        let (short, long) = (verdict_of(&with(left_out)), verdict_of(&with(written_out)));
        assert_eq!(short, long, "{case}");
        assert!(short.iter().any(|(rule, _)| rule == "WKL-5"), "{case}: {short:?}");
    }
    // And the two spellings are judged, not skipped: a recorded allocation that disagrees fails both alike.
    let mut disagreeing = inputs(
        TenantConfig::from_value(&with(vec![])).expect("decodes"),
        cluster(eks(), 8),
    );
    if let Setting::Set(reference) = &mut disagreeing.references.allocation {
        reference.item.sharing.insert(
            "research".into(),
            Sharing {
                strategy: SharingStrategy::DontLend,
                borrow_limit: None,
                absolute_borrow_limits: Vec::new(),
            },
        );
    }
    let verdict = judge(&disagreeing).unwrap_or_else(|errors| panic!("{errors:?}"));
    let wkl_5 = verdict.report.check(RuleId::Wkl5).expect("WKL-5 judged");
    assert!(wkl_5.is_failed(), "{wkl_5:?}");
}

/// A team's share without a workload identity, as AWS's task governance setups have it: a valid EKS tenant whose
/// rules are all judged (CLU-6 and WKL-9 have no workload role to judge), with no role, service account or Pod
/// Identity association planned; the workload role's name is kept for a workload block added later.
#[test]
fn a_tenant_without_a_workload_block_is_its_share_and_rbac_alone() {
    let mut quota_only = config(2);
    quota_only.workload = None;
    let inputs = inputs(quota_only, cluster(eks(), 4));
    let verdict = judge(&inputs).unwrap_or_else(|errors| panic!("{errors:?}"));
    assert!(
        verdict.refusals.is_empty() && verdict.warnings.is_empty(),
        "{verdict:?}"
    );
    for rule in [RuleId::Clu6, RuleId::Wkl9, RuleId::Wkl11, RuleId::Wkl3] {
        let check = verdict.report.check(rule).unwrap_or_else(|| panic!("{rule:?} judged"));
        let not_applicable = matches!(check.outcome, crate::governance::Outcome::NotApplicable { .. });
        assert!(check.is_passed() || not_applicable, "{check:?}");
    }
    let planned = predict(&inputs, &verdict);
    assert_eq!(planned["workload_role_arn"], Value::Null);
    assert_eq!(planned["workload_role_name"], text("hyperpod-ml-capacity-research"));
    let Value::Map(components) = &planned["components"] else {
        panic!("{planned:?}")
    };
    for absent in [
        "iam_role",
        "pod_identity_association",
        "kubernetes/ServiceAccount/research-jobs",
    ] {
        assert!(!components.contains_key(absent), "{absent} in {components:?}");
    }
    assert!(
        components.keys().any(|key| key.starts_with("kubernetes/Role/")),
        "{components:?}"
    );
    assert!(components.contains_key("compute_quota"));
}
