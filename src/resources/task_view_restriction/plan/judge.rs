//! The restriction's verdict, from `RestrictionPlanInputs` alone: CLU-1 (the cluster is orchestrated as the contract
//! says), the engine's rules (`check_restriction`: CLU-9, LIF-3; on EKS CLU-3, CLU-4, CLU-5; on Slurm CLU-7, CLU-8),
//! WKL-12 on the space policies it grants, and the plan-time refusals: the namespaces rbac mode writes into
//! (`order.rs`) and the Kubernetes group derived from the role's name.

use super::super::model::{GROUP_MAX, PROBES_PREFIX, RestrictionConfig, RestrictionMode, SPACE_TEMPLATE_POLICY};
use super::super::schema::{RestrictionModel, SPACE_POLICY, kubernetes_group};
use super::RestrictionPlanInputs;
use super::gather::RestrictionLiveFacts;
use super::order::{self, NamespaceCheck, namespace_check};
use crate::findings::ToDiagnostics;
use crate::governance::{Check, Contract, Report, TaskViewRestriction, check_restriction};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::resources::governance_objects::ContractArgument;
use crate::resources::governance_objects::ContractGovernance;

/// What the rules found: the report (the checklist), the diagnostics the plan shows beside it, and what apply must
/// refuse (the errors; under `strict` every finding).
#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionVerdict {
    pub report: Report,
    pub diagnostics: Diagnostics,
    pub refusals: Diagnostics,
}

/// The verdict; `Err` only where nothing can be predicted (the cluster is not orchestrated as the contract says).
pub fn judge(inputs: &RestrictionPlanInputs, strict: bool) -> Result<RestrictionVerdict, Diagnostics> {
    let live = orchestrated_as_contracted(inputs)?;
    let config = &inputs.config;
    let restriction = TaskViewRestriction {
        project_role_arn: Some(config.project_role_arn.clone()),
        namespaces: config.namespaces.clone(),
    };
    let mut report = check_restriction(&restriction, &inputs.contract, &live.facts, inputs.today);
    report.push(spaces_check(config, &inputs.contract));
    let mut diagnostics = report.diagnostics(strict);
    if inputs.cluster.eks_name.is_some() {
        match namespaces_in_order(inputs, live) {
            Ok(warnings) | Err(warnings) => diagnostics.extend(warnings),
        }
    }
    let maybe_rbac = !inputs.mode_known || config.mode == RestrictionMode::Rbac;
    if let (true, Some(problem)) = (maybe_rbac, group_problem(&config.kubernetes_group)) {
        diagnostics.push(Diagnostic::invalid_value(
            RestrictionModel::PROJECT_ROLE_ARN.path(),
            format!("{:?}", config.project_role_arn),
            &format!("the Kubernetes group derived from the role's name, {problem}"),
            "set `kubernetes_group` to a valid Kubernetes name",
        ));
    }
    let (errors, warnings): (Vec<_>, Vec<_>) = diagnostics
        .into_iter()
        .partition(|d| d.severity == crate::protocol::diagnostics::Severity::Error);
    Ok(RestrictionVerdict {
        report,
        diagnostics: Diagnostics(warnings),
        refusals: Diagnostics(errors),
    })
}

/// CLU-1: the cluster is orchestrated as the contract says (the contract's own plan reports CLU-1 too); only then
/// were its facts read.
fn orchestrated_as_contracted(inputs: &RestrictionPlanInputs) -> Result<&RestrictionLiveFacts, Diagnostics> {
    let orchestrator = inputs.cluster.orchestrator();
    match &inputs.live {
        Some(live) if orchestrator == inputs.contract.cluster.orchestrator => Ok(live),
        _ => Err(Diagnostic::invalid_value(
            ContractArgument::CONTRACT
                .path()
                .push_attr(ContractGovernance::ORCHESTRATOR.name()),
            format!("{:?}", inputs.contract.cluster.orchestrator.to_string()),
            &format!(
                "[CLU-1] cluster {:?} is orchestrated by {orchestrator}",
                inputs.cluster.name
            ),
            "fix the contract's cluster.orchestrator (the contract's own plan reports CLU-1 too)",
        )
        .into()),
    }
}

/// WKL-12 on the restriction: the HyperPod space policies it grants (access-policy mode; the RBAC mode's Roles grant
/// no Workspaces), at the attribute that grants them.
fn spaces_check(config: &RestrictionConfig, contract: &Contract) -> Check {
    let mut granted: Vec<String> = Vec::new();
    let mut at = RestrictionModel::ACCESS_POLICIES.path();
    if config.mode == RestrictionMode::AccessPolicy {
        granted.extend(config.access_policies.iter().filter(|p| *p == SPACE_POLICY).cloned());
        if config.space_templates {
            if granted.is_empty() {
                at = RestrictionModel::SPACE_TEMPLATES.path();
            }
            granted.push(SPACE_TEMPLATE_POLICY.to_string());
        }
    }
    crate::governance::spaces::wkl_12_studio_access(&granted, contract, at)
}

/// RBAC mode: every namespace exists or is a referenced tenant's (which Terraform then applies first). Errors fail
/// the plan; the warnings say what is left to apply (`mode` or `tenants` unknown, the API unreachable).
fn namespaces_in_order(
    inputs: &RestrictionPlanInputs,
    live: &RestrictionLiveFacts,
) -> Result<Diagnostics, Diagnostics> {
    let check = namespace_check(&inputs.config, inputs.mode_known, &inputs.tenants, &inputs.cluster.name);
    match (check, &live.absent_namespaces) {
        (NamespaceCheck::WrongCluster(errors), _) => Err(errors),
        (NamespaceCheck::Deferred(why), _) => Ok(order::deferred(why)),
        (_, Some(Ok(absent))) if !absent.is_empty() => Err(Diagnostics(
            absent
                .iter()
                .map(|namespace| order::missing(namespace, "at plan"))
                .collect(),
        )),
        (_, Some(Err(err))) => Ok(order::unreadable(err)),
        _ => Ok(Diagnostics::new()),
    }
}

/// The group the access entry maps the role to must fit the probe ClusterRole's name; the default one (from the
/// role's name) is checked here too, at the role, since it is derived from it.
pub fn group_problem(group: &str) -> Option<String> {
    if group.len() > GROUP_MAX {
        return Some(format!(
            "{} characters: the ClusterRole `{PROBES_PREFIX}<group>` would exceed Kubernetes' 253",
            group.len()
        ));
    }
    (!kubernetes_group().is_match(group)).then(|| format!("{group:?} is not a valid Kubernetes name"))
}
