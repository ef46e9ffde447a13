//! What the restriction's plan reads, once: the configuration (the contract it passes, the restriction with the
//! contract's defaults, the tenants it references), the contract's cluster, and what the rules need of it: on EKS the
//! project role's access entry, the EKS cluster's settings and, in rbac mode, the namespaces no referenced tenant
//! creates; on Slurm Session Manager's preferences and the project role's permissions. After the verdict, the access
//! entry's owner tag where adoption depends on it (`entry_adopted`).

use super::super::model::{
    OWNER_TAG, RestrictionConfig, contract_problem, grants_known, restriction_id, with_contract, without_unknown_grants,
};
use super::super::schema::RestrictionModel;
use super::order::{NamespaceCheck, RestrictionTenants, namespace_check};
use crate::aws::sagemaker::HyperPodCluster;
use crate::aws::ssm;
use crate::client::HyperpodClient;
use crate::component::Component;
use crate::governance::cluster_slurm::SessionPreferences;
use crate::governance::{Contract, Fact, Orchestrator, RestrictionFacts};
use crate::kubernetes::{KubeClient, KubeError, find_namespace};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::value::Value;
use crate::resources::cluster_facts::{self, ClusterReads};
use crate::resources::kubernetes_reads::kube_client;
use crate::resources::recorded_components;
use crate::resources::{checklist, project_facts};

/// Everything the restriction's judge and predict read, as one value a test can build by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionPlanInputs {
    pub contract: Contract,
    /// The restriction with the contract's defaults; a grant (`mode`, `access_policies`, `space_templates`) not
    /// known yet as if unset: no rule reads them, and what they decide is planned unknown.
    pub config: RestrictionConfig,
    pub mode_known: bool,
    pub grants_known: bool,
    pub tenants: RestrictionTenants,
    pub cluster: RestrictionCluster,
    /// `None` when the cluster is not orchestrated as the contract says (CLU-1 fails, nothing more is read).
    pub live: Option<RestrictionLiveFacts>,
    /// The provider's partition, in the policies' ARNs.
    pub partition: String,
    pub today: time::Date,
}

/// The contract's cluster, as found.
#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionCluster {
    pub name: String,
    pub arn: String,
    /// `None` on Slurm.
    pub eks_name: Option<String>,
}

impl RestrictionCluster {
    pub fn orchestrator(&self) -> Orchestrator {
        if self.eks_name.is_some() {
            Orchestrator::Eks
        } else {
            Orchestrator::Slurm
        }
    }
}

/// What the rules read of the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionLiveFacts {
    pub facts: RestrictionFacts,
    /// rbac mode: the namespaces no referenced tenant creates that the cluster does not have, or why they could
    /// not be read; `None` when none needed reading.
    pub absent_namespaces: Option<Result<Vec<String>, String>>,
}

/// The plan's inputs; `Ok(None)` while the contract or the restriction's own inputs are unknown (the rules are
/// deferred then, and nothing is read).
pub async fn gather(
    client: &HyperpodClient,
    restriction: &RestrictionModel,
) -> Result<Option<RestrictionPlanInputs>, Diagnostics> {
    if let Some(problem) = contract_problem(restriction) {
        return Err(problem.into());
    }
    let Some((contract, config)) = with_contract(&without_unknown_grants(restriction)) else {
        return Ok(None);
    };
    let found = cluster_facts::find_contract_cluster(client, &contract).await?;
    let cluster = RestrictionCluster {
        name: found.name.clone(),
        arn: found.arn.clone(),
        eks_name: found.eks_cluster_name(),
    };
    let mut inputs = RestrictionPlanInputs {
        contract,
        config,
        mode_known: !restriction.mode.is_unknown(),
        grants_known: grants_known(restriction),
        tenants: RestrictionTenants::decode(&restriction.tenants),
        cluster,
        live: None,
        partition: client.region.partition().to_string(),
        today: checklist::today(),
    };
    if inputs.cluster.orchestrator() == inputs.contract.cluster.orchestrator {
        inputs.live = Some(live_facts(client, found, &inputs).await);
    }
    Ok(Some(inputs))
}

async fn live_facts(
    client: &HyperpodClient,
    found: HyperPodCluster,
    inputs: &RestrictionPlanInputs,
) -> RestrictionLiveFacts {
    let role = inputs.config.project_role_arn.as_str();
    let read = cluster_facts::gather(client, found, ClusterReads::AccessEntries, &[role]).await;
    let Some(eks_name) = &inputs.cluster.eks_name else {
        let preferences = match ssm::find_run_as_enabled(&client.ssm).await {
            Ok(run_as_enabled) => Fact::Known(SessionPreferences { run_as_enabled }),
            Err(err) => Fact::unreadable("Session Manager preferences", &err),
        };
        let facts = RestrictionFacts::Slurm {
            preferences,
            project_role: project_facts::role_permissions(client, role).await,
            cluster_arn: inputs.cluster.arn.clone(),
        };
        return RestrictionLiveFacts {
            facts,
            absent_namespaces: None,
        };
    };
    let facts = RestrictionFacts::Eks {
        entries: read.access_entries,
        eks: cluster_facts::eks_cluster(client, eks_name).await,
    };
    let config = &inputs.config;
    let absent_namespaces = match namespace_check(config, inputs.mode_known, &inputs.tenants, &inputs.cluster.name) {
        NamespaceCheck::Read(wanted) => Some(absent_in_cluster(client, eks_name, &wanted).await),
        _ => None,
    };
    RestrictionLiveFacts {
        facts,
        absent_namespaces,
    }
}

/// The namespaces among `wanted` that the cluster does not have, or why they could not be read.
async fn absent_in_cluster(
    client: &HyperpodClient,
    eks_cluster: &str,
    wanted: &[String],
) -> Result<Vec<String>, String> {
    let kube = kube_client(client, eks_cluster).await?;
    absent_namespaces(&kube, wanted).await.map_err(|err| err.to_string())
}

/// The namespaces among `wanted` that the cluster does not have (one read each). Apply checks again with it before
/// its first write.
pub async fn absent_namespaces(kube: &KubeClient, wanted: &[String]) -> Result<Vec<String>, KubeError> {
    let mut out = Vec::new();
    for namespace in wanted {
        if find_namespace(kube, namespace).await?.is_none() {
            out.push(namespace.clone());
        }
    }
    Ok(out)
}

/// Whether the access entry is adopted (someone else's: destroy leaves it), as apply will decide it; `None` when
/// the plan cannot tell (an unreadable entry). Ours: recorded in state, absent (apply creates it), or, on create,
/// carrying this restriction's ownership tag (made by an earlier apply that was killed or failed before its state
/// was saved). An entry of an existing restriction that is not recorded stays adopted (an import counts as adopted).
/// Read after the verdict: only a restriction the rules admit is planned. Slurm has no entry: adopted.
pub async fn entry_adopted(
    client: &HyperpodClient,
    inputs: &RestrictionPlanInputs,
    prior: Option<&Value>,
) -> Option<bool> {
    let Some(eks_cluster) = &inputs.cluster.eks_name else {
        return Some(true);
    };
    if prior
        .is_some_and(|p| recorded_components(RestrictionModel::COMPONENTS, p).contains(&Component::ProjectAccessEntry))
    {
        return Some(false);
    }
    let principal = &inputs.config.project_role_arn;
    let entries = match inputs.live.as_ref().map(|live| &live.facts) {
        Some(RestrictionFacts::Eks { entries, .. }) => entries.known()?,
        _ => return None,
    };
    if !entries.iter().any(|e| &e.principal_arn == principal) {
        return Some(false);
    }
    if prior.is_some() {
        return Some(true);
    }
    let entry = client.access_entry(eks_cluster, principal).await.ok()?;
    let owner = restriction_id(&inputs.cluster.name, principal);
    Some(entry.tags.get(OWNER_TAG).map(String::as_str) != Some(owner.as_str()))
}
