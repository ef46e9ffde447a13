//! Plan time: `gather` decodes the arguments and the state and reads the live facts once, `judge` runs the rules
//! (those reading an argument unknown until apply wait for it; everything waits while the contract cannot be
//! decoded), `predict` fills the derived attributes. Apply runs the same steps for what the plan left unknown
//! (`resolve`).

mod deferral;
mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::value::Value;
use crate::resources::checklist;

pub use gather::ContractPlanInputs;

/// Plans the contract: the derived attributes and the reviewer's warnings, or the refusals apply enforces
/// (`checklist::judged`; under strict, the provider's or the contract's own, warnings are refused too).
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    // `organization` is write-only: judged from the configuration, never planned.
    let mut planned = change.arguments();
    // A new name is a new contract (its identity): judged as the create it leads to, with no earlier approval to
    // compare against (LIF-2).
    let prior = change.prior.clone().filter(|_| change.requires_replace.is_empty());
    let result = judged(client, &mut planned, prior.as_ref()).await;
    if let Some((warnings, refusals)) = checklist::judged(change, result)? {
        // A refused contract still plans its facts (derived from its arguments): its dependents judge them.
        change.set_planned(planned);
        change.diagnostics.extend(warnings);
        change.refusals.extend(refusals);
    }
    Ok(())
}

/// Gathers, judges and predicts into `value` (planned, or at apply the planned value with what was unknown then
/// now known); `prior` is the state (`None` on create). Returns the warnings and what apply must refuse.
async fn judged(
    client: &HyperpodClient,
    value: &mut Value,
    prior: Option<&Value>,
) -> Result<(Diagnostics, Diagnostics), Diagnostics> {
    let inputs = gather::gather(client, value, prior).await;
    let verdict = judge::judge(&inputs);
    predict::predict(&inputs, &verdict, value);
    Ok(verdict.outcome())
}

/// `judged` at apply: what it refuses is an error, before the contract is recorded.
pub async fn resolve(
    client: &HyperpodClient,
    value: &mut Value,
    prior: Option<&Value>,
) -> Result<Diagnostics, Diagnostics> {
    checklist::refused_at_apply(judged(client, value, prior).await?)
}
