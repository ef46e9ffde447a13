//! Apply: the allocation's one AWS write is its claim on the cluster (`claim`). Create and update take the claim
//! and record the planned value; what was unknown at plan (a cluster name from a resource created in the same apply)
//! is gathered and judged first. Delete gives the claim up.

pub mod claim;

use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;

pub async fn record(client: &HyperpodClient, prior: Option<&Value>, planned: &Value) -> Applied {
    let mut value = planned.clone();
    if !planned.is_wholly_known() {
        if let Err(errors) = super::plan::resolve(client, &mut value).await {
            return Applied::failed(None, errors);
        }
        value = unknowns_to_null(value);
    }
    match take_claim(client, prior, &value).await {
        Ok(()) => Applied::ok(value),
        Err(errors) => Applied::failed(None, errors),
    }
}

async fn take_claim(client: &HyperpodClient, prior: Option<&Value>, value: &Value) -> Result<(), Diagnostics> {
    let (Some(cluster_name), Some(teams)) = (super::model::cluster_name(value), claim::teams_json(value)) else {
        return Ok(());
    };
    let prior_teams = prior.and_then(claim::teams_json);
    claim::take(client, &cluster_name, &teams, prior_teams.as_ref()).await
}

/// Gives the claim up (another allocation's stays).
pub async fn forget(client: &HyperpodClient, state: &Value) -> Result<(), Diagnostics> {
    let Some(cluster_name) = super::model::cluster_name(state) else {
        return Ok(());
    };
    claim::release(client, &cluster_name, claim::teams_json(state).as_ref()).await
}
