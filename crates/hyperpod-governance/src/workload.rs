//! Workload rules, capacity half (WKL-1..6): where a tenant lives and how shared capacity is divided. The access
//! half (WKL-7..11: grants, network policy, workload identity, data) is in `workload_access.rs`.

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{
    ClusterView, Contract, Fact, Inventory, Orchestrator, Referenced, SchedulingPolicy, Setting, Sharing,
    SharingStrategy, Tenant, TenantCapacity,
};
use super::paths::tenant as path;
use crate::path::AttributePath;

/// The borrow limits SageMaker's docs allow, in percent of idle compute.
pub const BORROW_LIMIT_PERCENT: std::ops::RangeInclusive<i64> = 1..=500;

/// WKL-1: the tenant's namespace (EKS) or Slurm account (the team name) is inside the contract's scope.
pub fn wkl_1(tenant: &Tenant, contract: &Contract) -> Check {
    let rule = RuleId::Wkl1;
    let (scope, name, kind) = match tenant.orchestrator {
        Orchestrator::Eks => (&contract.eks_namespaces, &tenant.namespace, "namespace"),
        Orchestrator::Slurm if contract.slurm.accounts.is_empty() => {
            return Check::passed(rule, "the contract scopes Slurm access by partition only");
        }
        Orchestrator::Slurm => (&contract.slurm.accounts, &tenant.team, "Slurm account"),
    };
    let findings = if scope.contains(name) {
        Vec::new()
    } else {
        vec![Finding {
            path: path::team(),
            observed: format!("{kind} {name:?}; the contract allows {scope:?}"),
            problem: format!("the tenant's {kind} is outside contract {:?}'s scope", contract.name),
            fix: format!(
                "add {name:?} to the contract's scope (and have it re-approved), or use a team the contract covers"
            ),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("{kind} {name:?} is in the contract's scope"))
}

/// WKL-1 for a project binding: every namespace in the contract's scope has a tenant on the cluster (a live quota's
/// team, or a tenant the binding references in `tenants`), so the project never reaches a namespace without quota,
/// RBAC and network isolation. `at` is the binding's `tenants` attribute.
pub fn wkl_1_binding(contract: &Contract, view: &ClusterView, at: AttributePath) -> Check {
    let rule = RuleId::Wkl1;
    if contract.cluster.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(
            rule,
            "Slurm access is scoped by accounts and partitions, not namespaces",
        );
    }
    let mut findings = misplaced(rule, &view.tenants, &view.cluster_name, "tenant");
    let (tenants, live_missing) = view
        .tenants
        .counted(&view.cluster_name, view.neighbours, |t| t.team.clone());
    let missing = namespaces_without_tenant(contract, &tenants);
    if missing.is_empty() && findings.is_empty() {
        // One wording for live and referenced tenants: the plan and the re-plan at apply must agree.
        return Check::passed(
            rule,
            format!("every namespace of contract {:?} has a tenant", contract.name),
        );
    }
    if findings.is_empty() && !view.tenants.unresolved.is_empty() {
        return Check::unknowns(rule, &view.tenants.unresolved);
    }
    if findings.is_empty()
        && let Some(reason) = live_missing
    {
        return Check::unavailable(rule, format!("{reason}; no referenced tenant has {missing:?}"));
    }
    if findings.is_empty() && !view.neighbours.live_counted() {
        return Check::not_at_plan(
            rule,
            format!(
                "not evaluated at plan: no tenant in `tenants` has namespace(s) {missing:?}, and the tenants that \
                 exist on cluster {:?} are counted at apply. Fix: reference each namespace's tenant \
                 (tenants = [hyperpod_tenant.<name>.governance])",
                view.cluster_name
            ),
        );
    }
    findings.extend(
        missing
            .into_iter()
            .map(|namespace| namespace_without_tenant(contract, view, &at, namespace)),
    );
    Check::from_findings(rule, findings, "")
}

/// The namespaces of the contract's scope that none of `tenants` has.
fn namespaces_without_tenant<'a>(contract: &'a Contract, tenants: &[&TenantCapacity]) -> Vec<&'a String> {
    contract
        .eks_namespaces
        .iter()
        .filter(|namespace| {
            !tenants
                .iter()
                .any(|t| hyperpod_model::names::team_namespace(&t.team) == **namespace)
        })
        .collect()
}

/// WKL-1 on the binding (at `at`): `namespace` of the contract's scope has no tenant on the cluster.
fn namespace_without_tenant(contract: &Contract, view: &ClusterView, at: &AttributePath, namespace: &str) -> Finding {
    let team = hyperpod_model::names::team_of_namespace(namespace).unwrap_or(namespace);
    Finding {
        path: at.clone(),
        observed: format!(
            "namespace {namespace:?} has no tenant on cluster {:?}",
            view.cluster_name
        ),
        problem: format!(
            "the project would reach a namespace of contract {:?} that has no quota, RBAC or network isolation",
            contract.name
        ),
        fix: format!(
            "add the hyperpod_tenant with team = {team:?} to this binding's tenants (tenants = \
             [hyperpod_tenant.<name>.governance]), or remove {namespace:?} from the contract's eks_namespaces"
        ),
        ..Finding::of(RuleId::Wkl1)
    }
}

/// References (in `at`) to objects of another cluster: a finding each, since they say nothing about this one.
fn misplaced<T>(rule: RuleId, inventory: &Inventory<T>, cluster_name: &str, what: &str) -> Vec<Finding> {
    inventory
        .elsewhere(cluster_name)
        .map(|reference| Finding {
            path: reference.at.clone(),
            observed: format!("a {what} of cluster {:?}", reference.cluster_name),
            problem: format!("this resource is on cluster {cluster_name:?}"),
            fix: format!("reference a {what} of cluster {cluster_name:?}, or remove this reference"),
            ..Finding::of(rule)
        })
        .collect()
}

/// WKL-2: no lend/borrow on Slurm.
pub fn wkl_2(tenant: &Tenant) -> Check {
    let rule = RuleId::Wkl2;
    if tenant.orchestrator == Orchestrator::Eks {
        return Check::not_applicable(rule, "EKS task governance supports lend/borrow");
    }
    let findings = match &tenant.sharing {
        Some(sharing) if sharing.strategy != SharingStrategy::DontLend || sharing.borrow_limit.is_some() => {
            let at = if sharing.strategy == SharingStrategy::DontLend {
                "borrow_limit"
            } else {
                "strategy"
            };
            vec![Finding {
                path: path::sharing(at),
                observed: (match sharing.borrow_limit {
                    Some(limit) => format!(
                        "strategy {:?}, borrow_limit {limit} on a Slurm cluster",
                        sharing.strategy
                    ),
                    None => format!("strategy {:?} on a Slurm cluster", sharing.strategy),
                }),
                problem: "Slurm has no lend/borrow model".into(),
                fix: "remove the sharing block; on Slurm, share capacity through QoS, priority and fair-share".into(),
                ..Finding::of(rule)
            }]
        }
        _ => Vec::new(),
    };
    Check::from_findings(rule, findings, "no lend/borrow on the Slurm cluster")
}

pub use super::capacity::wkl_3;

/// WKL-4: the tenant's priority class exists in the cluster's scheduling policy (`Known(None)`: no policy).
pub fn wkl_4(tenant: &Tenant, policy: &Fact<Option<SchedulingPolicy>>) -> Check {
    let rule = RuleId::Wkl4;
    let Some(class) = &tenant.priority_class else {
        return Check::passed(rule, "the tenant names no priority class");
    };
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm priority comes from QoS, not a cluster policy");
    }
    let classes: &[String] = match policy {
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
        Fact::Known(None) => &[],
        Fact::Known(Some(policy)) => &policy.priority_classes,
    };
    let findings = if classes.contains(class) {
        Vec::new()
    } else {
        vec![Finding {
            path: AttributePath::attr(path::PRIORITY_CLASS),
            observed: format!("{class:?}; the cluster policy defines {classes:?}"),
            problem: "the priority class does not exist in the cluster's scheduling policy".into(),
            fix: "add it to the hyperpod_scheduling_policy of the cluster, or use one of the defined classes".into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("priority class {class:?} exists"))
}

/// WKL-5: a borrow limit (1-500 %) and absolute borrow limits only with LendAndBorrow; a tenant that names lenders
/// (`borrows_from`) borrows, and each is another team that lends; a team whose entry in the cluster allocation
/// records its sharing shares exactly so. `tenant.sharing` is the effective one (SageMaker's default, LendAndBorrow
/// 50 %, where no block is written), so writing the default out changes nothing. A borrower with no lender yet is
/// not a finding: SageMaker accepts it, there is simply nothing to borrow until a team lends, and every quota
/// borrows by default. `view.tenants.referenced` holds the tenant itself and its `borrows_from` entries.
pub fn wkl_5(tenant: &Tenant, view: &ClusterView) -> Check {
    let rule = RuleId::Wkl5;
    // The tenant itself is referenced at its own `quota`; everything else came from `borrows_from`.
    let lenders: Vec<&Referenced<TenantCapacity>> = view
        .tenants
        .referenced
        .iter()
        .filter(|r| r.at != path::quota())
        .collect();
    let Some(sharing) = &tenant.sharing else {
        return match lenders.first() {
            None => Check::passed(rule, "no sharing configured"),
            Some(first) => Check::from_findings(
                rule,
                vec![Finding {
                    path: first.at.clone(),
                    observed: "borrows_from without a sharing block".into(),
                    problem: "the tenant names lenders but does not borrow".into(),
                    fix: "set sharing { strategy = \"LendAndBorrow\" }, or remove borrows_from".into(),
                    ..Finding::of(rule)
                }],
                "",
            ),
        };
    };
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm has no lend/borrow model (WKL-2)");
    }
    let mut findings = misplaced(rule, &view.tenants, &view.cluster_name, "tenant");
    findings.extend(borrow_limits(rule, sharing));
    findings.extend(absolute_limits_off_the_cluster(sharing, view));
    findings.extend(recorded_sharing(rule, tenant, sharing, view));
    findings.extend(lenders_that_do_not_lend(tenant, sharing, &lenders, view));
    if findings.is_empty() && !view.tenants.unresolved.is_empty() && !lenders.is_empty() {
        return Check::unknowns(rule, &view.tenants.unresolved);
    }
    Check::from_findings(rule, findings, sharing_detail(tenant, sharing, view))
}

/// WKL-5: each absolute limit names capacity the cluster has, as a quota entry must (SageMaker refuses it otherwise).
fn absolute_limits_off_the_cluster(sharing: &Sharing, view: &ClusterView) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (index, limit) in sharing.absolute_borrow_limits.iter().enumerate() {
        let at = path::sharing("absolute_borrow_limit").index(index);
        if let Some(finding) = super::capacity::names_cluster_capacity(view, limit, &at) {
            findings.push(Finding {
                rule: RuleId::Wkl5,
                ..finding
            });
        }
    }
    findings
}

/// WKL-5: a tenant borrows only with LendAndBorrow, and only from another team of its cluster that lends.
fn lenders_that_do_not_lend(
    tenant: &Tenant,
    sharing: &Sharing,
    lenders: &[&Referenced<TenantCapacity>],
    view: &ClusterView,
) -> Vec<Finding> {
    let rule = RuleId::Wkl5;
    let mut findings = Vec::new();
    let lends = |other: &TenantCapacity| other.sharing.as_ref().is_some_and(|s| s.strategy.lends());
    for reference in lenders.iter().filter(|r| r.cluster_name == view.cluster_name) {
        if sharing.strategy != SharingStrategy::LendAndBorrow {
            findings.push(Finding {
                path: reference.at.clone(),
                observed: format!("borrows_from with strategy {}", sharing.strategy),
                problem: "only a LendAndBorrow tenant borrows".into(),
                fix: "set strategy = \"LendAndBorrow\", or remove borrows_from".into(),
                ..Finding::of(rule)
            });
        } else if reference.item.team == tenant.team || !lends(&reference.item) {
            findings.push(Finding {
                path: reference.at.clone(),
                observed: format!(
                    "tenant {:?} with strategy {}",
                    reference.item.team,
                    reference
                        .item
                        .sharing
                        .as_ref()
                        .map_or("none".to_string(), |s| s.strategy.to_string())
                ),
                problem: "a tenant this one borrows from must be another team that lends idle capacity".into(),
                fix: "reference a tenant whose sharing strategy is Lend or LendAndBorrow".into(),
                ..Finding::of(rule)
            });
        }
    }
    findings
}

/// A borrow limit and absolute borrow limits: only with LendAndBorrow, the limit within 1-500 %.
fn borrow_limits(rule: RuleId, sharing: &Sharing) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(limit) = sharing.borrow_limit {
        if sharing.strategy != SharingStrategy::LendAndBorrow {
            findings.push(Finding {
                path: path::sharing("borrow_limit"),
                observed: format!("{limit} % with strategy {}", sharing.strategy),
                problem: "a borrow limit only applies to LendAndBorrow".into(),
                fix: "remove borrow_limit, or set strategy = \"LendAndBorrow\"".into(),
                ..Finding::of(rule)
            });
        }
        if !BORROW_LIMIT_PERCENT.contains(&limit) {
            findings.push(Finding {
                path: path::sharing("borrow_limit"),
                observed: format!("{limit} %"),
                problem: "the borrow limit is out of range".into(),
                fix: "use 1 to 500 percent of idle compute".into(),
                ..Finding::of(rule)
            });
        }
    }
    if !sharing.absolute_borrow_limits.is_empty() && sharing.strategy != SharingStrategy::LendAndBorrow {
        findings.push(Finding {
            path: path::sharing("absolute_borrow_limit"),
            observed: format!(
                "{} absolute borrow limits with strategy {}",
                sharing.absolute_borrow_limits.len(),
                sharing.strategy
            ),
            problem: "an absolute borrow limit only applies to LendAndBorrow".into(),
            fix: "remove absolute_borrow_limit (or set it to []), or set strategy = \"LendAndBorrow\"".into(),
            ..Finding::of(rule)
        });
    }
    findings
}

/// The allocation the tenant references records the team's sharing: the tenant's effective sharing is that one
/// (strategy and borrow limit), as its quota is its entry's quota (WKL-3).
fn recorded_sharing(rule: RuleId, tenant: &Tenant, sharing: &Sharing, view: &ClusterView) -> Option<Finding> {
    let Setting::Set(reference) = &view.allocation else {
        return None;
    };
    if reference.item.cluster_name != view.cluster_name {
        return None;
    }
    let recorded = reference.item.sharing.get(&tenant.team)?;
    let same =
        recorded.strategy == sharing.strategy && recorded.effective_borrow_limit() == sharing.effective_borrow_limit();
    if same {
        return None;
    }
    // Where the tenant says it: its sharing block's strategy (or borrow limit), else the allocation it follows.
    let at = if !tenant.sharing_written {
        path::allocation()
    } else if recorded.strategy == sharing.strategy {
        path::sharing("borrow_limit")
    } else {
        path::sharing("strategy")
    };
    let written = if tenant.sharing_written {
        ""
    } else {
        " (no sharing block: SageMaker's default)"
    };
    Some(Finding {
        path: at,
        observed: format!(
            "{}{written}; the allocation records {} for team {:?}",
            sharing.summary(),
            recorded.summary(),
            tenant.team
        ),
        problem: "a team shares idle capacity as its entry in the cluster allocation records".into(),
        fix: format!(
            "make the tenant's sharing block and teams[{:?}].sharing of the allocation say the same",
            tenant.team
        ),
        ..Finding::of(rule)
    })
}

/// What a passing WKL-5 says: the sharing, and for a borrower the teams it can borrow from (referenced, recorded in
/// the allocation, or live where the view counts them), or that none lends yet.
fn sharing_detail(tenant: &Tenant, sharing: &Sharing, view: &ClusterView) -> String {
    if sharing.strategy != SharingStrategy::LendAndBorrow {
        return format!("sharing {} is consistent", sharing.summary());
    }
    let (counted, _) = view
        .tenants
        .counted(&view.cluster_name, view.neighbours, |t| t.team.clone());
    let mut lenders: Vec<String> = counted
        .iter()
        .filter(|other| other.team != tenant.team && other.sharing.as_ref().is_some_and(|s| s.strategy.lends()))
        .map(|other| other.team.clone())
        .collect();
    if let Setting::Set(reference) = &view.allocation
        && reference.item.cluster_name == view.cluster_name
    {
        lenders.extend(
            reference
                .item
                .sharing
                .iter()
                .filter(|(team, recorded)| **team != tenant.team && recorded.strategy.lends())
                .map(|(team, _)| team.clone()),
        );
    }
    lenders.sort();
    lenders.dedup();
    if lenders.is_empty() {
        format!(
            "sharing {}: no other team lends yet, so there is nothing to borrow until one does",
            sharing.summary()
        )
    } else {
        format!(
            "sharing {}: borrows idle capacity of {}",
            sharing.summary(),
            lenders.join(", ")
        )
    }
}

/// WKL-6 (warning): a fair-share weight while the cluster policy disables fair share has no effect.
pub fn wkl_6(tenant: &Tenant, policy: &Fact<Option<SchedulingPolicy>>) -> Check {
    let rule = RuleId::Wkl6;
    let Some(weight) = tenant.fair_share_weight.filter(|weight| *weight > 0) else {
        return Check::passed(rule, "no fair-share weight set");
    };
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm fair-share is configured in Slurm accounting");
    }
    let enabled = match policy {
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
        // Without a cluster policy SageMaker's default applies: fair share enabled.
        Fact::Known(None) => true,
        Fact::Known(Some(policy)) => policy.fair_share,
    };
    let findings = if enabled {
        Vec::new()
    } else {
        vec![Finding {
            path: AttributePath::attr(path::FAIR_SHARE_WEIGHT),
            observed: weight.to_string(),
            problem: "the cluster policy disables fair share, so the weight has no effect".into(),
            fix: "enable fair_share in the cluster's hyperpod_scheduling_policy, or remove fair_share_weight".into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("fair-share weight {weight} applies"))
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
