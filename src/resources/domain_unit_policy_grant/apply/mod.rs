//! Apply. Create: the principal resolved to its profile (checked again before the first write), then
//! `AddPolicyGrant` with the grant's own idempotency token (`add`). Grants are immutable: every argument forces
//! replacement, so update only records the plan. Delete: `RemovePolicyGrant`, naming the principal as DataZone has it.

mod add;

use super::model::{GrantConfig, GrantTerms, SeenGrants, governance_value, grant_ids, grant_resource_id};
use super::plan::resolve;
use crate::aws::datazone_grants::{find_project_profile_grant, remove_project_profile_grant};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{text, unknowns_to_null};
use crate::protocol::plan::set_attr;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;

pub async fn create(client: &HyperpodClient, seen: &SeenGrants, planned: &Value) -> Applied {
    let Some(terms) = GrantConfig::decode(planned).terms else {
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
fn created_state(planned: &Value, terms: &GrantTerms, grant_id: &str) -> Value {
    let mut state = planned.clone();
    set_attr(
        &mut state,
        "id",
        text(grant_resource_id(&terms.domain_id, &terms.domain_unit_id, grant_id)),
    );
    set_attr(&mut state, "grant_id", text(grant_id));
    let facts = governance_value(&state);
    set_attr(&mut state, "governance", facts);
    unknowns_to_null(state)
}

/// Every argument forces replacement, so an update changes nothing in DataZone: keep the IDs.
pub fn update(prior: &Value, planned: &Value) -> Applied {
    let mut state = planned.clone();
    for name in ["id", "grant_id"] {
        set_attr(&mut state, name, prior.get_attr(name).cloned().unwrap_or(Value::Null));
    }
    let facts = governance_value(&state);
    set_attr(&mut state, "governance", facts);
    Applied::ok(unknowns_to_null(state))
}

pub async fn delete(client: &HyperpodClient, prior: &Value) -> Result<(), Diagnostics> {
    let Some((domain_id, unit_id, grant_id)) = grant_ids(prior) else {
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
