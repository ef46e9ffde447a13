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
use crate::client::HyperpodClient;
use crate::governance::{Contract, Phase};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, text_map};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::value::Value;
use crate::resources::checklist;
use crate::resources::connection_contract::{contract_from_governance, unreadable_contract};
use crate::resources::references;

pub use gather::{GatherRequest, TenantPlanInputs};
pub use judge::TenantVerdict;

/// The compute quota's arguments that default when unset (computed): `<team>-quota`, `hyperpod_tenant <team>`.
const NAMED_BY_DEFAULT: [&str; 2] = ["compute_quota_name", "compute_quota_description"];

/// The handoffs a tenant waits for: a rule reading one that is unknown is judged "skipped" now, for real at apply.
const WAITED_FOR: [&str; 3] = ["scheduling_policy", "borrows_from", "allocation"];

pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    kept::carry_partitions(change);
    kept::carry_absolute_borrow_limits(change);
    // The handoffs (`contract`, `scheduling_policy`, `allocation`, `borrows_from`) are write-only: read from the
    // configuration.
    let arguments = arguments_with_unset_names(change);
    refuse_unreadable_handoffs(&arguments)?;
    // A workload role name, quota name or description known only at apply names objects every prediction shows:
    // all wait for it.
    let unknown_name = ["workload_role_name", NAMED_BY_DEFAULT[0], NAMED_BY_DEFAULT[1]]
        .into_iter()
        .find(|name| !change.config_attr(name).is_known());
    let Some((contract, config)) = decode(&arguments).filter(|_| unknown_name.is_none()) else {
        defer(client.strict, change, &arguments, unknown_name);
        return Ok(());
    };
    if change.prior.is_some() {
        plan_compositions(client, change, &arguments, (&contract, &config));
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
    let live_quota = inputs.live_quota();
    let kept_fields = kept::warnings(&change.config, &change.planned, live_quota.as_ref());
    change.diagnostics.0.extend(kept_fields);
    let drifted = gather::drifted_objects(client, prior.as_ref()).await;
    change.diagnostics.0.extend(drift::warnings(&drifted));
    Ok(())
}

/// The tenant this change replaces (another cluster, another team, another workload role), from the prior state or,
/// on the create half of a replacement, from what the protocol layer kept of it (`PlannedChange::replaced`).
fn replaced_tenant(change: &PlannedChange, contract: &Contract) -> Option<gather::ReplacedTenant> {
    let of = |value: &Value| gather::ReplacedTenant {
        cluster_name: string(value, "cluster_name").unwrap_or_default(),
        team: string(value, "team").unwrap_or_default(),
    };
    if let Some(replaced) = &change.replaced {
        return Some(of(replaced));
    }
    let prior = change.prior.as_ref()?;
    let moved = string(prior, "cluster_name").is_some_and(|cluster| cluster != contract.cluster.name);
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
    let Some((contract, config)) = decode(planned) else {
        return Err(Diagnostics::error(
            AttributePath::attr("contract"),
            "The tenant's inputs are still unknown",
            "A value the tenant depends on was not known after its dependencies were applied.",
        ));
    };
    let mut value = planned.clone();
    let judged_at_plan =
        checklist::known(planned) && string(planned, "cluster_arn").is_some() && deferred_checks.is_empty();
    if judged_at_plan {
        return Ok((config, value));
    }
    let request = GatherRequest {
        chosen_role_name: chosen_role_name(planned, prior),
        config: config.clone(),
        contract,
        arguments: planned,
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

/// The contract and the configuration, or `None` while either depends on a resource not created yet.
pub fn decode(value: &Value) -> Option<(Contract, TenantConfig)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let config = TenantConfig::from_value(value)?;
    Some((contract, config))
}

/// The workload role name the user chose, if any (from configuration, or kept from state).
pub fn chosen_role_name(config: &Value, prior: Option<&Value>) -> Option<String> {
    string(config, "workload_role_name").or_else(|| prior.and_then(|p| string(p, "workload_role_name")))
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
    if let Some(unreadable) = arguments.get_attr("contract").and_then(unreadable_contract) {
        return Err(unreadable.into());
    }
    let capacity = crate::resources::handoff::unreadable_capacity(arguments);
    if !capacity.is_empty() {
        return Err(capacity);
    }
    if let Some(facts) = arguments.get_attr("scheduling_policy")
        && matches!(facts, Value::Object(_))
        && facts.get_attr("priority_classes").is_none_or(Value::is_null)
    {
        return Err(Diagnostic::invalid_value(
            AttributePath::attr("scheduling_policy"),
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
    let cluster = arguments.get_attr("contract").and_then(|c| string(c, "cluster_name"));
    let same_object = change.prior.as_ref().filter(|prior| {
        string(prior, "team") == string(&arguments, "team")
            && cluster
                .as_ref()
                .is_none_or(|cluster| string(prior, "cluster_name").as_ref() == Some(cluster))
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
fn defer(strict: bool, change: &mut PlannedChange, arguments: &Value, unknown_name: Option<&'static str>) {
    for name in change.derived.clone() {
        if change.config_attr(name).is_null() {
            change.set(name, Value::Unknown);
        }
    }
    change.set("governance", references::tenant_value(arguments));
    change.diagnostics.push(checklist::deferred(
        arguments,
        unknown_name.unwrap_or("contract"),
        strict,
    ));
}

/// No copy of the handoffs is kept, so a change in one is a change of what the tenant composes from them (its facts
/// for others, its tags): planned before judging, so a tenant whose composition moves is judged as changed (its
/// findings are refused at apply) rather than as unchanged (its next change would be).
fn plan_compositions(
    client: &HyperpodClient,
    change: &mut PlannedChange,
    arguments: &Value,
    (contract, config): (&Contract, &TenantConfig),
) {
    change.set("governance", references::tenant_value(arguments));
    let tags = model::composed_tags(&client.default_tags, config, contract);
    change.set("tags_all", text_map(&tags));
}
