//! Plan time: `gather` reads the cluster (its instance groups) once, `judge` holds every share against the instance
//! groups (WKL-3, in the engine), `predict` fills `id`, `cluster_arn`, `capacity` and `governance`. Apply runs the
//! same steps when the cluster's name was unknown at plan (`resolve`). Beside them, `claimed` refuses a cluster
//! another allocation holds (live: judged again at apply's plan, and by the claim itself).

mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use super::apply::claim;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::plan::PlannedChange;
use crate::protocol::value::Value;
use crate::resources::checklist;

pub use gather::AllocationPlanInputs;

/// Plans the allocation: the derived attributes, and a refusal at an entry the cluster cannot hold.
pub async fn plan(client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    let mut planned = change.planned.clone();
    let result = judged(client, &mut planned).await;
    if let Some(refused) = checklist::judged(change, result)? {
        // Predicted either way: the shares it refuses are the configuration's, the same at apply's plan.
        change.set_planned(planned);
        if let Err(refusals) = refused {
            checklist::refuse(change, refusals);
        }
    }
    claimed(client, change).await;
    Ok(())
}

/// Refuses the change when another allocation holds the cluster's claim. Teams known only at apply are judged
/// there, by the claim's test-and-set; a claim that cannot be read refuses the change (a plan never fails for it).
async fn claimed(client: &HyperpodClient, change: &mut PlannedChange) {
    let Some(cluster_name) = super::model::cluster_name(&change.planned) else {
        return;
    };
    let Some(planned) = claim::teams_json(&change.planned) else {
        return;
    };
    let prior = change.prior.as_ref().and_then(claim::teams_json);
    match claim::find(client, &cluster_name).await {
        Ok(claimed) => {
            let holder = claim::holder(claimed.as_ref(), &[Some(&planned), prior.as_ref()]);
            if let Some(refused) = claim::refusal(&cluster_name, &holder) {
                change.live_refusals.extend(refused);
            }
        }
        Err(unread) => change.live_refusals.extend(unread),
    }
}

/// Gathers, predicts and judges into `value` (the planned value, or at apply the planned value with what was
/// unknown then now known): `Ok(Err(_))` carries the refusals beside a prediction; `Err` where the cluster could not
/// be read.
async fn judged(client: &HyperpodClient, value: &mut Value) -> Result<Result<(), Diagnostics>, Diagnostics> {
    let inputs = gather::gather(client, value).await?;
    predict::predict(&inputs, value);
    Ok(judge::judge(&inputs))
}

/// `judged` at apply: what it refuses is an error, before the allocation is recorded.
pub async fn resolve(client: &HyperpodClient, value: &mut Value) -> Result<(), Diagnostics> {
    judged(client, value).await?
}
