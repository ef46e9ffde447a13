//! `list "hyperpod_task_view_restriction"`: the EKS access entries of one HyperPod cluster that give an IAM role
//! HyperPod Studio access policies (`AmazonSagemakerHyperpod*`), each saying whether a task view restriction
//! governs it: a restriction made it (`hyperpod:task-view-restriction`, see `model::OWNER_TAG`) or adopted it (the
//! contract's `hyperpod:contract` mark, `model::CONTRACT_TAG`). Entries a tenant composed (tagged `hyperpod:tenant`)
//! belong to that tenant and are not listed here.

use async_trait::async_trait;

use super::model::{CONTRACT_TAG, OWNER_TAG, policy_name, role_name};
use super::schema::{self, TYPE_NAME};
use crate::aws::eks_access::{self as access, AccessEntryRecord};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::list::{ListRequest, ListResource, Listed};
use crate::protocol::schema::Schema;
use crate::resources::failed;
use crate::resources::inventory::{self, Governance, display_name};

/// The prefix of every HyperPod Studio access policy's name.
const HYPERPOD_POLICY_PREFIX: &str = "AmazonSagemakerHyperpod";

pub struct RestrictionList {
    schema: Schema,
}

impl Default for RestrictionList {
    fn default() -> Self {
        Self {
            schema: inventory::schema(
                "Finds the EKS access entries of a HyperPod cluster that give an IAM role HyperPod Studio access \
                 policies (`AmazonSagemakerHyperpod*`): the project roles' task views. Each result's display name is \
                 the role's name and says whether a task view restriction governs the entry: `(governed by contract \
                 <name>)` when a restriction made or adopted it (its `hyperpod:task-view-restriction` or \
                 `hyperpod:contract` tag), `(not governed)` otherwise. Entries a tenant composed are \
                 the tenant's and are not listed. A Slurm cluster has no access entries: the list is empty.",
                inventory::cluster_name(),
            ),
        }
    }
}

/// An entry this list reports: a role's, with a HyperPod access policy, not composed by a tenant.
fn is_task_view(record: &AccessEntryRecord) -> bool {
    record.principal_arn.contains(":role/")
        && !record.tags.contains_key(crate::tags::TENANT)
        && record
            .policies
            .iter()
            .any(|p| policy_name(&p.policy_arn).starts_with(HYPERPOD_POLICY_PREFIX))
}

/// Governed when a restriction made the entry (`hyperpod:task-view-restriction`) or adopted it (the contract's
/// `hyperpod:contract` mark, which a made entry carries too).
fn governance(record: &AccessEntryRecord) -> Governance {
    let contract = record.tags.get(CONTRACT_TAG).cloned();
    if record.tags.contains_key(OWNER_TAG) || contract.is_some() {
        Governance::Governed { contract }
    } else {
        Governance::NotGoverned
    }
}

#[async_trait]
impl ListResource<HyperpodClient> for RestrictionList {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    async fn list(&self, client: &HyperpodClient, request: &ListRequest) -> Result<Vec<Listed>, Diagnostics> {
        let cluster = inventory::listed_cluster(client, request).await?;
        let Some(eks_cluster) = cluster.eks_cluster_name() else {
            return Ok(Vec::new());
        };
        let mut principals = access::list_access_entries(&client.eks, &eks_cluster)
            .await
            .map_err(|err| failed("Listing the cluster's access entries failed", err))?;
        principals.sort();
        let mut listed = Vec::new();
        for principal in principals.into_iter().filter(|p| p.contains(":role/")) {
            if listed.len() >= request.limit {
                break;
            }
            let record = match access::find_access_entry(&client.eks, &eks_cluster, &principal).await {
                Ok(record) => record,
                Err(err) if err.is_not_found() => continue, // deleted while listing
                Err(err) => return Err(failed("Reading an access entry failed", err)),
            };
            if !is_task_view(&record) {
                continue;
            }
            listed.push(Listed {
                identity: schema::identity(&cluster.name, &record.principal_arn),
                display_name: display_name(role_name(&record.principal_arn), &governance(&record)),
                resource_object: None,
            });
        }
        Ok(listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::eks_access::{AccessPolicyAssociation, AccessScope};

    fn record(principal: &str, policy: &str, tags: &[(&str, &str)]) -> AccessEntryRecord {
        AccessEntryRecord {
            arn: String::new(),
            principal_arn: principal.into(),
            entry_type: "STANDARD".into(),
            kubernetes_groups: Vec::new(),
            tags: tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            policies: vec![AccessPolicyAssociation {
                policy_arn: format!("arn:aws:eks::aws:cluster-access-policy/{policy}"),
                scope: AccessScope::Namespaces(vec!["hyperpod-ns-research".into()]),
            }],
        }
    }

    #[test]
    fn a_role_entry_with_a_hyperpod_policy_is_listed_and_its_tag_says_governed() {
        let role = "arn:aws:iam::123456789012:role/datazone_usr_role_research";
        let untagged = record(role, "AmazonSagemakerHyperpodTrainingPolicy", &[]);
        assert!(is_task_view(&untagged));
        assert_eq!(governance(&untagged), Governance::NotGoverned);
        let tagged = record(
            role,
            "AmazonSagemakerHyperpodTrainingPolicy",
            &[(OWNER_TAG, "ml-capacity/datazone_usr_role_research")],
        );
        assert_eq!(governance(&tagged), Governance::Governed { contract: None });
        let adopted = record(
            role,
            "AmazonSagemakerHyperpodTrainingPolicy",
            &[(CONTRACT_TAG, "research-capacity")],
        );
        assert_eq!(
            governance(&adopted),
            Governance::Governed {
                contract: Some("research-capacity".into())
            }
        );
    }

    #[test]
    fn admin_entries_tenant_entries_and_non_roles_are_not_task_views() {
        let role = "arn:aws:iam::123456789012:role/admin";
        assert!(!is_task_view(&record(role, "AmazonEKSClusterAdminPolicy", &[])));
        assert!(!is_task_view(&record(
            role,
            "AmazonSagemakerHyperpodTrainingPolicy",
            &[("hyperpod:tenant", "research")]
        )));
        assert!(!is_task_view(&record(
            "arn:aws:iam::123456789012:user/alice",
            "AmazonSagemakerHyperpodTrainingPolicy",
            &[]
        )));
    }
}
