//! The tenant's configuration, typed (`TenantConfig`), and what it composes, as pure values: the engine's `Tenant`,
//! the tags, the component keys and desired AWS objects (`components`), the Kubernetes objects (`manifests`), the
//! Slurm artefacts (`slurm`), and what it leaves to the live quota (`kept`).

pub mod components;
pub mod governance;
pub mod kept;
pub mod manifests;
pub mod ownership;
pub mod slurm;
mod upgrade;

pub use upgrade::STATE_UPGRADERS;

use std::collections::BTreeMap;

use super::schema::TenantModel;
use crate::governance::{
    Contract, DataGrants, Orchestrator, PodIdentity, QuotaShare, Setting, Sharing, SharingStrategy, Spaces, Tenant,
};
use crate::protocol::model::{Field, Model};
use crate::protocol::value::Value;
use crate::quota_settings::{Activation, Preemption};
use crate::resources::quota_entry::QuotaEntry;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkPolicyConfig {
    pub default_deny: bool,
    pub allow_dns: bool,
    pub allow_same_namespace: bool,
    pub egress_cidrs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadIdentityConfig {
    pub service_account: String,
    pub target_role_arn: Setting<String>,
    pub disable_session_tags: bool,
    pub session_policy: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataAccessConfig {
    pub buckets: Vec<String>,
    pub kms_keys: Vec<String>,
    pub grantee_role_arn: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlurmAccountConfig {
    pub partitions: Vec<String>,
    pub users: Vec<String>,
    pub qos_priority: Option<i64>,
    pub preempt_qos: Vec<String>,
    pub fairshare: Option<i64>,
    pub max_wall: Option<String>,
    pub private_data: Vec<String>,
}

/// Everything the user wrote about the tenant, typed; `None` from [`TenantConfig::from_value`] while a value the
/// composition depends on is unknown (a reference to a resource not created yet).
#[derive(Clone, Debug, PartialEq)]
pub struct TenantConfig {
    pub team: String,
    /// The compute quota's `Name` and `Description` as written or kept from state (`None`: the defaults).
    pub quota_name: Option<String>,
    pub quota_description: Option<String>,
    pub quota: Vec<QuotaShare>,
    /// The sharing the provider writes: the block, or Lend for a team with spaces and no block; `None` leaves it to
    /// the live quota (or, on create, to SageMaker's default).
    pub sharing: Option<Sharing>,
    /// Whether a `sharing` block is written.
    pub sharing_written: bool,
    pub preempt_team_tasks: Preemption,
    pub fair_share_weight: Option<i64>,
    pub priority_class: Option<String>,
    pub activation_state: Activation,
    pub viewer_groups: Vec<String>,
    pub operator_groups: Vec<String>,
    pub viewer_principal_arns: Vec<String>,
    pub operator_principal_arns: Vec<String>,
    pub viewer_verbs: Vec<String>,
    pub operator_verbs: Vec<String>,
    pub network: NetworkPolicyConfig,
    pub workload: Option<WorkloadIdentityConfig>,
    pub data: DataAccessConfig,
    pub slurm: Option<SlurmAccountConfig>,
    pub tags: BTreeMap<String, String>,
    /// Interactive spaces (WKL-12).
    pub spaces: Option<Spaces>,
    /// What the value leaves to the live quota (kept on update).
    pub left_to_live: kept::LeftToLive,
}

/// A SageMaker setting by its API name, `default` when unset; `None` (wait for apply) while unknown or not a name
/// the validator lets through.
fn setting<T>(field: &Field<String>, parse: fn(&str) -> Option<T>, default: T) -> Option<T> {
    match field.clone().optional()? {
        Some(name) => parse(&name),
        None => Some(default),
    }
}

/// A quota-shaped list as the engine counts it: empty when null, `None` while an entry is unknown.
fn shares(entries: &Field<Vec<QuotaEntry>>) -> Option<Vec<QuotaShare>> {
    QuotaEntry::shares(&entries.clone().or_empty()?)
}

impl TenantConfig {
    /// The configuration, or `None` while a value it depends on is unknown (a reference to a resource not created
    /// yet) or the value does not decode.
    pub fn from_value(value: &Value) -> Option<Self> {
        Self::of(&TenantModel::decode(value).ok()?)
    }

    /// [`TenantConfig::from_value`] of the decoded tenant: every field is null, unknown or known, so an unknown one
    /// is never read as unset.
    pub fn of(tenant: &TenantModel) -> Option<Self> {
        let spaces = spaces(tenant)?;
        Some(Self {
            team: tenant.team.clone().known()?,
            // Unset (null): the defaults. The plan reads an unset one as null, not as its computed unknown.
            quota_name: tenant.compute_quota_name.clone().optional()?,
            quota_description: tenant.compute_quota_description.clone().optional()?,
            quota: shares(&tenant.quota)?,
            sharing: sharing(tenant, spaces.is_some())?,
            sharing_written: tenant.sharing.clone().optional()?.is_some(),
            preempt_team_tasks: setting(&tenant.preempt_team_tasks, Preemption::parse, Preemption::LowerPriority)?,
            fair_share_weight: tenant.fair_share_weight.clone().optional()?,
            priority_class: tenant.priority_class.clone().optional()?,
            activation_state: setting(&tenant.activation_state, Activation::parse, Activation::Enabled)?,
            viewer_groups: tenant.viewer_groups.clone().or_empty()?,
            operator_groups: tenant.operator_groups.clone().or_empty()?,
            viewer_principal_arns: tenant.viewer_principal_arns.clone().or_empty()?,
            operator_principal_arns: tenant.operator_principal_arns.clone().or_empty()?,
            viewer_verbs: tenant.viewer_verbs.clone().or_empty()?,
            operator_verbs: tenant.operator_verbs.clone().or_empty()?,
            network: network(tenant)?,
            workload: workload(tenant)?,
            data: data(tenant)?,
            slurm: slurm_account(tenant)?,
            tags: tenant.tags.clone().or_empty()?,
            spaces,
            left_to_live: kept::LeftToLive::of(tenant),
        })
    }

    /// The compute quota's name: as written (or kept from state), else `<team>-quota`.
    pub fn compute_quota_name(&self) -> String {
        self.quota_name
            .clone()
            .unwrap_or_else(|| format!("{}-quota", self.team))
    }

    /// The compute quota's description: as written (or kept from state; empty for none), else
    /// `hyperpod_tenant <team>`.
    pub fn compute_quota_description(&self) -> String {
        self.quota_description
            .clone()
            .unwrap_or_else(|| format!("hyperpod_tenant {}", self.team))
    }

    /// The namespace HyperPod creates for the team.
    pub fn namespace(&self) -> String {
        crate::names::team_namespace(&self.team)
    }

    /// The engine's tenant. `workload_role_arn` is the role the provider creates (known at plan time); `live` the
    /// sharing of the team's live quota, which an EKS tenant without a sharing block keeps (SageMaker's default
    /// when there is none): the rules judge the sharing in effect, written out or not.
    pub fn to_governance(
        &self,
        orchestrator: Orchestrator,
        workload_role_arn: Option<String>,
        live: Option<&Sharing>,
    ) -> Tenant {
        let sharing = match orchestrator {
            // Slurm has no lend/borrow: only a block written is judged (WKL-2), never one implied by spaces.
            Orchestrator::Slurm => self.sharing.clone().filter(|_| self.sharing_written),
            Orchestrator::Eks => Some(
                self.sharing
                    .clone()
                    .or_else(|| live.cloned())
                    .unwrap_or_else(Sharing::sagemaker_default),
            ),
        };
        let (target_role_arn, pod_identity) = match &self.workload {
            Some(workload) => (
                workload.target_role_arn.clone(),
                PodIdentity {
                    disable_session_tags: workload.disable_session_tags,
                    session_policy: workload.session_policy.clone(),
                },
            ),
            None => (Setting::Unset, PodIdentity::default()),
        };
        // Only a tenant with a workload identity has a workload role.
        let workload_role_arn = match (&self.workload, workload_role_arn) {
            (Some(_), Some(arn)) => Setting::Set(arn),
            _ => Setting::Unset,
        };
        let grantee_role_arn = self.data.grantee_role_arn.clone().or_else(|| match &workload_role_arn {
            Setting::Set(arn) => Some(arn.clone()),
            Setting::Unset | Setting::Unknown => None,
        });
        Tenant {
            team: self.team.clone(),
            namespace: self.namespace(),
            orchestrator,
            // One entry per quota block, in order (an accelerator-only entry guarantees no whole instance), so a
            // finding can point at `quota[i].count`.
            quota: self.quota.clone(),
            sharing,
            sharing_written: self.sharing_written,
            priority_class: self.priority_class.clone(),
            fair_share_weight: self.fair_share_weight,
            viewer_groups: self.viewer_groups.clone(),
            operator_groups: self.operator_groups.clone(),
            viewer_verbs: self.viewer_verbs.clone(),
            operator_verbs: self.operator_verbs.clone(),
            default_deny_network_policy: self.network.default_deny,
            slurm_users: self.slurm.as_ref().map(|slurm| slurm.users.clone()).unwrap_or_default(),
            workload_role_arn,
            target_role_arn,
            pod_identity,
            data_grants: DataGrants {
                buckets: self.data.buckets.clone(),
                kms_keys: self.data.kms_keys.clone(),
                grantee_role_arn,
            },
            spaces: self.spaces.clone(),
        }
    }
}

/// `sharing`: an unset strategy is SageMaker's LendAndBorrow. A team with spaces and no sharing block lends and
/// never borrows (AWS's guidance; WKL-12). `None` while unknown.
#[allow(
    clippy::option_option,
    reason = "None while unknown, Some(None) for a block left out"
)]
fn sharing(tenant: &TenantModel, has_spaces: bool) -> Option<Option<Sharing>> {
    let Some(block) = tenant.sharing.clone().optional()? else {
        return Some(has_spaces.then(|| Sharing {
            strategy: SharingStrategy::Lend,
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
        }));
    };
    Some(Some(Sharing {
        strategy: setting(&block.strategy, SharingStrategy::parse, SharingStrategy::LendAndBorrow)?,
        // A whole number (the validator's `WholeNumber`); anything else waits, as an unknown one does.
        borrow_limit: match block.borrow_limit.optional()? {
            Some(limit) => Some(limit.as_i64()?),
            None => None,
        },
        absolute_borrow_limits: shares(&block.absolute_borrow_limit)?,
    }))
}

#[allow(
    clippy::option_option,
    reason = "None while unknown, Some(None) for a block left out"
)]
fn spaces(tenant: &TenantModel) -> Option<Option<Spaces>> {
    let Some(block) = tenant.spaces.clone().optional()? else {
        return Some(None);
    };
    Some(Some(Spaces {
        priority_class: block.priority_class.known()?,
        guaranteed: shares(&block.guaranteed)?,
    }))
}

/// `network_policy`: every default on when the block is left out.
fn network(tenant: &TenantModel) -> Option<NetworkPolicyConfig> {
    let Some(block) = tenant.network_policy.clone().optional()? else {
        return Some(NetworkPolicyConfig {
            default_deny: true,
            allow_dns: true,
            allow_same_namespace: true,
            egress_cidrs: Vec::new(),
        });
    };
    Some(NetworkPolicyConfig {
        default_deny: block.default_deny.or_when_null(true)?,
        allow_dns: block.allow_dns.or_when_null(true)?,
        allow_same_namespace: block.allow_same_namespace.or_when_null(true)?,
        egress_cidrs: block.egress_cidrs.or_empty()?,
    })
}

#[allow(
    clippy::option_option,
    reason = "None while unknown, Some(None) for a block left out"
)]
fn workload(tenant: &TenantModel) -> Option<Option<WorkloadIdentityConfig>> {
    let Some(block) = tenant.workload.clone().optional()? else {
        return Some(None);
    };
    Some(Some(WorkloadIdentityConfig {
        service_account: block.service_account.known()?,
        // Unknown until apply is a value of its own here: ORG-2, CLU-6 and WKL-11 wait for it.
        target_role_arn: match block.target_role_arn {
            Field::Known(arn) => Setting::Set(arn),
            Field::Null => Setting::Unset,
            Field::Unknown | Field::Invalid => Setting::Unknown,
        },
        disable_session_tags: block.disable_session_tags.or_when_null(false)?,
        session_policy: block.session_policy.optional()?,
    }))
}

fn data(tenant: &TenantModel) -> Option<DataAccessConfig> {
    let Some(block) = tenant.data.clone().optional()? else {
        return Some(DataAccessConfig::default());
    };
    Some(DataAccessConfig {
        buckets: block.buckets.or_empty()?,
        kms_keys: block.kms_keys.or_empty()?,
        grantee_role_arn: block.grantee_role_arn.optional()?,
    })
}

#[allow(
    clippy::option_option,
    reason = "None while unknown, Some(None) for a block left out"
)]
fn slurm_account(tenant: &TenantModel) -> Option<Option<SlurmAccountConfig>> {
    let Some(block) = tenant.slurm.clone().optional()? else {
        return Some(None);
    };
    Some(Some(SlurmAccountConfig {
        partitions: block.partitions.or_empty()?,
        users: block.users.or_empty()?,
        qos_priority: block.qos_priority.optional()?,
        preempt_qos: block.preempt_qos.or_empty()?,
        fairshare: block.fairshare.optional()?,
        max_wall: block.max_wall.optional()?,
        private_data: block.private_data.or_empty()?,
    }))
}

/// `arn:<partition>:iam::<cluster account>:role/<name>`: the workload role's ARN, known before it exists.
pub fn role_arn(partition: &str, account: &str, role_name: &str) -> String {
    crate::aws::ids::Arn::iam_role(partition, account, role_name)
}

/// The workload role's default name: `hyperpod-<cluster>-<team>`, shortened to IAM's 64 characters with a stable
/// suffix so two long names do not collide.
pub fn default_role_name(cluster_name: &str, team: &str) -> String {
    let name = format!("hyperpod-{cluster_name}-{team}");
    if name.len() <= 64 {
        return name;
    }
    let digest = fnv1a(&name);
    let stem: String = name.chars().take(64 - 9).collect();
    format!("{}-{:08x}", stem.trim_end_matches('-'), digest as u32)
}

/// A small stable hash for name suffixes (not security relevant).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Every tag the tenant's AWS objects carry: the provider's default tags, the tenant's own and the governance tags
/// from its contract (contract, cluster, team, project, project role).
pub fn composed_tags(
    default_tags: &BTreeMap<String, String>,
    config: &TenantConfig,
    contract: &Contract,
) -> BTreeMap<String, String> {
    let mut tags_all = tags_all(default_tags, &config.tags, contract, &config.team);
    if let Some(role) = &contract.project_role_arn {
        tags_all.insert(crate::tags::PROJECT_ROLE.to_string(), role.clone());
    }
    tags_all
}

/// The governance tags every composed AWS object carries, under the user's tags and the provider's default tags.
fn tags_all(
    default_tags: &BTreeMap<String, String>,
    tags: &BTreeMap<String, String>,
    contract: &Contract,
    team: &str,
) -> BTreeMap<String, String> {
    let mut all = default_tags.clone();
    all.extend(tags.clone());
    all.insert(crate::tags::CONTRACT.into(), contract.name.clone());
    all.insert(crate::tags::CLUSTER.into(), contract.cluster.name.clone());
    all.insert(crate::tags::TENANT.into(), team.to_string());
    if let Some(project) = &contract.unified_studio.project_id {
        all.insert(crate::tags::PROJECT.into(), project.clone());
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text, text_list};
    use crate::protocol::value::Number;

    /// Every argument and block of a tenant set, so every argument can be made unknown.
    fn full_tenant() -> Value {
        let number = |n: i64| Value::Number(Number::from_i64(n));
        let list = |items: &[&str]| text_list(&items.iter().map(std::string::ToString::to_string).collect::<Vec<_>>());
        let mut value = super::super::schema::schema().block.null_value();
        for (name, field) in [
            ("team", text("research")),
            ("priority_class", text("research")),
            ("preempt_team_tasks", text("Never")),
            ("fair_share_weight", number(10)),
            ("activation_state", text("Enabled")),
            ("workload_role_name", text("research-role")),
            ("viewer_groups", list(&["v"])),
            ("operator_groups", list(&["o"])),
            ("viewer_principal_arns", list(&["arn:aws:iam::123456789012:role/v"])),
            ("operator_principal_arns", list(&["arn:aws:iam::123456789012:role/o"])),
            ("viewer_verbs", list(&["get"])),
            ("operator_verbs", list(&["create"])),
            ("tags", Value::Map([("team".to_string(), text("r"))].into())),
            (
                "quota",
                Value::List(vec![object([
                    ("instance_type", text("ml.p5.48xlarge")),
                    ("count", number(2)),
                    ("accelerators", number(8)),
                    ("vcpu", number(4)),
                    ("memory_gib", number(16)),
                ])]),
            ),
            (
                "sharing",
                object([("strategy", text("LendAndBorrow")), ("borrow_limit", number(50))]),
            ),
            (
                "network_policy",
                object([
                    ("default_deny", Value::Bool(true)),
                    ("allow_dns", Value::Bool(true)),
                    ("allow_same_namespace", Value::Bool(false)),
                    ("egress_cidrs", list(&["10.0.0.0/16"])),
                ]),
            ),
            (
                "workload",
                object([
                    ("service_account", text("jobs")),
                    ("target_role_arn", text("arn:aws:iam::444455556666:role/c")),
                    ("disable_session_tags", Value::Bool(true)),
                    ("session_policy", text("{}")),
                ]),
            ),
            (
                "data",
                object([
                    ("buckets", list(&["b"])),
                    ("kms_keys", list(&["arn:aws:kms:us-west-2:123456789012:key/k"])),
                    ("grantee_role_arn", text("arn:aws:iam::123456789012:role/g")),
                ]),
            ),
            (
                "slurm",
                object([
                    ("partitions", list(&["gpu"])),
                    ("users", list(&["alice"])),
                    ("qos_priority", number(1)),
                    ("preempt_qos", list(&["low"])),
                    ("fairshare", number(1)),
                    ("max_wall", text("24:00:00")),
                    ("private_data", list(&["jobs"])),
                ]),
            ),
        ] {
            crate::protocol::plan::set_attr(&mut value, name, field);
        }
        value
    }

    #[test]
    fn an_unknown_argument_is_never_read_as_unset() {
        let block = super::super::schema::schema().block;
        // Read elsewhere: the contract and policy facts (`contract_from_governance`, `policy_from_value`), the lenders
        // (`references::tenants`), the allocation (`references::allocation`) and the role name (the resource), each of which defers on unknown itself.
        let skip = [
            "contract",
            "scheduling_policy",
            "allocation",
            "borrows_from",
            "workload_role_name",
        ];
        let wrong = crate::resources::decode_property::unknown_read_as_unset(&block, &full_tenant(), &skip, |v| {
            TenantConfig::from_value(v)
        });
        assert!(wrong.is_empty(), "read as unset while unknown: {wrong:?}");
    }

    #[test]
    fn role_names_fit_iam_and_stay_distinct() {
        assert_eq!(
            default_role_name("ml-capacity", "research"),
            "hyperpod-ml-capacity-research"
        );
        let long_a = default_role_name(&"c".repeat(63), "team-a");
        let long_b = default_role_name(&"c".repeat(63), "team-b");
        assert!(long_a.len() <= 64 && long_b.len() <= 64);
        assert_ne!(long_a, long_b);
    }
}
