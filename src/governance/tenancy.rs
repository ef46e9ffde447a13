//! Workload and project facts (part of the model, re-exported by `model`): tenants, project bindings, task view
//! restrictions, and the view of one cluster the horizontal rules (CLU-2, WKL-3, WKL-5) judge.

use super::model::{Capacity, Fact, Orchestrator, SchedulingPolicy, Setting};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharingStrategy {
    Lend,
    DontLend,
    LendAndBorrow,
}

impl SharingStrategy {
    pub fn lends(self) -> bool {
        matches!(self, SharingStrategy::Lend | SharingStrategy::LendAndBorrow)
    }
}

impl fmt::Display for SharingStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sharing {
    pub strategy: SharingStrategy,
    pub borrow_limit: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodIdentity {
    pub disable_session_tags: bool,
    pub session_policy: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataGrants {
    pub buckets: Vec<String>,
    pub kms_keys: Vec<String>,
    /// The role the bucket/key policies name; `None` when unknown until apply.
    pub grantee_role_arn: Option<String>,
}

/// A `hyperpod_tenant`: one team on one cluster. On Slurm the team name is also the Slurm account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant {
    pub team: String,
    /// `hyperpod-ns-<team>` on EKS ([`Tenant::namespace_for`]).
    pub namespace: String,
    pub orchestrator: Orchestrator,
    pub quota: Vec<Capacity>,
    /// `None`: no sharing block (the right thing on Slurm).
    pub sharing: Option<Sharing>,
    pub priority_class: Option<String>,
    pub fair_share_weight: Option<i64>,
    pub viewer_groups: Vec<String>,
    pub operator_groups: Vec<String>,
    pub viewer_verbs: Vec<String>,
    pub operator_verbs: Vec<String>,
    pub default_deny_network_policy: bool,
    /// The Pod Identity `roleArn` (cluster account).
    pub workload_role_arn: Option<String>,
    /// The Pod Identity `targetRoleArn` (consumer or data account), if any.
    pub target_role_arn: Setting<String>,
    pub pod_identity: PodIdentity,
    pub data_grants: DataGrants,
}

impl Tenant {
    /// The namespace HyperPod task governance creates for a team.
    pub fn namespace_for(team: &str) -> String {
        format!("hyperpod-ns-{team}")
    }
    /// What the horizontal rules see of this tenant.
    pub fn capacity(&self) -> TenantCapacity {
        TenantCapacity {
            team: self.team.clone(),
            quota: self.quota.clone(),
            sharing: self.sharing.clone(),
        }
    }
}

/// A tenant as other tenants' checks see it (planned in this run, or a live compute quota).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TenantCapacity {
    pub team: String,
    pub quota: Vec<Capacity>,
    pub sharing: Option<Sharing>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    User,
    Group,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub kind: MemberKind,
    pub name: String,
    pub designation: String,
}

/// A `hyperpod_unified_studio_project_binding`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub project_id: Option<String>,
    pub cluster_name: String,
    pub project_role_arn: Option<String>,
    pub members: Vec<Member>,
}

/// A `hyperpod_task_view_restriction`: the project role whose Studio task view is limited to `namespaces`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskViewRestriction {
    pub project_role_arn: Option<String>,
    pub namespaces: Vec<String>,
}

/// A project connected to a cluster (a binding planned in this run, or a live HyperPod connection).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectOnCluster {
    pub project_id: String,
    pub project_role_arn: Option<String>,
}

/// What is planned in this provider run plus what exists in AWS. Planned entries win over live ones with the same
/// key (a planned update replaces what exists); the resource drops live entries it plans to destroy.
#[derive(Clone, Debug, PartialEq)]
pub struct Inventory<T> {
    pub planned: Vec<T>,
    pub live: Fact<Vec<T>>,
}

impl<T> Inventory<T> {
    /// Planned entries, then live ones whose key no planned entry has; plus why the live half is missing, if it is.
    pub fn merged<K: PartialEq>(&self, key: impl Fn(&T) -> K) -> (Vec<&T>, Option<&str>) {
        let mut all: Vec<&T> = self.planned.iter().collect();
        let missing = match &self.live {
            Fact::Known(live) => {
                let planned_keys: Vec<K> = self.planned.iter().map(&key).collect();
                all.extend(live.iter().filter(|entry| !planned_keys.contains(&key(entry))));
                None
            }
            Fact::Unavailable(reason) => Some(reason.as_str()),
        };
        (all, missing)
    }
}

/// Everything known about one cluster, for the horizontal rules (CLU-2, WKL-3, WKL-5). Limit: tenants planned
/// through another provider configuration (alias) are not in `planned`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterView {
    pub cluster_name: String,
    pub instance_groups: Fact<Vec<Capacity>>,
    pub scheduling_policy: Fact<Option<SchedulingPolicy>>,
    pub tenants: Inventory<TenantCapacity>,
    pub projects: Inventory<ProjectOnCluster>,
    pub restrictions: Inventory<TaskViewRestriction>,
}
