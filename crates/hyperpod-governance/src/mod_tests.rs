//! Engine-level tests: every catalog rule is wired to a function that reports under its own ID, and the `check_*`
//! runners assemble the right rules.

use super::*;
use crate::examples::*;
use crate::{AttributePath, FindingSeverity};

/// What the contract reads at plan time, agreeing with the fixture contract.
fn live() -> ContractLiveFacts {
    contract_live_facts()
}

/// Runs one rule through its function on the fixtures. The match is exhaustive: a rule added to the catalog does
/// not compile until it is wired here.
fn run(rule: RuleId) -> Check {
    let (c, t, b, v, l) = (contract(), tenant(), binding(), view(), live());
    let restriction = restriction();
    let eks = l.eks.clone().expect("eks facts");
    use RuleId::*;
    match rule {
        Con1 => contract::con_1(&c),
        Con2 => contract::con_2(&c),
        Con3 => contract::con_3(&c),
        Org1 => organization::org_1(&c, &l.project),
        Org2 => organization::org_2(&t, &c),
        Org3 => organization::org_3(&c, &l.cluster),
        Prj1 => project::prj_1(&b),
        Prj2 => project::prj_2(&c, &l.project_role, &l.access_role),
        Prj3 => project::prj_3(&b, &c, today()),
        Prj4 => project::prj_4(&c, Some(&b), &l.project),
        Clu1 => cluster::clu_1(&c, &l.cluster),
        Clu2 => cluster::clu_2(
            &examples::research_project(),
            &c.eks_namespaces,
            &v,
            AttributePath::root(),
        ),
        Clu3 => cluster::clu_3(&restriction, &Fact::Known(Vec::new())),
        Clu4 => cluster::clu_4(&eks, AttributePath::root()),
        Clu5 => cluster::clu_5(&c, &eks),
        Clu6 => cluster::clu_6(&t, &c, &[]),
        Clu7 => cluster_slurm::clu_7(&Fact::Known(cluster_slurm::SessionPreferences { run_as_enabled: true })),
        Clu8 => cluster_slurm::clu_8(&read_only_role(PROJECT_ROLE), CLUSTER_ARN),
        Clu9 => cluster::clu_9(&restriction, &c),
        Clu10 => cluster::clu_10(
            &addon("v1.1.0-eksbuild.1", "ACTIVE"),
            "ml-capacity-eks",
            AttributePath::root(),
        ),
        Wkl1 => workload::wkl_1(&t, &c),
        Wkl2 => workload::wkl_2(&t),
        Wkl3 => workload::wkl_3(&v, AttributePath::root()),
        Wkl4 => workload::wkl_4(&t, &v.scheduling_policy),
        Wkl5 => workload::wkl_5(&t, &v),
        Wkl6 => workload::wkl_6(&t, &v.scheduling_policy),
        Wkl7 => workload_access::wkl_7(&t),
        Wkl8 => workload_access::wkl_8(&t),
        Wkl9 => workload_access::wkl_9(&t),
        Wkl10 => workload_access::wkl_10(&t),
        Wkl11 => workload_access::wkl_11(&t, &c),
        Wkl12 => spaces::wkl_12(&t, &c, &v.scheduling_policy),
        Exc1 => exceptions::exc_1(&c, today()),
        Obs1 => observability::obs_1(
            l.observability_addon.as_ref().expect("addon"),
            l.node_roles.as_ref().expect("node roles"),
            AttributePath::root(),
        ),
        Lif1 => lifecycle::lif_1(&c, today()),
        Lif2 => lifecycle::lif_2(&c, Some(&c), None),
        Lif3 => lifecycle::lif_3(&c, AttributePath::root()),
        Lif4 => lifecycle::lif_4(&c, &caller()),
    }
}

#[test]
fn every_rule_is_wired_and_passes_on_the_agreeing_fixtures() {
    for rule in RuleId::ALL {
        let check = run(*rule);
        assert_eq!(check.rule, *rule, "{} reports under another ID", rule.id());
        let evaluated = check.is_passed() || matches!(check.outcome, crate::Outcome::NotApplicable { .. });
        assert!(evaluated, "{}: {:?}", rule.id(), check.outcome);
        assert!(
            rule_function(*rule)
                .rsplit("::")
                .next()
                .unwrap()
                .replace('_', "-")
                .eq_ignore_ascii_case(rule.id())
        );
    }
}

#[test]
fn check_contract_passes_an_agreeing_contract_and_lists_every_contract_rule() {
    let report = check_contract(&contract(), &live(), &caller(), today(), None, None);
    let checklist = report.checklist();
    assert_eq!(
        checklist.passed,
        [
            "CON-1", "CON-2", "CON-3", "ORG-1", "ORG-3", "PRJ-2", "PRJ-4", "CLU-1", "CLU-4", "CLU-5", "OBS-1", "EXC-1",
            "LIF-1", "LIF-2", "LIF-4"
        ]
    );
    assert!(checklist.findings.is_empty() && !checklist.deferred, "{checklist:?}");
    assert!(report.messages(true).is_empty());
}

#[test]
fn check_contract_reports_a_lifecycle_role_and_a_slurm_contract_with_namespaces() {
    let mut facts = live();
    facts.project_role = role(
        PROJECT_ROLE,
        &["sagemaker:CreateCluster", "sagemaker:UpdateClusterSoftware"],
    );
    let slurm = con_2_contract(); // a Slurm contract with EKS namespaces
    let report = check_contract(&slurm, &facts, &caller(), today(), None, None);
    let diagnostics = report.messages(false);
    let summaries: Vec<(&str, String)> = diagnostics
        .iter()
        .map(|d| (&d.summary[..7], d.path.to_string()))
        .collect();
    assert_eq!(
        summaries,
        [
            ("[CON-2]", "eks_namespaces".to_string()),
            ("[PRJ-2]", "project_role_arn".to_string()),
            ("[CLU-1]", "cluster.orchestrator".to_string())
        ]
    );
    assert!(diagnostics.has_errors());
    assert!(report.check(RuleId::Clu5).is_none(), "no EKS rules on a Slurm contract");
}

#[test]
fn check_contract_warns_for_what_it_could_not_read_and_strict_fails_an_overdue_review() {
    let report = check_contract(
        &contract(),
        &ContractLiveFacts::unread("AccessDenied"),
        &caller(),
        today(),
        None,
        None,
    );
    let skipped: Vec<&str> = report
        .checklist()
        .findings
        .into_iter()
        .filter(|r| r.status == "skipped")
        .map(|r| r.rule)
        .collect();
    assert_eq!(skipped, ["ORG-1", "ORG-3", "PRJ-2", "PRJ-4", "CLU-1"]);
    let diagnostics = report.messages(false);
    assert_eq!(diagnostics.0.len(), 5);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == FindingSeverity::Warning && d.summary.ends_with("(not checked)"))
    );

    let overdue = check_contract(&contract(), &live(), &caller(), date(2026, 9, 1), None, None);
    assert!(!overdue.has_errors(false));
    let strict = overdue.messages(true);
    assert_eq!(strict.0.len(), 1);
    assert!(strict.0[0].summary.starts_with("[LIF-1]") && strict.0[0].severity == FindingSeverity::Error);
}

#[test]
fn check_contract_applies_valid_exceptions() {
    let mut facts = live();
    facts.eks = Some(Fact::Known(EksCluster {
        authentication_mode: "API".into(),
        endpoint_public: true,
        endpoint_private: false,
        public_cidrs: vec!["0.0.0.0/0".into()],
        version: "1.31".into(),
    }));
    let mut excepted = contract();
    excepted.exceptions.push(Exception {
        rule: RuleId::Clu5,
        owner: "network-team".into(),
        expires: date(2026, 12, 31),
        reason: "VPN rollout".into(),
    });
    let report = check_contract(&excepted, &facts, &caller(), today(), None, None);
    assert!(matches!(
        report.check(RuleId::Clu5).unwrap().outcome,
        crate::Outcome::Excepted { .. }
    ));
    assert!(report.messages(true).is_empty());
    excepted.exceptions[0].expires = date(2026, 5, 1);
    let report = check_contract(&excepted, &facts, &caller(), today(), None, None);
    assert!(report.check(RuleId::Clu5).unwrap().is_failed());
    assert!(report.check(RuleId::Exc1).unwrap().is_failed());
}

#[test]
fn check_tenant_binding_and_restriction_run_their_rules() {
    let tenant_report = check_tenant(&tenant(), &contract(), &view(), &[], today());
    assert_eq!(tenant_report.checks.len(), 16, "CLU-2 is the binding's");
    assert!(
        tenant_report.check(RuleId::Exc1).is_some(),
        "EXC-1 judges the contract's exceptions too"
    );
    assert!(
        tenant_report
            .checks
            .iter()
            .all(|c| c.is_passed() || matches!(c.outcome, crate::Outcome::NotApplicable { .. })),
        "{:?}",
        tenant_report.checklist()
    );
    let open = wkl_8_tenant();
    let mut with_exception = contract();
    with_exception.exceptions.push(Exception {
        rule: RuleId::Wkl8,
        owner: "network-team".into(),
        expires: date(2026, 7, 1),
        reason: "NCCL".into(),
    });
    assert!(check_tenant(&open, &contract(), &view(), &[], today()).has_errors(false));
    assert!(!check_tenant(&open, &with_exception, &view(), &[], today()).has_errors(false));
    // An expired exception waives nothing, and EXC-1 points into the tenant's `contract` argument.
    with_exception.exceptions[0].expires = date(2026, 5, 1);
    let expired = check_tenant(&open, &with_exception, &view(), &[], today());
    assert!(expired.check(RuleId::Wkl8).is_some_and(Check::is_failed));
    let exc = expired.check(RuleId::Exc1).expect("EXC-1 ran");
    assert_eq!(exc.findings()[0].path.to_string(), "contract.exception[0].expires");

    let project = live().project;
    let binding_report = check_binding(&binding(), &contract(), &project, &view(), today());
    assert!(
        binding_report.checks.iter().all(Check::is_passed),
        "{:?}",
        binding_report.checklist()
    );
    let revoked = Contract {
        lifecycle: LifecycleState::Revoked,
        ..contract()
    };
    let failed: Vec<&str> = check_binding(&binding(), &revoked, &project, &view(), today())
        .checks
        .iter()
        .filter(|c| c.is_failed())
        .map(|c| c.rule.id())
        .collect();
    assert_eq!(failed, ["PRJ-3", "LIF-3"]);
    let no_tenant = check_binding(&binding(), &contract(), &project, &wkl_1_binding_view(), today());
    let wkl_1 = no_tenant.check(RuleId::Wkl1).expect("WKL-1 runs for bindings");
    assert_eq!(wkl_1.findings()[0].path.to_string(), "tenants");

    let eks = live().eks.unwrap();
    let facts = RestrictionFacts::Eks {
        entries: Fact::Known(Vec::new()),
        eks,
    };
    let report = check_restriction(&restriction(), &contract(), &facts, today());
    assert!(report.checks.iter().all(Check::is_passed), "{:?}", report.checklist());
    let rules: Vec<&str> = report.checks.iter().map(|c| c.rule.id()).collect();
    assert_eq!(rules, ["CLU-9", "CLU-3", "CLU-4", "CLU-5", "LIF-3"]);

    let slurm = RestrictionFacts::Slurm {
        preferences: Fact::Known(cluster_slurm::SessionPreferences { run_as_enabled: false }),
        project_role: examples::clu_8_role(),
        cluster_arn: examples::CLUSTER_ARN.into(),
    };
    let report = check_restriction(&restriction(), &slurm_contract(), &slurm, today());
    let failed: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.is_failed())
        .map(|c| c.rule.id())
        .collect();
    assert_eq!(failed, ["CLU-7", "CLU-8"]);
}

#[test]
fn what_a_plan_records_judges_a_referenced_policy_and_leaves_the_live_one_to_apply() {
    let recorded = |policy_live: bool| {
        let view = ClusterView {
            neighbours: Neighbours::ReferencedOnly,
            policy_live,
            ..view()
        };
        check_tenant(&tenant(), &contract(), &view, &[], today())
    };
    let referenced = recorded(false);
    assert!(referenced.check(RuleId::Wkl4).is_some_and(Check::is_passed));
    let live = recorded(true);
    let wkl_4 = live.check(RuleId::Wkl4).expect("WKL-4 ran");
    assert!(
        matches!(&wkl_4.outcome, Outcome::Skipped { cause: SkipCause::NotAtPlan, reason } if reason.contains("scheduling_policy")),
        "{wkl_4:?}"
    );
    // Counting everything, the live policy is judged as it is.
    let counted = ClusterView {
        policy_live: true,
        ..view()
    };
    let judged = check_tenant(&tenant(), &contract(), &counted, &[], today());
    assert!(judged.check(RuleId::Wkl4).is_some_and(Check::is_passed));
}

#[test]
fn wkl_3_does_not_apply_to_a_slurm_tenant_and_a_tenant_guaranteeing_nothing_passes() {
    let guaranteeing_nothing = Tenant {
        quota: Vec::new(),
        ..slurm_tenant()
    };
    let slurm = check_tenant(&guaranteeing_nothing, &slurm_contract(), &view(), &[], today());
    assert!(matches!(
        slurm.check(RuleId::Wkl3).map(|c| &c.outcome),
        Some(Outcome::NotApplicable { .. })
    ));
    let nothing = Tenant {
        quota: Vec::new(),
        ..tenant()
    };
    let mut alone = view();
    alone.allocation = Setting::Unset;
    let report = check_tenant(&nothing, &contract(), &alone, &[], today());
    assert!(report.check(RuleId::Wkl3).is_some_and(Check::is_passed));
}
