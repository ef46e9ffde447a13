//! KMS grants: how a tenant's workload role gets to use a data key without editing the key's policy (which may live
//! in another account).

use aws_sdk_kms::Client;
use aws_sdk_kms::types::GrantOperation;

use super::{AwsError, ErrorCode, api_error, is_not_found_error};

pub const KMS_GRANT: &str = "KMS grant";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmsGrant {
    pub id: String,
    pub key_arn: String,
    pub grantee_principal: String,
    pub name: Option<String>,
    /// As KMS names them (`Decrypt`, `GenerateDataKey`, ...).
    pub operations: Vec<String>,
}

/// Creates a grant on `key_arn` (use the ARN, not an alias or bare id: a key of another account is only reachable by
/// ARN). Returns the grant id. A grantee role created moments ago may not be known to KMS yet (`InvalidArnException`):
/// call this through `retry::retry_propagation`. Grants are eventually consistent too: the grant token that makes one
/// usable at once is not kept, as nothing here uses the grant.
pub async fn create_grant(
    client: &Client,
    key_arn: &str,
    grantee_arn: &str,
    name: &str,
    operations: &[&str],
) -> Result<String, AwsError> {
    let output = client
        .create_grant()
        .key_id(key_arn)
        .grantee_principal(grantee_arn)
        .name(name)
        .set_operations(Some(operations.iter().map(|op| GrantOperation::from(*op)).collect()))
        .send()
        .await
        .map_err(|err| api_error("CreateGrant", err))?;
    output.grant_id().map(str::to_string).ok_or_else(|| AwsError::Api {
        operation: "CreateGrant",
        code: "InvalidResponse".into(),
        message: format!("KMS returned no grant id for key {key_arn}"),
    })
}

/// Reads one grant of a key. `NotFound` when the grant is gone, and also when the key is (a deleted key's grants
/// are gone with it).
pub async fn find_grant(client: &Client, key_arn: &str, grant_id: &str) -> Result<KmsGrant, AwsError> {
    let not_found = || AwsError::NotFound {
        kind: KMS_GRANT,
        id: format!("{key_arn}/{grant_id}"),
    };
    let mut pages = client
        .list_grants()
        .key_id(key_arn)
        .grant_id(grant_id)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = match page.map_err(|err| api_error("ListGrants", err)) {
            Ok(page) => page,
            Err(err) if is_gone(&err) => return Err(not_found()),
            Err(err) => return Err(err),
        };
        // The GrantId filter is the service's; matching again keeps another grant out whatever it does.
        if let Some(entry) = page.grants().iter().find(|g| g.grant_id() == Some(grant_id)) {
            return Ok(KmsGrant {
                id: grant_id.to_string(),
                key_arn: entry.key_id().unwrap_or(key_arn).to_string(),
                grantee_principal: entry.grantee_principal().unwrap_or_default().to_string(),
                name: entry.name().filter(|n| !n.is_empty()).map(str::to_string),
                operations: entry.operations().iter().map(|op| op.as_str().to_string()).collect(),
            });
        }
    }
    Err(not_found())
}

/// Revokes a grant; one that is already gone (or whose key is) is fine.
pub async fn revoke_grant(client: &Client, key_arn: &str, grant_id: &str) -> Result<(), AwsError> {
    match client.revoke_grant().key_id(key_arn).grant_id(grant_id).send().await {
        Ok(_) => Ok(()),
        Err(err) => {
            let err = api_error("RevokeGrant", err);
            if is_gone(&err) { Ok(()) } else { Err(err) }
        }
    }
}

/// KMS says `NotFoundException` for a missing key or grant, and `InvalidGrantIdException` for a grant id it does not
/// recognise — neither can name a live grant.
fn is_gone(err: &AwsError) -> bool {
    is_not_found_error(err) || err.is(ErrorCode::InvalidGrantIdException)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: &str) -> AwsError {
        AwsError::Api {
            operation: "ListGrants",
            code: code.into(),
            message: "no".to_string(),
        }
    }

    #[test]
    fn missing_keys_and_grants_count_as_gone() {
        assert!(is_gone(&api("NotFoundException")));
        assert!(is_gone(&api("InvalidGrantIdException")));
        assert!(!is_gone(&api("AccessDeniedException")));
        assert!(
            !is_gone(&api("KMSInvalidStateException")),
            "a disabled or pending-deletion key still exists"
        );
    }
}
