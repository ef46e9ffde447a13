//! WKL-12: interactive spaces (HyperPod spaces: JupyterLab and Code Editor `workspace.jupyter.org` Workspaces in a
//! team's namespace) are part of the allocation policy. AWS's guidance for them: a dedicated, high-weight priority
//! class; a guaranteed share sized for peak development demand; lend idle capacity but never borrow, so a reclaim
//! never preempts a space. A contract that does not approve `interactive` workloads gives its project no space
//! access at all: no spaces on its tenants, no space policies on its task view restriction.

use super::capacity::fits_within;
use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Contract, Fact, Orchestrator, SchedulingPolicy, SharingStrategy, Spaces, Tenant};
use super::paths::tenant as path;
use crate::path::AttributePath;

/// The workload type a contract approves interactive development with.
pub const INTERACTIVE: &str = "interactive";

/// Whether the contract approves interactive workloads (spaces).
pub fn approves_interactive(contract: &Contract) -> bool {
    contract
        .approved_workload_types
        .iter()
        .any(|t| t.eq_ignore_ascii_case(INTERACTIVE))
}

fn not_approved(contract: &Contract, at: AttributePath, what: &str, fix: &str) -> Finding {
    Finding {
        path: at,
        observed: format!(
            "{what}; contract {:?} does not list \"{INTERACTIVE}\" in approved_workload_types",
            contract.name
        ),
        problem: "the contract does not approve interactive workloads, so its project gets no space access".into(),
        fix: format!(
            "add \"{INTERACTIVE}\" to the contract's approved_workload_types (a material change: re-approve it), \
             or {fix}"
        ),
        ..Finding::of(RuleId::Wkl12)
    }
}

/// WKL-12 on a tenant: its `spaces` block against its contract, the cluster policy and its own quota and sharing.
pub fn wkl_12(tenant: &Tenant, contract: &Contract, policy: &Fact<Option<SchedulingPolicy>>) -> Check {
    let rule = RuleId::Wkl12;
    let Some(spaces) = &tenant.spaces else {
        return Check::passed(
            rule,
            "the tenant runs no interactive spaces (its Roles grant no Workspaces)",
        );
    };
    let at = AttributePath::attr(path::SPACES);
    if let Some(refused) = spaces_refused(tenant, contract, &at) {
        return Check::from_findings(rule, vec![refused], "");
    }
    let class_at = at.push_attr("priority_class");
    let mut findings: Vec<Finding> = shared_priority_class(tenant, spaces, &class_at).into_iter().collect();
    match policy {
        Fact::Known(known) => findings.extend(undefined_priority_class(spaces, known.as_ref(), class_at)),
        Fact::Unavailable(reason) if findings.is_empty() => return Check::unavailable(rule, reason),
        Fact::Unavailable(_) => {}
    }
    findings.extend(shares_outside_quota(tenant, spaces, &at));
    findings.extend(borrowing_with_spaces(tenant));
    Check::from_findings(
        rule,
        findings,
        format!(
            "spaces run at {:?} within the team's quota and never borrow",
            spaces.priority_class
        ),
    )
}

/// Why the tenant may not run spaces at all, whatever their settings: its contract does not approve interactive
/// workloads, or it is a Slurm tenant.
fn spaces_refused(tenant: &Tenant, contract: &Contract, at: &AttributePath) -> Option<Finding> {
    if !approves_interactive(contract) {
        return Some(not_approved(
            contract,
            at.clone(),
            "a spaces block",
            "remove the spaces block",
        ));
    }
    (tenant.orchestrator == Orchestrator::Slurm).then(|| Finding {
        path: at.clone(),
        observed: "a spaces block on a Slurm tenant".into(),
        problem: "HyperPod spaces run on EKS-orchestrated clusters only".into(),
        fix: "remove the spaces block, or run spaces in a tenant of an EKS cluster".into(),
        ..Finding::of(RuleId::Wkl12)
    })
}

/// The spaces run at the team's task priority class instead of one of their own.
fn shared_priority_class(tenant: &Tenant, spaces: &Spaces, class_at: &AttributePath) -> Option<Finding> {
    (tenant.priority_class.as_deref() == Some(spaces.priority_class.as_str())).then(|| Finding {
        path: class_at.clone(),
        observed: format!("{:?}, the team's task priority class too", spaces.priority_class),
        problem: "spaces need a priority class of their own, so they are scheduled ahead of the team's batch tasks"
            .into(),
        fix: "add a dedicated class (e.g. \"interactive\", with the policy's highest weight) and name it here".into(),
        ..Finding::of(RuleId::Wkl12)
    })
}

/// The spaces' priority class is not one the cluster's scheduling policy (`None`: no policy) defines.
fn undefined_priority_class(
    spaces: &Spaces,
    policy: Option<&SchedulingPolicy>,
    class_at: AttributePath,
) -> Option<Finding> {
    let classes: &[String] = policy.map_or(&[], |p| p.priority_classes.as_slice());
    (!classes.contains(&spaces.priority_class)).then(|| Finding {
        path: class_at,
        observed: format!("{:?}; the cluster policy defines {classes:?}", spaces.priority_class),
        problem: "the spaces' priority class does not exist in the cluster's scheduling policy".into(),
        fix: "add it to the hyperpod_scheduling_policy of the cluster (AWS's guidance: the highest weight)".into(),
        ..Finding::of(RuleId::Wkl12)
    })
}

/// The spaces' guaranteed shares that do not fit inside the team's guaranteed quota, at the unit that overflows.
fn shares_outside_quota(tenant: &Tenant, spaces: &Spaces, at: &AttributePath) -> Vec<Finding> {
    spaces
        .guaranteed
        .iter()
        .enumerate()
        .filter_map(|(index, share)| {
            let (unit, wanted, held) = fits_within(share, &tenant.quota)?;
            Some(Finding {
                path: at.push_attr("guaranteed").index(index).push_attr(unit.name()),
                observed: format!(
                    "{}: {wanted} kept for spaces, but the team's quota guarantees {held}",
                    share.instance_type
                ),
                problem: "the spaces' guaranteed share is not inside the team's guaranteed quota".into(),
                fix: "lower the spaces' share, or raise the team's quota of that instance type".into(),
                ..Finding::of(RuleId::Wkl12)
            })
        })
        .collect()
}

/// The team borrows idle capacity, so a reclaim can preempt its spaces.
fn borrowing_with_spaces(tenant: &Tenant) -> Option<Finding> {
    let sharing = tenant
        .sharing
        .as_ref()
        .filter(|s| s.strategy == SharingStrategy::LendAndBorrow)?;
    Some(Finding {
        path: path::sharing("strategy"),
        observed: format!("{} with a spaces block", sharing.strategy),
        problem: "a team that runs interactive spaces borrows idle capacity, so a reclaim can preempt its spaces"
            .into(),
        fix: "set strategy = \"Lend\" (AWS's guidance: spaces lend idle capacity and never borrow), or run batch \
             work that borrows in a tenant of its own"
            .into(),
        ..Finding::of(RuleId::Wkl12)
    })
}

/// WKL-12 on a task view restriction: the HyperPod space policies (`granted`, at `at`) only under a contract that
/// approves interactive workloads.
pub fn wkl_12_studio_access(granted: &[String], contract: &Contract, at: AttributePath) -> Check {
    let rule = RuleId::Wkl12;
    if granted.is_empty() {
        return Check::passed(rule, "no space access is granted");
    }
    if approves_interactive(contract) {
        return Check::passed(rule, "the contract approves interactive workloads");
    }
    Check::from_findings(
        rule,
        vec![not_approved(
            contract,
            at,
            &format!("space access {granted:?}"),
            "remove the space policies (and space_templates)",
        )],
        "",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{self, contract, spaces_tenant};
    use crate::model::{QuotaShare, SchedulingPolicy, Sharing};

    fn policy(classes: &[&str]) -> Fact<Option<SchedulingPolicy>> {
        Fact::Known(Some(SchedulingPolicy {
            priority_classes: classes.iter().map(std::string::ToString::to_string).collect(),
            fair_share: true,
        }))
    }

    fn paths(check: &Check) -> Vec<String> {
        check.findings().iter().map(|f| f.path.to_string()).collect()
    }

    #[test]
    fn spaces_need_interactive_approval_a_dedicated_class_room_in_the_quota_and_no_borrowing() {
        let classes = policy(&["interactive", "research"]);
        assert!(wkl_12(&spaces_tenant(), &contract(), &classes).is_passed());
        assert!(
            wkl_12(&examples::tenant(), &contract(), &classes).is_passed(),
            "no spaces"
        );
        let mut training_only = contract();
        training_only.approved_workload_types = vec!["training".into()];
        let refused = wkl_12(&spaces_tenant(), &training_only, &classes);
        assert_eq!(paths(&refused), ["spaces"]);
        assert!(refused.findings()[0].fix.contains("approved_workload_types"));
        // A class the policy lacks, or the team's task class.
        assert_eq!(
            paths(&wkl_12(&spaces_tenant(), &contract(), &policy(&["research"]))),
            ["spaces.priority_class"]
        );
        let mut shared_class = spaces_tenant();
        if let Some(spaces) = shared_class.spaces.as_mut() {
            spaces.priority_class = "research".into();
        }
        assert_eq!(
            paths(&wkl_12(&shared_class, &contract(), &classes)),
            ["spaces.priority_class"]
        );
        // More than the team's quota (2 p5 instances) kept for spaces, and a type the quota has none of.
        let mut greedy = spaces_tenant();
        if let Some(s) = greedy.spaces.as_mut() {
            s.guaranteed = vec![
                examples::share("ml.p5.48xlarge", 3),
                QuotaShare {
                    instance_type: "ml.g5.8xlarge".into(),
                    accelerators: Some(1),
                    ..QuotaShare::default()
                },
            ];
        }
        let check = wkl_12(&greedy, &contract(), &classes);
        assert_eq!(
            paths(&check),
            ["spaces.guaranteed[0].count", "spaces.guaranteed[1].accelerators"]
        );
        assert!(
            check.findings()[0].observed.contains("3 instances kept for spaces"),
            "{check:?}"
        );
        // Borrowing.
        let mut borrowing = spaces_tenant();
        borrowing.sharing = Some(Sharing {
            strategy: SharingStrategy::LendAndBorrow,
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
        });
        assert_eq!(paths(&wkl_12(&borrowing, &contract(), &classes)), ["sharing.strategy"]);
    }

    #[test]
    fn studio_space_access_follows_the_contract() {
        let granted = vec!["AmazonSagemakerHyperpodSpacePolicy".to_string()];
        let at = AttributePath::attr("access_policies");
        assert!(wkl_12_studio_access(&granted, &contract(), at.clone()).is_passed());
        let mut training_only = contract();
        training_only.approved_workload_types = vec!["training".into()];
        assert_eq!(
            paths(&wkl_12_studio_access(&granted, &training_only, at.clone())),
            ["access_policies"]
        );
        assert!(wkl_12_studio_access(&[], &training_only, at).is_passed());
    }
}
