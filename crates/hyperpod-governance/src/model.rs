//! Typed facts about the four layers. Resources build these from configuration and AWS reads; rules only read them.
//!
//! Two kinds of "not known": a configuration value that is unknown at plan time is `None` in an `Option` (the rule
//! is skipped "… is not known until apply"); a live fact the resource could not read is [`Fact::Unavailable`] with
//! the resource's reason (the rule is skipped and the plan warns). Free text stays `String`; identifiers stay
//! `String` too, because CON-1 is the rule that judges whether they are well-formed.

use std::fmt;
use std::str::FromStr;

use time::{Date, Duration};

use super::catalog::RuleId;

/// A live fact, or why the resource could not read it (e.g. "AccessDenied reading role arn:…").
#[derive(Clone, Debug, PartialEq)]
pub enum Fact<T> {
    Known(T),
    Unavailable(String),
}

impl<T> Fact<T> {
    /// A fact whose read failed: "could not read <what>: <error>", the reason the skipped check reports.
    pub fn unreadable(what: &str, err: impl std::fmt::Display) -> Self {
        Fact::Unavailable(format!("could not read {what}: {err}"))
    }

    pub fn known(&self) -> Option<&T> {
        match self {
            Fact::Known(value) => Some(value),
            Fact::Unavailable(_) => None,
        }
    }
}

/// An optional configuration value: not set, set but unknown until apply, or set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Setting<T> {
    #[default]
    Unset,
    Unknown,
    Set(T),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orchestrator {
    Eks,
    Slurm,
}

impl fmt::Display for Orchestrator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Orchestrator::Eks => "eks",
            Orchestrator::Slurm => "slurm",
        })
    }
}

impl FromStr for Orchestrator {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text.to_ascii_lowercase().as_str() {
            "eks" => Ok(Orchestrator::Eks),
            "slurm" => Ok(Orchestrator::Slurm),
            _ => Err(format!("{text:?} is not an orchestrator (\"eks\" or \"slurm\")")),
        }
    }
}

hyperpod_model::api_names! {
    /// The contract's lifecycle state as the record states it, by the name the contract's `lifecycle_state` and its
    /// `governance` carry. "Operating" and "under review" are derived (`lifecycle::review_status`), not declared.
    LifecycleState {
        Approved = "approved",
        Revoked = "revoked",
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owners {
    pub business: String,
    pub operations: String,
    pub cost: String,
}

impl Owners {
    /// The owner fields that are blank, by attribute name.
    pub fn missing(&self) -> Vec<&'static str> {
        [
            ("business", &self.business),
            ("operations", &self.operations),
            ("cost", &self.cost),
        ]
        .into_iter()
        .filter(|(_, value)| value.trim().is_empty())
        .map(|(name, _)| name)
        .collect()
    }
}

/// Unified Studio identifiers; `None` when they reference resources created in the same run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnifiedStudio {
    pub domain_id: Option<String>,
    pub domain_unit_id: Option<String>,
    pub project_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterRef {
    pub account_id: String,
    pub region: String,
    pub name: String,
    pub orchestrator: Orchestrator,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlurmScope {
    pub accounts: Vec<String>,
    pub partitions: Vec<String>,
}

impl SlurmScope {
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty() && self.partitions.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduling {
    pub policy: String,
    pub exception_owner: String,
}

/// A monitored signal and who acts on it (CON-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    pub name: String,
    pub owner: String,
    pub response: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    pub interval_days: i64,
    pub last_reviewed: Date,
    pub approved_by: String,
}

impl Review {
    /// `last_reviewed + interval_days`; saturates instead of overflowing on absurd intervals (CON-1 reports those).
    pub fn next_review_date(&self) -> Date {
        self.last_reviewed
            .checked_add(Duration::days(self.interval_days.max(0)))
            .unwrap_or(Date::MAX)
    }
}

/// A waiver of one rule for this contract, owned and dated (EXC-1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exception {
    pub rule: RuleId,
    pub owner: String,
    pub expires: Date,
    pub reason: String,
}

impl Exception {
    /// Owned, not past its expiry date (valid through that day), and not waiving EXC-1 itself.
    pub fn is_valid(&self, today: Date) -> bool {
        !self.owner.trim().is_empty() && self.expires >= today && self.rule != RuleId::Exc1
    }
}

/// The connection contract: one approved project-to-cluster connection (`governance-model.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    pub name: String,
    pub owners: Owners,
    pub unified_studio: UnifiedStudio,
    pub cluster: ClusterRef,
    pub project_role_arn: Option<String>,
    pub access_role_arn: Option<String>,
    pub approved_workload_types: Vec<String>,
    pub data_classification: String,
    pub eks_namespaces: Vec<String>,
    pub slurm: SlurmScope,
    pub scheduling: Scheduling,
    pub monitoring: Vec<Signal>,
    pub support: String,
    pub decommission: String,
    /// Consumer and data accounts whose roles tenants may reach through Pod Identity target roles (ORG-2).
    pub approved_account_ids: Vec<String>,
    /// CIDRs the EKS API endpoint may be public to (CLU-5).
    pub approved_public_cidrs: Vec<String>,
    pub review: Review,
    pub lifecycle: LifecycleState,
    /// The organization grant the project's creation rests on, if the contract names one (ORG-1).
    pub organization: Option<OrganizationGrant>,
    pub exceptions: Vec<Exception>,
}

// ---- live facts -------------------------------------------------------------------------------------------------

/// The node label through which HyperPod configures an instance group's MIG partitions.
pub const MIG_CONFIG_LABEL: &str = "nvidia.com/mig.config";

/// An amount of one instance type: a quota's guaranteed share, or an instance group's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    pub instance_type: String,
    pub count: i64,
    /// An instance group's MIG layout (its `nvidia.com/mig.config` label: `all-1g.10gb`, or a custom layout's
    /// name); `None` when its GPUs are not partitioned. A quota's share has none.
    pub partition_layout: Option<String>,
}

/// `sagemaker:DescribeCluster`, as far as the rules need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveCluster {
    pub arn: String,
    pub account_id: String,
    pub region: String,
    pub orchestrator: Orchestrator,
    pub instance_groups: Vec<LiveInstanceGroup>,
}

/// One instance group of a HyperPod cluster: its current size and the role its nodes run as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveInstanceGroup {
    pub name: String,
    pub capacity: Capacity,
    pub execution_role: String,
}

/// A worker node role and the managed policies attached to it (`iam:ListAttachedRolePolicies`), for OBS-1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRole {
    pub role_arn: String,
    /// The instance groups whose nodes run as this role.
    pub instance_groups: Vec<String>,
    pub attached_policy_arns: Vec<String>,
}

/// DataZone `GetProject` plus the tooling environment's `userRoleArn` (None: no tooling environment yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveProject {
    pub domain_unit_id: String,
    pub tooling_user_role_arn: Option<String>,
    /// The project profile it was created from (ORG-1 against an organization grant).
    pub project_profile_id: Option<String>,
    /// The domain units above the project's, nearest first (a grant may include child units).
    pub domain_unit_ancestors: Vec<String>,
}

/// A domain-unit policy grant that delegates project creation from approved profiles
/// (`hyperpod_domain_unit_policy_grant`'s `governance`), which the contract's ORG-1 checks the project against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrganizationGrant {
    pub domain_unit_id: String,
    pub project_profile_ids: Vec<String>,
    pub include_child_domain_units: bool,
}

/// One policy on a role: inline (`managed_arn` None) or attached managed. `document` is the policy JSON, or a JSON
/// string holding it; `Value::Null` when only the attachment is known (AmazonSageMakerFullAccess is judged by ARN).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyDocument {
    pub name: String,
    pub managed_arn: Option<String>,
    pub document: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RolePermissions {
    pub role_arn: String,
    pub policies: Vec<PolicyDocument>,
}

/// `eks:DescribeCluster`: `accessConfig` and `resourcesVpcConfig`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EksCluster {
    pub authentication_mode: String,
    pub endpoint_public: bool,
    pub endpoint_private: bool,
    pub public_cidrs: Vec<String>,
    /// The Kubernetes version (`1.31`): the orchestrator's version LIF-2 records at approval.
    pub version: String,
}

pub use hyperpod_model::access_scope::AccessScope;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssociatedPolicy {
    pub policy_arn: String,
    pub scope: AccessScope,
}

/// An EKS access entry and its associated access policies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessEntry {
    pub principal_arn: String,
    pub policies: Vec<AssociatedPolicy>,
}

/// `eks:DescribeAddon` (the caller passes `Fact::Known(None)` when the add-on is not installed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addon {
    pub name: String,
    pub version: String,
    pub status: String,
}

/// The cluster's scheduler config, from a `hyperpod_scheduling_policy` in the same run or a live read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulingPolicy {
    pub priority_classes: Vec<String>,
    pub fair_share: bool,
}

// Tenants, bindings, restrictions and the cluster view live in `tenancy.rs`; one `model` namespace for both.
pub use super::tenancy::*;

/// What `hyperpod_connection_contract` reads at plan time. `eks` and `observability_addon` are `None` when not
/// looked up (a Slurm cluster, or the resource chose not to): their rules are then left out of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ContractLiveFacts {
    /// `Known(None)`: no such cluster where the provider looked.
    pub cluster: Fact<Option<LiveCluster>>,
    pub project: Fact<LiveProject>,
    pub project_role: Fact<RolePermissions>,
    pub access_role: Fact<RolePermissions>,
    pub eks: Option<Fact<EksCluster>>,
    pub observability_addon: Option<Fact<Option<Addon>>>,
    /// The worker node roles of the cluster's instance groups (OBS-1); `None` where `observability_addon` is.
    pub node_roles: Option<Fact<Vec<NodeRole>>>,
}

impl ContractLiveFacts {
    /// Nothing could be read, for one reason (e.g. "the provider is not configured yet").
    pub fn unread(reason: &str) -> Self {
        Self {
            cluster: Fact::Unavailable(reason.to_string()),
            project: Fact::Unavailable(reason.to_string()),
            project_role: Fact::Unavailable(reason.to_string()),
            access_role: Fact::Unavailable(reason.to_string()),
            eks: None,
            observability_addon: None,
            node_roles: None,
        }
    }
}
