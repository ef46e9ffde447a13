//! What the contract's plan reads: the arguments (`ContractConfig`) and the state (`RecordedContract`), decoded once,
//! and the live facts the contract is checked against, with the provider's credentials. Anything that cannot be
//! read becomes `Fact::Unavailable` with the reason, so the engine reports the check as skipped (a warning), never
//! as passed. Nothing is read while the contract is unknown.

use super::super::model::{ContractConfig, RecordedContract};
use super::super::schema::ContractModel;
use crate::aws::ids::Arn;
use crate::aws::sagemaker::{self, HyperPodCluster};
use crate::client::HyperpodClient;
use crate::governance::{
    Addon, Capacity, Contract, ContractLiveFacts, EksCluster, Fact, LiveCluster, LiveInstanceGroup, LiveProject,
    NodeRole, Orchestrator, RolePermissions,
};
use crate::protocol::model::Model;
use crate::protocol::value::Value;

/// Everything the contract's judge and predict read, as one value a test can build by hand.
#[derive(Clone, Debug)]
pub struct ContractPlanInputs {
    pub config: ContractConfig,
    /// What the state recorded; `None` on create.
    pub prior: Option<RecordedContract>,
    /// The live facts; `None` while the contract is unknown (nothing is read then).
    pub live: Option<ContractLiveFacts>,
    /// The identity running the plan (LIF-4).
    pub caller_arn: String,
    /// The day expiry and review are judged against.
    pub today: time::Date,
    /// The contract's own `strict`, else the provider's: every finding is refused at apply.
    pub strict: bool,
}

/// Reads the plan's inputs: `value` is the arguments (write-only `organization` included), `prior` the state.
pub async fn gather(client: &HyperpodClient, value: &Value, prior: Option<&Value>) -> ContractPlanInputs {
    // The state, decoded once: its lists stand in for unknown ones, and it is what the last apply recorded.
    let prior = prior.map(|prior| ContractModel::decode(prior).unwrap_or_default());
    let config = ContractConfig::decode(value, prior.as_ref());
    let today = crate::resources::checklist::today();
    let live = match &config.contract {
        Some(contract) => Some(live_facts(client, contract).await),
        None => None,
    };
    ContractPlanInputs {
        strict: config.strict.unwrap_or(client.strict),
        prior: prior.as_ref().map(RecordedContract::of),
        live,
        caller_arn: client.caller_arn.clone(),
        today,
        config,
    }
}

/// The add-on behind HyperPod's EKS metrics views (OBS-1).
const OBSERVABILITY_ADDON: &str = "amazon-cloudwatch-observability";

/// What the contract is checked against, read concurrently.
async fn live_facts(client: &HyperpodClient, contract: &Contract) -> ContractLiveFacts {
    let (hyperpod, project, project_role, access_role) = tokio::join!(
        hyperpod_cluster(client, contract),
        project_fact(client, contract),
        role_fact(client, contract.project_role_arn.as_deref()),
        role_fact(client, contract.access_role_arn.as_deref()),
    );
    // The EKS cluster behind an EKS-orchestrated HyperPod cluster: authentication mode (CLU-4), endpoint access
    // (CLU-5), its version (LIF-2), and the observability add-on and node roles' CloudWatch policy (OBS-1).
    let (eks, observability_addon, node_roles) = match &hyperpod {
        Fact::Known(Some(
            cluster @ HyperPodCluster {
                orchestrator: sagemaker::ClusterOrchestrator::Eks { eks_cluster_arn },
                ..
            },
        )) => {
            let ((eks, addon), roles) = tokio::join!(eks_facts(client, eks_cluster_arn), node_roles(client, cluster));
            (Some(eks), Some(addon), Some(roles))
        }
        _ => (None, None, None),
    };
    ContractLiveFacts {
        cluster: cluster_fact(client, hyperpod),
        project,
        project_role,
        access_role,
        eks,
        observability_addon,
        node_roles,
    }
}

/// The worker node roles of the cluster's instance groups, each with its attached managed policies. A role that no
/// longer exists has none.
async fn node_roles(client: &HyperpodClient, cluster: &HyperPodCluster) -> Fact<Vec<NodeRole>> {
    let mut roles: Vec<NodeRole> = Vec::new();
    for group in &cluster.instance_groups {
        match roles.iter_mut().find(|role| role.role_arn == group.execution_role) {
            Some(role) => role.instance_groups.push(group.name.clone()),
            None => roles.push(NodeRole {
                role_arn: group.execution_role.clone(),
                instance_groups: vec![group.name.clone()],
                attached_policy_arns: Vec::new(),
            }),
        }
    }
    let reads = futures::future::join_all(roles.iter().map(|role| client.attached_policy_arns(&role.role_arn))).await;
    for (role, read) in roles.iter_mut().zip(reads) {
        match read {
            Ok(arns) => role.attached_policy_arns = arns,
            Err(err) if err.is_not_found() => {}
            Err(err) => return Fact::unreadable(&format!("node role {}", role.role_arn), &err),
        }
    }
    Fact::Known(roles)
}

async fn eks_facts(client: &HyperpodClient, eks_cluster_arn: &str) -> (Fact<EksCluster>, Fact<Option<Addon>>) {
    let name = Arn::resource_id_of(eks_cluster_arn);
    let (cluster, addon) = tokio::join!(
        crate::resources::cluster_facts::eks_cluster(client, &name),
        client.addon(&name, OBSERVABILITY_ADDON)
    );
    let addon = match addon {
        Ok(addon) => Fact::Known(addon.map(|a| Addon {
            name: a.name,
            version: a.version,
            status: a.status,
        })),
        Err(err) => Fact::unreadable(&format!("the {OBSERVABILITY_ADDON} add-on"), &err),
    };
    (cluster, addon)
}

/// The HyperPod cluster as SageMaker in the provider's account and region sees it. A contract for another account
/// or region cannot be verified with these credentials: that is reported, not guessed.
async fn hyperpod_cluster(client: &HyperpodClient, contract: &Contract) -> Fact<Option<HyperPodCluster>> {
    let (account, region) = (client.account_id.as_str(), client.region.as_str());
    if contract.cluster.account_id != account || contract.cluster.region != region {
        return Fact::Unavailable(format!(
            "the provider's credentials are for account {account} in {region}, not the contract's capacity account \
             {} in {}; plan with a provider configured for the capacity account to verify the cluster",
            contract.cluster.account_id, contract.cluster.region
        ));
    }
    match client.cluster(&contract.cluster.name).await {
        Ok(cluster) => Fact::Known(Some(cluster)),
        Err(err) if err.is_not_found() => Fact::Known(None),
        Err(err) => Fact::unreadable("the HyperPod cluster", &err),
    }
}

fn cluster_fact(client: &HyperpodClient, hyperpod: Fact<Option<HyperPodCluster>>) -> Fact<Option<LiveCluster>> {
    match hyperpod {
        Fact::Known(Some(cluster)) => Fact::Known(Some(LiveCluster {
            arn: cluster.arn.clone(),
            account_id: client.account_id.as_str().to_string(),
            region: client.region.as_str().to_string(),
            orchestrator: match cluster.orchestrator {
                sagemaker::ClusterOrchestrator::Eks { .. } => Orchestrator::Eks,
                sagemaker::ClusterOrchestrator::Slurm => Orchestrator::Slurm,
            },
            instance_groups: cluster
                .instance_groups
                .iter()
                .map(|group| LiveInstanceGroup {
                    name: group.name.clone(),
                    capacity: Capacity {
                        instance_type: group.instance_type.clone(),
                        count: i64::from(group.current_count),
                        partition_layout: group.partition_layout().map(str::to_string),
                    },
                    execution_role: group.execution_role.clone(),
                })
                .collect(),
        })),
        Fact::Known(None) => Fact::Known(None),
        Fact::Unavailable(reason) => Fact::Unavailable(reason),
    }
}

async fn project_fact(client: &HyperpodClient, contract: &Contract) -> Fact<LiveProject> {
    let studio = &contract.unified_studio;
    crate::resources::project_facts::read(client, studio.domain_id.as_deref(), studio.project_id.as_deref())
        .await
        .project
}

async fn role_fact(client: &HyperpodClient, role_arn: Option<&str>) -> Fact<RolePermissions> {
    match role_arn {
        Some(role_arn) => crate::resources::project_facts::role_permissions(client, role_arn).await,
        None => Fact::Unavailable("the role is not known until apply".to_string()),
    }
}
