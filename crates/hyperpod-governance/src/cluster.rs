//! Cluster rules (CLU-*): the cluster's real orchestrator, who sees which tasks, and how its API is reached.

use super::arns::same_role;
use super::catalog::RuleId;
use super::cidr::Cidr;
use super::finding::{Check, Finding};
use super::model::{
    AccessEntry, AccessScope, Addon, ClusterView, Contract, EksCluster, Fact, LiveCluster, Phase, ProjectOnCluster,
    Setting, TaskViewRestriction, Tenant,
};
use super::paths;
use crate::path::AttributePath;

/// Cluster-scoped EKS access policies that defeat a task view restriction (CLU-3). `AmazonEKSAdminViewPolicy` is
/// not in the catalog's list but is a cluster-wide view too, so it defeats the restriction the same way.
pub const CLUSTER_WIDE_VIEW_POLICIES: &[&str] = &[
    "AmazonEKSViewPolicy",
    "AmazonEKSEditPolicy",
    "AmazonEKSAdminPolicy",
    "AmazonEKSClusterAdminPolicy",
    "AmazonEKSAdminViewPolicy",
];

/// The policies that make a principal a cluster admin, for CLU-6's list of admin roles.
pub const CLUSTER_ADMIN_POLICIES: &[&str] = &["AmazonEKSAdminPolicy", "AmazonEKSClusterAdminPolicy"];

fn policy_name(arn: &str) -> &str {
    arn.rsplit('/').next().unwrap_or(arn)
}

/// Principals with a cluster-scoped admin access policy: the cluster-admin roles CLU-6 keeps workloads away from.
pub fn cluster_admin_principals(entries: &[AccessEntry]) -> Vec<String> {
    entries
        .iter()
        .filter(|entry| {
            entry.policies.iter().any(|policy| {
                policy.scope == AccessScope::Cluster
                    && CLUSTER_ADMIN_POLICIES.contains(&policy_name(&policy.policy_arn))
            })
        })
        .map(|entry| entry.principal_arn.clone())
        .collect()
}

/// CLU-1: the contract's orchestrator is the cluster's. `Known(None)`: the cluster was not found (ORG-3 fails).
pub fn clu_1(contract: &Contract, cluster: &Fact<Option<LiveCluster>>) -> Check {
    let rule = RuleId::Clu1;
    let declared = contract.cluster.orchestrator;
    let live = match cluster {
        Fact::Known(Some(live)) => live,
        Fact::Known(None) => return Check::unavailable(rule, "the cluster was not found (see ORG-3)"),
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let findings = if live.orchestrator == declared {
        Vec::new()
    } else {
        vec![Finding {
            path: paths::contract::cluster("orchestrator"),
            observed: format!(
                "cluster {:?} is orchestrated by {}",
                contract.cluster.name, live.orchestrator
            ),
            problem: format!("the contract says {declared}"),
            fix: format!(
                "set cluster.orchestrator = \"{}\" and the matching access scope",
                live.orchestrator
            ),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("the cluster is {declared}-orchestrated"))
}

/// CLU-2, judged on the project binding that onboards `project` into Studio: once the cluster has another project
/// or another team, the project's task view is restricted — by the task view restriction the binding references,
/// or by one that exists (a namespace-scoped access entry for the project role). `own_namespaces` are the binding
/// contract's namespaces (teams outside them are other teams); `at` is the binding's `task_view_restriction`.
/// Other projects and teams come from live state only: the first of two new projects is not "shared" at plan, and
/// apply judges the second again, before it writes, once the first exists.
/// Whether the view holds a task view restriction (referenced, else live) for `role` on its cluster, and why the
/// live ones could not be read. CLU-2 needs the other projects on the cluster only when it does not.
pub fn restriction_for<'a>(view: &'a ClusterView, role: &str) -> (bool, Option<&'a str>) {
    let (restrictions, missing) = view
        .restrictions
        .counted(&view.cluster_name, view.neighbours, |r| r.project_role_arn.clone());
    let restricted = restrictions
        .iter()
        .any(|r| r.project_role_arn.as_deref().is_some_and(|arn| same_role(arn, role)));
    (restricted, missing)
}

pub fn clu_2(project: &ProjectOnCluster, own_namespaces: &[String], view: &ClusterView, at: AttributePath) -> Check {
    let rule = RuleId::Clu2;
    let Some(role) = project.project_role_arn.as_deref() else {
        return Check::unknown(rule, paths::binding::project_role_arn().to_string());
    };
    let findings = restrictions_elsewhere(role, view);
    if !findings.is_empty() {
        return Check::from_findings(rule, findings, "");
    }
    if !view.restrictions.unresolved.is_empty() {
        return Check::unknowns(rule, &view.restrictions.unresolved);
    }
    let (restricted, restrictions_missing) = restriction_for(view, role);
    if restricted {
        return Check::passed(
            rule,
            format!(
                "project {:?}'s task view on cluster {:?} is restricted",
                project.project_id, view.cluster_name
            ),
        );
    }
    let others = match others_on_cluster(project, own_namespaces, view, role) {
        Ok(others) => others,
        Err(check) => return check,
    };
    if let Some(reason) = restrictions_missing {
        return Check::unavailable(rule, reason);
    }
    unrestricted(project, view, &others, at, role)
}

/// CLU-2: the restrictions the binding references that are of another cluster or another role.
fn restrictions_elsewhere(role: &str, view: &ClusterView) -> Vec<Finding> {
    let mut findings = Vec::new();
    for reference in &view.restrictions.referenced {
        let other_role = reference.item.project_role_arn.as_deref();
        let observed = if reference.cluster_name != view.cluster_name {
            format!("a task view restriction of cluster {:?}", reference.cluster_name)
        } else if other_role.is_some_and(|other| !same_role(other, role)) {
            format!("a task view restriction for role {}", other_role.unwrap_or_default())
        } else {
            continue;
        };
        findings.push(Finding {
            path: reference.at.clone(),
            observed,
            problem: format!("this binding onboards role {role} to cluster {:?}", view.cluster_name),
            fix: "reference the hyperpod_task_view_restriction of this project role on this cluster".into(),
            ..Finding::of(RuleId::Clu2)
        });
    }
    findings
}

/// The other projects and teams an unrestricted task view would show, as far as the plan knows them.
struct Others<'a> {
    projects: Vec<&'a str>,
    teams: Vec<String>,
    /// Whether the binding references the cluster's allocation (the teams this configuration plans).
    allocation_referenced: bool,
    /// Whether the projects and teams that exist on the cluster were counted (not until apply in a new graph).
    live_counted: bool,
}

impl Others<'_> {
    fn is_empty(&self) -> bool {
        self.projects.is_empty() && self.teams.is_empty()
    }
}

/// CLU-2: who else is on the cluster: the other projects, the live teams and those the allocation documents; `Err`
/// is the check when that cannot be told (unavailable, unknown, or an allocation of another cluster).
fn others_on_cluster<'a>(
    project: &ProjectOnCluster,
    own_namespaces: &[String],
    view: &'a ClusterView,
    role: &str,
) -> Result<Others<'a>, Check> {
    let rule = RuleId::Clu2;
    let live_counted = view.neighbours.live_counted();
    let projects: Vec<&str> = match &view.projects {
        _ if !live_counted => Vec::new(),
        Fact::Known(projects) => projects
            .iter()
            .filter(|p| p.project_id != project.project_id)
            .map(|p| p.project_id.as_str())
            .collect(),
        Fact::Unavailable(reason) => return Err(Check::unavailable(rule, reason)),
    };
    let allocation = match &view.allocation {
        Setting::Set(reference) if reference.cluster_name == view.cluster_name => Some(&reference.item),
        Setting::Set(reference) => {
            return Err(Check::from_findings(
                rule,
                vec![Finding {
                    path: paths::binding::allocation(),
                    observed: format!("the allocation of cluster {:?}", reference.cluster_name),
                    problem: format!("this binding onboards role {role} to cluster {:?}", view.cluster_name),
                    fix: format!(
                        "reference the hyperpod_cluster_allocation of cluster {:?}",
                        view.cluster_name
                    ),
                    ..Finding::of(rule)
                }],
                "",
            ));
        }
        Setting::Unknown => return Err(Check::unknown(rule, paths::binding::allocation().to_string())),
        Setting::Unset => None,
    };
    let mut teams: Vec<String> = match &view.tenants.live {
        _ if !live_counted => Vec::new(),
        Fact::Known(tenants) => tenants.iter().map(|t| t.team.clone()).collect(),
        Fact::Unavailable(reason) => return Err(Check::unavailable(rule, reason)),
    };
    // The teams the cluster's allocation documents are on it as soon as this configuration applies.
    teams.extend(allocation.iter().flat_map(|a| a.teams.keys().cloned()));
    teams.retain(|team| !own_namespaces.contains(&hyperpod_model::names::team_namespace(team)));
    teams.sort();
    teams.dedup();
    Ok(Others {
        projects,
        teams,
        allocation_referenced: allocation.is_some(),
        live_counted,
    })
}

/// CLU-2 for a binding without a restriction: passed while it is alone on the cluster, waiting for apply while that
/// cannot be known at plan, broken once another project or team shares the cluster.
fn unrestricted(
    project: &ProjectOnCluster,
    view: &ClusterView,
    others: &Others<'_>,
    at: AttributePath,
    role: &str,
) -> Check {
    let rule = RuleId::Clu2;
    if others.is_empty() && !others.live_counted {
        return Check::not_at_plan(
            rule,
            format!(
                "not evaluated at plan: this binding references no task view restriction, and no other team of the \
                 allocation it references shares cluster {:?}; the projects and teams that exist on the cluster are \
                 counted at apply. Fix: restrict the project's task view (task_view_restriction = \
                 hyperpod_task_view_restriction.<name>.governance)",
                view.cluster_name
            ),
        );
    }
    if others.is_empty() && !others.allocation_referenced && view.phase == Phase::Plan {
        return Check::not_at_plan(
            rule,
            format!(
                "not evaluated at plan: no other project or team is on cluster {:?} yet, and this binding \
                 references no allocation of the cluster, so teams planned in this configuration are not seen. Fix: \
                 set allocation = hyperpod_cluster_allocation.<name>.governance (or restrict the project's task \
                 view now: task_view_restriction = hyperpod_task_view_restriction.<name>.governance)",
                view.cluster_name
            ),
        );
    }
    if others.is_empty() {
        return Check::passed(
            rule,
            format!(
                "no other project or team uses cluster {:?} yet; restrict project {:?}'s task view before one is \
                 onboarded",
                view.cluster_name, project.project_id
            ),
        );
    }
    Check::from_findings(rule, vec![seen_by_others(project, view, others, at, role)], "")
}

/// CLU-2's finding: the unrestricted project would see the tasks of the others on its cluster.
fn seen_by_others(
    project: &ProjectOnCluster,
    view: &ClusterView,
    others: &Others<'_>,
    at: AttributePath,
    role: &str,
) -> Finding {
    Finding {
        path: at,
        observed: format!(
            "no task view restriction for role {role}; cluster {:?} also has project(s) {:?} and \
                 team(s) {:?}",
            view.cluster_name, others.projects, others.teams
        ),
        problem: format!(
            "Studio users of project {:?} would see every team's tasks",
            project.project_id
        ),
        fix: "add a hyperpod_task_view_restriction for this project role, limited to its namespaces, and reference it \
             here (task_view_restriction = hyperpod_task_view_restriction.<name>.governance)"
            .into(),
        ..Finding::of(RuleId::Clu2)
    }
}

/// CLU-9: a task view restriction grants Studio task visibility only within its contract: for the contract's own
/// project role, on namespaces inside the contract's scope (never another team's namespace, `kube-system`, or
/// none at all). Needs only the configuration.
pub fn clu_9(restriction: &TaskViewRestriction, contract: &Contract) -> Check {
    let rule = RuleId::Clu9;
    if contract.cluster.orchestrator == super::model::Orchestrator::Slurm {
        return Check::not_applicable(
            rule,
            "Slurm task visibility is scoped by PrivateData and Run As, not namespaces",
        );
    }
    let mut findings = Vec::new();
    let mut unknown = Vec::new();
    match (&restriction.project_role_arn, &contract.project_role_arn) {
        (Some(role), Some(approved)) if !same_role(role, approved) => findings.push(Finding {
            path: paths::restriction::project_role_arn(),
            observed: role.clone(),
            problem: format!(
                "contract {:?} approves project role {approved}, so this restriction would grant Studio task \
                 visibility to a role the contract does not cover",
                contract.name
            ),
            fix: "restrict the contract's project role (leave project_role_arn unset to use it), or reference the \
             contract of the other project"
                .into(),
            ..Finding::of(rule)
        }),
        (None, _) => unknown.push(paths::restriction::project_role_arn().to_string()),
        (_, None) => unknown.push("the contract's project_role_arn".to_string()),
        _ => {}
    }
    findings.extend(namespaces_outside_scope(restriction, contract));
    if findings.is_empty() && !unknown.is_empty() {
        return Check::unknowns(rule, &unknown);
    }
    Check::from_findings(
        rule,
        findings,
        format!(
            "the contract's project role, on namespaces {:?} of its scope",
            restriction.namespaces
        ),
    )
}

/// CLU-9 on the restriction's namespaces: none at all, or some outside the contract's `eks_namespaces`.
fn namespaces_outside_scope(restriction: &TaskViewRestriction, contract: &Contract) -> Option<Finding> {
    let rule = RuleId::Clu9;
    let outside: Vec<&String> = restriction
        .namespaces
        .iter()
        .filter(|namespace| !contract.eks_namespaces.contains(namespace))
        .collect();
    if restriction.namespaces.is_empty() {
        Some(Finding {
            path: paths::restriction::namespaces(),
            observed: "no namespaces".into(),
            problem: "a restriction with no namespace leaves the project's Studio users with nothing to see".into(),
            fix: format!(
                "list the contract's namespaces ({:?}), or leave namespaces unset to use them",
                contract.eks_namespaces
            ),
            ..Finding::of(rule)
        })
    } else if !outside.is_empty() {
        Some(Finding {
            path: paths::restriction::namespaces(),
            observed: format!(
                "{outside:?}; contract {:?} allows {:?}",
                contract.name, contract.eks_namespaces
            ),
            problem:
                "the restriction grants the project role HyperPod access to namespaces outside its contract's scope"
                    .into(),
            fix: "keep namespaces inside the contract's eks_namespaces (add a namespace to the contract and have it \
             re-approved first)"
                .into(),
            ..Finding::of(rule)
        })
    } else {
        None
    }
}

/// CLU-3: the restricted project role has no cluster-scoped view/edit/admin access policy.
pub fn clu_3(restriction: &TaskViewRestriction, entries: &Fact<Vec<AccessEntry>>) -> Check {
    let rule = RuleId::Clu3;
    let at = paths::restriction::project_role_arn();
    let Some(role) = restriction.project_role_arn.as_deref() else {
        return Check::unknown(rule, at.to_string());
    };
    let entries = match entries {
        Fact::Known(entries) => entries,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let findings = entries
        .iter()
        .filter(|entry| same_role(&entry.principal_arn, role))
        .flat_map(|entry| entry.policies.iter())
        .filter(|p| p.scope == AccessScope::Cluster && CLUSTER_WIDE_VIEW_POLICIES.contains(&policy_name(&p.policy_arn)))
        .map(|p| Finding {
            path: at.clone(),
            observed: format!("{} is associated with {role} at cluster scope", p.policy_arn),
            problem:
                "a cluster-wide access policy lets the restricted role see every namespace, defeating the restriction"
                    .into(),
            fix: format!(
                "disassociate it (aws eks disassociate-access-policy --policy-arn {}) or scope it to the \
                     allowed namespaces",
                p.policy_arn
            ),
            ..Finding::of(rule)
        })
        .collect();
    Check::from_findings(
        rule,
        findings,
        "no cluster-wide view, edit or admin policy on the restricted role",
    )
}

/// CLU-4: the EKS cluster admits access entries.
pub fn clu_4(eks: &Fact<EksCluster>, at: AttributePath) -> Check {
    let rule = RuleId::Clu4;
    let eks = match eks {
        Fact::Known(eks) => eks,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let mode = eks.authentication_mode.as_str();
    let findings = if matches!(mode, "API" | "API_AND_CONFIG_MAP") {
        Vec::new()
    } else {
        vec![Finding {
            path: at,
            observed: format!("authenticationMode {mode:?}"),
            problem:
                "the EKS cluster does not accept access entries, which HyperPod and the task view restriction rely on"
                    .into(),
            fix: "switch it with aws eks update-cluster-config --access-config authenticationMode=API_AND_CONFIG_MAP"
                .into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("authentication mode {mode}"))
}

/// The EKS add-on that runs HyperPod task governance (Kueue and SageMaker's controllers): compute quotas and cluster
/// policies act through it, and AWS has it installed before either is created.
pub const TASK_GOVERNANCE_ADDON: &str = "amazon-sagemaker-hyperpod-taskgovernance";

/// CLU-10: the task-governance add-on is installed and ACTIVE on `eks_cluster`. `addon` is `eks:DescribeAddon` of
/// [`TASK_GOVERNANCE_ADDON`] (`Known(None)`: not installed); `at` the attribute that puts the resource on the
/// cluster (a tenant's contract cluster, a policy's `cluster_name`).
pub fn clu_10(addon: &Fact<Option<Addon>>, eks_cluster: &str, at: AttributePath) -> Check {
    let rule = RuleId::Clu10;
    let fix = format!(
        "install it first: aws eks create-addon --cluster-name {eks_cluster} --addon-name {TASK_GOVERNANCE_ADDON} \
         (or from the HyperPod console's Dashboard), and wait until it is ACTIVE"
    );
    let finding = |observed: String, why: &str| Finding {
        path: at.clone(),
        observed,
        problem: why.into(),
        fix: fix.clone(),
        ..Finding::of(rule)
    };
    let findings = match addon {
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
        Fact::Known(None) => vec![finding(
            format!("EKS cluster {eks_cluster:?} has no {TASK_GOVERNANCE_ADDON} add-on"),
            "compute quotas and scheduling policies need HyperPod task governance, which this add-on runs",
        )],
        Fact::Known(Some(addon)) if addon.status != "ACTIVE" => vec![finding(
            format!("{TASK_GOVERNANCE_ADDON} on {eks_cluster:?} is {}", addon.status),
            "task governance works only once its add-on is ACTIVE",
        )],
        Fact::Known(Some(addon)) => {
            return Check::passed(rule, format!("{TASK_GOVERNANCE_ADDON} {} ACTIVE", addon.version));
        }
    };
    Check::from_findings(rule, findings, "")
}

/// CLU-5 (warning): the EKS endpoint is private, or public only from the contract's approved CIDRs. An empty
/// public CIDR list on a public endpoint means 0.0.0.0/0, as EKS defaults it.
pub fn clu_5(contract: &Contract, eks: &Fact<EksCluster>) -> Check {
    let rule = RuleId::Clu5;
    let eks = match eks {
        Fact::Known(eks) => eks,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    if !eks.endpoint_public {
        return Check::passed(rule, "the API endpoint is private");
    }
    // Malformed approved CIDRs are CON-1's finding; here they approve nothing.
    let approved: Vec<Cidr> = contract
        .approved_public_cidrs
        .iter()
        .filter_map(|c| c.parse().ok())
        .collect();
    let public: Vec<&str> = match eks.public_cidrs.as_slice() {
        [] => vec!["0.0.0.0/0"],
        cidrs => cidrs.iter().map(String::as_str).collect(),
    };
    let findings: Vec<Finding> = public
        .iter()
        .filter(|cidr| match cidr.parse::<Cidr>() {
            Ok(cidr) => !approved.iter().any(|a| a.contains(&cidr)),
            Err(_) => true,
        })
        .map(|cidr| Finding {
            path: paths::contract::attr(paths::contract::APPROVED_PUBLIC_CIDRS),
            observed: format!(
                "the EKS endpoint is public to {cidr}; approved: {:?}",
                contract.approved_public_cidrs
            ),
            problem: "the API endpoint is reachable from networks the contract does not approve".into(),
            fix: "make the endpoint private, narrow its publicAccessCidrs, or approve the range in the contract".into(),
            ..Finding::of(rule)
        })
        .collect();
    Check::from_findings(rule, findings, format!("public only from approved CIDRs {public:?}"))
}

/// CLU-6: a tenant's workload roles (Pod Identity role and target role) are neither project-facing roles (the
/// project role, the connection's access role) nor cluster-admin roles.
pub fn clu_6(tenant: &Tenant, contract: &Contract, cluster_admin_roles: &[String]) -> Check {
    let rule = RuleId::Clu6;
    if tenant.orchestrator == super::model::Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm tenants run as OS users, not IAM workload roles");
    }
    let mut unknown = Vec::new();
    let mut workload_roles = Vec::new();
    match &tenant.workload_role_arn {
        Setting::Set(arn) => workload_roles.push((paths::tenant::workload_role_arn(), arn.as_str())),
        Setting::Unknown => unknown.push(paths::tenant::workload_role_arn().to_string()),
        // No workload identity: no role of the tenant's to judge.
        Setting::Unset => {}
    }
    match &tenant.target_role_arn {
        Setting::Set(arn) => workload_roles.push((paths::tenant::workload("target_role_arn"), arn.as_str())),
        Setting::Unknown => unknown.push(paths::tenant::workload("target_role_arn").to_string()),
        Setting::Unset => {}
    }
    let mut forbidden: Vec<(String, &str)> = Vec::new();
    for (what, arn) in [
        ("the project role", &contract.project_role_arn),
        ("the connection access role", &contract.access_role_arn),
    ] {
        match arn {
            Some(arn) => forbidden.push((what.to_string(), arn.as_str())),
            None => unknown.push(format!("the contract's {what}")),
        }
    }
    forbidden.extend(
        cluster_admin_roles
            .iter()
            .map(|arn| ("a cluster-admin role".to_string(), arn.as_str())),
    );
    let mut findings = Vec::new();
    for (at, arn) in &workload_roles {
        if let Some((what, _)) = forbidden.iter().find(|(_, other)| same_role(arn, other)) {
            findings.push(Finding {
                path: at.clone(),
                observed: (*arn).into(),
                problem: format!("the workload role is {what}"),
                fix: "give the tenant its own workload role; admin and project identities never run workloads".into(),
                ..Finding::of(rule)
            });
        }
    }
    if findings.is_empty() && !unknown.is_empty() {
        return Check::unknowns(rule, &unknown);
    }
    Check::from_findings(rule, findings, "the workload roles are the tenant's own")
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
