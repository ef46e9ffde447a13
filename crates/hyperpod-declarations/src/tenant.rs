//! `hyperpod_tenant` schema: the team, its quota and sharing, who may see and act, its network isolation, workload
//! identity and data; and, computed at plan time, every object apply will compose.

use std::collections::BTreeMap;

use crate::checklist::ChecklistAttributes;
use crate::governance_objects::ContractArgument;
use crate::governance_objects::TenantGovernance;
use crate::handoff::CapacityHandoffs;
use crate::protocol::deadline::Operation;
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::{Block, IdentitySchema, Schema};
use crate::protocol::validators::{EachOneOf, IntBetween, LengthBetween, Matches, OneOf, WholeNumber};
use crate::protocol::value::{Number, Type, Value};
use crate::quota_entry::{Partitions, QuotaEntry};
use crate::quota_settings::{Activation, Preemption, SharingStrategy};
use crate::validators::{
    AwsTags, IamPolicyDocument, IamPrincipalArns, IsCidr, KmsKeyArns, KubernetesGroups, NotEmpty, S3BucketNames,
};
use std::time::Duration;

// The resource's one declaration (`#[derive(Model)]`, docs/design/typed-values.md): its schema, docs and typed value
// come from it. Doc comments are the user-facing descriptions. The handoffs (`contract`, `scheduling_policy`,
// `allocation`, `borrows_from`) are kept as the values Terraform sends, read by the readers of the resources that
// write them.

/// IAM `roleNameType` (1–64 characters).
pub const TYPE_NAME: &str = "hyperpod_tenant";
/// IAM `roleNameType` (1–64 characters).
pub const IAM_ROLE_NAME: &str = r"[A-Za-z0-9_+=,.@-]+";
/// STS's limit on a session policy (`sessionPolicyDocumentType`, max 2048), which EKS Pod Identity passes on.
pub const MAX_SESSION_POLICY: usize = 2048;
/// A Kubernetes object name (DNS subdomain, as ServiceAccounts use).
pub const KUBERNETES_NAME: &str = "[a-z0-9]([-a-z0-9.]*[a-z0-9])?";
pub const SHARING_STRATEGIES: &[&str] = SharingStrategy::NAMES;
pub const PREEMPT_TEAM_TASKS: &[&str] = Preemption::NAMES;
pub const ACTIVATION_STATES: &[&str] = Activation::NAMES;
pub const MAX_QUOTA_RESOURCES: i64 = crate::quota_entry::MAX_ENTRIES;
pub const PRIVATE_DATA: [&str; 6] = ["accounts", "events", "jobs", "reservations", "usage", "users"];
/// What users see only of their own when `slurm.private_data` is unset.
pub const DEFAULT_PRIVATE_DATA: [&str; 3] = ["jobs", "usage", "users"];
/// Kubernetes verbs, for the viewer and operator grants.
pub const VERBS: [&str; 9] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "*",
];
pub const DEFAULT_VIEWER_VERBS: [&str; 3] = ["get", "list", "watch"];
pub const DEFAULT_OPERATOR_VERBS: [&str; 7] = ["create", "delete", "get", "list", "patch", "update", "watch"];

fn string_list(items: &[&str]) -> Value {
    Value::List(items.iter().map(|item| Value::String(item.to_string())).collect())
}

/// A tenant's quota entries: an unset partition is computed from the live entry (`Partitions::KeepLive`).
fn quota_block() -> Block {
    crate::quota_entry::entry_block(Partitions::KeepLive)
}

/// SageMaker's `AbsoluteBorrowLimitResourceList`: at most 15 entries.
pub const MAX_ABSOLUTE_BORROW_LIMITS: i64 = 15;

fn team_pattern() -> Matches {
    Matches::new(
        crate::names::TEAM_NAME,
        "1 to 40 lowercase letters, digits and hyphens, starting and ending with a letter or digit",
    )
}

/// A governed team on a shared HyperPod cluster. On EKS it composes, in order: the tenant workload IAM role, the
/// SageMaker compute quota (which creates `hyperpod-ns-<team>`), the service account, viewer and operator RBAC,
/// default-deny NetworkPolicies, the EKS Pod Identity association, EKS access entries for the groups' principals and
/// the KMS grants on tenant data. On Slurm it renders the accounting artefacts. The plan names every object
/// (`components`) and the rules checked (`passed_checks`, `findings`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TenantModel {
    /// `<cluster>/<team>`, also the import ID.
    #[tf(computed)]
    pub id: Field<String>,
    #[tf(flatten)]
    pub contract: ContractArgument,
    /// The cluster policy's facts, `hyperpod_scheduling_policy.<name>.governance`, for WKL-4 and WKL-6 on the first
    /// plan. Unset: the cluster's live policy is read.
    #[tf(write_only, optional, ty = crate::scheduling_policy::governance_type())]
    pub scheduling_policy: Value,
    /// The cluster's documented split, `hyperpod_cluster_allocation.<name>.governance`: WKL-3 counts every team it
    /// lists against the instance groups on the first plan (teams admitted by name; this tenant's quota must be its
    /// entry there, and its sharing the entry's where one is recorded: WKL-5). Unset: tenants planned beside this one
    /// are not seen, so WKL-3 is not evaluated at plan (a warning) and is evaluated at apply before the first write. A
    /// value written by hand is held to the allocation's own rules: a share that is not one the allocation writes, or
    /// a negative, NaN or infinite amount, is an error at its path.
    #[tf(write_only, optional, ty = crate::cluster_allocation::governance_type())]
    pub allocation: Value,
    /// The tenants this one borrows idle capacity from, `[hyperpod_tenant.<lender>.governance]`: each must lend
    /// (WKL-5), and their guaranteed quotas count with this one's against the cluster's instance groups (WKL-3) on the
    /// very first plan. The reference also orders the plans. Unset: only live quotas count. An entry written by hand
    /// is held to a tenant's own rules (a quota entry as the `quota` block takes it, a sharing strategy SageMaker
    /// knows), each problem an error at its path.
    #[tf(write_only, optional, ty = Type::list(crate::governance_objects::tenant_type()))]
    pub borrows_from: Value,
    /// This tenant's facts for other resources, known at plan time: `borrows_from` of a borrowing tenant and
    /// `tenants` of a project binding take it.
    #[tf(computed)]
    pub governance: Field<TenantGovernance>,
    /// Team name (`TeamName`); the namespace is `hyperpod-ns-<team>`, the Slurm account is the team.
    #[tf(required, requires_replace, validate = LengthBetween { min: 1, max: 40 }, validate = team_pattern())]
    pub team: Field<String>,
    /// Priority class of the team's tasks; must exist in the cluster policy (WKL-4).
    #[tf(optional)]
    pub priority_class: Field<String>,
    /// `LowerPriority` (default) lets the team's tasks preempt lower-priority ones; `Never`.
    #[tf(
        default = Value::String(Preemption::LowerPriority.as_str().into()),
        validate = OneOf(PREEMPT_TEAM_TASKS)
    )]
    pub preempt_team_tasks: Field<String>,
    /// Fair-share weight, 0 to 100; applies only when the cluster policy enables fair share (WKL-6).
    #[tf(optional, validate = IntBetween { min: 0, max: 100 })]
    pub fair_share_weight: Field<i64>,
    /// `Enabled` (default) or `Disabled`.
    #[tf(default = Value::String(Activation::Enabled.as_str().into()), validate = OneOf(ACTIVATION_STATES))]
    pub activation_state: Field<String>,
    /// Kubernetes groups bound to the viewer Role (get/list/watch).
    #[tf(optional, validate = KubernetesGroups)]
    pub viewer_groups: Field<Vec<String>>,
    /// Kubernetes groups bound to the operator Role (create, update, delete).
    #[tf(optional, validate = KubernetesGroups)]
    pub operator_groups: Field<Vec<String>>,
    /// IAM roles of the viewer groups: EKS access entries with `AmazonEKSViewPolicy` on the namespace.
    #[tf(optional, validate = IamPrincipalArns { roles_only: false })]
    pub viewer_principal_arns: Field<Vec<String>>,
    /// IAM roles of the operator groups: EKS access entries with `AmazonEKSEditPolicy` on the namespace.
    #[tf(optional, validate = IamPrincipalArns { roles_only: false })]
    pub operator_principal_arns: Field<Vec<String>>,
    /// Verbs of the viewer Role; only get, list and watch (WKL-7).
    #[tf(default = string_list(&DEFAULT_VIEWER_VERBS), validate = EachOneOf(&VERBS), validate = NotEmpty)]
    pub viewer_verbs: Field<Vec<String>>,
    /// Verbs of the operator Role.
    #[tf(default = string_list(&DEFAULT_OPERATOR_VERBS), validate = EachOneOf(&VERBS), validate = NotEmpty)]
    pub operator_verbs: Field<Vec<String>>,
    /// Tags for the AWS objects. The provider's `default_tags` and the governance tags are added (at most 50 in all).
    #[tf(optional, validate = AwsTags)]
    pub tags: Field<BTreeMap<String, String>>,
    /// All tags on the AWS objects.
    #[tf(computed)]
    pub tags_all: Field<BTreeMap<String, String>>,
    /// The contract's cluster. A compute quota cannot move between clusters: a contract that names another cluster
    /// replaces the tenant (the old cluster's objects are removed first, then the new ones made).
    #[tf(computed, requires_replace)]
    pub cluster_name: Field<String>,
    /// The HyperPod cluster's ARN, resolved at plan time.
    #[tf(computed, use_state_for_unknown)]
    pub cluster_arn: Field<String>,
    /// `hyperpod-ns-<team>` on EKS, created by HyperPod with the quota.
    #[tf(computed)]
    pub namespace: Field<String>,
    /// Name of the tenant workload role (created with a `workload` block). Defaults to `hyperpod-<cluster>-<team>`,
    /// shortened to 64; kept without a `workload` block, so adding one later creates the role under this name.
    #[tf(
        optional_computed,
        requires_replace,
        validate = LengthBetween { min: 1, max: 64 },
        validate = Matches::new(IAM_ROLE_NAME, "an IAM role name: letters, digits and + = , . @ _ -")
    )]
    pub workload_role_name: Field<String>,
    /// Name of the SageMaker compute quota (`Name`, which SageMaker cannot change: a new name replaces the tenant).
    /// Defaults to `<team>-quota`; an imported quota keeps its own.
    #[tf(
        optional_computed,
        requires_replace,
        validate = LengthBetween { min: 1, max: 63 },
        validate = Matches::new(
            crate::names::ENTITY_NAME,
            "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
        )
    )]
    pub compute_quota_name: Field<String>,
    /// Description of the compute quota (`Description`, up to 1024 characters; `""` for none). Defaults to
    /// `hyperpod_tenant <team>`; an imported quota keeps its own.
    // SageMaker's `EntityDescription` pattern, as the scheduling policy's description.
    #[tf(
        optional_computed,
        validate = LengthBetween { min: 0, max: 1024 },
        validate = crate::printable_text::PrintableText
    )]
    pub compute_quota_description: Field<String>,
    /// ARN of the tenant workload role (the Pod Identity `roleArn`), known at plan time; null without a `workload`
    /// block.
    #[tf(computed)]
    pub workload_role_arn: Field<String>,
    /// ID of the SageMaker compute quota.
    #[tf(computed, use_state_for_unknown)]
    pub compute_quota_id: Field<String>,
    /// ARN of the SageMaker compute quota.
    #[tf(computed, use_state_for_unknown)]
    pub compute_quota_arn: Field<String>,
    /// ID of the EKS Pod Identity association.
    #[tf(computed)]
    pub pod_identity_association_id: Field<String>,
    /// KMS grant IDs by key ARN.
    #[tf(computed)]
    pub kms_grants: Field<BTreeMap<String, String>>,
    /// Every object the tenant composes, by component (`iam_role`, `compute_quota`, `kubernetes/<Kind>/<name>`,
    /// `pod_identity_association`, `access_entry/<principal>`, `kms_grant/<key>`, …) with its name or ID (the
    /// workload role and each of its inline policies: the role's name). A Kubernetes object's value is its namespace
    /// and an access entry's the EKS policy it grants, each followed by `@` and a short digest of the content the
    /// provider writes into it (`hyperpod-ns-<team>@1a2b3c4d`, `AmazonEKSViewPolicy@1a2b3c4d`): an object edited
    /// outside Terraform, or a provider version that writes it differently, changes the digest, so the plan shows the
    /// component as an update, and a live edit is also a warning naming the object and what differs. A component
    /// missing here after refresh was deleted out of band; apply restores it.
    #[tf(computed)]
    pub components: Field<BTreeMap<String, String>>,
    /// Slurm only: `account`, `sacctmgr_commands` and a `slurm_conf` fragment for the lifecycle scripts.
    #[tf(computed)]
    pub slurm_artefacts: Field<SlurmArtefactsValue>,
    #[tf(flatten)]
    pub checklist: ChecklistAttributes,
    #[tf(block, max_items = MAX_QUOTA_RESOURCES, schema = quota_block())]
    pub quota: Field<Vec<QuotaEntry>>,
    #[tf(block = single)]
    pub sharing: Field<SharingBlock>,
    #[tf(block = single)]
    pub spaces: Field<SpacesBlock>,
    #[tf(block = single)]
    pub network_policy: Field<NetworkPolicyBlock>,
    #[tf(block = single)]
    pub workload: Field<WorkloadBlock>,
    #[tf(block = single)]
    pub data: Field<DataBlock>,
    #[tf(block = single)]
    pub slurm: Field<TenantSlurmBlock>,
    #[tf(timeouts = (&[Operation::Create, Operation::Update, Operation::Delete], Duration::from_mins(20)))]
    pub timeouts: Value,
}

/// How the team shares idle capacity (`ResourceSharingConfig`). EKS only: Slurm has no lend/borrow (WKL-2).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SharingBlock {
    /// `Lend`, `DontLend` or `LendAndBorrow`. Without a `sharing` block a new quota gets SageMaker's default,
    /// `LendAndBorrow` with a 50 % borrow limit (an existing one keeps its own), and the rules judge that. A borrower
    /// with no lender yet is fine: there is nothing to borrow until a team lends. Where the cluster allocation records
    /// the team's sharing, this is it (WKL-5).
    #[tf(required, validate = OneOf(SHARING_STRATEGIES))]
    pub strategy: Field<String>,
    /// How much idle capacity the team may borrow, 1 to 500 percent of its quota; only with `LendAndBorrow` (WKL-5).
    #[tf(optional, validate = WholeNumber)]
    pub borrow_limit: Field<Number>,
    /// The most of an instance type the team may borrow, whatever `borrow_limit`'s percentage
    /// (`AbsoluteBorrowLimits`): at most 15 entries, each an `instance_type` with `count`, `accelerators`, `vcpu`,
    /// `memory_gib` or `accelerator_partition`; only with `LendAndBorrow` (WKL-5). Unset: the limits the live quota
    /// holds (set in the console) are kept and shown here, with a warning; `[]` removes them.
    // `AbsoluteBorrowLimits`: entries shaped like a quota entry (the API uses one type for both).
    #[tf(
        optional_computed,
        nested,
        validate = crate::validators::ListAtMost(MAX_ABSOLUTE_BORROW_LIMITS)
    )]
    pub absolute_borrow_limit: Field<Vec<QuotaEntry>>,
}

/// Interactive spaces (HyperPod spaces: JupyterLab and Code Editor `workspace.jupyter.org` Workspaces in the team
/// namespace) under the allocation policy, as AWS's guidance has them: a dedicated high-weight priority class, a share
/// of the team's quota kept for peak development demand, and lending idle capacity without borrowing it (so a reclaim
/// never preempts a space: without a `sharing` block the quota lends). The viewer and operator Roles gain Workspaces.
/// Only under a contract that approves `interactive` workloads; EKS only (WKL-12).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SpacesBlock {
    /// The priority class spaces run at: a class of the cluster's scheduling policy other than the team's
    /// `priority_class` (WKL-12); give it the policy's highest weight.
    #[tf(required, validate = LengthBetween { min: 1, max: 253 })]
    pub priority_class: Field<String>,
    /// The part of the team's `quota` kept for spaces, sized for peak development demand: entries like a quota entry,
    /// each inside the team's quota of its instance type (WKL-12).
    #[tf(optional, nested, validate = crate::validators::ListAtMost(MAX_QUOTA_RESOURCES))]
    pub guaranteed: Field<Vec<QuotaEntry>>,
}

/// The tenant namespace's NetworkPolicies. Without this block: default deny, DNS and same-namespace traffic allowed.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct NetworkPolicyBlock {
    /// Deny all ingress and egress unless allowed below (default `true`). `false` needs an owned, dated WKL-8
    /// exception in the contract.
    #[tf(optional)]
    pub default_deny: Field<bool>,
    /// Allow DNS to kube-dns in kube-system (default `true`).
    #[tf(optional)]
    pub allow_dns: Field<bool>,
    /// Allow pod-to-pod traffic inside the namespace, which distributed training (NCCL, EFA) needs (default `true`).
    #[tf(optional)]
    pub allow_same_namespace: Field<bool>,
    /// Further egress destinations, as CIDR blocks.
    #[tf(optional, validate = IsCidr)]
    pub egress_cidrs: Field<Vec<String>>,
}

/// The tenant's workload identity (EKS, optional): a service account in the tenant namespace, mapped by EKS Pod
/// Identity to a tenant-only IAM role in the cluster account, optionally chained to a role in a consumer or data
/// account. Without it the tenant is the team's share and its RBAC alone, as AWS's own task governance setups have
/// it: no role, service account or association (removing the block deletes them).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct WorkloadBlock {
    /// Service account name in `hyperpod-ns-<team>`.
    #[tf(
        required,
        validate = Matches::new(KUBERNETES_NAME, "a Kubernetes name: lowercase letters, digits, `-` and `.`"),
        validate = LengthBetween { min: 1, max: 253 }
    )]
    pub service_account: Field<String>,
    /// Role in a consumer or data account the pods reach (`targetRoleArn`); its account must be approved in the
    /// contract (ORG-2).
    #[tf(optional, validate = IamPrincipalArns { roles_only: true })]
    pub target_role_arn: Field<String>,
    /// Turn off the Pod Identity session tags (`disableSessionTags`, default `false`); required with a session policy
    /// (WKL-9).
    #[tf(optional)]
    pub disable_session_tags: Field<bool>,
    /// Session policy JSON that narrows the target role's permissions (`policy`).
    #[tf(optional, validate = IamPolicyDocument { max: MAX_SESSION_POLICY })]
    pub session_policy: Field<String>,
}

/// Tenant data: granted to the tenant's workload role only, never to a project role (WKL-11).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct DataBlock {
    /// S3 bucket names the workload reads and writes (an inline policy on the workload role).
    #[tf(optional, validate = S3BucketNames)]
    pub buckets: Field<Vec<String>>,
    /// KMS key ARNs; each gets a KMS grant to the grantee role.
    #[tf(optional, validate = KmsKeyArns)]
    pub kms_keys: Field<Vec<String>>,
    /// Who the grants name. Defaults to the workload role; may be the target role.
    #[tf(optional, validate = IamPrincipalArns { roles_only: false })]
    pub grantee_role_arn: Field<String>,
}

/// Slurm tenants (contracts with `orchestrator = "slurm"`): the accounting the provider renders into
/// `slurm_artefacts` for the cluster's lifecycle scripts. The team is the Slurm account.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TenantSlurmBlock {
    /// Partitions the account may use; inside the contract's Slurm scope.
    #[tf(optional)]
    pub partitions: Field<Vec<String>>,
    /// OS users associated with the account.
    #[tf(optional)]
    pub users: Field<Vec<String>>,
    /// Priority of the team's QoS (default 0).
    #[tf(optional, validate = IntBetween { min: 0, max: 4_294_967_294 })]
    pub qos_priority: Field<i64>,
    /// QoS names this team's QoS may preempt (with `PreemptType=preempt/qos`).
    #[tf(optional)]
    pub preempt_qos: Field<Vec<String>>,
    /// Fair-share shares of the account (default 1).
    #[tf(optional, validate = IntBetween { min: 1, max: 1_000_000 })]
    pub fairshare: Field<i64>,
    /// Longest job, Slurm time format, e.g. `24:00:00` or `2-00:00:00`.
    #[tf(optional, validate = Matches::new(r"(\d+-)?\d{1,2}(:\d{2}){0,2}", "a Slurm time such as \"24:00:00\""))]
    pub max_wall: Field<String>,
    /// `PrivateData` values: what users see only of their own (default jobs, usage, users).
    #[tf(optional, validate = EachOneOf(&PRIVATE_DATA))]
    pub private_data: Field<Vec<String>>,
}

/// What a Slurm tenant renders for the cluster's lifecycle scripts.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SlurmArtefactsValue {
    /// The Slurm account: the team.
    #[tf(computed)]
    pub account: Field<String>,
    /// The `sacctmgr` commands that create the account, its QoS and its users.
    #[tf(computed)]
    pub sacctmgr_commands: Field<Vec<String>>,
    /// The `slurm.conf` fragment.
    #[tf(computed)]
    pub slurm_conf: Field<String>,
}

/// What identifies a tenant (`import { identity = { … } }`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TenantIdentity {
    /// Name of the HyperPod cluster.
    #[tf(required)]
    pub cluster_name: Field<String>,
    /// The team.
    #[tf(required)]
    pub team: Field<String>,
}

/// Where a tenant takes the capacity handoffs `handoff::unreadable_capacity` holds to their sources' rules.
pub const CAPACITY_HANDOFFS: CapacityHandoffs = CapacityHandoffs {
    allocation: TenantModel::ALLOCATION.name(),
    tenant_lists: &[TenantModel::BORROWS_FROM.name()],
};

pub fn schema() -> Schema {
    // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
    Schema {
        version: 1,
        block: TenantModel::block(),
    }
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &TenantIdentity::block())
}

pub fn identity(cluster_name: &str, team: &str) -> Value {
    TenantIdentity {
        cluster_name: Field::Known(cluster_name.to_string()),
        team: Field::Known(team.to_string()),
    }
    .encode()
}
