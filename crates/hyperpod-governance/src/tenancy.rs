//! Workload and project facts (part of the model, re-exported by `model`): tenants, project bindings, task view
//! restrictions, and the view of one cluster the cross-resource rules (CLU-2, WKL-3, WKL-5, a binding's WKL-1)
//! judge. That view holds two kinds of facts only: what the resource references explicitly in HCL (another
//! resource's `governance` value) and what exists in AWS. Never what else happens to be planned in the same run:
//! that would make the verdict depend on planning order (`docs/design/cross-resource-rules.md`).

use super::model::{Capacity, Fact, Orchestrator, SchedulingPolicy, Setting};
use crate::path::AttributePath;
use std::collections::BTreeMap;

/// The engine judges the strategy SageMaker knows, by the type the clients read and write it as.
pub use hyperpod_model::quota_settings::SharingStrategy;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sharing {
    pub strategy: SharingStrategy,
    pub borrow_limit: Option<i64>,
    /// `AbsoluteBorrowLimits`: the most of an instance type the team may borrow, in the units of a quota entry.
    pub absolute_borrow_limits: Vec<QuotaShare>,
}

/// SageMaker's `BorrowLimit` when a LendAndBorrow quota sets none, in percent ("If you don't specify a value, the
/// default is 50", `ResourceSharingConfig`).
pub const DEFAULT_BORROW_LIMIT: i64 = 50;

impl Sharing {
    /// What a compute quota created without `ResourceSharingConfig` shares: LendAndBorrow, 50 % (SageMaker's
    /// defaults). Rules judge a tenant without a `sharing` block as this, so writing the default out changes nothing.
    pub fn sagemaker_default() -> Self {
        Self {
            strategy: SharingStrategy::LendAndBorrow,
            borrow_limit: Some(DEFAULT_BORROW_LIMIT),
            absolute_borrow_limits: Vec::new(),
        }
    }

    /// The borrow limit in effect: the one written, or SageMaker's default for a LendAndBorrow quota; none for a
    /// quota that does not borrow.
    pub fn effective_borrow_limit(&self) -> Option<i64> {
        match self.strategy {
            SharingStrategy::LendAndBorrow => self.borrow_limit.or(Some(DEFAULT_BORROW_LIMIT)),
            SharingStrategy::Lend | SharingStrategy::DontLend => self.borrow_limit,
        }
    }

    /// Strategy and borrow limit as a reviewer reads them: `LendAndBorrow 100 %`, `Lend`.
    pub fn summary(&self) -> String {
        match self.effective_borrow_limit() {
            Some(limit) => format!("{} {limit} %", self.strategy),
            None => self.strategy.to_string(),
        }
    }
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
    /// `hyperpod-ns-<team>` on EKS (`hyperpod_model::names::team_namespace`).
    pub namespace: String,
    pub orchestrator: Orchestrator,
    pub quota: Vec<QuotaShare>,
    /// The sharing in effect: the block as written, else (EKS) what the quota gets without one: the live quota's,
    /// or SageMaker's default (`Sharing::sagemaker_default`). `None` on Slurm without a block, the right thing there.
    pub sharing: Option<Sharing>,
    /// Whether the configuration writes a `sharing` block (else `sharing` is the effective one): where WKL-5 points.
    pub sharing_written: bool,
    pub priority_class: Option<String>,
    pub fair_share_weight: Option<i64>,
    pub viewer_groups: Vec<String>,
    pub operator_groups: Vec<String>,
    pub viewer_verbs: Vec<String>,
    pub operator_verbs: Vec<String>,
    pub default_deny_network_policy: bool,
    /// Slurm: the OS users associated with the team's Slurm account (who may submit).
    pub slurm_users: Vec<String>,
    /// The Pod Identity `roleArn` (cluster account): `Unset` for a tenant without a workload identity (an EKS
    /// tenant without a `workload` block, a Slurm tenant), `Unknown` until it can be named.
    pub workload_role_arn: Setting<String>,
    /// The Pod Identity `targetRoleArn` (consumer or data account), if any.
    pub target_role_arn: Setting<String>,
    pub pod_identity: PodIdentity,
    pub data_grants: DataGrants,
    /// Interactive spaces (JupyterLab, Code Editor) in the team namespace; `None`: the tenant runs none.
    pub spaces: Option<Spaces>,
}

/// How a tenant's interactive spaces are scheduled (WKL-12): the priority class they run at and the part of the
/// team's guaranteed quota kept for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spaces {
    pub priority_class: String,
    pub guaranteed: Vec<QuotaShare>,
}

impl Tenant {
    /// What the horizontal rules see of this tenant.
    pub fn capacity(&self) -> TenantCapacity {
        TenantCapacity {
            team: self.team.clone(),
            quota: self.quota.clone(),
            sharing: self.sharing.clone(),
        }
    }
}

/// A tenant as other resources count it: referenced (a `governance` value), or a live compute quota.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TenantCapacity {
    pub team: String,
    pub quota: Vec<QuotaShare>,
    pub sharing: Option<Sharing>,
}

/// One entry of a guaranteed quota and the units it is given in, one type from the configuration to the SageMaker
/// client.
pub use hyperpod_model::quota::{Partition, QuotaShare, Unit};

/// `hyperpod_cluster_allocation`: the documented split of one cluster's guaranteed capacity, every team's share by
/// team name. Tenants reference it (`allocation`), so each knows its siblings on the first plan, whatever the
/// order Terraform plans them in; a team listed earlier (by name) is admitted first when the shares overcommit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub cluster_name: String,
    pub teams: BTreeMap<String, Vec<QuotaShare>>,
    /// The sharing each team's entry records (`teams[<team>].sharing`), by team: who lends is part of the cluster's
    /// capacity picture, known on the first plan without `borrows_from` (WKL-5). A team not here records none.
    pub sharing: BTreeMap<String, Sharing>,
}

/// When a rule runs: at plan, facts planned beside this resource are visible only through references; at apply,
/// right before the first write, what exists is complete (apply then claims capacity before anything else).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    Plan,
    Apply,
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

/// A project on a cluster: a live HyperPod connection, or the project behind a live compute quota's tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectOnCluster {
    pub project_id: String,
    pub project_role_arn: Option<String>,
}

/// Another resource's facts taken from an explicit reference in HCL, with the attribute that references it and the
/// cluster it belongs to (a reference to another cluster's object is a finding, not a fact about this one).
#[derive(Clone, Debug, PartialEq)]
pub struct Referenced<T> {
    pub at: AttributePath,
    pub cluster_name: String,
    pub item: T,
}

/// What the resource references (itself included, where a rule counts it) plus what exists in AWS. Referenced
/// entries win over live ones with the same key (a planned update replaces what exists).
#[derive(Clone, Debug, PartialEq)]
pub struct Inventory<T> {
    pub referenced: Vec<Referenced<T>>,
    /// References whose value is not known until apply (by attribute): the rules reading them are judged then.
    pub unresolved: Vec<String>,
    pub live: Fact<Vec<T>>,
}

impl<T> Inventory<T> {
    /// The referenced entries on `cluster_name` alone (the live half not counted, [`Neighbours::ReferencedOnly`]),
    /// or `merged`.
    pub fn counted<K: PartialEq>(
        &self,
        cluster_name: &str,
        neighbours: Neighbours,
        key: impl Fn(&T) -> K,
    ) -> (Vec<&T>, Option<&str>) {
        if neighbours.live_counted() {
            return self.merged(cluster_name, key);
        }
        let referenced = self
            .referenced
            .iter()
            .filter(|r| r.cluster_name == cluster_name)
            .map(|r| &r.item)
            .collect();
        (referenced, None)
    }

    /// Referenced entries on `cluster_name`, then live ones whose key none of them has; plus why the live half is
    /// missing, if it is.
    pub fn merged<K: PartialEq>(&self, cluster_name: &str, key: impl Fn(&T) -> K) -> (Vec<&T>, Option<&str>) {
        let mut all: Vec<&T> = self
            .referenced
            .iter()
            .filter(|r| r.cluster_name == cluster_name)
            .map(|r| &r.item)
            .collect();
        let missing = match &self.live {
            Fact::Known(live) => {
                let referenced_keys: Vec<K> = all.iter().map(|item| key(item)).collect();
                all.extend(live.iter().filter(|entry| !referenced_keys.contains(&key(entry))));
                None
            }
            Fact::Unavailable(reason) => Some(reason.as_str()),
        };
        (all, missing)
    }

    /// References to objects of another cluster than `cluster_name`.
    pub fn elsewhere<'a>(&'a self, cluster_name: &'a str) -> impl Iterator<Item = &'a Referenced<T>> + 'a {
        self.referenced.iter().filter(move |r| r.cluster_name != cluster_name)
    }
}

/// Everything one resource knows about one cluster, for the cross-resource rules (CLU-2, WKL-3, WKL-5, WKL-1 of a
/// binding): live facts read at plan time, and the objects the resource references in HCL.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterView {
    pub cluster_name: String,
    pub instance_groups: Fact<Vec<Capacity>>,
    pub scheduling_policy: Fact<Option<SchedulingPolicy>>,
    pub tenants: Inventory<TenantCapacity>,
    /// Live only: the projects with a HyperPod connection to the cluster or a compute quota on it.
    pub projects: Fact<Vec<ProjectOnCluster>>,
    pub restrictions: Inventory<TaskViewRestriction>,
    /// The cluster's allocation the resource references (`allocation`): `Unset` when it references none.
    pub allocation: Setting<Referenced<Allocation>>,
    pub phase: Phase,
    /// Whether the live objects of other teams and projects count (see [`Neighbours`]).
    pub neighbours: Neighbours,
    /// Whether `scheduling_policy` is the live one (the resource references none). Like another team's quota, it may
    /// change before apply (another root's policy, or one this apply creates): not counted by `ReferencedOnly`.
    pub policy_live: bool,
}

/// Whether a rule counts what exists of other teams and projects on the cluster — their compute quotas, HyperPod
/// connections and task view restrictions: live state another pipeline may change between a plan and its apply.
/// The checklist a plan records counts only what the plan controls (`ReferencedOnly`): Terraform plans every change
/// again right before applying it, and that plan must read the same. What the plan warns of, and what apply refuses
/// before its first write, counts everything (`LiveAndReferenced`). A rule whose verdict needs the live half is
/// "not evaluated at plan" in the first, and judged in the second (`docs/design/where-rules-run.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Neighbours {
    #[default]
    LiveAndReferenced,
    ReferencedOnly,
}

impl Neighbours {
    pub fn live_counted(self) -> bool {
        self == Neighbours::LiveAndReferenced
    }
}
