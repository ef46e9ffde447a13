//! Refresh: the grant the state records, as DataZone reports it; one gone is removed from state. DataZone reports a
//! user or group by profile ID: state keeps the name the configuration gave while it names that profile.

use super::model::{SeenGrants, flatten, grant_ids, principal_block, principal_of};
use super::plan::{DataZoneLookup, principal_profile};
use super::schema::{PolicyGrantModel, TYPE_NAME};
use crate::aws::datazone_grants::{GrantPrincipal, find_project_profile_grant};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;

pub async fn read(client: &HyperpodClient, seen: &SeenGrants, current: &Value) -> Result<Option<Value>, Diagnostics> {
    let current = PolicyGrantModel::decode(current)?;
    let Some((domain_id, unit_id, grant_id)) = grant_ids(&current) else {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Unreadable state",
            format!("The {TYPE_NAME} in state has no domain, domain unit or grant ID."),
        ));
    };
    seen.remember(&grant_id);
    match find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id).await {
        Ok(grant) => {
            let mut state = flatten(&grant, &domain_id, &unit_id, &current);
            let recorded = principal_of(&current);
            if let Some(kept) = as_configured(client, &domain_id, &grant.principal, recorded).await {
                state.principal = Field::Known(principal_block(&kept));
            }
            Ok(Some(state.encode()))
        }
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(err.diagnostics(AttributePath::root(), "Reading the policy grant failed")),
    }
}

/// The configured principal as the user spelled it, when it names the principal DataZone reports (by profile ID):
/// state keeps what the configuration says, so a grant read back is no change.
async fn as_configured(
    client: &HyperpodClient,
    domain_id: &str,
    live: &GrantPrincipal,
    configured: Option<GrantPrincipal>,
) -> Option<GrantPrincipal> {
    let configured = configured?;
    if configured == *live {
        return Some(configured);
    }
    let same_kind = matches!(
        (&configured, live),
        (GrantPrincipal::Group(_), GrantPrincipal::Group(_)) | (GrantPrincipal::User(_), GrantPrincipal::User(_))
    );
    if !same_kind {
        return None;
    }
    match principal_profile(client, domain_id, &configured).await {
        DataZoneLookup::Found(resolved) if resolved == *live => Some(configured),
        // Another profile; or not found: the configured name names no one now, the live principal shows (and the plan
        // replaces it).
        DataZoneLookup::Found(_) | DataZoneLookup::Missing => None,
        // Unreadable now: keep what was recorded rather than report drift that may not be there.
        DataZoneLookup::Unreadable(_) => Some(configured),
    }
}
