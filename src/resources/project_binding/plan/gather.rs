//! What the binding's plan reads, each once: the contract's cluster and what exists on it (`cluster_facts`, with the
//! tenants, task view restriction and allocation the binding references in HCL), the project and its tooling
//! environment, the project's HyperPod connections and memberships, and each member's DataZone profile. The other
//! projects on the cluster (the quotas' tags, other projects' connections) are read only when CLU-2 needs them (an
//! unrestricted project role).

use futures::StreamExt as _;
use futures::future::{BoxFuture, FutureExt as _};

use super::super::model::{BindingConfig, RecordedBinding};
use super::super::schema::BindingModel;
use crate::aws::AwsError;
use crate::aws::datazone_connections::{Connection, Membership};
use crate::aws::sagemaker::{ClusterOrchestrator, HyperPodCluster};
use crate::client::HyperpodClient;
use crate::governance::{ClusterView, Contract, Member, MemberKind, Phase, ProjectOnCluster};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::value::Value;
use crate::resources::cluster_facts::{self, CONCURRENT_READS, ClusterFacts, ClusterReads};
use crate::resources::project_facts::{self, ProjectFacts};
use crate::resources::references;

/// Everything the binding's judge and predict read, as one value a test can build by hand.
pub struct BindingPlanInputs {
    pub config: BindingConfig,
    pub contract: Contract,
    /// The domain the connection lives in: the binding's own, else the contract's.
    pub domain_id: String,
    pub cluster: BindingCluster,
    /// The engine's view of the cluster: what exists on it, the tenants, restriction and allocation the binding
    /// references, and the other projects connected to it.
    pub view: ClusterView,
    pub project: ProjectFacts,
    /// This project's HyperPod connections to the cluster (none when they could not be listed).
    pub connections: Vec<Connection>,
    /// The project's memberships; `None` when they could not be read.
    pub memberships: Option<Vec<Membership>>,
    /// Each member's DataZone profile ID, in the order of `config.members`.
    pub profiles: Vec<Result<String, AwsError>>,
    /// Why a listing of the domain's HyperPod connections failed, one per listing (the plan warns).
    pub unlisted: Vec<String>,
    /// What the state recorded; `None` on create.
    pub prior: Option<RecordedBinding>,
    pub today: time::Date,
    /// The provider's `strict`.
    pub strict: bool,
}

/// The contract's cluster, as the connection will name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingCluster {
    pub arn: String,
    pub name: String,
    /// `EKS` or `SLURM`, as DataZone writes it.
    pub orchestrator: &'static str,
}

impl BindingCluster {
    fn of(cluster: &HyperPodCluster) -> Self {
        Self {
            arn: cluster.arn.clone(),
            name: cluster.name.clone(),
            orchestrator: match cluster.orchestrator {
                ClusterOrchestrator::Eks { .. } => "EKS",
                ClusterOrchestrator::Slurm => "SLURM",
            },
        }
    }
}

/// Reads the plan's inputs. `value` is the arguments (the write-only handoffs included), `known` the contract and
/// configuration decoded from them, `prior` the state. A domain that disagrees with the contract's, or a cluster that
/// does not exist where the contract says, fails here, before anything else is read.
pub async fn gather(
    client: &HyperpodClient,
    value: &Value,
    known: (Contract, BindingConfig),
    prior: Option<&Value>,
    phase: Phase,
) -> Result<BindingPlanInputs, Diagnostics> {
    let (contract, config) = known;
    let domain_id = config.domain_in(&contract)?;
    let found = cluster_facts::find_contract_cluster(client, &contract).await?;
    let cluster = BindingCluster::of(&found);
    // CLU-2 asks whether this project's role is restricted: only its access entry is read.
    let project_role: Vec<&str> = contract.project_role_arn.as_deref().into_iter().collect();
    let (facts, project, own_connections, memberships, profiles) = tokio::join!(
        cluster_facts::gather(client, found, ClusterReads::Capacity, &project_role),
        project_facts::read(client, Some(&domain_id), Some(&config.project_id)),
        client.hyperpod_connections(&domain_id, Some(&config.project_id)),
        client.project_memberships(&domain_id, &config.project_id),
        profile_ids(client, &domain_id, &config.members),
    );
    let mut unlisted = Vec::new();
    let connections = match own_connections {
        Ok(all) => on_cluster(all, &cluster.name),
        Err(err) => {
            unlisted.push(err.to_string());
            Vec::new()
        }
    };
    let scope = ViewScope {
        value,
        contract: &contract,
        domain_id: &domain_id,
        project_id: &config.project_id,
        cluster_name: &cluster.name,
        phase,
    };
    let view = connected_view(client, &scope, &facts, &mut unlisted).await;
    Ok(BindingPlanInputs {
        prior: prior.map(RecordedBinding::decode),
        today: crate::resources::checklist::today(),
        strict: client.strict,
        memberships: memberships.ok(),
        config,
        contract,
        domain_id,
        cluster,
        view,
        project,
        connections,
        profiles,
        unlisted,
    })
}

/// What the engine's view of the cluster is built from, beside the live facts.
struct ViewScope<'a> {
    value: &'a Value,
    contract: &'a Contract,
    domain_id: &'a str,
    project_id: &'a str,
    cluster_name: &'a str,
    phase: Phase,
}

/// The engine's view of the cluster. Other projects on the cluster matter only to CLU-2 for an unrestricted project
/// role: only then are the quotas' tags and the domain's whole connection list read (a failed listing is noted in
/// `unlisted`).
async fn connected_view(
    client: &HyperpodClient,
    scope: &ViewScope<'_>,
    facts: &ClusterFacts,
    unlisted: &mut Vec<String>,
) -> ClusterView {
    let view = view_of(scope, facts, &[]);
    let restricted = scope
        .contract
        .project_role_arn
        .as_deref()
        .is_some_and(|role| crate::governance::cluster::restriction_for(&view, role).0);
    if restricted {
        return view;
    }
    let (tagged, all) = tokio::join!(
        cluster_facts::tagged_projects(client, &facts.cluster),
        client.hyperpod_connections(scope.domain_id, None)
    );
    let facts = ClusterFacts {
        projects: tagged,
        ..facts.clone()
    };
    match all {
        Ok(all) => {
            let connected = other_projects(client, &on_cluster(all, scope.cluster_name), scope.project_id).await;
            view_of(scope, &facts, &connected)
        }
        Err(err) => {
            unlisted.push(err.to_string());
            view_of(scope, &facts, &[])
        }
    }
}

/// The tenants and the restriction the binding references, and what exists: never what else this provider process
/// happens to have planned (that would make the verdict depend on planning order).
fn view_of(scope: &ViewScope<'_>, facts: &ClusterFacts, connected: &[ProjectOnCluster]) -> ClusterView {
    let mut view = crate::resources::cluster_view::view(
        facts,
        references::tenants(scope.value, BindingModel::TENANTS.name()),
        references::restriction(scope.value, BindingModel::TASK_VIEW_RESTRICTION.name()),
        None,
        connected,
    );
    view.allocation = references::allocation(scope.value, BindingModel::ALLOCATION.name());
    view.phase = scope.phase;
    view
}

/// The connections to cluster `cluster_name`.
fn on_cluster(all: Vec<Connection>, cluster_name: &str) -> Vec<Connection> {
    all.into_iter()
        .filter(|c| c.cluster_name.as_deref() == Some(cluster_name))
        .collect()
}

/// Other projects' HyperPod connections to the cluster, with the role each is used with (for CLU-2). A role that
/// cannot be read stays unknown, which CLU-2 reports as such.
async fn other_projects(
    client: &HyperpodClient,
    connections: &[Connection],
    own_project: &str,
) -> Vec<ProjectOnCluster> {
    let mut others: Vec<(&Connection, String)> = Vec::new();
    for connection in connections {
        match &connection.project_id {
            Some(project_id) if project_id != own_project && !others.iter().any(|(_, p)| p == project_id) => {
                others.push((connection, project_id.clone()));
            }
            _ => {}
        }
    }
    // Boxed and collected first: a lazy iterator of async blocks is not provably Send across the await.
    let reads: Vec<BoxFuture<'_, ProjectOnCluster>> = others
        .into_iter()
        .map(|(connection, project_id)| {
            async move {
                let role = client
                    .connection(&connection.domain_id, &connection.id)
                    .await
                    .ok()
                    .and_then(|found| found.environment_user_role);
                ProjectOnCluster {
                    project_id,
                    project_role_arn: role,
                }
            }
            .boxed()
        })
        .collect();
    futures::stream::iter(reads).buffered(CONCURRENT_READS).collect().await
}

/// The profile ID a member's name (as the user wrote it: a name, an IAM ARN or an ID) resolves to in the domain;
/// `NotFound` when it names no user or group profile.
pub async fn profile_id(client: &HyperpodClient, domain_id: &str, member: &Member) -> Result<String, AwsError> {
    match member.kind {
        MemberKind::User => client.user_profile_id(domain_id, &member.name).await,
        MemberKind::Group => client.group_profile_id(domain_id, &member.name).await,
    }
}

/// Every member's profile ID, resolved concurrently, in order.
pub async fn profile_ids(
    client: &HyperpodClient,
    domain_id: &str,
    members: &[Member],
) -> Vec<Result<String, AwsError>> {
    futures::future::join_all(members.iter().map(|member| profile_id(client, domain_id, member))).await
}
