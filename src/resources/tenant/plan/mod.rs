//! A tenant's plan: `gather` reads what the rules need (the contract's cluster and its live facts, the references in
//! HCL) into one `TenantPlanInputs`, `judge` gives the verdict, `predict` the planned state. Around them, the
//! conventions every governed resource follows: a tenant whose inputs are unknown defers its rules to apply with a
//! warning; what breaks a rule is refused (a warning now, an error at apply: `docs/design/where-rules-run.md`),
//! never a failed plan; a rule that waits for a referenced value plans the checklist unknown. Apply runs the same
//! three steps before its first write when the plan could not judge everything (`resolve`).

mod drift;
mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use super::model::{self, TenantConfig, kept};
use super::schema::{CAPACITY_HANDOFFS, TenantModel};
use crate::client::HyperpodClient;
use crate::governance::{Contract, Phase};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::value::Value;
use crate::resources::checklist;
use crate::resources::connection_contract::{contract_from_governance, unreadable_contract};
use crate::resources::governance_objects::{ContractArgument, ContractGovernance, PolicyGovernance};

pub use gather::{GatherRequest, TenantPlanInputs};
pub use judge::TenantVerdict;

/// The compute quota's arguments that default when unset (computed): `<team>-quota`, `hyperpod_tenant <team>`.
const NAMED_BY_DEFAULT: [&str; 2] = [
    TenantModel::COMPUTE_QUOTA_NAME.name(),
    TenantModel::COMPUTE_QUOTA_DESCRIPTION.name(),
];

/// The handoffs a tenant waits for: a rule reading one that is unknown is judged "skipped" now, for real at apply.
const WAITED_FOR: [&str; 3] = [
    TenantModel::SCHEDULING_POLICY.name(),
    TenantModel::BORROWS_FROM.name(),
    TenantModel::ALLOCATION.name(),
];

pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    kept::carry_partitions(change);
    kept::carry_absolute_borrow_limits(change);
    // The handoffs (`contract`, `scheduling_policy`, `allocation`, `borrows_from`) are write-only: read from the
    // configuration.
    let arguments = arguments_with_unset_names(change);
    refuse_unreadable_handoffs(&arguments)?;
    let unknown_name = unknown_name(change);
    let decoded = decode(&arguments);
    let Some((contract, config)) = decoded.known.filter(|_| unknown_name.is_none()) else {
        defer(client.strict, change, &arguments, decoded.handoff, unknown_name);
        return Ok(());
    };
    if change.prior.is_some() {
        plan_compositions(client, change, decoded.handoff.clone(), (&contract, &config));
    }
    // A replacement (another cluster or team) is judged as the create it leads to, beside everything but the object
    // it replaces: that one is gone by then (destroyed first).
    let replaced = replaced_tenant(change, &contract);
    let prior = change.prior.clone().filter(|_| replaced.is_none());
    let request = GatherRequest {
        chosen_role_name: chosen_role_name(&change.config, prior.as_ref()),
        config,
        contract,
        arguments: &arguments,
        handoff: decoded.handoff,
        prior: prior.as_ref(),
        replaced,
        phase: Phase::Plan,
    };
    let result = judged(client, request).await;
    let Some((inputs, verdict)) = checklist::judged(change, result)? else {
        return Ok(());
    };
    for (name, value) in predict::predict(&inputs, &verdict) {
        change.set(name, value);
    }
    if WAITED_FOR
        .iter()
        .any(|name| arguments.get_attr(name).is_some_and(|value| !value.is_wholly_known()))
    {
        checklist::set_unknown(&mut change.planned);
    }
    change.diagnostics.extend(verdict.warnings);
    change.refusals.extend(verdict.refusals);
    change.live_refusals.extend(verdict.live_refusals);
    change.deferred_checks = checklist::deferred_checks(&verdict.report);
    checklist::keep_recorded(change);
    kept_warnings(change, &inputs);
    let drifted = gather::drifted_objects(client, prior.as_ref()).await;
    change.diagnostics.0.extend(drift::warnings(&drifted));
    Ok(())
}

/// A workload role name, quota name or description known only at apply names objects every prediction shows: all
/// wait for it.
fn unknown_name(change: &PlannedChange) -> Option<&'static str> {
    [
        TenantModel::WORKLOAD_ROLE_NAME.name(),
        NAMED_BY_DEFAULT[0],
        NAMED_BY_DEFAULT[1],
    ]
    .into_iter()
    .find(|name| !change.config_attr(name).is_known())
}

/// What the live quota holds that the configuration does not set: kept, and named (`kept::warnings`).
fn kept_warnings(change: &mut PlannedChange, inputs: &TenantPlanInputs) {
    let (Ok(config), Ok(planned)) = (
        TenantModel::decode(&change.config),
        TenantModel::decode(&change.planned),
    ) else {
        return;
    };
    let kept_fields = kept::warnings(&config, &planned, inputs.live_quota().as_ref());
    change.diagnostics.0.extend(kept_fields);
}

/// The tenant this change replaces (another cluster, another team, another workload role), from the prior state or,
/// on the create half of a replacement, from what the protocol layer kept of it (`PlannedChange::replaced`).
fn replaced_tenant(change: &PlannedChange, contract: &Contract) -> Option<gather::ReplacedTenant> {
    let of = |value: &Value| gather::ReplacedTenant {
        cluster_name: TenantModel::CLUSTER_NAME.known(value).unwrap_or_default(),
        team: TenantModel::TEAM.known(value).unwrap_or_default(),
    };
    if let Some(replaced) = &change.replaced {
        return Some(of(replaced));
    }
    let prior = change.prior.as_ref()?;
    let moved = TenantModel::CLUSTER_NAME
        .known(prior)
        .is_some_and(|cluster| cluster != contract.cluster.name);
    (moved || !change.requires_replace.is_empty()).then(|| of(prior))
}

/// The planned value, judged and derived now where the plan could not (a value unknown then; a rule not evaluated
/// at plan, such as WKL-3 without the cluster's allocation). Errors come before any write; what the plan already
/// knew is kept as planned.
pub async fn resolve(
    client: &HyperpodClient,
    planned: &Value,
    prior: Option<&Value>,
    deferred_checks: &[String],
) -> Result<(TenantConfig, Value), Diagnostics> {
    // At apply the configuration is known: a name still unknown is one the plan left to its default (computed).
    let mut planned = planned.clone();
    for name in NAMED_BY_DEFAULT {
        if planned.get_attr(name).is_some_and(|v| !v.is_known()) {
            let kept = prior.and_then(|p| p.get_attr(name)).cloned();
            set_attr(&mut planned, name, kept.unwrap_or(Value::Null));
        }
    }
    let planned = &planned;
    let decoded = decode(planned);
    let Some((contract, config)) = decoded.known else {
        return Err(Diagnostics::error(
            ContractArgument::CONTRACT.path(),
            "The tenant's inputs are still unknown",
            "A value the tenant depends on was not known after its dependencies were applied.",
        ));
    };
    let mut value = planned.clone();
    let judged_at_plan =
        checklist::known(planned) && TenantModel::CLUSTER_ARN.known(planned).is_some() && deferred_checks.is_empty();
    if judged_at_plan {
        return Ok((config, value));
    }
    let request = GatherRequest {
        chosen_role_name: chosen_role_name(planned, prior),
        config: config.clone(),
        contract,
        arguments: planned,
        handoff: decoded.handoff,
        prior,
        replaced: None,
        phase: Phase::Apply,
    };
    let (inputs, verdict) = judged(client, request).await?;
    // Judged now with everything known and against what exists: what it refuses is refused before any write.
    let mut refusals = verdict.refusals.clone();
    refusals.extend(verdict.live_refusals.clone());
    if !refusals.is_empty() {
        return Err(refusals);
    }
    for (name, derived) in predict::predict(&inputs, &verdict) {
        let keep = value
            .get_attr(name)
            .is_some_and(|v| v.is_wholly_known() && !v.is_null());
        if !keep {
            set_attr(&mut value, name, derived);
        }
    }
    Ok((config, value))
}

/// The tenant's arguments, decoded once: its `governance` (known in part while the rest waits; unknown when the
/// value does not decode) and the contract and configuration, `None` while either depends on a resource not created
/// yet.
struct Decoded {
    handoff: Value,
    known: Option<(Contract, TenantConfig)>,
}

fn decode(value: &Value) -> Decoded {
    let Ok(tenant) = TenantModel::decode(value) else {
        return Decoded {
            handoff: Value::Unknown,
            known: None,
        };
    };
    let known = contract_from_governance(tenant.contract.facts())
        .and_then(|contract| Some((contract, TenantConfig::of(&tenant)?)));
    Decoded {
        handoff: model::governance::governance_of(&tenant).encode(),
        known,
    }
}

/// The workload role name the user chose, if any (from configuration, or kept from state).
pub fn chosen_role_name(config: &Value, prior: Option<&Value>) -> Option<String> {
    let chosen = |value: &Value| TenantModel::WORKLOAD_ROLE_NAME.known(value);
    chosen(config).or_else(|| prior.and_then(chosen))
}

async fn judged(
    client: &HyperpodClient,
    request: GatherRequest<'_>,
) -> Result<(TenantPlanInputs, TenantVerdict), Diagnostics> {
    let inputs = gather::gather(client, request).await?;
    let verdict = judge::judge(&inputs)?;
    Ok((inputs, verdict))
}

/// A handoff that is wholly known yet unreadable never becomes known: a contract with a fact replaced by null, a
/// scheduling policy's governance with its classes nulled (WKL-4 could never read it), a capacity handoff that does not
/// hold what its source writes (`handoff::unreadable_capacity`).
fn refuse_unreadable_handoffs(arguments: &Value) -> Result<(), Diagnostics> {
    if let Some(unreadable) = arguments
        .get_attr(ContractArgument::CONTRACT.name())
        .and_then(unreadable_contract)
    {
        return Err(unreadable.into());
    }
    let capacity = crate::resources::handoff::unreadable_capacity(arguments, &CAPACITY_HANDOFFS);
    if !capacity.is_empty() {
        return Err(capacity);
    }
    if let Some(facts) = arguments.get_attr(TenantModel::SCHEDULING_POLICY.name())
        && matches!(facts, Value::Object(_))
        && PolicyGovernance::PRIORITY_CLASSES
            .get(facts)
            .is_ok_and(|classes| classes == Field::Null)
    {
        return Err(Diagnostic::invalid_value(
            TenantModel::SCHEDULING_POLICY.path(),
            "a scheduling policy value with priority_classes null",
            "the tenant needs the policy's priority classes (WKL-4)",
            "pass hyperpod_scheduling_policy.<name>.governance unchanged",
        )
        .into());
    }
    Ok(())
}

/// Inputs unknown until apply: what they decide is planned unknown, and the rules wait with a warning.
/// The arguments, the quota's name and description left unset read as what they are: computed, so unknown in a
/// create's planned value and the prior value in an update's, they are the default or the prior value, never
/// "unknown".
fn arguments_with_unset_names(change: &PlannedChange) -> Value {
    let mut arguments = change.arguments();
    // The prior names are the object's only while it stays the same team on the same cluster; a replacement (a new
    // team, another cluster) takes the defaults, never the quota it replaces.
    let cluster =
        (arguments.get_attr(ContractArgument::CONTRACT.name())).and_then(|c| ContractGovernance::CLUSTER_NAME.known(c));
    let team = |value: &Value| TenantModel::TEAM.known(value);
    let same_object = change.prior.as_ref().filter(|prior| {
        team(prior) == team(&arguments)
            && cluster
                .as_ref()
                .is_none_or(|cluster| TenantModel::CLUSTER_NAME.known(prior).as_ref() == Some(cluster))
    });
    for name in NAMED_BY_DEFAULT {
        if change.config_attr(name).is_null() {
            let kept = same_object.and_then(|p| p.get_attr(name)).cloned();
            set_attr(&mut arguments, name, kept.unwrap_or(Value::Null));
        }
    }
    arguments
}

/// `unknown_name`: the name argument known only at apply the tenant waits for, if that is what it waits for (else
/// its contract).
fn defer(
    strict: bool,
    change: &mut PlannedChange,
    arguments: &Value,
    handoff: Value,
    unknown_name: Option<&'static str>,
) {
    for name in change.derived.clone() {
        if change.config_attr(name).is_null() {
            change.set(name, Value::Unknown);
        }
    }
    change.set(TenantModel::GOVERNANCE.name(), handoff);
    change.diagnostics.push(checklist::deferred(
        arguments,
        unknown_name.unwrap_or(ContractArgument::CONTRACT.name()),
        strict,
    ));
}

/// No copy of the handoffs is kept, so a change in one is a change of what the tenant composes from them (its facts
/// for others, its tags): planned before judging, so a tenant whose composition moves is judged as changed (its
/// findings are refused at apply) rather than as unchanged (its next change would be).
fn plan_compositions(
    client: &HyperpodClient,
    change: &mut PlannedChange,
    handoff: Value,
    (contract, config): (&Contract, &TenantConfig),
) {
    change.set(TenantModel::GOVERNANCE.name(), handoff);
    let tags = model::composed_tags(&client.default_tags, config, contract);
    TenantModel::TAGS_ALL.set(&mut change.planned, &Field::Known(tags));
}
