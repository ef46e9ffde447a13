//! Apply. Create: the principal resolved to its profile (checked again before the first write), then
//! `AddPolicyGrant` with the grant's own idempotency token (`add`). Grants are immutable: every argument forces
//! replacement, so update only records the plan. Delete: `RemovePolicyGrant`, naming the principal as DataZone has it.

mod add;

use super::model::{GrantTerms, SeenGrants, governance, grant_ids, grant_resource_id};
use super::plan::resolve;
use super::schema::PolicyGrantModel;
use crate::aws::datazone_grants::{find_project_profile_grant, remove_project_profile_grant};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;

pub async fn create(client: &HyperpodClient, seen: &SeenGrants, planned: &Value) -> Applied {
    let planned = match PolicyGrantModel::decode(planned) {
        Ok(planned) => planned,
        Err(diagnostics) => return diagnostics.into(),
    };
    let Some(terms) = GrantTerms::of(&planned) else {
        return Diagnostics::error(
            AttributePath::root(),
            "Cannot add the policy grant",
            "The domain, the domain unit, the profiles or the principal are still unknown at apply.",
        )
        .into();
    };
    // The principal's profile before the first write: a name that names no one fails here, with nothing added.
    let sent = match resolve(client, &terms).await {
        Ok(principal) => GrantTerms {
            principal,
            ..terms.clone()
        },
        Err(diagnostics) => return diagnostics.into(),
    };
    match add::add(&client.datazone, &terms, &sent).await {
        Ok(grant_id) => {
            seen.remember(&grant_id);
            Applied::ok(created_state(planned, &terms, &grant_id))
        }
        Err(diagnostics) => diagnostics.into(),
    }
}

/// The state of a grant just added: the plan's values, with the IDs.
fn created_state(planned: PolicyGrantModel, terms: &GrantTerms, grant_id: &str) -> Value {
    let mut state = planned;
    state.id = Field::Known(grant_resource_id(&terms.domain_id, &terms.domain_unit_id, grant_id));
    state.grant_id = Field::Known(grant_id.to_string());
    state.governance = Field::Known(governance(&state));
    unknowns_to_null(state.encode())
}

/// Every argument forces replacement, so an update changes nothing in DataZone: keep the IDs.
pub fn update(prior: &Value, planned: &Value) -> Applied {
    let decoded = PolicyGrantModel::decode(prior).and_then(|prior| Ok((prior, PolicyGrantModel::decode(planned)?)));
    let (prior, mut state) = match decoded {
        Ok(both) => both,
        Err(diagnostics) => return diagnostics.into(),
    };
    state.id = prior.id;
    state.grant_id = prior.grant_id;
    state.governance = Field::Known(governance(&state));
    Applied::ok(unknowns_to_null(state.encode()))
}

pub async fn delete(client: &HyperpodClient, prior: &Value) -> Result<(), Diagnostics> {
    // Never blocks destroy: a state that does not decode names no grant to remove.
    let ids = PolicyGrantModel::decode(prior).ok().as_ref().and_then(grant_ids);
    let Some((domain_id, unit_id, grant_id)) = ids else {
        return Ok(()); // nothing was ever added
    };
    // RemovePolicyGrant names the principal as DataZone has it, so read the grant first.
    let grant = match find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id).await {
        Ok(grant) => grant,
        Err(err) if err.is_not_found() => return Ok(()),
        Err(err) => return Err(err.diagnostics(AttributePath::root(), "Reading the policy grant failed")),
    };
    remove_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant)
        .await
        .map_err(|err| err.diagnostics(AttributePath::root(), "Removing the policy grant failed"))
}
