//! Reads shared by every resource, data source and rule of one provider process: each cluster, its compute quotas,
//! scheduling policy and access policies, the DataZone projects and connections are read once per run, and
//! concurrent requests for the same key wait on that one read (`Memo`).
//!
//! Nothing is kept that this process has since changed: what a resource of this provider writes, its `after_apply`
//! forgets (`forget_*`), complete or not, so the next resource in an apply reads it again. What this provider never
//! writes (the clusters, add-ons, projects, environments, domain units, roles' policies) is kept for the process.

use std::collections::BTreeMap;

use super::compute_quota::ComputeQuota;
use super::datazone::{Project, ToolingEnvironment};
use super::datazone_connections::{Connection, Membership};
use super::datazone_grants::DomainUnit;
use super::eks;
use super::eks_access::AccessPolicyAssociation;
use super::iam::RolePolicy;
use super::memo::Memo;
use super::sagemaker::{HyperPodCluster, SchedulerConfig};

pub(super) type Key2 = (String, String);

#[derive(Default)]
pub struct SharedReads {
    // Written by this provider: forgotten by the resource that writes them.
    pub(super) compute_quotas: Memo<String, Vec<ComputeQuota>>,
    pub(super) quota_tags: Memo<String, BTreeMap<String, String>>,
    /// `None`: the principal has no access entry on that cluster.
    pub(super) access_policies: Memo<Key2, Option<Vec<AccessPolicyAssociation>>>,
    pub(super) scheduler_configs: Memo<String, Option<SchedulerConfig>>,
    /// By (domain, project or "" for the whole domain).
    pub(super) hyperpod_connections: Memo<Key2, Vec<Connection>>,
    pub(super) connections: Memo<Key2, Connection>,
    pub(super) memberships: Memo<Key2, Vec<Membership>>,
    /// The objects of one Kubernetes collection (a kind in a namespace), by (EKS cluster, collection path): the
    /// refresh of a tenant's and a restriction's objects in the team's namespace is one list per kind.
    pub kubernetes_collections: Memo<Key2, Vec<serde_json::Value>>,

    // Never written by this provider.
    pub(super) clusters: Memo<String, HyperPodCluster>,
    pub(super) eks_clusters: Memo<String, eks::EksClusterDescription>,
    pub(super) addons: Memo<Key2, Option<eks::InstalledAddon>>,
    pub(super) projects: Memo<Key2, Project>,
    pub(super) tooling_blueprints: Memo<String, Vec<String>>,
    pub(super) tooling_environments: Memo<Key2, Option<ToolingEnvironment>>,
    pub(super) domain_units: Memo<Key2, DomainUnit>,
    /// Profile IDs by (domain, "user:<identifier>" or "group:<identifier>"): what an identifier names does not change.
    pub(super) profile_ids: Memo<Key2, String>,
    pub(super) role_policies: Memo<String, Vec<RolePolicy>>,
    pub(super) attached_policies: Memo<String, Vec<String>>,
}

pub(super) fn key(a: &str, b: &str) -> Key2 {
    (a.to_string(), b.to_string())
}

impl SharedReads {
    /// A tenant wrote its quota: the cluster's quota list and that quota's tags.
    pub fn forget_compute_quota(&self, quota_arn: Option<&str>) {
        self.compute_quotas.clear();
        if let Some(arn) = quota_arn {
            self.quota_tags.forget(&arn.to_string());
        }
    }

    /// A tenant or restriction wrote `principal_arn`'s access entry or policies (on whichever cluster).
    pub fn forget_access_entry(&self, principal_arn: &str) {
        self.access_policies
            .forget_where(|(_, principal)| principal == principal_arn);
    }

    /// A tenant or restriction wrote Kubernetes objects.
    pub fn forget_kubernetes_objects(&self) {
        self.kubernetes_collections.clear();
    }

    pub fn forget_scheduler_configs(&self) {
        self.scheduler_configs.clear();
    }

    /// A binding wrote its connection or the project's memberships.
    pub fn forget_connection(&self, connection_id: Option<&str>, project_id: Option<&str>) {
        self.hyperpod_connections.clear();
        self.connections
            .forget_where(|(_, id)| Some(id.as_str()) == connection_id);
        self.memberships
            .forget_where(|(_, project)| Some(project.as_str()) == project_id);
    }
}
