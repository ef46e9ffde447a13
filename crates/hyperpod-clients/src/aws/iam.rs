//! IAM reads: a role's attached and inline policy documents, for static permission checks (PRJ-2). The roles the
//! provider creates are managed in `iam_roles` (re-exported here).

use aws_sdk_iam::Client;

use super::ids::Arn;
use super::{AwsError, api_error, not_found_as};

// The roles the provider owns live in `iam_roles`; callers may reach them from here too.
pub use super::iam_roles::{
    IAM_ROLE, IAM_ROLE_POLICY, Role, create_role, delete_role, delete_role_policy, find_role, find_role_policy,
    list_role_policy_names, put_role_policy, set_role_tags, update_assume_role_policy,
};

/// One policy that applies to a role: an attached managed policy or an inline one.
#[derive(Clone, Debug)]
pub struct RolePolicy {
    pub name: String,
    /// Set for attached managed policies.
    pub managed_arn: Option<String>,
    pub document: serde_json::Value,
}

/// The ARNs of the managed policies attached to a role (`ListAttachedRolePolicies` alone: OBS-1 needs only whether
/// one named policy is attached, not the documents). `NotFound` when the role does not exist.
pub async fn list_attached_policy_arns(client: &Client, role_arn: &str) -> Result<Vec<String>, AwsError> {
    let role_name = role_name_of(role_arn, "ListAttachedRolePolicies")?;
    let mut pages = client
        .list_attached_role_policies()
        .role_name(&role_name)
        .into_paginator()
        .send();
    let mut arns = Vec::new();
    while let Some(page) = pages.next().await {
        let page =
            page.map_err(|err| not_found_as("IAM role", role_arn, api_error("ListAttachedRolePolicies", err)))?;
        arns.extend(
            page.attached_policies()
                .iter()
                .filter_map(|p| p.policy_arn())
                .map(str::to_string),
        );
    }
    Ok(arns)
}

fn role_name_of(role_arn: &str, operation: &'static str) -> Result<String, AwsError> {
    Arn::parse(role_arn)
        .map(|arn| arn.resource_id().to_string())
        .map_err(|message| AwsError::Api {
            operation,
            code: "InvalidArn".into(),
            message,
        })
}

/// Every policy document on a role. Fails with `NotFound` when the role does not exist, and with the API error (e.g.
/// `AccessDenied`) when the provider may not read it — callers report that as an unverified check, not a pass.
pub async fn find_role_policies(client: &Client, role_arn: &str) -> Result<Vec<RolePolicy>, AwsError> {
    let role_name = role_name_of(role_arn, "GetRole")?;
    // No GetRole first: both lists answer NoSuchEntity for a missing role, which is NotFound here.
    let mut policies = Vec::new();

    let mut attached = client
        .list_attached_role_policies()
        .role_name(&role_name)
        .into_paginator()
        .send();
    while let Some(page) = attached.next().await {
        let page =
            page.map_err(|err| not_found_as("IAM role", role_arn, api_error("ListAttachedRolePolicies", err)))?;
        for policy in page.attached_policies() {
            let Some(arn) = policy.policy_arn() else { continue };
            let version = client
                .get_policy()
                .policy_arn(arn)
                .send()
                .await
                .map_err(|err| api_error("GetPolicy", err))?
                .policy()
                .and_then(|p| p.default_version_id().map(str::to_string));
            let document = match version {
                Some(version) => client
                    .get_policy_version()
                    .policy_arn(arn)
                    .version_id(version)
                    .send()
                    .await
                    .map_err(|err| api_error("GetPolicyVersion", err))?
                    .policy_version()
                    .and_then(|v| v.document().map(parse_document))
                    .unwrap_or(serde_json::Value::Null),
                None => serde_json::Value::Null,
            };
            policies.push(RolePolicy {
                name: policy.policy_name().unwrap_or(arn).to_string(),
                managed_arn: Some(arn.to_string()),
                document,
            });
        }
    }

    let mut inline = client
        .list_role_policies()
        .role_name(&role_name)
        .into_paginator()
        .send();
    while let Some(page) = inline.next().await {
        let page = page.map_err(|err| api_error("ListRolePolicies", err))?;
        for name in page.policy_names() {
            let output = client
                .get_role_policy()
                .role_name(&role_name)
                .policy_name(name)
                .send()
                .await
                .map_err(|err| api_error("GetRolePolicy", err))?;
            policies.push(RolePolicy {
                name: name.clone(),
                managed_arn: None,
                document: parse_document(output.policy_document()),
            });
        }
    }
    Ok(policies)
}

/// IAM returns policy documents URL-encoded (RFC 3986); some emulators return them plain. Accept both.
fn parse_document(text: &str) -> serde_json::Value {
    serde_json::from_str(text)
        .or_else(|_| serde_json::from_str(&percent_decode(text)))
        .unwrap_or(serde_json::Value::Null)
}

/// A policy document as text: IAM's URL-encoded form decoded, a plain one (from an emulator) as it is.
pub(super) fn decode_document(text: &str) -> String {
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        text.to_string()
    } else {
        percent_decode(text)
    }
}

/// `%XX` escapes decoded (RFC 3986; `+` stays `+`), a malformed escape kept as it is.
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_parse_plain_and_url_encoded() {
        let plain = r#"{"Version":"2012-10-17","Statement":[]}"#;
        assert_eq!(parse_document(plain)["Version"], "2012-10-17");
        let encoded = "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%5D%7D";
        assert_eq!(parse_document(encoded)["Version"], "2012-10-17");
        assert_eq!(parse_document("not json"), serde_json::Value::Null);
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(decode_document(encoded), plain);
        assert_eq!(decode_document(plain), plain);
        // A plain document whose text contains an escape-like sequence is left alone.
        let with_percent = r#"{"Sid":"100%41"}"#;
        assert_eq!(decode_document(with_percent), with_percent);
    }
}
