//! Plan time: `gather` reads the contract's cluster and what the rules need of it, once; `judge` runs CLU-1, the
//! engine's rules (`governance::check_restriction`: CLU-9, CLU-3, CLU-4, CLU-5, CLU-7, CLU-8, LIF-3), WKL-12 and the
//! plan-time refusals (the namespaces rbac mode writes into, `order.rs`; the derived Kubernetes group); `predict`
//! fills the derived attributes, the `governance` value bindings reference (CLU-2 is judged there) and `components`.
//! Apply runs the same steps before its first write when the plan could not judge every rule (`resolve`).

mod gather;
mod judge;
mod order;
mod predict;
#[cfg(test)]
mod tests;

use super::model::{contract_problem, unknown_inputs};
use super::schema::RestrictionModel;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::{Diagnostics, Severity};
use crate::protocol::model::Model;
use crate::protocol::plan::PlannedChange;
use crate::protocol::value::Value;
use crate::resources::checklist;

pub use gather::{RestrictionPlanInputs, absent_namespaces};
pub use order::missing as missing_namespace;

/// Plans the restriction: the derived attributes and the checklist, and beside them the refusals apply enforces.
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    let mut planned = predict::arguments(change);
    let restriction = RestrictionModel::decode(&planned)?;
    // A contract object that can never be a contract's facts fails the plan: the configuration cannot be read.
    if let Some(unreadable) = contract_problem(&restriction) {
        return Err(unreadable.into());
    }
    let result = judged(client, &restriction, &mut planned, change.prior.as_ref()).await;
    let Some((warnings, refusals)) = checklist::judged(change, result)? else {
        return Ok(());
    };
    // Refused or not, the plan says what the restriction would compose: the same at apply's plan.
    change.set_planned(planned);
    change.diagnostics.extend(warnings);
    change.refusals.extend(refusals);
    checklist::keep_recorded(change);
    Ok(())
}

/// Gathers, judges and predicts into `value` (the planned value, or at apply the planned value with what was unknown
/// then now known; `restriction` is it decoded): the warnings and the refusals. While an input is unknown the rules
/// wait for apply, with a warning.
async fn judged(
    client: &HyperpodClient,
    restriction: &RestrictionModel,
    value: &mut Value,
    prior: Option<&Value>,
) -> Result<(Diagnostics, Diagnostics), Diagnostics> {
    let Some(inputs) = gather::gather(client, restriction).await? else {
        predict::deferred(value);
        let deferred = deferral(restriction, client.strict);
        let (errors, warnings): (Vec<_>, Vec<_>) = (deferred.into_iter()).partition(|d| d.severity == Severity::Error);
        return Ok((Diagnostics(warnings), Diagnostics(errors)));
    };
    let verdict = judge::judge(&inputs, client.strict)?;
    // An entry that existed before this restriction is adopted: on destroy only what was added goes.
    let adopted = gather::entry_adopted(client, &inputs, prior).await;
    predict::predict(&inputs, &verdict.report, adopted, value);
    Ok((verdict.diagnostics, verdict.refusals))
}

/// `judged` at apply: what it refuses is an error, before anything is written.
pub async fn resolve(
    client: &HyperpodClient,
    value: &mut Value,
    prior: Option<&Value>,
) -> Result<Diagnostics, Diagnostics> {
    let restriction = RestrictionModel::decode(value)?;
    checklist::refused_at_apply(judged(client, &restriction, value, prior).await?)
}

/// The warning for rules left to apply, naming the inputs not known until then.
fn deferral(restriction: &RestrictionModel, strict: bool) -> Diagnostics {
    let unknown = unknown_inputs(restriction);
    let what = if unknown.is_empty() {
        "the restriction's inputs are not known until apply".to_string()
    } else {
        format!(
            "{} not known until apply",
            unknown.join(", ") + if unknown.len() == 1 { " is" } else { " are" }
        )
    };
    crate::findings::deferred_diagnostic("all rules", &what, strict).into()
}
