//! The tenant's verdict, from its plan inputs alone: the orchestrator the contract names (CLU-1), the workload block
//! the orchestrator needs, every rule of the engine's `check_tenant` (ORG-2, CLU-6, WKL-1..12, LIF-3, EXC-1) with
//! CLU-10 on the task-governance add-on, then the refusals no rule covers: a foreign quota of the tenant's team, more
//! tags than AWS accepts. No I/O.

use super::super::model::{self, ownership};
use super::super::schema::TenantModel as M;
use super::gather::{ExistingQuota, TenantPlanInputs};
use crate::governance::cluster::{clu_10, cluster_admin_principals};
use crate::governance::{
    Check, ClusterView, Neighbours, Orchestrator, Outcome, Report, RuleId, Setting, Tenant, TenantCapacity, capacity,
    check_tenant, paths,
};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics, Severity};
use crate::resources::cluster_view;
use crate::resources::governance_objects::ContractArgument;
use crate::resources::governance_objects::ContractGovernance;
use crate::resources::references::{self, References};
use crate::resources::validators::MAX_TAGS;

/// What the plan concluded: the rules' report as the plan records it (the checklist), the warnings beside it, and
/// what apply must refuse. `refusals` rest on what the plan controls; `live_refusals` on other teams' live quotas
/// (the checklist does not count those: Terraform's re-plan at apply must read the same, `Neighbours`).
#[derive(Debug)]
pub struct TenantVerdict {
    pub report: Report,
    pub warnings: Diagnostics,
    pub refusals: Diagnostics,
    pub live_refusals: Diagnostics,
    pub orchestrator: Orchestrator,
}

/// The verdict. `Err` only where nothing can be predicted (the contract names the wrong orchestrator, the workload
/// block the orchestrator needs is missing): the plan then refuses the change with everything derived unknown.
pub fn judge(inputs: &TenantPlanInputs) -> Result<TenantVerdict, Diagnostics> {
    let orchestrator = orchestrator(inputs)?;
    workload_block(inputs, orchestrator)?;
    let (report, mut live) = rules(inputs, orchestrator);
    let adopted = if matches!(inputs.existing_quota, ExistingQuota::Own) {
        left_to_the_claim_check(&mut live)
    } else {
        Diagnostics::new()
    };
    let (recorded, live_only) = report.messages_with_live(&live, inputs.context.strict);
    let (mut refusals, warnings) = split(recorded.iter().map(crate::findings::diagnostic));
    let (live_refusals, live_warnings) = split(live_only.iter().map(crate::findings::diagnostic));
    let mut warnings = warnings;
    warnings.extend(live_warnings);
    warnings.extend(live_drift(inputs, orchestrator, &live));
    warnings.extend(adopted);
    refusals.extend(existing_quota(inputs).err().unwrap_or_default());
    refusals.extend(tags_fit(inputs).err().unwrap_or_default());
    Ok(TenantVerdict {
        report,
        warnings,
        refusals,
        live_refusals,
        orchestrator,
    })
}

/// Errors (refusals) apart from warnings.
fn split(diagnostics: impl Iterator<Item = Diagnostic>) -> (Diagnostics, Diagnostics) {
    let (errors, warnings): (Vec<_>, Vec<_>) = diagnostics.partition(|d| d.severity == Severity::Error);
    (Diagnostics(errors), Diagnostics(warnings))
}

/// Where CLU-10 points on a tenant: the contract's cluster, the attribute that puts the tenant on that cluster.
pub fn task_governance_path() -> AttributePath {
    ContractArgument::CONTRACT
        .path()
        .push_attr(ContractGovernance::CLUSTER_NAME.name())
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
        ContractArgument::CONTRACT
            .path()
            .push_attr(ContractGovernance::ORCHESTRATOR.name()),
        format!("{:?}", named.to_string()),
        &format!("[CLU-1] cluster {:?} is orchestrated by {real}", cluster.name),
        "fix the contract's cluster.orchestrator (the contract's own plan reports CLU-1 too)",
    )
    .into())
}

/// A workload identity is an EKS tenant's choice (a team's share alone is a tenant too); a Slurm tenant cannot have
/// one, nor a compute quota.
fn workload_block(inputs: &TenantPlanInputs, orchestrator: Orchestrator) -> Result<(), Diagnostics> {
    match (orchestrator, inputs.config.workload.is_some()) {
        (Orchestrator::Slurm, _) if inputs.config.quota_name.is_some() || inputs.config.quota_description.is_some() => {
            let attribute = if inputs.config.quota_name.is_some() {
                M::COMPUTE_QUOTA_NAME.name()
            } else {
                M::COMPUTE_QUOTA_DESCRIPTION.name()
            };
            Err(Diagnostic::error(
                AttributePath::attr(attribute),
                "A compute quota needs an EKS cluster",
                format!(
                    "Cluster {:?} is Slurm-orchestrated: a Slurm tenant has no SageMaker compute quota. Remove \
                     {attribute}.",
                    inputs.cluster.cluster.name
                ),
            )
            .into())
        }
        (Orchestrator::Slurm, true) => Err(Diagnostic::error(
            M::WORKLOAD.path(),
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

/// The tenant as the engine sees it.
fn governed(inputs: &TenantPlanInputs, orchestrator: Orchestrator) -> Tenant {
    let eks = orchestrator == Orchestrator::Eks;
    let role_arn = model::role_arn(
        &inputs.context.partition,
        &inputs.contract.cluster.account_id,
        &inputs.role_name,
    );
    let live = inputs.live_quota().and_then(|quota| quota.sharing);
    inputs
        .config
        .to_governance(orchestrator, eks.then_some(role_arn), live.as_ref())
}

/// The engine's view of the cluster with `own` (the tenant's capacity) counted first, then its lenders (never
/// whatever else this provider process planned), and the allocation it references.
fn view_of(inputs: &TenantPlanInputs, own: TenantCapacity, neighbours: Neighbours) -> ClusterView {
    let mut tenants = inputs.references.lenders.clone();
    tenants
        .known
        .insert(0, references::own_entry(&inputs.contract.cluster.name, own));
    let policy = inputs.references.policy.for_view();
    let mut view = cluster_view::view(&inputs.cluster, tenants, References::default(), policy, &[]);
    view.allocation = inputs.references.allocation.clone();
    view.phase = inputs.context.phase;
    view.neighbours = neighbours;
    view
}

/// The engine's rules over the tenant and its cluster, with CLU-10 judged where the cluster is known: judged as the
/// plan records it (other teams' live quotas not counted) and with them.
fn rules(inputs: &TenantPlanInputs, orchestrator: Orchestrator) -> (Report, Report) {
    let tenant = governed(inputs, orchestrator);
    let admins = inputs
        .cluster
        .access_entries
        .known()
        .map(|entries| cluster_admin_principals(entries))
        .unwrap_or_default();
    let judged = |neighbours: Neighbours| {
        let view = view_of(inputs, tenant.capacity(), neighbours);
        let mut report = check_tenant(&tenant, &inputs.contract, &view, &admins, inputs.context.today);
        if let Some(read) = &inputs.task_governance {
            report.push(clu_10(&read.addon, &read.eks_cluster, task_governance_path()));
        }
        report
    };
    (
        judged(Neighbours::ReferencedOnly),
        judged(Neighbours::LiveAndReferenced),
    )
}

/// Live drift that breaks WKL-3: the team's quota as it is now (changed outside Terraform) overcommits the cluster.
/// Named, not only repaired: a warning at the quota beside the change that restores it (nothing to refuse: the
/// configured quota fits, or WKL-3 refuses the change itself and this adds nothing).
fn live_drift(inputs: &TenantPlanInputs, orchestrator: Orchestrator, live: &Report) -> Diagnostics {
    let Some(drifted) = inputs.live_quota() else {
        return Diagnostics::new();
    };
    let configured = governed(inputs, orchestrator).capacity();
    if drifted.quota == configured.quota || live.check(RuleId::Wkl3).is_none_or(Check::is_failed) {
        return Diagnostics::new();
    }
    let mut view = view_of(inputs, drifted.clone(), Neighbours::LiveAndReferenced);
    // The allocation's row of this team is what it holds now, so only the capacity is judged, not the record.
    if let Setting::Set(reference) = &mut view.allocation
        && reference.item.teams.contains_key(&drifted.team)
    {
        reference.item.teams.insert(drifted.team.clone(), drifted.quota.clone());
    }
    // As admitted, not deferred to the allocation: its row now holds what is live, which the allocation never said.
    let check = capacity::judged(&view, paths::tenant::quota());
    Diagnostics(
        check
            .findings()
            .iter()
            .map(|finding| {
                Diagnostic::warning(
                    finding.path.clone(),
                    format!("[WKL-3] {} (live, set outside Terraform)", RuleId::Wkl3.title()),
                    format!(
                        "{}. That is the cluster now: team {:?}'s compute quota was changed outside Terraform. This \
                         plan restores the configured quota, which fits.",
                        finding.detail().trim_end_matches('.'),
                        drifted.team
                    ),
                )
            })
            .collect(),
    )
}

/// An interrupted apply left this tenant's compute quota (its tags name the tenant). Whether it fits beside the other
/// teams' live quotas is then decided at apply by the claim check, after adopting it: the quota is withdrawn when the
/// quotas created before it leave no room (WKL-3). A refusal here (`strict` included) would stop that apply and keep
/// the quota for good, so what the live quotas find is taken out of the live judgement and said as a plain warning.
fn left_to_the_claim_check(live: &mut Report) -> Diagnostics {
    let mut warnings = Diagnostics::new();
    for check in live.checks.iter_mut().filter(|check| check.rule == RuleId::Wkl3) {
        let Outcome::Failed(findings) = &check.outcome else {
            continue;
        };
        for finding in findings {
            let mut warning = crate::findings::finding_diagnostic(finding, false);
            warning.severity = Severity::Warning;
            warning.detail = format!(
                "{} An interrupted apply left this tenant's compute quota: apply adopts it, and withdraws it (failing \
                 WKL-3) when the quotas created before it leave no room.",
                warning.detail
            );
            warnings.push(warning);
        }
        check.outcome = Outcome::NotApplicable {
            why: "judged at apply by the claim check of the quota an interrupted apply left".to_string(),
        };
    }
    warnings
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
        M::TAGS.path(),
        format!("{count} tags with default_tags and the governance tags"),
        &format!("AWS accepts at most {MAX_TAGS} tags on an object"),
        "remove tags from `tags` or the provider's default_tags (the provider adds up to 5 hyperpod: tags)",
    )
    .into())
}
