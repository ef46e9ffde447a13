//! IAM roles the provider owns (a tenant's workload role): create, read, inline policies, tags, delete.
//! IAM is eventually consistent: calls naming a role created moments ago may answer `NoSuchEntity`; wrap them in
//! `retry::retry_propagation`.

use std::collections::BTreeMap;

use aws_sdk_iam::Client;
use aws_sdk_iam::types::Tag;

use super::iam::decode_document;
use super::{AwsError, api_error, is_not_found_error, not_found_as};

pub const IAM_ROLE: &str = "IAM role";
pub const IAM_ROLE_POLICY: &str = "IAM role policy";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    pub name: String,
    pub arn: String,
    /// The trust policy as JSON text (IAM returns it URL-encoded; decoded here).
    pub assume_role_policy: String,
    pub tags: BTreeMap<String, String>,
}

fn from_sdk_role(role: &aws_sdk_iam::types::Role) -> Role {
    Role {
        name: role.role_name().to_string(),
        arn: role.arn().to_string(),
        assume_role_policy: role
            .assume_role_policy_document()
            .map(decode_document)
            .unwrap_or_default(),
        tags: role
            .tags()
            .iter()
            .map(|t| (t.key().to_string(), t.value().to_string()))
            .collect(),
    }
}

/// Reads a role by name; `NotFound` when there is none.
pub async fn find_role(client: &Client, name: &str) -> Result<Role, AwsError> {
    let output = client
        .get_role()
        .role_name(name)
        .send()
        .await
        .map_err(|err| not_found_as(IAM_ROLE, name, api_error("GetRole", err)))?;
    output.role().map(from_sdk_role).ok_or_else(|| AwsError::NotFound {
        kind: IAM_ROLE,
        id: name.to_string(),
    })
}

/// Creates a role with its trust policy, description (empty for none) and tags. An existing role of that name fails
/// with `EntityAlreadyExists`.
pub async fn create_role(
    client: &Client,
    name: &str,
    trust_policy_json: &str,
    description: &str,
    tags: &BTreeMap<String, String>,
) -> Result<Role, AwsError> {
    let sdk_tags = sdk_tags("CreateRole", tags)?;
    let output = client
        .create_role()
        .role_name(name)
        .assume_role_policy_document(trust_policy_json)
        .set_description((!description.is_empty()).then(|| description.to_string()))
        .set_tags((!sdk_tags.is_empty()).then_some(sdk_tags))
        .send()
        .await
        .map_err(|err| api_error("CreateRole", err))?;
    let mut role = output.role().map(from_sdk_role).ok_or_else(|| AwsError::Api {
        operation: "CreateRole",
        code: "InvalidResponse".into(),
        message: format!("IAM returned no role for {name}"),
    })?;
    // What was asked for is what the role has; not every implementation echoes these back.
    role.assume_role_policy = trust_policy_json.to_string();
    role.tags = tags.clone();
    Ok(role)
}

/// Replaces a role's trust policy.
pub async fn update_assume_role_policy(client: &Client, name: &str, document: &str) -> Result<(), AwsError> {
    client
        .update_assume_role_policy()
        .role_name(name)
        .policy_document(document)
        .send()
        .await
        .map_err(|err| api_error("UpdateAssumeRolePolicy", err))?;
    Ok(())
}

/// Creates or replaces an inline policy. `NoSuchEntity` (the role is not visible yet) is left as the API error so
/// `retry_propagation` recognises it.
pub async fn put_role_policy(client: &Client, role: &str, policy_name: &str, document: &str) -> Result<(), AwsError> {
    client
        .put_role_policy()
        .role_name(role)
        .policy_name(policy_name)
        .policy_document(document)
        .send()
        .await
        .map_err(|err| api_error("PutRolePolicy", err))?;
    Ok(())
}

/// An inline policy's document as JSON text; `NotFound` (id `<role>/<policy>`) when the role or the policy is missing.
pub async fn find_role_policy(client: &Client, role: &str, policy_name: &str) -> Result<String, AwsError> {
    let output = client
        .get_role_policy()
        .role_name(role)
        .policy_name(policy_name)
        .send()
        .await
        .map_err(|err| {
            not_found_as(
                IAM_ROLE_POLICY,
                &format!("{role}/{policy_name}"),
                api_error("GetRolePolicy", err),
            )
        })?;
    Ok(decode_document(output.policy_document()))
}

/// The names of a role's inline policies.
pub async fn list_role_policy_names(client: &Client, role: &str) -> Result<Vec<String>, AwsError> {
    let mut names = Vec::new();
    let mut pages = client.list_role_policies().role_name(role).into_paginator().send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| not_found_as(IAM_ROLE, role, api_error("ListRolePolicies", err)))?;
        names.extend(page.policy_names().iter().cloned());
    }
    Ok(names)
}

/// Deletes an inline policy; one that is already gone (or whose role is) is fine.
pub async fn delete_role_policy(client: &Client, role: &str, policy_name: &str) -> Result<(), AwsError> {
    match client
        .delete_role_policy()
        .role_name(role)
        .policy_name(policy_name)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(err) => ok_if_not_found(api_error("DeleteRolePolicy", err)),
    }
}

/// Deletes a role and what IAM requires gone first: inline policies, attached managed policies and instance
/// profile memberships (IAM refuses with `DeleteConflict` otherwise). A role that is already gone is fine.
pub async fn delete_role(client: &Client, name: &str) -> Result<(), AwsError> {
    // A list answering "not found" means the role is gone; a single policy or profile vanishing meanwhile is not.
    let inline = match list_role_policy_names(client, name).await {
        Ok(names) => names,
        Err(err) => return ok_if_not_found(err),
    };
    for policy in inline {
        delete_role_policy(client, name, &policy).await?;
    }

    let mut attached = Vec::new();
    let mut pages = client
        .list_attached_role_policies()
        .role_name(name)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        match page.map_err(|err| api_error("ListAttachedRolePolicies", err)) {
            Ok(page) => attached.extend(
                page.attached_policies()
                    .iter()
                    .filter_map(|p| p.policy_arn())
                    .map(str::to_string),
            ),
            Err(err) => return ok_if_not_found(err),
        }
    }
    for arn in attached {
        let detached = client
            .detach_role_policy()
            .role_name(name)
            .policy_arn(&arn)
            .send()
            .await;
        if let Err(err) = detached {
            ok_if_not_found(api_error("DetachRolePolicy", err))?;
        }
    }

    let mut profiles = Vec::new();
    let mut pages = client
        .list_instance_profiles_for_role()
        .role_name(name)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        match page.map_err(|err| api_error("ListInstanceProfilesForRole", err)) {
            Ok(page) => profiles.extend(
                page.instance_profiles()
                    .iter()
                    .map(|p| p.instance_profile_name().to_string()),
            ),
            Err(err) => return ok_if_not_found(err),
        }
    }
    for profile in profiles {
        let removed = client
            .remove_role_from_instance_profile()
            .instance_profile_name(&profile)
            .role_name(name)
            .send()
            .await;
        if let Err(err) = removed {
            ok_if_not_found(api_error("RemoveRoleFromInstanceProfile", err))?;
        }
    }

    match client.delete_role().role_name(name).send().await {
        Ok(_) => Ok(()),
        Err(err) => ok_if_not_found(api_error("DeleteRole", err)),
    }
}

/// Brings a role's tags from `current` to `wanted` with TagRole / UntagRole.
pub async fn set_role_tags(
    client: &Client,
    name: &str,
    current: &BTreeMap<String, String>,
    wanted: &BTreeMap<String, String>,
) -> Result<(), AwsError> {
    let (removed, changed) = tag_changes(current, wanted);
    if !removed.is_empty() {
        client
            .untag_role()
            .role_name(name)
            .set_tag_keys(Some(removed))
            .send()
            .await
            .map_err(|err| api_error("UntagRole", err))?;
    }
    if !changed.is_empty() {
        client
            .tag_role()
            .role_name(name)
            .set_tags(Some(sdk_tags("TagRole", &changed)?))
            .send()
            .await
            .map_err(|err| api_error("TagRole", err))?;
    }
    Ok(())
}

/// The keys to remove and the tags to add or change.
fn tag_changes(
    current: &BTreeMap<String, String>,
    wanted: &BTreeMap<String, String>,
) -> (Vec<String>, BTreeMap<String, String>) {
    let removed = current.keys().filter(|k| !wanted.contains_key(*k)).cloned().collect();
    let changed = wanted
        .iter()
        .filter(|(k, v)| current.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (removed, changed)
}

fn sdk_tags(operation: &'static str, tags: &BTreeMap<String, String>) -> Result<Vec<Tag>, AwsError> {
    tags.iter()
        .map(|(k, v)| {
            Tag::builder().key(k).value(v).build().map_err(|err| AwsError::Api {
                operation,
                code: "InvalidTag".into(),
                message: err.to_string(),
            })
        })
        .collect()
}

fn ok_if_not_found(err: AwsError) -> Result<(), AwsError> {
    if is_not_found_error(&err) { Ok(()) } else { Err(err) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn tag_changes_remove_and_add_only_the_difference() {
        let current = tags(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let wanted = tags(&[("a", "1"), ("b", "20"), ("d", "4")]);
        let (removed, changed) = tag_changes(&current, &wanted);
        assert_eq!(removed, vec!["c".to_string()]);
        assert_eq!(changed, tags(&[("b", "20"), ("d", "4")]));
        let (removed, changed) = tag_changes(&wanted, &wanted);
        assert!(removed.is_empty() && changed.is_empty());
    }

    #[test]
    fn roles_map_with_decoded_trust_policies() {
        let encoded = "%7B%22Version%22%3A%222012-10-17%22%7D";
        let role = aws_sdk_iam::types::Role::builder()
            .path("/")
            .role_name("hyperpod-c-research")
            .role_id("AROAEXAMPLE")
            .arn("arn:aws:iam::123456789012:role/hyperpod-c-research")
            .create_date(aws_smithy_types::DateTime::from_secs(0))
            .assume_role_policy_document(encoded)
            .tags(Tag::builder().key("hyperpod:tenant").value("research").build().unwrap())
            .build()
            .unwrap();
        let role = from_sdk_role(&role);
        assert_eq!(role.assume_role_policy, r#"{"Version":"2012-10-17"}"#);
        assert_eq!(role.tags, tags(&[("hyperpod:tenant", "research")]));
        assert_eq!(role.name, "hyperpod-c-research");
    }
}
