//! EKS Pod Identity associations and access entries: who a tenant's pods run as, and which IAM principals reach
//! its namespace through which Kubernetes groups and access policies.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_eks::Client;
use aws_sdk_eks::types::{AccessScope as ApiScope, AccessScopeType};
pub use hyperpod_model::access_scope::AccessScope;

use super::{AwsError, api_error, is_not_found_error, not_found_as};

pub const POD_IDENTITY_ASSOCIATION: &str = "EKS Pod Identity association";
pub const ACCESS_ENTRY: &str = "EKS access entry";
/// Read-only access to most objects of a namespace.
pub const VIEW_POLICY: &str = "AmazonEKSViewPolicy";
/// Read and write access to most objects of a namespace (not Roles or RoleBindings).
pub const EDIT_POLICY: &str = "AmazonEKSEditPolicy";

/// The ARN of an EKS access policy (`arn:<partition>:eks::aws:cluster-access-policy/<name>`).
pub fn access_policy_arn(partition: &str, policy_name: &str) -> String {
    format!("arn:{partition}:eks::aws:cluster-access-policy/{policy_name}")
}

/// What a Pod Identity association should be. Namespace and service account are its identity: changing either means
/// a new association.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodIdentitySpec {
    pub namespace: String,
    pub service_account: String,
    pub role_arn: String,
    pub target_role_arn: Option<String>,
    pub disable_session_tags: bool,
    /// A session policy (JSON); EKS accepts one only with `disable_session_tags`.
    pub policy: Option<String>,
    pub tags: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodIdentityAssociation {
    pub id: String,
    pub arn: String,
    pub namespace: String,
    pub service_account: String,
    pub role_arn: String,
    pub target_role_arn: Option<String>,
    pub disable_session_tags: bool,
    pub policy: Option<String>,
    /// Set by EKS when there is a target role: the external id it passes when assuming it.
    pub external_id: Option<String>,
    pub tags: BTreeMap<String, String>,
}

fn from_sdk_association(a: &aws_sdk_eks::types::PodIdentityAssociation) -> PodIdentityAssociation {
    PodIdentityAssociation {
        id: a.association_id().unwrap_or_default().to_string(),
        arn: a.association_arn().unwrap_or_default().to_string(),
        namespace: a.namespace().unwrap_or_default().to_string(),
        service_account: a.service_account().unwrap_or_default().to_string(),
        role_arn: a.role_arn().unwrap_or_default().to_string(),
        target_role_arn: a.target_role_arn().filter(|t| !t.is_empty()).map(str::to_string),
        disable_session_tags: a.disable_session_tags().unwrap_or(false),
        policy: a.policy().filter(|p| !p.is_empty()).map(str::to_string),
        external_id: a.external_id().filter(|e| !e.is_empty()).map(str::to_string),
        tags: a
            .tags()
            .map(|tags| tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default(),
    }
}

/// Describes a Pod Identity association by id; a missing association (or cluster) is `NotFound`.
pub async fn find_pod_identity_association(
    client: &Client,
    cluster: &str,
    id: &str,
) -> Result<PodIdentityAssociation, AwsError> {
    let output = client
        .describe_pod_identity_association()
        .cluster_name(cluster)
        .association_id(id)
        .send()
        .await
        .map_err(|err| {
            not_found_as(
                POD_IDENTITY_ASSOCIATION,
                id,
                api_error("DescribePodIdentityAssociation", err),
            )
        })?;
    output
        .association()
        .map(from_sdk_association)
        .ok_or_else(|| AwsError::NotFound {
            kind: POD_IDENTITY_ASSOCIATION,
            id: id.to_string(),
        })
}

/// The association of one service account, if any (EKS allows one per namespace and service account). Used to adopt
/// or report an association that exists but is not in the state.
pub async fn find_pod_identity_association_for(
    client: &Client,
    cluster: &str,
    namespace: &str,
    service_account: &str,
) -> Result<Option<PodIdentityAssociation>, AwsError> {
    let found = described_associations(client, cluster, namespace, Some(service_account)).await?;
    Ok(found.into_iter().next())
}

/// Every association in a namespace, described (the list's summaries lack the roles and settings).
pub async fn list_pod_identity_associations(
    client: &Client,
    cluster: &str,
    namespace: &str,
) -> Result<Vec<PodIdentityAssociation>, AwsError> {
    described_associations(client, cluster, namespace, None).await
}

async fn described_associations(
    client: &Client,
    cluster: &str,
    namespace: &str,
    service_account: Option<&str>,
) -> Result<Vec<PodIdentityAssociation>, AwsError> {
    let mut ids = Vec::new();
    let mut pages = client
        .list_pod_identity_associations()
        .cluster_name(cluster)
        .namespace(namespace)
        .set_service_account(service_account.map(str::to_string))
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListPodIdentityAssociations", err))?;
        for summary in page.associations() {
            // The filters are the service's; matching again keeps other associations out whatever it does.
            let wanted = summary.namespace() == Some(namespace)
                && service_account.is_none_or(|sa| summary.service_account() == Some(sa));
            if let (true, Some(id)) = (wanted, summary.association_id()) {
                ids.push(id.to_string());
            }
        }
    }
    let mut associations = Vec::new();
    for id in ids {
        match find_pod_identity_association(client, cluster, &id).await {
            Ok(association) => associations.push(association),
            // Deleted between the list and the describe.
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(err),
        }
    }
    Ok(associations)
}

/// Creates the association. A role created moments ago may not be visible to EKS yet ("Role provided in the request
/// does not exist"): call this through `retry::retry_propagation`.
pub async fn create_pod_identity_association(
    client: &Client,
    cluster: &str,
    spec: &PodIdentitySpec,
) -> Result<PodIdentityAssociation, AwsError> {
    let output = client
        .create_pod_identity_association()
        .cluster_name(cluster)
        .namespace(&spec.namespace)
        .service_account(&spec.service_account)
        .role_arn(&spec.role_arn)
        .set_target_role_arn(spec.target_role_arn.clone())
        .disable_session_tags(spec.disable_session_tags)
        .set_policy(spec.policy.clone())
        .set_tags(sdk_tags(&spec.tags))
        .send()
        .await
        .map_err(|err| api_error("CreatePodIdentityAssociation", err))?;
    let association = output.association().ok_or_else(|| AwsError::Api {
        operation: "CreatePodIdentityAssociation",
        code: "InvalidResponse".into(),
        message: "EKS returned no association".to_string(),
    })?;
    Ok(from_sdk_association(association))
}

/// Brings an association to `spec`: role, target role, session tags and policy in place (EKS refuses an update that
/// changes none of them, so it is skipped then), tags with TagResource/UntagResource. Namespace and service account
/// cannot change. Returns the association as it now is.
pub async fn update_pod_identity_association(
    client: &Client,
    cluster: &str,
    id: &str,
    spec: &PodIdentitySpec,
) -> Result<PodIdentityAssociation, AwsError> {
    let current = find_pod_identity_association(client, cluster, id).await?;
    let mut updated = current.clone();
    if let Some(change) = association_change(&current, spec) {
        let output = client
            .update_pod_identity_association()
            .cluster_name(cluster)
            .association_id(id)
            .role_arn(&spec.role_arn)
            .disable_session_tags(spec.disable_session_tags)
            .set_target_role_arn(change.target_role_arn)
            .set_policy(change.policy)
            .send()
            .await
            .map_err(|err| {
                not_found_as(
                    POD_IDENTITY_ASSOCIATION,
                    id,
                    api_error("UpdatePodIdentityAssociation", err),
                )
            })?;
        if let Some(association) = output.association() {
            updated = from_sdk_association(association);
        }
    }
    update_tags(client, &current.arn, &current.tags, &spec.tags).await?;
    updated.tags = spec.tags.clone();
    Ok(updated)
}

/// The optional members of an UpdatePodIdentityAssociation call: `None` leaves a value as it is, an empty string
/// removes it (EKS's convention for the target role and the session policy).
#[derive(Debug, PartialEq, Eq)]
struct AssociationChange {
    target_role_arn: Option<String>,
    policy: Option<String>,
}

fn association_change(current: &PodIdentityAssociation, spec: &PodIdentitySpec) -> Option<AssociationChange> {
    let unchanged = current.role_arn == spec.role_arn
        && current.target_role_arn == spec.target_role_arn
        && current.disable_session_tags == spec.disable_session_tags
        && current.policy == spec.policy;
    if unchanged {
        return None;
    }
    let member = |current: &Option<String>, wanted: &Option<String>| match (current, wanted) {
        (_, Some(wanted)) => Some(wanted.clone()),
        (Some(_), None) => Some(String::new()),
        (None, None) => None,
    };
    Some(AssociationChange {
        target_role_arn: member(&current.target_role_arn, &spec.target_role_arn),
        policy: member(&current.policy, &spec.policy),
    })
}

/// Deletes an association; one that is already gone (or whose cluster is) is fine.
pub async fn delete_pod_identity_association(client: &Client, cluster: &str, id: &str) -> Result<(), AwsError> {
    match client
        .delete_pod_identity_association()
        .cluster_name(cluster)
        .association_id(id)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(err) => ok_if_not_found(api_error("DeletePodIdentityAssociation", err)),
    }
}

/// One access policy associated with an access entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessPolicyAssociation {
    pub policy_arn: String,
    pub scope: AccessScope,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessEntryRecord {
    pub principal_arn: String,
    /// What TagResource / UntagResource name.
    pub arn: String,
    /// `STANDARD` for the entries a tenant makes; nodes' entries are `EC2_LINUX` and the like.
    pub entry_type: String,
    pub kubernetes_groups: Vec<String>,
    pub tags: BTreeMap<String, String>,
    pub policies: Vec<AccessPolicyAssociation>,
}

/// The principal ARNs of every access entry of a cluster.
pub async fn list_access_entries(client: &Client, cluster: &str) -> Result<Vec<String>, AwsError> {
    let mut principals = Vec::new();
    let mut pages = client
        .list_access_entries()
        .cluster_name(cluster)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("ListAccessEntries", err))?;
        principals.extend(page.access_entries().iter().cloned());
    }
    Ok(principals)
}

/// An access entry with its associated access policies; `NotFound` when the principal has no entry. A cluster whose
/// authentication mode is `CONFIG_MAP` answers `InvalidRequestException`, passed through as is.
pub async fn find_access_entry(client: &Client, cluster: &str, principal: &str) -> Result<AccessEntryRecord, AwsError> {
    let mut entry = describe_access_entry(client, cluster, principal).await?;
    entry.policies = list_associated_access_policies(client, cluster, principal).await?;
    Ok(entry)
}

/// The access entry without its policies (`find_access_entry` adds them).
pub async fn describe_access_entry(
    client: &Client,
    cluster: &str,
    principal: &str,
) -> Result<AccessEntryRecord, AwsError> {
    let output = client
        .describe_access_entry()
        .cluster_name(cluster)
        .principal_arn(principal)
        .send()
        .await
        .map_err(|err| not_found_as(ACCESS_ENTRY, principal, api_error("DescribeAccessEntry", err)))?;
    let entry = output.access_entry().ok_or_else(|| AwsError::NotFound {
        kind: ACCESS_ENTRY,
        id: principal.to_string(),
    })?;
    Ok(AccessEntryRecord {
        principal_arn: entry.principal_arn().unwrap_or(principal).to_string(),
        arn: entry.access_entry_arn().unwrap_or_default().to_string(),
        entry_type: entry.r#type().unwrap_or_default().to_string(),
        kubernetes_groups: entry.kubernetes_groups().to_vec(),
        tags: entry
            .tags()
            .map(|tags| tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default(),
        policies: Vec::new(),
    })
}

/// The access policies associated with `principal`'s entry; `NotFound` when it has no entry. Enough for the rules
/// that read every entry of a cluster (scopes and policies), at one call per entry instead of two.
pub async fn list_associated_access_policies(
    client: &Client,
    cluster: &str,
    principal: &str,
) -> Result<Vec<AccessPolicyAssociation>, AwsError> {
    let mut policies = Vec::new();
    let mut pages = client
        .list_associated_access_policies()
        .cluster_name(cluster)
        .principal_arn(principal)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page =
            page.map_err(|err| not_found_as(ACCESS_ENTRY, principal, api_error("ListAssociatedAccessPolicies", err)))?;
        for policy in page.associated_access_policies() {
            let scope = policy.access_scope();
            policies.push(AccessPolicyAssociation {
                policy_arn: policy.policy_arn().unwrap_or_default().to_string(),
                scope: match scope {
                    Some(scope) if scope.r#type() == Some(&AccessScopeType::Namespace) => {
                        AccessScope::Namespaces(scope.namespaces().to_vec())
                    }
                    _ => AccessScope::Cluster,
                },
            });
        }
    }
    Ok(policies)
}

/// Creates a `STANDARD` access entry. A principal created moments ago may not be visible to EKS yet ("The specified
/// principalArn is invalid: invalid principal"): call this through `retry::retry_propagation`.
pub async fn create_access_entry(
    client: &Client,
    cluster: &str,
    principal: &str,
    groups: &[String],
    tags: &BTreeMap<String, String>,
) -> Result<(), AwsError> {
    client
        .create_access_entry()
        .cluster_name(cluster)
        .principal_arn(principal)
        .set_kubernetes_groups((!groups.is_empty()).then(|| groups.to_vec()))
        .set_tags(sdk_tags(tags))
        .send()
        .await
        .map_err(|err| api_error("CreateAccessEntry", err))?;
    Ok(())
}

/// Replaces the entry's Kubernetes groups (an empty slice removes them all).
pub async fn update_access_entry_groups(
    client: &Client,
    cluster: &str,
    principal: &str,
    groups: &[String],
) -> Result<(), AwsError> {
    client
        .update_access_entry()
        .cluster_name(cluster)
        .principal_arn(principal)
        .set_kubernetes_groups(Some(groups.to_vec()))
        .send()
        .await
        .map_err(|err| not_found_as(ACCESS_ENTRY, principal, api_error("UpdateAccessEntry", err)))?;
    Ok(())
}

/// Associates an access policy scoped to `namespaces`, or to the whole cluster when the slice is empty.
/// Associating a policy that already is replaces its scope.
pub async fn associate_access_policy(
    client: &Client,
    cluster: &str,
    principal: &str,
    policy_arn: &str,
    namespaces: &[String],
) -> Result<(), AwsError> {
    let scope = if namespaces.is_empty() {
        ApiScope::builder().r#type(AccessScopeType::Cluster).build()
    } else {
        ApiScope::builder()
            .r#type(AccessScopeType::Namespace)
            .set_namespaces(Some(namespaces.to_vec()))
            .build()
    };
    client
        .associate_access_policy()
        .cluster_name(cluster)
        .principal_arn(principal)
        .policy_arn(policy_arn)
        .access_scope(scope)
        .send()
        .await
        .map_err(|err| api_error("AssociateAccessPolicy", err))?;
    Ok(())
}

/// Removes an access policy from an entry; a policy (or entry) that is already gone is fine.
pub async fn disassociate_access_policy(
    client: &Client,
    cluster: &str,
    principal: &str,
    policy_arn: &str,
) -> Result<(), AwsError> {
    match client
        .disassociate_access_policy()
        .cluster_name(cluster)
        .principal_arn(principal)
        .policy_arn(policy_arn)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(err) => ok_if_not_found(api_error("DisassociateAccessPolicy", err)),
    }
}

/// Deletes an access entry (its policy associations go with it); one that is already gone is fine.
pub async fn delete_access_entry(client: &Client, cluster: &str, principal: &str) -> Result<(), AwsError> {
    match client
        .delete_access_entry()
        .cluster_name(cluster)
        .principal_arn(principal)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(err) => ok_if_not_found(api_error("DeleteAccessEntry", err)),
    }
}

fn ok_if_not_found(err: AwsError) -> Result<(), AwsError> {
    if is_not_found_error(&err) { Ok(()) } else { Err(err) }
}

fn sdk_tags(tags: &BTreeMap<String, String>) -> Option<HashMap<String, String>> {
    (!tags.is_empty()).then(|| tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// Brings an EKS resource's tags (an access entry's, a Pod Identity association's) from `current` to `wanted`.
pub async fn update_tags(
    client: &Client,
    arn: &str,
    current: &BTreeMap<String, String>,
    wanted: &BTreeMap<String, String>,
) -> Result<(), AwsError> {
    let removed: Vec<String> = current.keys().filter(|k| !wanted.contains_key(*k)).cloned().collect();
    if !removed.is_empty() {
        client
            .untag_resource()
            .resource_arn(arn)
            .set_tag_keys(Some(removed))
            .send()
            .await
            .map_err(|err| api_error("UntagResource", err))?;
    }
    let changed: HashMap<String, String> = wanted
        .iter()
        .filter(|(k, v)| current.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !changed.is_empty() {
        client
            .tag_resource()
            .resource_arn(arn)
            .set_tags(Some(changed))
            .send()
            .await
            .map_err(|err| api_error("TagResource", err))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current() -> PodIdentityAssociation {
        PodIdentityAssociation {
            id: "a-1".into(),
            arn: "arn:aws:eks:us-west-2:123456789012:podidentityassociation/c/a-1".into(),
            namespace: "hyperpod-ns-research".into(),
            service_account: "research-jobs".into(),
            role_arn: "arn:aws:iam::123456789012:role/hyperpod-c-research".into(),
            target_role_arn: Some("arn:aws:iam::444455556666:role/research-consumer".into()),
            disable_session_tags: true,
            policy: Some("{}".into()),
            external_id: Some("x".into()),
            tags: BTreeMap::new(),
        }
    }

    fn spec_of(a: &PodIdentityAssociation) -> PodIdentitySpec {
        PodIdentitySpec {
            namespace: a.namespace.clone(),
            service_account: a.service_account.clone(),
            role_arn: a.role_arn.clone(),
            target_role_arn: a.target_role_arn.clone(),
            disable_session_tags: a.disable_session_tags,
            policy: a.policy.clone(),
            tags: BTreeMap::from([("team".to_string(), "research".to_string())]),
        }
    }

    #[test]
    fn an_unchanged_association_is_not_updated() {
        assert_eq!(
            association_change(&current(), &spec_of(&current())),
            None,
            "tags alone do not count"
        );
    }

    #[test]
    fn removed_target_role_and_policy_are_sent_empty() {
        let spec = PodIdentitySpec {
            target_role_arn: None,
            policy: None,
            disable_session_tags: false,
            ..spec_of(&current())
        };
        let change = association_change(&current(), &spec).unwrap();
        assert_eq!(change.target_role_arn.as_deref(), Some(""));
        assert_eq!(change.policy.as_deref(), Some(""));

        // Absent before and after: left out of the call.
        let before = PodIdentityAssociation {
            target_role_arn: None,
            policy: None,
            ..current()
        };
        let spec = PodIdentitySpec {
            role_arn: "arn:aws:iam::123456789012:role/other".into(),
            ..spec_of(&before)
        };
        let change = association_change(&before, &spec).unwrap();
        assert_eq!(change.target_role_arn, None);
        assert_eq!(change.policy, None);
    }

    #[test]
    fn access_policy_arns_follow_the_partition() {
        assert_eq!(
            access_policy_arn("aws", VIEW_POLICY),
            "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
        );
        assert_eq!(
            access_policy_arn("aws-cn", EDIT_POLICY),
            "arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSEditPolicy"
        );
    }
}
