//! Tests of WKL-1..6.

use super::*;
use crate::catalog::RuleId;
use crate::examples::{
    self, allocation, contract, policy, share, slurm_contract, slurm_tenant, tenant, view,
    view_with_quota as with_quota, wkl_1_binding_view,
};
use crate::finding::Outcome;
use crate::model::{Capacity, Partition, Phase, QuotaShare, Referenced, Setting, Sharing, TenantCapacity};

fn not_applicable(check: &Check) -> bool {
    matches!(check.outcome, Outcome::NotApplicable { .. })
}

fn paths(check: &Check) -> Vec<String> {
    check.findings().iter().map(|f| f.path.to_string()).collect()
}

#[test]
fn wkl_1_keeps_tenants_inside_the_contract_scope() {
    assert!(wkl_1(&tenant(), &contract()).is_passed());
    let check = examples::failing(RuleId::Wkl1); // team marketing
    assert_eq!(paths(&check), ["team"]);
    assert!(check.findings()[0].observed.contains("hyperpod-ns-marketing"));
    assert!(wkl_1(&slurm_tenant(), &slurm_contract()).is_passed());
    assert!(
        wkl_1(
            &Tenant {
                team: "ops".into(),
                ..slurm_tenant()
            },
            &slurm_contract()
        )
        .is_failed()
    );
    let mut partitions_only = slurm_contract();
    partitions_only.slurm.accounts.clear();
    assert!(wkl_1(&slurm_tenant(), &partitions_only).is_passed());
}

#[test]
fn wkl_1_for_a_binding_needs_a_tenant_in_every_namespace_of_the_contract() {
    let at = || AttributePath::attr("tenants");
    assert!(
        wkl_1_binding(&contract(), &view(), at()).is_passed(),
        "research is referenced"
    );
    let check = wkl_1_binding(&contract(), &wkl_1_binding_view(), at());
    assert_eq!(paths(&check), ["tenants"]);
    assert_eq!(
        check.findings()[0].observed,
        "namespace \"hyperpod-ns-research\" has no tenant on cluster \"ml-capacity\""
    );
    assert!(check.findings()[0].fix.contains("team = \"research\""));
    // A live quota of the team counts as much as a referenced tenant.
    let mut live = wkl_1_binding_view();
    live.tenants.live = Fact::Known(vec![tenant().capacity()]);
    assert!(wkl_1_binding(&contract(), &live, at()).is_passed());
    // Unread quotas: skipped (a warning), unless the referenced tenants cover every namespace anyway.
    let mut unread = wkl_1_binding_view();
    unread.tenants.live = Fact::Unavailable("AccessDenied listing compute quotas".into());
    assert!(wkl_1_binding(&contract(), &unread, at()).is_skipped());
    unread.tenants.referenced = view().tenants.referenced;
    assert!(wkl_1_binding(&contract(), &unread, at()).is_passed());
    // A referenced tenant not known until apply defers the rule; one of another cluster is a finding.
    let mut deferred = wkl_1_binding_view();
    deferred.tenants.unresolved = vec!["tenants[0]".into()];
    assert!(wkl_1_binding(&contract(), &deferred, at()).is_deferred());
    let mut elsewhere = view();
    elsewhere.tenants.referenced[0].cluster_name = "other-capacity".into();
    elsewhere.tenants.referenced[0].at = AttributePath::attr("tenants").index(0);
    assert_eq!(
        paths(&wkl_1_binding(&contract(), &elsewhere, at())),
        ["tenants[0]", "tenants"]
    );
    assert!(matches!(
        wkl_1_binding(&slurm_contract(), &wkl_1_binding_view(), at()).outcome,
        Outcome::NotApplicable { .. }
    ));
}

#[test]
fn wkl_2_refuses_lend_borrow_on_slurm() {
    assert!(wkl_2(&slurm_tenant()).is_passed());
    assert!(not_applicable(&wkl_2(&tenant())), "EKS may lend and borrow");
    assert_eq!(paths(&examples::failing(RuleId::Wkl2)), ["sharing.strategy"]);
    let dont_lend_with_limit = Tenant {
        sharing: Some(Sharing {
            strategy: SharingStrategy::DontLend,
            borrow_limit: Some(10),
            absolute_borrow_limits: Vec::new(),
        }),
        ..slurm_tenant()
    };
    assert_eq!(paths(&wkl_2(&dont_lend_with_limit)), ["sharing.borrow_limit"]);
    let dont_lend = Tenant {
        sharing: Some(Sharing {
            strategy: SharingStrategy::DontLend,
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
        }),
        ..slurm_tenant()
    };
    assert!(wkl_2(&dont_lend).is_passed());
}

fn lender(team: &str, count: i64, at: AttributePath) -> Referenced<TenantCapacity> {
    Referenced {
        at,
        cluster_name: "ml-capacity".into(),
        item: TenantCapacity {
            team: team.into(),
            quota: vec![share("ml.p5.48xlarge", count)],
            sharing: Some(Sharing {
                strategy: SharingStrategy::Lend,
                borrow_limit: None,
                absolute_borrow_limits: Vec::new(),
            }),
        },
    }
}

fn amounts(instance_type: &str, accelerators: Option<i64>, vcpu: Option<f64>, memory_gib: Option<f64>) -> QuotaShare {
    QuotaShare {
        instance_type: instance_type.into(),
        accelerators,
        vcpu,
        memory_gib,
        ..QuotaShare::default()
    }
}

/// The fixture view with the tenant's own quota and the allocation's row for it both `quota`.
fn paths_of(findings: &[crate::Finding]) -> Vec<String> {
    findings.iter().map(|f| f.path.to_string()).collect()
}

fn with_own_quota(quota: Vec<QuotaShare>) -> ClusterView {
    let mut view = view();
    view.tenants.referenced[0].item.quota = quota.clone();
    if let Setting::Set(reference) = &mut view.allocation {
        reference.item.teams.insert("research".into(), quota);
    }
    view
}

#[test]
fn wkl_3_sums_referenced_and_live_quotas_against_instance_groups() {
    assert!(wkl_3(&view(), path::quota()).is_passed());
    let check = examples::failing(RuleId::Wkl3); // research guaranteed 3
    assert_eq!(paths(&check), ["quota[0].count"]);
    assert_eq!(
        check.findings()[0].observed,
        "ml.p5.48xlarge: 5 instances guaranteed (platform 2 instances, research 3 instances) but the instance \
         groups have 4 instances"
    );
    // A referenced tenant that also exists (a planned update) replaces the live one rather than adding to it.
    let mut replanned = view();
    let mut platform = lender("platform", 1, path::borrows_from(0));
    platform.item.sharing = None;
    replanned.tenants.referenced.push(platform);
    assert!(wkl_3(&replanned, path::quota()).is_passed());
    let unknown_type = with_own_quota(vec![share("ml.g5.xlarge", 1)]);
    assert_eq!(paths(&wkl_3(&unknown_type, path::quota())), ["quota[0].instance_type"]);
}

#[test]
fn wkl_3_counts_every_unit_a_quota_can_be_given_in() {
    // Four p5 nodes hold 32 accelerators, 768 vCPU, 8192 GiB; platform's 2 live instances hold half of each.
    let fits = with_own_quota(vec![amounts("ml.p5.48xlarge", Some(16), None, None)]);
    assert!(
        wkl_3(&fits, path::quota()).is_passed(),
        "16 of the 16 accelerators left"
    );
    let over = with_own_quota(vec![amounts("ml.p5.48xlarge", Some(17), None, None)]);
    let check = wkl_3(&over, path::quota());
    assert_eq!(paths(&check), ["quota[0].accelerators"]);
    assert_eq!(
        check.findings()[0].observed,
        "ml.p5.48xlarge: 33 accelerators guaranteed (platform 2 instances (16 accelerators), research 17 \
         accelerators) but its 4 instances hold 32 accelerators"
    );
    let vcpu = with_own_quota(vec![amounts("ml.p5.48xlarge", None, Some(400.0), None)]);
    assert_eq!(paths(&wkl_3(&vcpu, path::quota())), ["quota[0].vcpu"]);
    assert!(
        wkl_3(
            &with_own_quota(vec![amounts("ml.p5.48xlarge", None, Some(384.0), None)]),
            path::quota()
        )
        .is_passed()
    );
    // Memory alone is filled by ratio: 4097 GiB also takes more than the vCPU left.
    let memory = with_own_quota(vec![amounts("ml.p5.48xlarge", None, None, Some(4097.0))]);
    assert_eq!(paths(&wkl_3(&memory, path::quota())), ["quota[0].memory_gib"]);
    // Another team's amounts count against this tenant's whole instances.
    let mut live_amounts = with_own_quota(vec![share("ml.p5.48xlarge", 2)]);
    live_amounts.tenants.live = Fact::Known(vec![TenantCapacity {
        team: "platform".into(),
        quota: vec![amounts("ml.p5.48xlarge", Some(20), None, None)],
        sharing: None,
    }]);
    let check = wkl_3(&live_amounts, path::quota());
    assert_eq!(paths(&check), ["quota[0].count"]);
    assert!(
        check.findings()[0]
            .observed
            .contains("platform 20 accelerators, research 2 instances (16 accelerators)")
    );
}

#[test]
fn wkl_3_a_shape_the_provider_does_not_know_is_a_finding_never_a_zero() {
    let mut view = with_own_quota(vec![amounts("ml.x9.48xlarge", Some(4), None, None)]);
    view.instance_groups = Fact::Known(vec![examples::capacity("ml.x9.48xlarge", 2)]);
    let check = wkl_3(&view, path::quota());
    assert_eq!(paths(&check), ["quota[0].accelerators"]);
    assert!(
        check.findings()[0].problem.contains("does not know the shape"),
        "{check:?}"
    );
    // Whole instances of an unknown type are still counted, in instances: 3 of 2 is the allocation's overcommit,
    // refused there at the entry; the tenant whose quota is that entry defers to it.
    let mut counted = with_own_quota(vec![share("ml.x9.48xlarge", 3)]);
    counted.instance_groups = Fact::Known(vec![examples::capacity("ml.x9.48xlarge", 2)]);
    let deferred = wkl_3(&counted, path::quota());
    assert!(
        matches!(deferred.outcome, crate::Outcome::NotApplicable { .. }),
        "{deferred:?}"
    );
    let Setting::Set(reference) = &counted.allocation else {
        panic!("the fixture references an allocation")
    };
    let groups = [examples::capacity("ml.x9.48xlarge", 2)];
    let refused = crate::capacity::allocation_fits(&reference.item, &groups);
    assert_eq!(paths_of(&refused), [r#"teams["research"].quota[0].count"#]);
    // Another team's share in a unit that cannot be resolved (a profile its GPUs do not have): not passed, and not
    // failed on this tenant.
    let mut partitions = view_with_partitions();
    partitions.tenants.live = Fact::Known(vec![TenantCapacity {
        team: "platform".into(),
        quota: vec![
            QuotaShare {
                accelerator_partition: Some(Partition::new("mig-1g.5gb", 4)),
                ..QuotaShare::default()
            }
            .with_type("ml.p5.48xlarge"),
        ],
        sharing: None,
    }]);
    assert!(wkl_3(&partitions, path::quota()).is_skipped());
    // A live entry with no unit the provider reads.
    let mut unread = view_with_partitions();
    unread.tenants.live = Fact::Known(vec![TenantCapacity {
        team: "platform".into(),
        quota: vec![QuotaShare {
            instance_type: "ml.p5.48xlarge".into(),
            ..QuotaShare::default()
        }],
        sharing: None,
    }]);
    assert!(wkl_3(&unread, path::quota()).is_skipped());
}

fn view_with_partitions() -> ClusterView {
    with_own_quota(vec![share("ml.p5.48xlarge", 2)])
}

trait WithType {
    fn with_type(self, instance_type: &str) -> QuotaShare;
}

impl WithType for QuotaShare {
    fn with_type(mut self, instance_type: &str) -> QuotaShare {
        self.instance_type = instance_type.into();
        self
    }
}

fn slices(profile: &str, count: i64) -> QuotaShare {
    QuotaShare {
        instance_type: "ml.p4d.24xlarge".into(),
        accelerator_partition: Some(Partition::new(profile, count)),
        ..QuotaShare::default()
    }
}

/// The tenant guaranteed `own` on two ml.p4d.24xlarge (16 A100 40GB) whose MIG layout is `layout`, beside `live`.
fn partitioned(layout: Option<&str>, own: QuotaShare, live: Vec<QuotaShare>) -> Check {
    let mut view = with_own_quota(vec![own]);
    view.instance_groups = Fact::Known(vec![Capacity {
        partition_layout: layout.map(str::to_string),
        ..examples::capacity("ml.p4d.24xlarge", 2)
    }]);
    view.tenants.live = Fact::Known(vec![TenantCapacity {
        team: "platform".into(),
        quota: live,
        sharing: None,
    }]);
    wkl_3(&view, path::quota())
}

#[test]
fn wkl_3_counts_mig_partitions_against_the_groups_split_into_their_profile() {
    let uniform = Some("all-1g.5gb");
    // 2 instances x 8 GPUs x 7 slices of mig-1g.5gb.
    assert!(partitioned(uniform, slices("mig-1g.5gb", 112), Vec::new()).is_passed());
    let over = partitioned(uniform, slices("mig-1g.5gb", 57), vec![slices("mig-1g.5gb", 56)]);
    assert_eq!(paths(&over), ["quota[0].accelerator_partition"]);
    assert_eq!(
        over.findings()[0].observed,
        "ml.p4d.24xlarge: 113 x mig-1g.5gb guaranteed (platform 56 x mig-1g.5gb, research 57 x mig-1g.5gb) but its \
         2 instances hold 112 x mig-1g.5gb"
    );
    // Slices are a GPU's fraction in accelerators: 4 whole GPUs beside 98 slices (14 GPUs) overflow the 16.
    let mixed = partitioned(
        uniform,
        slices("mig-1g.5gb", 98),
        vec![amounts("ml.p4d.24xlarge", Some(4), None, None)],
    );
    assert_eq!(paths(&mixed), ["quota[0].accelerator_partition"]);
    assert!(
        mixed.findings()[0].observed.contains("18 accelerators guaranteed"),
        "{mixed:?}"
    );
    // No partition configuration on the type: a plan error at the entry, with the label to set.
    let unpartitioned = partitioned(None, slices("mig-1g.5gb", 4), Vec::new());
    assert_eq!(paths(&unpartitioned), ["quota[0].accelerator_partition"]);
    assert!(unpartitioned.findings()[0].problem.contains("partitions its GPUs"));
    assert!(unpartitioned.findings()[0].fix.contains("nvidia.com/mig.config"));
    // Split into another profile: no slices of this one.
    let other = partitioned(Some("all-2g.10gb"), slices("mig-1g.5gb", 4), Vec::new());
    assert!(
        other.findings()[0].problem.contains("no mig-1g.5gb slices"),
        "{other:?}"
    );
    // A profile the GPU does not have (an A100 80GB profile on A100 40GB).
    let foreign = partitioned(uniform, slices("mig-1g.10gb", 4), Vec::new());
    assert!(
        foreign.findings()[0]
            .problem
            .contains("not a MIG profile of the A100 40GB"),
        "{foreign:?}"
    );
    // A custom layout's slices cannot be counted: never passed, never failed.
    assert!(partitioned(Some("research-mixed"), slices("mig-1g.5gb", 4), Vec::new()).is_skipped());
}

#[test]
fn wkl_3_siblings_in_the_allocation_are_admitted_by_team_name_and_only_the_one_that_does_not_fit_fails() {
    // Two new teams each guaranteed 3 of 4 p5 nodes, nothing live, neither referencing the other.
    let sibling = |own: &str| {
        let mut view = view();
        view.tenants.live = Fact::Known(Vec::new());
        view.tenants.referenced[0].item.team = own.into();
        view.tenants.referenced[0].item.quota = vec![share("ml.p5.48xlarge", 3)];
        view.allocation = allocation(&[("alpha", 3), ("beta", 3)]);
        wkl_3(&view, path::quota())
    };
    assert!(sibling("alpha").is_passed(), "alpha comes first and fits");
    // beta does not fit beside alpha: the allocation's split overcommits the cluster, refused on the allocation at
    // beta's entry (whether or not beta has a tenant yet); beta's tenant defers to it, so it is reported once.
    let beta = sibling("beta");
    assert!(matches!(beta.outcome, crate::Outcome::NotApplicable { .. }), "{beta:?}");
    let Setting::Set(reference) = allocation(&[("alpha", 3), ("beta", 3)]) else {
        panic!("an allocation")
    };
    let refused = crate::capacity::allocation_fits(&reference.item, &[examples::capacity("ml.p5.48xlarge", 4)]);
    assert_eq!(paths_of(&refused), [r#"teams["beta"].quota[0].count"#]);
    assert_eq!(
        refused[0].observed,
        "ml.p5.48xlarge: 6 instances guaranteed (alpha 3 instances, beta 3 instances) but the instance groups have \
         4 instances"
    );
    // A team after one that does not fit is judged beside those admitted only.
    let mut third = view();
    third.tenants.live = Fact::Known(Vec::new());
    third.tenants.referenced[0].item.team = "gamma".into();
    third.tenants.referenced[0].item.quota = vec![share("ml.p5.48xlarge", 1)];
    third.allocation = allocation(&[("alpha", 3), ("beta", 3), ("gamma", 1)]);
    assert!(wkl_3(&third, path::quota()).is_passed());
}

#[test]
fn wkl_3_checks_the_tenant_against_its_row_of_the_allocation() {
    let mut differs = view();
    differs.allocation = allocation(&[("research", 1)]);
    let check = wkl_3(&differs, path::quota());
    assert_eq!(paths(&check), ["quota"]);
    assert!(check.findings()[0].problem.contains("differs from its share"));
    let mut missing = view();
    missing.allocation = allocation(&[("vision", 0)]);
    assert_eq!(paths(&wkl_3(&missing, path::quota())), ["allocation"]);
    let mut elsewhere = view();
    if let Setting::Set(reference) = &mut elsewhere.allocation {
        reference.cluster_name = "other".into();
    }
    assert_eq!(paths(&wkl_3(&elsewhere, path::quota())), ["allocation"]);
    let mut unknown = view();
    unknown.allocation = Setting::Unknown;
    assert!(wkl_3(&unknown, path::quota()).is_deferred());
}

#[test]
fn wkl_3_without_an_allocation_is_not_evaluated_at_plan_and_is_evaluated_at_apply() {
    let mut plan = view();
    plan.allocation = Setting::Unset;
    let check = wkl_3(&plan, path::quota());
    assert!(check.is_skipped() && !check.is_deferred(), "{check:?}");
    let mut apply = plan.clone();
    apply.phase = Phase::Apply;
    assert!(wkl_3(&apply, path::quota()).is_passed());
    // What is known to overcommit fails at plan all the same.
    let mut over = with_quota(3);
    over.allocation = Setting::Unset;
    assert!(wkl_3(&over, path::quota()).is_failed());
}

#[test]
fn wkl_3_counts_the_tenants_a_new_tenant_borrows_from_on_the_first_plan() {
    let mut fresh = with_quota(3);
    fresh.tenants.live = Fact::Known(Vec::new());
    assert!(wkl_3(&fresh, path::quota()).is_passed(), "alone, 3 of 4 fit");
    fresh
        .tenants
        .referenced
        .push(lender("vision", 2, path::borrows_from(0)));
    assert!(wkl_3(&fresh, path::quota()).is_failed());
    // Unread live quotas: a referenced overcommit still fails; otherwise the check is skipped, not passed.
    fresh.tenants.live = Fact::Unavailable("AccessDenied on ListComputeQuotas".into());
    assert!(wkl_3(&fresh, path::quota()).is_failed());
    let mut fits = view();
    fits.tenants.live = Fact::Unavailable("AccessDenied on ListComputeQuotas".into());
    assert!(wkl_3(&fits, path::quota()).is_skipped());
    let mut no_groups = view();
    no_groups.instance_groups = Fact::Unavailable("AccessDenied on DescribeCluster".into());
    assert!(wkl_3(&no_groups, path::quota()).is_skipped());
    let mut deferred = view();
    deferred.tenants.unresolved = vec!["borrows_from".into()];
    assert!(wkl_3(&deferred, path::quota()).is_deferred());
}

#[test]
fn wkl_4_priority_class_must_exist() {
    let known = |classes: &[&str]| Fact::Known(Some(policy(classes, true)));
    assert!(wkl_4(&tenant(), &known(&["production", "research"])).is_passed());
    assert_eq!(paths(&examples::failing(RuleId::Wkl4)), ["priority_class"]);
    assert!(
        wkl_4(&tenant(), &Fact::Known(None)).is_failed(),
        "no policy, no classes"
    );
    assert!(wkl_4(&tenant(), &Fact::Unavailable("AccessDenied".into())).is_skipped());
    assert!(
        wkl_4(
            &Tenant {
                priority_class: None,
                ..tenant()
            },
            &Fact::Known(None)
        )
        .is_passed()
    );
    assert!(not_applicable(&wkl_4(&slurm_tenant(), &Fact::Known(None))));
}

#[test]
fn wkl_5_borrow_limits_and_lenders() {
    assert!(wkl_5(&tenant(), &view()).is_passed(), "platform lends (live)");
    let mut limit_without_borrow = tenant();
    limit_without_borrow.sharing = Some(Sharing {
        strategy: SharingStrategy::Lend,
        borrow_limit: Some(600),
        absolute_borrow_limits: Vec::new(),
    });
    assert_eq!(
        paths(&wkl_5(&limit_without_borrow, &view())),
        ["sharing.borrow_limit", "sharing.borrow_limit"]
    );
    assert_eq!(paths(&examples::failing(RuleId::Wkl5)), ["sharing.strategy"]);
    // A borrower with no lender yet passes: SageMaker accepts it; there is nothing to borrow until a team lends.
    let mut nobody_lends = view();
    nobody_lends.tenants.live = Fact::Known(Vec::new());
    let alone = wkl_5(&tenant(), &nobody_lends);
    assert!(alone.is_passed(), "{alone:?}");
    assert!(format!("{alone:?}").contains("no other team lends yet"), "{alone:?}");
    // A lender referenced in borrows_from is named.
    let mut referenced = nobody_lends.clone();
    referenced
        .tenants
        .referenced
        .push(lender("production", 1, path::borrows_from(0)));
    let named = wkl_5(&tenant(), &referenced);
    assert!(named.is_passed() && format!("{named:?}").contains("borrows idle capacity of production"));
    // A referenced tenant that does not lend is a finding at its reference, and only there.
    let mut non_lender = nobody_lends.clone();
    let mut finance = lender("finance", 0, path::borrows_from(0));
    finance.item.sharing = Some(Sharing {
        strategy: SharingStrategy::DontLend,
        borrow_limit: None,
        absolute_borrow_limits: Vec::new(),
    });
    non_lender.tenants.referenced.push(finance);
    assert_eq!(paths(&wkl_5(&tenant(), &non_lender)), ["borrows_from[0]"]);
    // Live quotas unreadable: nothing WKL-5 decides rests on them.
    let mut unreadable = nobody_lends.clone();
    unreadable.tenants.live = Fact::Unavailable("AccessDenied".into());
    assert!(wkl_5(&tenant(), &unreadable).is_passed());
    // The allocation's record of the team's sharing: the tenant's effective sharing must be it. SageMaker's
    // default written out or left out is one verdict, against a record of either.
    let recorded = |strategy: SharingStrategy, limit: Option<i64>| {
        let mut view = nobody_lends.clone();
        view.allocation = examples::allocation(&[("research", 2), ("production", 1)]);
        if let Setting::Set(reference) = &mut view.allocation {
            reference.item.sharing.insert(
                "research".into(),
                Sharing {
                    strategy,
                    borrow_limit: limit,
                    absolute_borrow_limits: Vec::new(),
                },
            );
            reference
                .item
                .sharing
                .insert("production".into(), Sharing::sagemaker_default());
        }
        view
    };
    let defaulted = Tenant {
        sharing: Some(Sharing::sagemaker_default()),
        sharing_written: false,
        ..tenant()
    };
    let written_without_limit = Tenant {
        sharing: Some(Sharing {
            borrow_limit: None,
            ..Sharing::sagemaker_default()
        }),
        ..tenant()
    };
    for record in [None, Some(50)] {
        let view = recorded(SharingStrategy::LendAndBorrow, record);
        for spelling in [&defaulted, &written_without_limit, &tenant()] {
            let check = wkl_5(spelling, &view);
            assert!(check.is_passed(), "{check:?}");
            assert!(
                format!("{check:?}").contains("borrows idle capacity of production"),
                "{check:?}"
            );
        }
    }
    let lends_only = recorded(SharingStrategy::Lend, None);
    assert_eq!(paths(&wkl_5(&defaulted, &lends_only)), ["allocation"]);
    assert_eq!(paths(&wkl_5(&written_without_limit, &lends_only)), ["sharing.strategy"]);
    let limit_differs = recorded(SharingStrategy::LendAndBorrow, Some(100));
    assert_eq!(paths(&wkl_5(&tenant(), &limit_differs)), ["sharing.borrow_limit"]);
    assert!(
        wkl_5(
            &Tenant {
                sharing: None,
                sharing_written: false,
                ..tenant()
            },
            &unreadable
        )
        .is_passed()
    );
    let mut deferred = nobody_lends;
    deferred
        .tenants
        .referenced
        .push(lender("production", 1, path::borrows_from(0)));
    deferred.tenants.unresolved = vec!["borrows_from".into()];
    assert!(wkl_5(&tenant(), &deferred).is_deferred());
}

#[test]
fn wkl_6_warns_when_fair_share_is_disabled() {
    assert!(wkl_6(&tenant(), &Fact::Known(Some(policy(&["research"], true)))).is_passed());
    assert!(wkl_6(&tenant(), &Fact::Known(None)).is_passed());
    let check = examples::failing(RuleId::Wkl6); // fair share disabled
    assert_eq!(paths(&check), ["fair_share_weight"]);
    assert_eq!(check.findings()[0].severity, crate::FindingSeverity::Warning);
    assert!(wkl_6(&tenant(), &Fact::Unavailable("AccessDenied".into())).is_skipped());
    assert!(
        wkl_6(
            &Tenant {
                fair_share_weight: None,
                ..tenant()
            },
            &Fact::Known(Some(policy(&[], false)))
        )
        .is_passed()
    );
}

fn uncounted(mut view: ClusterView) -> ClusterView {
    view.neighbours = crate::model::Neighbours::ReferencedOnly;
    view
}

fn not_at_plan(check: &Check) -> bool {
    matches!(
        check.outcome,
        Outcome::Skipped {
            cause: crate::finding::SkipCause::NotAtPlan,
            ..
        }
    )
}

#[test]
fn without_the_live_neighbours_wkl_1_5_and_3_judge_only_what_the_configuration_references() {
    let at = || AttributePath::attr("tenants");
    // WKL-1 of a binding: a live quota of the team is counted at apply, not in what the plan records.
    let mut live = wkl_1_binding_view();
    live.tenants.live = Fact::Known(vec![tenant().capacity()]);
    assert!(wkl_1_binding(&contract(), &live, at()).is_passed());
    assert!(not_at_plan(&wkl_1_binding(&contract(), &uncounted(live), at())));
    assert!(
        wkl_1_binding(&contract(), &uncounted(view()), at()).is_passed(),
        "research is referenced"
    );
    // WKL-5 rests on nothing live: one verdict with and without the live lenders.
    let borrower = tenant();
    let mut lender_live = view();
    lender_live.tenants.live = Fact::Known(vec![lender("platform", 1, at()).item]);
    assert!(wkl_5(&borrower, &lender_live).is_passed());
    assert!(wkl_5(&borrower, &uncounted(lender_live)).is_passed());
    // WKL-3: the live quotas of teams the allocation does not list overcommit the cluster with them, not without.
    let mut crowded = with_quota(3);
    crowded.tenants.live = Fact::Known(vec![TenantCapacity {
        team: "outsider".into(),
        quota: vec![share("ml.p5.48xlarge", 4)],
        sharing: None,
    }]);
    let quota = AttributePath::attr("quota");
    assert!(crate::capacity::wkl_3(&crowded, quota.clone()).is_failed());
    assert!(crate::capacity::wkl_3(&uncounted(crowded), quota.clone()).is_passed());
    // Without an allocation the checklist cannot pass it at plan, live or not.
    let mut alone = uncounted(with_quota(1));
    alone.allocation = Setting::Unset;
    alone.tenants.live = Fact::Unavailable("AccessDenied".into());
    assert!(not_at_plan(&crate::capacity::wkl_3(&alone, quota)));
}

#[test]
fn wkl_5_an_absolute_borrow_limit_names_capacity_the_cluster_has() {
    let limited = |limit: QuotaShare| Tenant {
        sharing: Some(Sharing {
            absolute_borrow_limits: vec![limit],
            ..Sharing::sagemaker_default()
        }),
        ..tenant()
    };
    assert!(wkl_5(&limited(share("ml.p5.48xlarge", 2)), &view()).is_passed());
    assert_eq!(
        paths(&wkl_5(&limited(share("ml.g6.48xlarge", 1)), &view())),
        ["sharing.absolute_borrow_limit[0].instance_type"]
    );
    let slices = QuotaShare {
        instance_type: "ml.p5.48xlarge".into(),
        accelerator_partition: Some(Partition::new("mig-1g.10gb", 4)),
        ..QuotaShare::default()
    };
    let check = wkl_5(&limited(slices), &view());
    assert_eq!(
        paths(&check),
        ["sharing.absolute_borrow_limit[0].accelerator_partition"]
    );
    assert_eq!(check.findings()[0].rule, RuleId::Wkl5);
}
