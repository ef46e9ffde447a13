//! Plan time: `gather` reads what DataZone has of what the grant names (only when the plan adds a grant), `judge`
//! turns that into errors (a name that does not exist) and warnings, `predict` plans `governance` and whether a new
//! principal replaces the grant. Apply runs the principal's check again before the first write (`resolve`).

mod gather;
mod judge;
mod predict;
#[cfg(test)]
mod tests;

use super::model::{GrantTerms, SeenGrants};
use super::schema::PolicyGrantModel;
use crate::aws::datazone_grants::GrantPrincipal;
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::model::Model;
use crate::protocol::plan::PlannedChange;
use crate::resources::checklist;

pub use gather::{DataZoneLookup, GrantPlanInputs, principal_profile};

/// Plans the grant: `governance` and the replacement, with the warnings for the reviewer, or the refusal apply
/// enforces where a name the grant gives does not exist (`checklist::judged`).
pub async fn plan(client: &HyperpodClient, seen: &SeenGrants, change: &mut PlannedChange) -> Result<(), Diagnostics> {
    let planned = PolicyGrantModel::decode(&change.planned)?;
    let prior = change.prior.as_ref().map(PolicyGrantModel::decode).transpose()?;
    let inputs = gather::gather(client, seen, change.is_create(), prior.as_ref(), &planned).await;
    // Predicted either way: a refusal that appears only when Terraform plans again at apply changes no value.
    let verdict = judge::judge(&inputs);
    predict::predict(&inputs, &planned, change);
    match verdict {
        Ok(warnings) => change.diagnostics.extend(warnings),
        Err(refusals) => checklist::refuse(change, refusals),
    }
    Ok(())
}

/// The principal as DataZone keeps it, checked at apply before the first write: a name that names no one fails
/// here, with nothing added.
pub async fn resolve(client: &HyperpodClient, terms: &GrantTerms) -> Result<GrantPrincipal, Diagnostics> {
    let found = gather::principal_profile(client, &terms.domain_id, &terms.principal).await;
    judge::principal_at_apply(&terms.domain_id, &terms.principal, found)
}
