//! Everything a tenant's plan reads, as one `TenantPlanInputs`: the configuration and its contract, what it references
//! in HCL (the tenants it borrows from, the cluster allocation, the cluster policy), and the cluster's live facts, each
//! read once (the run's shared reads). The only I/O of the plan; judge and predict read these inputs alone.

use std::collections::BTreeMap;

use super::super::model::components;
use super::super::model::{self, TenantConfig};
use super::super::schema::TenantModel as M;
use super::drift::{self, DriftedObject, LiveContent};
use crate::aws::AwsError;
use crate::aws::compute_quota::ComputeQuota;
use crate::client::HyperpodClient;
use crate::component::Component;
use crate::errors::ErrorDiagnostics;
use crate::governance::{Allocation, Contract, Fact, Phase, Referenced, Setting, TenantCapacity};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::value::Value;
use crate::resources::cluster_facts::{self, ClusterFacts, ClusterReads, TaskGovernanceAddon};
use crate::resources::kubernetes_reads::{kube_client, kubernetes_object};
use crate::resources::references::{self, PolicyReference, References};

/// What the plan of one tenant knows, read once; a test builds it by hand.
#[derive(Clone, Debug)]
pub struct TenantPlanInputs {
    pub config: TenantConfig,
    pub contract: Contract,
    /// The tenant's own `governance` (what borrowers and bindings reference), from its arguments.
    pub handoff: Value,
    /// The workload role's name: the configuration's (or, once applied, the recorded one), else the default.
    pub role_name: String,
    pub cluster: ClusterFacts,
    pub references: TenantReferences,
    /// CLU-10's add-on (`None` on Slurm).
    pub task_governance: Option<TaskGovernanceAddon>,
    /// A compute quota of the tenant's name or team that exists while the tenant records none.
    pub existing_quota: ExistingQuota,
    pub context: PlanContext,
}

impl TenantPlanInputs {
    /// The team's live compute quota on the cluster, as the run's shared read saw it (what apply keeps of it).
    pub fn live_quota(&self) -> Option<TenantCapacity> {
        let live = self.cluster.tenants.known()?;
        live.iter().find(|t| t.team == self.config.team).cloned()
    }
}

/// What the tenant references in HCL, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct TenantReferences {
    /// `borrows_from`: the lenders' capacity (WKL-5, and WKL-3 without an allocation).
    pub lenders: References<TenantCapacity>,
    /// `allocation`: the cluster's documented split (WKL-3).
    pub allocation: Setting<Referenced<Allocation>>,
    /// `scheduling_policy` (WKL-4, WKL-6).
    pub policy: PolicyReference,
}

/// The rest of what the plan knows: the provider's settings, the phase and day, what state recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanContext {
    pub partition: String,
    pub default_tags: BTreeMap<String, String>,
    pub strict: bool,
    pub phase: Phase,
    pub today: time::Date,
    /// `components` as state records them (empty on create).
    pub prior_components: BTreeMap<String, String>,
    /// `compute_quota_arn` as state records it.
    pub prior_quota_arn: Option<Value>,
}

/// A compute quota the tenant is about to create, already there: its own (an interrupted apply made it: apply adopts
/// it), someone else's (refused before anything is written), or one whose tags could not be read.
#[derive(Clone, Debug)]
pub enum ExistingQuota {
    None,
    Own,
    Foreign(Box<ComputeQuota>),
    TagsUnreadable(Diagnostics),
}

/// The tenant a replacement replaces: its quota is gone by the time the new one claims capacity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplacedTenant {
    pub cluster_name: String,
    pub team: String,
}

/// What `gather` is asked for: the decoded tenant and where it is planned.
pub struct GatherRequest<'a> {
    pub config: TenantConfig,
    pub contract: Contract,
    /// The arguments (the planned value at plan, the applied one at apply), with the write-only handoffs.
    pub arguments: &'a Value,
    /// The tenant's `governance`, from the same arguments.
    pub handoff: Value,
    /// The state, `None` on a create (and on a replacement, judged as the create it leads to).
    pub prior: Option<&'a Value>,
    /// On a replacement, the tenant it replaces.
    pub replaced: Option<ReplacedTenant>,
    /// The workload role's name the user chose, if any.
    pub chosen_role_name: Option<String>,
    pub phase: Phase,
}

pub async fn gather(client: &HyperpodClient, request: GatherRequest<'_>) -> Result<TenantPlanInputs, Diagnostics> {
    let GatherRequest {
        config,
        contract,
        arguments,
        handoff,
        prior,
        replaced,
        chosen_role_name,
        phase,
    } = request;
    let found = cluster_facts::find_contract_cluster(client, &contract).await?;
    let role_name = chosen_role_name.unwrap_or_else(|| model::default_role_name(&found.name, &config.team));
    let context = plan_context(client, prior, phase);
    let roles = workload_roles(&context.partition, &contract, &role_name, &config);
    let principals: Vec<&str> = roles.iter().map(String::as_str).collect();
    let task_governance = cluster_facts::task_governance_addon(client, &found).await;
    let mut cluster = cluster_facts::gather(client, found, ClusterReads::Capacity, &principals).await;
    if let (Some(replaced), Fact::Known(live)) = (&replaced, &mut cluster.tenants)
        && replaced.cluster_name == cluster.cluster.name
    {
        live.retain(|tenant| tenant.team != replaced.team);
    }
    let creates_quota = cluster.cluster.eks_cluster_name().is_some()
        && !context.prior_components.contains_key(&Component::ComputeQuota.key());
    let existing_quota = if creates_quota {
        existing_quota(client, &cluster, &config).await
    } else {
        ExistingQuota::None
    };
    Ok(TenantPlanInputs {
        handoff,
        references: TenantReferences {
            lenders: references::tenants(arguments, M::BORROWS_FROM.name()),
            allocation: references::allocation(arguments, M::ALLOCATION.name()),
            policy: references::scheduling_policy(arguments, M::SCHEDULING_POLICY.name()),
        },
        config,
        contract,
        role_name,
        cluster,
        task_governance,
        existing_quota,
        context,
    })
}

fn plan_context(client: &HyperpodClient, prior: Option<&Value>, phase: Phase) -> PlanContext {
    PlanContext {
        partition: client.region.partition().to_string(),
        default_tags: client.default_tags.clone(),
        strict: client.strict,
        phase,
        today: crate::resources::checklist::today(),
        prior_components: prior.and_then(|p| M::COMPONENTS.known(p)).unwrap_or_default(),
        prior_quota_arn: prior.and_then(|p| p.get_attr(M::COMPUTE_QUOTA_ARN.name())).cloned(),
    }
}

/// The roles whose access entries CLU-6 reads (is a workload role a cluster admin?): the tenant's own, and the
/// target role it chains to. Only their entries are read, so a tenant's cost does not grow with the cluster.
fn workload_roles(partition: &str, contract: &Contract, role_name: &str, config: &TenantConfig) -> Vec<String> {
    let mut roles = vec![model::role_arn(partition, &contract.cluster.account_id, role_name)];
    if let Some(Setting::Set(target)) = config.workload.as_ref().map(|w| &w.target_role_arn) {
        roles.push(target.clone());
    }
    roles
}

/// A quota of the tenant's name or team on the cluster, and whose it is by its tags. Unreadable quotas are WKL-3's
/// to report (apply still refuses a foreign quota on its conflict).
async fn existing_quota(client: &HyperpodClient, cluster: &ClusterFacts, config: &TenantConfig) -> ExistingQuota {
    let cluster_arn = &cluster.cluster.arn;
    let name = components::quota_spec(config, cluster_arn, &BTreeMap::new()).name;
    let Ok(quotas) = client.compute_quotas(cluster_arn).await else {
        return ExistingQuota::None;
    };
    let Some(found) = quotas.iter().find(|q| q.name == name || q.team_name == config.team) else {
        return ExistingQuota::None;
    };
    match crate::aws::sagemaker::list_tags(&client.sagemaker, &found.arn).await {
        Ok(tags) if crate::tags::is_tenants_own(&tags, &cluster.cluster.name, &config.team) => ExistingQuota::Own,
        Ok(_) => ExistingQuota::Foreign(Box::new(found.clone())),
        Err(err) => ExistingQuota::TagsUnreadable(tags_unreadable(&err)),
    }
}

fn tags_unreadable(err: &AwsError) -> Diagnostics {
    err.diagnostics(M::TEAM.path(), "Cannot read the existing compute quota's tags")
}

/// The objects of the prior state whose live content differs from what the tenant wrote, read again to say how
/// (the plan's drift warnings). Read only for a tenant that was applied and whose changes are judged.
pub async fn drifted_objects(client: &HyperpodClient, prior: Option<&Value>) -> Vec<DriftedObject> {
    let Some(prior) = prior else {
        return Vec::new();
    };
    let Some(drifted) = drift::drifted(prior) else {
        return Vec::new();
    };
    let manifests = drifted.manifests;
    let mut objects: Vec<DriftedObject> = drifted.entries.into_iter().map(DriftedObject::Entry).collect();
    if manifests.is_empty() {
        return objects;
    }
    let eks_cluster = match M::CLUSTER_ARN.known(prior) {
        Some(arn) => match client.cluster(&arn).await {
            Ok(cluster) => cluster.eks_cluster_name().unwrap_or_default(),
            Err(_) => String::new(),
        },
        None => String::new(),
    };
    let kube = kube_client(client, &eks_cluster).await.ok();
    for manifest in manifests {
        let live = match &kube {
            Some(kube) => match kubernetes_object(client, kube, &eks_cluster, &manifest.path()).await {
                Ok(Some(object)) => LiveContent::Read(object),
                _ => LiveContent::Unreadable,
            },
            None => LiveContent::Unreachable,
        };
        objects.push(DriftedObject::Manifest { manifest, live });
    }
    objects
}
