//! The governance engine: facts in, checks out. Pure functions, no I/O, no clock, no AWS types.
//!
//! Resources gather facts from their configuration and from AWS reads into the typed model ([`model`]): a
//! [`Contract`], live facts ([`LiveCluster`], [`LiveProject`], [`RolePermissions`], [`EksCluster`], …), and for the
//! workload resources a [`Tenant`], [`Binding`], [`TaskViewRestriction`] and the [`ClusterView`] of everything known
//! about one cluster. Each rule of the catalog (`shared/design/governance-model.md`) is one function that takes the
//! facts it needs and returns a [`Check`]: passed (with a detail for the checklist), failed (with [`Finding`]s that
//! name the rule, the attribute path, the observed value and the fix), or skipped with a reason (a value unknown
//! until apply, or a fact the resource could not read — never a silent pass). A [`Report`] of checks becomes
//! [`Message`]s, which the provider renders as diagnostics (`strict` turns warnings into errors), and the checklist a
//! resource exposes in the plan; valid contract exceptions turn failures into `excepted` outcomes that name the
//! exception.
//!
//! Where things live: rule IDs and their text in [`catalog`]; attribute names in [`paths`]; CON-* in [`contract`],
//! ORG-* in [`organization`], PRJ-* in [`project`] (IAM evaluation in [`iam_policy`]), CLU-* in [`cluster`]
//! (CIDRs in [`cidr`]; the Slurm restriction rules CLU-7, CLU-8 in [`cluster_slurm`]; CLU-10, the task-governance
//! add-on, is judged by the tenant and scheduling policy resources themselves, next to their own reports), WKL-1..6
//! in [`workload`], WKL-7..11 in [`workload_access`], EXC-1 in [`exceptions`], OBS-1 in [`observability`], LIF-* in
//! [`lifecycle`]. [`rule_function`] maps every rule to its function; the `check_*`
//! functions below run the rules that belong to one resource's plan. [`examples`] holds agreeing facts and one failing
//! configuration per rule, shared by the unit tests and the docs.

pub mod approval;
pub mod arns;
pub mod capacity;
pub mod catalog;
pub mod cidr;
pub mod cluster;
pub mod cluster_slurm;
pub mod contract;
pub mod exceptions;
pub mod finding;
pub mod iam_policy;
pub mod lifecycle;
pub mod model;
pub mod observability;
pub mod organization;
pub mod paths;
pub mod project;
pub mod shapes;
pub mod spaces;
pub mod tenancy;
pub mod workload;
pub mod workload_access;

#[cfg(any(test, feature = "examples"))]
pub mod examples;
pub use hyperpod_model::path;

pub use catalog::{FindingSeverity, Layer, Needs, RuleId};
pub use cidr::Cidr;
pub use finding::{Check, Checklist, ChecklistRow, Finding, Message, Messages, Outcome, Report, SkipCause};
pub use lifecycle::{ReviewStatus, material_changes, reapproved, review_status, schedule_status};
pub use model::*;
pub use path::{AttributePath, PathStep};

use time::Date;

/// The contract's own rules: CON-1..3, ORG-1, ORG-3, PRJ-2, PRJ-4 (the contract's half), CLU-1, CLU-4 and CLU-5
/// (with EKS facts), OBS-1 (with the add-on fact), EXC-1 and LIF-1, LIF-2, LIF-4. `caller_arn` is the identity
/// running the plan (sts:GetCallerIdentity); `prior` the contract as last applied, for LIF-2.
pub fn check_contract(
    contract: &Contract,
    live: &ContractLiveFacts,
    caller_arn: &Fact<String>,
    today: Date,
    prior: Option<&Contract>,
    approved: Option<&approval::Facts>,
) -> Report {
    let mut report: Report = [
        contract::con_1(contract),
        contract::con_2(contract),
        contract::con_3(contract),
        organization::org_1(contract, &live.project),
        organization::org_3(contract, &live.cluster),
        project::prj_2(contract, &live.project_role, &live.access_role),
        project::prj_4(contract, None, &live.project),
        cluster::clu_1(contract, &live.cluster),
    ]
    .into_iter()
    .collect();
    if contract.cluster.orchestrator == Orchestrator::Eks {
        if let Some(eks) = &live.eks {
            report.push(cluster::clu_4(eks, paths::contract::cluster("name")));
            report.push(cluster::clu_5(contract, eks));
        }
        if let (Some(addon), Some(node_roles)) = (&live.observability_addon, &live.node_roles) {
            report.push(observability::obs_1(addon, node_roles, paths::contract::signals()));
        }
    }
    report.push(exceptions::exc_1(contract, today));
    report.push(lifecycle::lif_1(contract, today));
    let facts = approved.map(|approved| approval::compare(approved, &approval::current_facts(contract, live)));
    report.push(lifecycle::lif_2(contract, prior, facts.as_ref()));
    report.push(lifecycle::lif_4(contract, caller_arn));
    report.with_exceptions(&contract.exceptions, today)
}

/// Stands in for the live scheduling policy in what a plan records (`Neighbours::ReferencedOnly`).
const POLICY_NOT_COUNTED: &str = "the live scheduling policy is not counted in what the plan records";

/// A rule over the cluster's scheduling policy. What a plan records counts a policy the resource references; the
/// live one (another root's, or one this very apply creates) may change before apply, so a rule that needs it is not
/// evaluated at plan there, and is judged with it in the plan's refusals and at apply.
fn with_policy(view: &ClusterView, rule: impl Fn(&Fact<Option<SchedulingPolicy>>) -> Check) -> Check {
    if view.neighbours.live_counted() || !view.policy_live {
        return rule(&view.scheduling_policy);
    }
    // The policy is the one fact these rules read that can be unavailable: a rule skipped for it waits for apply.
    let check = rule(&Fact::Unavailable(POLICY_NOT_COUNTED.to_string()));
    match &check.outcome {
        Outcome::Skipped {
            cause: SkipCause::Unavailable,
            ..
        } => Check::not_at_plan(
            check.rule,
            "not evaluated at plan: the tenant references no scheduling policy, and the cluster's live one is \
             judged at apply. Fix: scheduling_policy = hyperpod_scheduling_policy.<name>.governance",
        ),
        _ => check,
    }
}

/// WKL-3 for a tenant. A Slurm tenant guarantees through QoS and associations, never a compute quota: not
/// applicable there; an EKS tenant that guarantees nothing cannot overcommit anything.
fn capacity_of(tenant: &Tenant, view: &ClusterView) -> Check {
    match (tenant.orchestrator, tenant.quota.is_empty()) {
        (Orchestrator::Slurm, true) => Check::not_applicable(
            RuleId::Wkl3,
            "Slurm guarantees capacity through QoS and associations, not compute quotas",
        ),
        (Orchestrator::Eks, true) => Check::passed(RuleId::Wkl3, "the tenant guarantees no capacity"),
        _ => workload::wkl_3(view, paths::tenant::quota()),
    }
}

/// A tenant's rules: WKL-1..11, ORG-2, CLU-6, LIF-3 and EXC-1 (on the contract's exceptions). Paths point into
/// `hyperpod_tenant`; the contract is the one the tenant references, `view` its cluster (with this tenant and the
/// tenants it borrows from in `tenants.referenced`). CLU-2 is the binding's: it is the binding that onboards a
/// project into Studio, whose task view the rule restricts.
pub fn check_tenant(
    tenant: &Tenant,
    contract: &Contract,
    view: &ClusterView,
    cluster_admin_roles: &[String],
    today: Date,
) -> Report {
    let report: Report = [
        organization::org_2(tenant, contract),
        cluster::clu_6(tenant, contract, cluster_admin_roles),
        workload::wkl_1(tenant, contract),
        workload::wkl_2(tenant),
        capacity_of(tenant, view),
        with_policy(view, |policy| workload::wkl_4(tenant, policy)),
        workload::wkl_5(tenant, view),
        with_policy(view, |policy| workload::wkl_6(tenant, policy)),
        workload_access::wkl_7(tenant),
        workload_access::wkl_8(tenant),
        workload_access::wkl_9(tenant),
        workload_access::wkl_10(tenant),
        workload_access::wkl_11(tenant, contract),
        with_policy(view, |policy| spaces::wkl_12(tenant, contract, policy)),
        lifecycle::lif_3(contract, paths::tenant::contract()),
    ]
    .into_iter()
    .collect();
    // The exceptions a tenant relies on live in its contract: judge them here too, pointing into `contract`.
    let exceptions = Report::from_iter([exceptions::exc_1(contract, today)]).under(&paths::tenant::contract());
    let mut report = report;
    report.checks.extend(exceptions.checks);
    report.with_exceptions(&contract.exceptions, today)
}

/// A project binding's rules: PRJ-1, PRJ-3, PRJ-4 (both halves), CLU-2 (against the restriction it references and
/// the cluster's live projects and teams), WKL-1 (the contract's namespaces have tenants, referenced or live) and
/// LIF-3.
pub fn check_binding(
    binding: &Binding,
    contract: &Contract,
    project: &Fact<LiveProject>,
    view: &ClusterView,
    today: Date,
) -> Report {
    let report: Report = [
        project::prj_1(binding),
        project::prj_3(binding, contract, today),
        project::prj_4(contract, Some(binding), project),
        cluster::clu_2(
            &ProjectOnCluster {
                project_id: binding.project_id.clone().unwrap_or_default(),
                project_role_arn: binding.project_role_arn.clone(),
            },
            &contract.eks_namespaces,
            view,
            paths::binding::task_view_restriction(),
        ),
        workload::wkl_1_binding(contract, view, paths::binding::tenants()),
        lifecycle::lif_3(contract, paths::binding::contract()),
    ]
    .into_iter()
    .collect();
    report.with_exceptions(&contract.exceptions, today)
}

/// What a task view restriction's plan reads: the EKS access entries and cluster (EKS), or the Session Manager
/// preferences and the project role's policies (Slurm).
#[derive(Clone, Debug, PartialEq)]
pub enum RestrictionFacts {
    Eks {
        entries: Fact<Vec<AccessEntry>>,
        eks: Fact<EksCluster>,
    },
    Slurm {
        preferences: Fact<cluster_slurm::SessionPreferences>,
        project_role: Fact<RolePermissions>,
        cluster_arn: String,
    },
}

/// A task view restriction's rules: CLU-9 and LIF-3; on EKS CLU-3, CLU-4 and CLU-5; on Slurm CLU-7 and CLU-8.
pub fn check_restriction(
    restriction: &TaskViewRestriction,
    contract: &Contract,
    facts: &RestrictionFacts,
    today: Date,
) -> Report {
    let mut report: Report = [cluster::clu_9(restriction, contract)].into_iter().collect();
    match facts {
        RestrictionFacts::Eks { entries, eks } => {
            report.push(cluster::clu_3(restriction, entries));
            report.push(cluster::clu_4(eks, paths::restriction::project_role_arn()));
            report.push(cluster::clu_5(contract, eks));
        }
        RestrictionFacts::Slurm {
            preferences,
            project_role,
            cluster_arn,
        } => {
            report.push(cluster_slurm::clu_7(preferences));
            report.push(cluster_slurm::clu_8(project_role, cluster_arn));
        }
    }
    report.push(lifecycle::lif_3(contract, paths::restriction::contract()));
    report.with_exceptions(&contract.exceptions, today)
}

/// Where each rule is implemented, for the docs and for people; the exhaustive match means a rule added to the
/// catalog does not compile until it is placed here (and the wiring test runs it).
pub fn rule_function(rule: RuleId) -> &'static str {
    use RuleId::{
        Clu1, Clu2, Clu3, Clu4, Clu5, Clu6, Clu7, Clu8, Clu9, Clu10, Con1, Con2, Con3, Exc1, Lif1, Lif2, Lif3, Lif4,
        Obs1, Org1, Org2, Org3, Prj1, Prj2, Prj3, Prj4, Wkl1, Wkl2, Wkl3, Wkl4, Wkl5, Wkl6, Wkl7, Wkl8, Wkl9, Wkl10,
        Wkl11, Wkl12,
    };
    match rule {
        Con1 => "governance::contract::con_1",
        Con2 => "governance::contract::con_2",
        Con3 => "governance::contract::con_3",
        Org1 => "governance::organization::org_1",
        Org2 => "governance::organization::org_2",
        Org3 => "governance::organization::org_3",
        Prj1 => "governance::project::prj_1",
        Prj2 => "governance::project::prj_2",
        Prj3 => "governance::project::prj_3",
        Prj4 => "governance::project::prj_4",
        Clu1 => "governance::cluster::clu_1",
        Clu2 => "governance::cluster::clu_2",
        Clu3 => "governance::cluster::clu_3",
        Clu4 => "governance::cluster::clu_4",
        Clu5 => "governance::cluster::clu_5",
        Clu6 => "governance::cluster::clu_6",
        Clu7 => "governance::cluster_slurm::clu_7",
        Clu8 => "governance::cluster_slurm::clu_8",
        Clu9 => "governance::cluster::clu_9",
        Clu10 => "governance::cluster::clu_10",
        Wkl1 => "governance::workload::wkl_1",
        Wkl2 => "governance::workload::wkl_2",
        Wkl3 => "governance::capacity::wkl_3",
        Wkl4 => "governance::workload::wkl_4",
        Wkl5 => "governance::workload::wkl_5",
        Wkl6 => "governance::workload::wkl_6",
        Wkl7 => "governance::workload_access::wkl_7",
        Wkl8 => "governance::workload_access::wkl_8",
        Wkl9 => "governance::workload_access::wkl_9",
        Wkl10 => "governance::workload_access::wkl_10",
        Wkl11 => "governance::workload_access::wkl_11",
        Wkl12 => "governance::spaces::wkl_12",
        Exc1 => "governance::exceptions::exc_1",
        Obs1 => "governance::observability::obs_1",
        Lif1 => "governance::lifecycle::lif_1",
        Lif2 => "governance::lifecycle::lif_2",
        Lif3 => "governance::lifecycle::lif_3",
        Lif4 => "governance::lifecycle::lif_4",
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
