//! `AddPolicyGrant` with the grant's own idempotency token, following DataZone's answers past grants removed since
//! the token was first used; a conflict is an identical grant added outside this resource, refused with its import ID.

use super::super::model::{GrantTerms, grant_resource_id, next_client_token};
use super::super::schema::TYPE_NAME;
use crate::aws::datazone_grants::{add_project_profile_grant, find_project_profile_grant, list_project_profile_grants};
use crate::aws::{AwsError, ErrorCode};
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use aws_sdk_datazone::Client as DataZoneClient;

/// How many answers naming a removed grant `add` follows before giving up (each removal of a grant of the same terms
/// since its token was first used costs one).
const MAX_STALE_TOKENS: usize = 8;

/// `AddPolicyGrant` with the grant's own idempotency token; returns the grant's ID. DataZone answers a token
/// it has seen with its first grant: after an interrupted apply that is the grant to adopt, but if that grant
/// was removed since, the answer names a grant that is gone, and the next token in the chain is tried.
/// `written` is the grant as configured (its token comes from that), `sent` the same with the principal resolved
/// to its profile ID (what DataZone keeps, and what is sent).
pub async fn add(dz: &DataZoneClient, written: &GrantTerms, sent: &GrantTerms) -> Result<String, Diagnostics> {
    let terms = sent;
    let mut token = written.client_token();
    for _ in 0..MAX_STALE_TOKENS {
        let added = add_project_profile_grant(
            dz,
            &terms.domain_id,
            &terms.domain_unit_id,
            &terms.principal,
            &terms.project_profile_ids,
            terms.include_child_domain_units,
            &token,
        )
        .await;
        let grant_id = match added {
            Ok(grant_id) => grant_id,
            Err(err) if err.is(ErrorCode::ConflictException) => return Err(refused(dz, terms, &err).await),
            Err(err) => return Err(err.diagnostics(AttributePath::root(), "Adding the policy grant failed")),
        };
        match find_project_profile_grant(dz, &terms.domain_id, &terms.domain_unit_id, &grant_id).await {
            Ok(_) => return Ok(grant_id),
            Err(err) if err.is_not_found() => token = next_client_token(&token, &grant_id),
            Err(err) => {
                return Err(err.diagnostics(AttributePath::root(), "Reading the policy grant just added failed"));
            }
        }
    }
    Err(Diagnostics::error(
        AttributePath::root(),
        "Adding the policy grant failed",
        format!(
            "DataZone answered AddPolicyGrant {MAX_STALE_TOKENS} times with a grant that no longer exists \
             (grants of these terms were removed as often). Apply again later."
        ),
    ))
}

/// AddPolicyGrant conflicted: an identical grant that is not this resource's (another token added it).
async fn refused(dz: &DataZoneClient, terms: &GrantTerms, err: &AwsError) -> Diagnostics {
    let existing = list_project_profile_grants(dz, &terms.domain_id, &terms.domain_unit_id).await;
    let Some(grant) = existing
        .ok()
        .and_then(|all| all.into_iter().find(|g| terms.is_granted_by(g)))
    else {
        return err.diagnostics(AttributePath::root(), "Adding the policy grant failed");
    };
    let id = grant_resource_id(&terms.domain_id, &terms.domain_unit_id, &grant.grant_id);
    Diagnostics::error(
        AttributePath::root(),
        "The grant already exists",
        format!(
            "Domain unit {} already has this grant (ID {}): same principal, profiles and child-unit scope, \
             added outside this resource. Fix: import it instead of adding a second one: `terraform import \
             {TYPE_NAME}.<name> {id}`, or an `import` block with `id = \"{id}\"`.",
            terms.domain_unit_id, grant.grant_id
        ),
    )
}
