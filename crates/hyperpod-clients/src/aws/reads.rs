//! The reads every resource shares (`SharedReads`), as methods of the client: each one waits on the one read of its
//! key in this process, and goes to AWS only the first time.

use std::collections::BTreeMap;

use super::client::AwsClient;
use super::compute_quota::{self, ComputeQuota};
use super::datazone::{self, Project, ToolingEnvironment};
use super::datazone_connections::{self as connections, Connection, Membership};
use super::datazone_grants::{self, DomainUnit};
use super::datazone_identities;
use super::eks_access::{self, AccessPolicyAssociation};
use super::iam::{self, RolePolicy};
use super::sagemaker::{self, HyperPodCluster, SchedulerConfig};
use super::shared_reads::key;
use super::{AwsError, eks};

impl AwsClient {
    pub async fn cluster(&self, name_or_arn: &str) -> Result<HyperPodCluster, AwsError> {
        let cluster = self
            .reads
            .clusters
            .get(&name_or_arn.to_string(), || {
                sagemaker::find_cluster(&self.sagemaker, name_or_arn)
            })
            .await?;
        Ok(cluster)
    }

    pub async fn eks_cluster(&self, name: &str) -> Result<eks::EksClusterDescription, AwsError> {
        self.reads
            .eks_clusters
            .get(&name.to_string(), || eks::find_cluster(&self.eks, name))
            .await
    }

    pub async fn compute_quotas(&self, cluster_arn: &str) -> Result<Vec<ComputeQuota>, AwsError> {
        self.reads
            .compute_quotas
            .get(&cluster_arn.to_string(), || {
                compute_quota::list_compute_quotas(&self.sagemaker, cluster_arn)
            })
            .await
    }

    pub async fn quota_tags(&self, quota_arn: &str) -> Result<BTreeMap<String, String>, AwsError> {
        self.reads
            .quota_tags
            .get(&quota_arn.to_string(), || {
                sagemaker::list_tags(&self.sagemaker, quota_arn)
            })
            .await
    }

    /// The scheduler config of the cluster, `None` when it has none.
    pub async fn cluster_scheduler_config(&self, cluster_arn: &str) -> Result<Option<SchedulerConfig>, AwsError> {
        self.reads
            .scheduler_configs
            .get(&cluster_arn.to_string(), || async {
                match sagemaker::find_scheduler_config_for_cluster(&self.sagemaker, cluster_arn).await? {
                    Some(id) => Ok(Some(sagemaker::find_scheduler_config(&self.sagemaker, &id).await?)),
                    None => Ok(None),
                }
            })
            .await
    }

    /// The access entry as it is now, with its policies as this process last read them (which the rules share).
    pub async fn access_entry(
        &self,
        eks_cluster: &str,
        principal_arn: &str,
    ) -> Result<eks_access::AccessEntryRecord, AwsError> {
        let (entry, policies) = tokio::join!(
            eks_access::describe_access_entry(&self.eks, eks_cluster, principal_arn),
            self.access_policies(eks_cluster, principal_arn)
        );
        let mut entry = entry?;
        entry.policies = policies?.unwrap_or_default();
        Ok(entry)
    }

    pub async fn access_policies(
        &self,
        eks_cluster: &str,
        principal_arn: &str,
    ) -> Result<Option<Vec<AccessPolicyAssociation>>, AwsError> {
        self.reads
            .access_policies
            .get(&key(eks_cluster, principal_arn), || async {
                match eks_access::list_associated_access_policies(&self.eks, eks_cluster, principal_arn).await {
                    Ok(policies) => Ok(Some(policies)),
                    Err(err) if err.is_not_found() => Ok(None),
                    Err(err) => Err(err),
                }
            })
            .await
    }

    /// The HyperPod connections of the project, or (`None`) of the whole domain.
    pub async fn hyperpod_connections(
        &self,
        domain_id: &str,
        project_id: Option<&str>,
    ) -> Result<Vec<Connection>, AwsError> {
        self.reads
            .hyperpod_connections
            .get(&key(domain_id, project_id.unwrap_or_default()), || {
                connections::list_hyperpod_connections(&self.datazone, domain_id, project_id)
            })
            .await
    }

    pub async fn connection(&self, domain_id: &str, connection_id: &str) -> Result<Connection, AwsError> {
        self.reads
            .connections
            .get(&key(domain_id, connection_id), || {
                connections::find_connection(&self.datazone, domain_id, connection_id)
            })
            .await
    }

    pub async fn project(&self, domain_id: &str, project_id: &str) -> Result<Project, AwsError> {
        self.reads
            .projects
            .get(&key(domain_id, project_id), || {
                datazone::find_project(&self.datazone, domain_id, project_id)
            })
            .await
    }

    pub async fn tooling_environment(
        &self,
        domain_id: &str,
        project_id: &str,
    ) -> Result<Option<ToolingEnvironment>, AwsError> {
        self.reads
            .tooling_environments
            .get(&key(domain_id, project_id), || async {
                let blueprints = self
                    .reads
                    .tooling_blueprints
                    .get(&domain_id.to_string(), || {
                        datazone::find_tooling_blueprints(&self.datazone, domain_id)
                    })
                    .await?;
                datazone::find_tooling_environment(&self.datazone, domain_id, project_id, &blueprints).await
            })
            .await
    }

    pub async fn domain_unit(&self, domain_id: &str, unit_id: &str) -> Result<DomainUnit, AwsError> {
        self.reads
            .domain_units
            .get(&key(domain_id, unit_id), || {
                datazone_grants::find_domain_unit(&self.datazone, domain_id, unit_id)
            })
            .await
    }

    pub async fn addon(&self, eks_cluster: &str, addon_name: &str) -> Result<Option<eks::InstalledAddon>, AwsError> {
        self.reads
            .addons
            .get(&key(eks_cluster, addon_name), || {
                eks::find_addon(&self.eks, eks_cluster, addon_name)
            })
            .await
    }

    /// The managed policies attached to a role (a node role, for OBS-1).
    pub async fn attached_policy_arns(&self, role_arn: &str) -> Result<Vec<String>, AwsError> {
        self.reads
            .attached_policies
            .get(&role_arn.to_string(), || {
                iam::list_attached_policy_arns(&self.iam, role_arn)
            })
            .await
    }

    pub async fn project_memberships(&self, domain_id: &str, project_id: &str) -> Result<Vec<Membership>, AwsError> {
        self.reads
            .memberships
            .get(&key(domain_id, project_id), || {
                connections::list_project_memberships(&self.datazone, domain_id, project_id)
            })
            .await
    }

    /// The user profile ID `identifier` names in the domain (`datazone_identities::resolve_user`).
    pub async fn user_profile_id(&self, domain_id: &str, identifier: &str) -> Result<String, AwsError> {
        self.reads
            .profile_ids
            .get(&key(domain_id, &format!("user:{identifier}")), || {
                datazone_identities::resolve_user(&self.datazone, domain_id, identifier)
            })
            .await
    }

    /// The group profile ID `identifier` names in the domain (`datazone_identities::resolve_group`).
    pub async fn group_profile_id(&self, domain_id: &str, identifier: &str) -> Result<String, AwsError> {
        self.reads
            .profile_ids
            .get(&key(domain_id, &format!("group:{identifier}")), || {
                datazone_identities::resolve_group(&self.datazone, domain_id, identifier)
            })
            .await
    }

    pub async fn role_policies(&self, role_arn: &str) -> Result<Vec<RolePolicy>, AwsError> {
        self.reads
            .role_policies
            .get(&role_arn.to_string(), || iam::find_role_policies(&self.iam, role_arn))
            .await
    }
}
