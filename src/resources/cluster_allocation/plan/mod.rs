//! Plan time: `gather` reads the cluster (its instance groups) and its live compute quotas once, `judge` holds every
//! share against the instance groups (WKL-3, in the engine), `predict` fills `id`, `cluster_arn`, `capacity` and
//! `governance`. Apply runs the same steps when the cluster's name was unknown at plan (`resolve`).

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

pub use gather::AllocationPlanInputs;

/// Plans the allocation: the derived attributes, or the plan fails at the entry the cluster cannot hold (a warning
/// only on an allocation this plan leaves unchanged).
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    let mut planned = change.planned.clone();
    let result = resolve(client, &mut planned).await;
    if checklist::judged(change, client.strict, result)?.is_some() {
        change.set_planned(planned);
    }
    Ok(())
}

/// Gathers, judges and predicts into `value`: the planned value, or at apply the planned value with what was
/// unknown then now known.
pub async fn resolve(client: &HyperpodClient, value: &mut Value) -> Result<(), Diagnostics> {
    let inputs = gather::gather(client, value).await?;
    judge::judge(&inputs)?;
    predict::predict(&inputs, value);
    Ok(())
}
