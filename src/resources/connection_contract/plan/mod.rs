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
use crate::protocol::object::boolean;
use crate::protocol::plan::PlannedChange;
use crate::protocol::value::Value;
use crate::resources::checklist;

pub use gather::ContractPlanInputs;

/// Plans the contract: the derived attributes and the reviewer's warnings, or the plan fails (a warning only on a
/// contract this plan leaves unchanged, unless strict).
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    // Under strict (the provider's or the contract's own) every finding fails the plan, changed or not.
    let strict = boolean(&change.planned, "strict").unwrap_or(client.strict);
    // `organization` is write-only: judged from the configuration, never planned.
    let mut planned = change.arguments();
    let result = resolve(client, &mut planned, change.prior.as_ref()).await;
    if let Some(warnings) = checklist::judged(change, strict, result)? {
        change.set_planned(planned);
        change.diagnostics.extend(warnings);
    }
    Ok(())
}

/// Gathers, judges and predicts into `value` (planned, or at apply the planned value with what was unknown then
/// now known); `prior` is the state (`None` on create). Errors fail the plan; warnings are returned.
pub async fn resolve(
    client: &HyperpodClient,
    value: &mut Value,
    prior: Option<&Value>,
) -> Result<Diagnostics, Diagnostics> {
    let inputs = gather::gather(client, value, prior).await;
    let verdict = judge::judge(&inputs)?;
    predict::predict(&inputs, &verdict, value);
    Ok(verdict.warnings())
}
