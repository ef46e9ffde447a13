//! The tenant's verdict, from its plan inputs alone: the orchestrator the contract names (CLU-1), the workload block
//! the orchestrator needs, every rule of the engine's `check_tenant` (ORG-2, CLU-6, WKL-1..12, LIF-3, EXC-1) with
//! CLU-10 on the task-governance add-on, then the refusals no rule covers: a foreign quota of the tenant's team, more
//! tags than AWS accepts. No I/O.

use super::super::model::{self, ownership};
use super::gather::{ExistingQuota, TenantPlanInputs};
use crate::findings::ToDiagnostics;
use crate::governance::cluster::{clu_10, cluster_admin_principals};
use crate::governance::{Orchestrator, Report, check_tenant};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::resources::cluster_view;
use crate::resources::references::{self, References};
use crate::resources::validators::MAX_TAGS;

/// What the plan concluded: the rules' report (the checklist) and its warnings.
#[derive(Debug)]
pub struct TenantVerdict {
    pub report: Report,
    pub warnings: Diagnostics,
    pub orchestrator: Orchestrator,
}

pub fn judge(inputs: &TenantPlanInputs) -> Result<TenantVerdict, Diagnostics> {
    let orchestrator = orchestrator(inputs)?;
    workload_block(inputs, orchestrator)?;
    let report = rules(inputs, orchestrator);
    let warnings = report.diagnostics(inputs.context.strict);
    if warnings.has_errors() {
        return Err(warnings);
    }
    existing_quota(inputs)?;
    tags_fit(inputs)?;
    Ok(TenantVerdict {
        report,
        warnings,
        orchestrator,
    })
}

/// Where CLU-10 points on a tenant: the contract's cluster, the attribute that puts the tenant on that cluster.
pub fn task_governance_path() -> AttributePath {
    AttributePath::attr("contract").push_attr("cluster_name")
}

/// The cluster's orchestrator, which must be the one the contract names (CLU-1; the contract's own plan reports it
/// too).
fn orchestrator(inputs: &TenantPlanInputs) -> Result<Orchestrator, Diagnostics> {
    let cluster = &inputs.cluster.cluster;
    let real = if cluster.eks_cluster_name().is_some() {
        Orchestrator::Eks
    } else {
        Orchestrator::Slurm
    };
    let named = inputs.contract.cluster.orchestrator;
    if real == named {
        return Ok(real);
    }
    Err(Diagnostic::invalid_value(
        AttributePath::attr("contract").push_attr("orchestrator"),
        format!("{:?}", named.to_string()),
        &format!("[CLU-1] cluster {:?} is orchestrated by {real}", cluster.name),
        "fix the contract's cluster.orchestrator (the contract's own plan reports CLU-1 too)",
    )
    .into())
}

/// An EKS tenant needs its workload identity; a Slurm tenant cannot have one.
fn workload_block(inputs: &TenantPlanInputs, orchestrator: Orchestrator) -> Result<(), Diagnostics> {
    match (orchestrator, inputs.config.workload.is_some()) {
        (Orchestrator::Eks, false) => Err(Diagnostic::error(
            AttributePath::attr("workload"),
            "Missing workload block",
            "An EKS tenant needs its workload identity: add `workload { service_account = \"...\" }` (the Pod \
             Identity association maps it to the tenant's own IAM role).",
        )
        .into()),
        (Orchestrator::Slurm, true) => Err(Diagnostic::error(
            AttributePath::attr("workload"),
            "Pod Identity needs an EKS cluster",
            format!(
                "Cluster {:?} is Slurm-orchestrated: remove the workload block; Slurm tenants use OS identities \
                 (slurm.users).",
                inputs.cluster.cluster.name
            ),
        )
        .into()),
        _ => Ok(()),
    }
}

/// The engine's rules over the tenant, the tenants counted with it (itself and its lenders, never whatever else this
/// provider process planned) and the cluster, with CLU-10 judged where the cluster is known.
fn rules(inputs: &TenantPlanInputs, orchestrator: Orchestrator) -> Report {
    let eks = orchestrator == Orchestrator::Eks;
    let role_arn = model::role_arn(
        &inputs.context.partition,
        &inputs.contract.cluster.account_id,
        &inputs.role_name,
    );
    let tenant = inputs.config.to_governance(orchestrator, eks.then_some(role_arn));
    let mut tenants = inputs.references.lenders.clone();
    let own = references::own_entry(&inputs.contract.cluster.name, tenant.capacity());
    tenants.known.insert(0, own);
    let admins = inputs
        .cluster
        .access_entries
        .known()
        .map(|entries| cluster_admin_principals(entries))
        .unwrap_or_default();
    let policy = inputs.references.policy.for_view();
    let mut view = cluster_view::view(&inputs.cluster, tenants, References::default(), policy, &[]);
    view.allocation = inputs.references.allocation.clone();
    view.phase = inputs.context.phase;
    let mut report = check_tenant(&tenant, &inputs.contract, &view, &admins, inputs.context.today);
    if let Some(read) = &inputs.task_governance {
        report.push(clu_10(&read.addon, &read.eks_cluster, task_governance_path()));
    }
    report
}

/// A quota of the tenant's name or team that is not its own is refused before anything is written.
fn existing_quota(inputs: &TenantPlanInputs) -> Result<(), Diagnostics> {
    match &inputs.existing_quota {
        ExistingQuota::None | ExistingQuota::Own => Ok(()),
        ExistingQuota::Foreign(quota) => {
            Err(ownership::foreign_quota(quota, &inputs.cluster.cluster.name, &inputs.config.team).into())
        }
        ExistingQuota::TagsUnreadable(diagnostics) => Err(diagnostics.clone()),
    }
}

/// AWS accepts at most 50 tags on an object: the user's, the provider's default tags and the governance tags.
fn tags_fit(inputs: &TenantPlanInputs) -> Result<(), Diagnostics> {
    let count = model::composed_tags(&inputs.context.default_tags, &inputs.config, &inputs.contract).len();
    if count <= MAX_TAGS {
        return Ok(());
    }
    Err(Diagnostic::invalid_value(
        AttributePath::attr("tags"),
        format!("{count} tags with default_tags and the governance tags"),
        &format!("AWS accepts at most {MAX_TAGS} tags on an object"),
        "remove tags from `tags` or the provider's default_tags (the provider adds up to 5 hyperpod: tags)",
    )
    .into())
}
