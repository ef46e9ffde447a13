//! Plan time: `gather` reads what the binding is judged against (its contract's cluster and what exists on it, the
//! project, its connections and memberships, each member's profile), `judge` runs the rules and the refusals,
//! `predict` says where the connection goes, so the reviewer sees the environment, cluster ARN, orchestrator and
//! checklist before anything exists. Apply runs the same steps for what the plan left unknown (`resolve`).

mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use crate::resources::governance_objects::ContractArgument;
use std::collections::BTreeMap;

use super::model::{BindingConfig, contract_and_config};
use super::schema::{BindingModel, CAPACITY_HANDOFFS};
use crate::client::HyperpodClient;
use crate::governance::{Contract, Phase};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::value::Value;
use crate::resources::checklist::{self, deferred_checks};
use crate::resources::connection_contract::unreadable_contract;

pub use gather::{BindingPlanInputs, profile_id, profile_ids};

/// What the plan derives: every derived attribute, the warnings beside it, and what apply must refuse.
pub struct BindingPrediction {
    pub attributes: BTreeMap<&'static str, Value>,
    pub warnings: Diagnostics,
    pub refusals: Diagnostics,
    pub live_refusals: Diagnostics,
    /// The rules the plan could not evaluate, by ID: apply evaluates them before its first write.
    pub deferred_checks: Vec<String>,
}

/// Plans the binding: the derived attributes and the replacements the API forces, and beside them the refusals apply
/// enforces. While the contract or the configuration waits for apply, so do the rules.
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    // The handoffs (`contract`, `task_view_restriction`, `tenants`) are write-only: read from the configuration.
    let arguments = change.arguments();
    let facts = ContractArgument::CONTRACT.get(&arguments).unwrap_or(Value::Null);
    // Known, yet not a contract's facts (a fact nulled or replaced): nothing at apply would make it one.
    if let Some(unreadable) = unreadable_contract(&facts) {
        return Err(unreadable.into());
    }
    // A capacity handoff written by hand that does not read is an error at its path, as at validate.
    let capacity = crate::resources::handoff::unreadable_capacity(&arguments, &CAPACITY_HANDOFFS);
    if !capacity.is_empty() {
        return Err(capacity);
    }
    let Some(known) = contract_and_config(&arguments, &change.config) else {
        defer(change, &arguments, client.strict);
        return Ok(());
    };
    let result = predicted(client, &arguments, known, change.prior.as_ref(), Phase::Plan).await;
    let Some(prediction) = checklist::judged(change, result)? else {
        return Ok(());
    };
    for (name, value) in prediction.attributes {
        change.set(name, value);
    }
    if let Some(prior) = &change.prior {
        let replaced = predict::replacements(prior, &change.planned);
        change.requires_replace.extend(replaced);
    }
    change.diagnostics.extend(prediction.warnings);
    change.refusals.extend(prediction.refusals);
    change.live_refusals.extend(prediction.live_refusals);
    change.deferred_checks = prediction.deferred_checks;
    checklist::keep_recorded(change);
    Ok(())
}

/// The contract or the configuration is known only at apply: so is what they decide, and the rules wait.
fn defer(change: &mut PlannedChange, arguments: &Value, strict: bool) {
    for name in change.derived.clone() {
        if change.config_attr(name).is_null() && change.prior_attr(name).is_none_or(Value::is_null) {
            change.set(name, Value::Unknown);
        }
    }
    checklist::set_unknown(&mut change.planned);
    change.diagnostics.push(checklist::deferred(
        arguments,
        ContractArgument::CONTRACT.name(),
        strict,
    ));
}

/// Gathers, judges and predicts.
async fn predicted(
    client: &HyperpodClient,
    value: &Value,
    known: (Contract, BindingConfig),
    prior: Option<&Value>,
    phase: Phase,
) -> Result<BindingPrediction, Diagnostics> {
    let inputs = gather::gather(client, value, known, prior, phase).await?;
    let verdict = judge::judge(&inputs);
    Ok(BindingPrediction {
        attributes: predict::predict(&inputs, &verdict),
        deferred_checks: deferred_checks(&verdict.report),
        warnings: verdict.warnings,
        refusals: verdict.refusals,
        live_refusals: verdict.live_refusals,
    })
}

/// The applied value: the planned value, judged and derived now where the plan could not (a value unknown then, or
/// a rule the plan could not evaluate, such as CLU-2 without the cluster's allocation). Errors come before any write.
/// `prior` is the state (`None` on create).
pub async fn resolve(
    client: &HyperpodClient,
    planned: &Value,
    prior: Option<&Value>,
    deferred_checks: &[String],
) -> Result<Value, Diagnostics> {
    let chosen = unknowns_to_null(planned.clone());
    let Some(known) = contract_and_config(planned, &chosen) else {
        return Err(Diagnostics::error(
            ContractArgument::CONTRACT.path(),
            "The binding's inputs are still unknown",
            "A value the binding depends on was not known after its dependencies were applied.",
        ));
    };
    let mut value = planned.clone();
    let judged = checklist::known(planned)
        && [BindingModel::ENVIRONMENT_ID, BindingModel::CLUSTER_ARN]
            .iter()
            .all(|attribute| planned.get_attr(attribute.name()).is_some_and(Value::is_wholly_known));
    if !judged || !deferred_checks.is_empty() {
        let prediction = predicted(client, planned, known, prior, Phase::Apply).await?;
        // Judged now with everything known and against what exists: what it refuses is refused before any write.
        let mut refusals = prediction.refusals;
        refusals.extend(prediction.live_refusals);
        if !refusals.is_empty() {
            return Err(refusals);
        }
        // Only what the plan left unknown is filled in: a part it knew stays as planned.
        for (name, derived) in prediction.attributes {
            let planned_part = value.get_attr(name).cloned().unwrap_or(Value::Unknown);
            set_attr(&mut value, name, checklist::fill_unknowns(&planned_part, &derived));
        }
    }
    Ok(value)
}
