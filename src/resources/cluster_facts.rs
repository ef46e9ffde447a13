//! What the workload resources (tenant, project binding, task view restriction) read about their cluster at plan
//! time: the cluster (instance groups, orchestrator), every team's compute quota (WKL-3, WKL-5; through their tags
//! the projects on the cluster, read only when CLU-2 needs them), the cluster policy (WKL-4, WKL-6) and the EKS
//! access entries (cluster-admin principals for CLU-6, task view restrictions for CLU-2, CLU-3); and the live quotas
//! in the engine's terms. `cluster_view` joins them with what the resource references in HCL into the engine's
//! `ClusterView`.

use futures::future::{BoxFuture, FutureExt as _};
use futures::{StreamExt as _, TryStreamExt as _};

use crate::aws::AwsError;
use crate::aws::compute_quota::ComputeQuota;
use crate::aws::sagemaker::HyperPodCluster;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::arns::same_role;
use crate::governance::cluster::{TASK_GOVERNANCE_ADDON, clu_10};
use crate::governance::{
    AccessEntry, Addon, AssociatedPolicy, Check, Contract, EksCluster, Fact, ProjectOnCluster, SchedulingPolicy,
    Sharing, TenantCapacity,
};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::resources::governance_objects::{ContractArgument, ContractGovernance};

/// Reads of one cluster in flight at once: fast on a large cluster, well inside the SDK's retry budget when throttled.
pub const CONCURRENT_READS: usize = 8;

#[derive(Clone, Debug)]
pub struct ClusterFacts {
    pub cluster: HyperPodCluster,
    /// Every team's live compute quota, as the cross-resource rules see it.
    pub tenants: Fact<Vec<TenantCapacity>>,
    /// The projects the quotas' tags name (CLU-2): read by `tagged_projects` for a binding whose project role has
    /// no task view restriction, never by `gather` (one tag read per quota on the cluster).
    pub projects: Fact<Vec<ProjectOnCluster>>,
    pub scheduling_policy: Fact<Option<SchedulingPolicy>>,
    pub access_entries: Fact<Vec<AccessEntry>>,
}

/// What a resource's rules read of its cluster; what it does not need is not read (and is `Unavailable`, so a rule
/// that did use it would report "not checked", never pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterReads {
    /// The quotas, the scheduling policy and the access entries: a tenant (WKL-3..6, CLU-6) and a binding (CLU-2,
    /// WKL-1; the projects behind the quotas only when CLU-2 asks, `tagged_projects`).
    Capacity,
    /// The access entries alone: a task view restriction (CLU-3).
    AccessEntries,
}

/// EKS cluster `name`'s access settings, for CLU-4 (authentication mode) and CLU-5 (endpoint exposure).
pub async fn eks_cluster(client: &HyperpodClient, name: &str) -> Fact<EksCluster> {
    match client.eks_cluster(name).await {
        Ok(found) => Fact::Known(EksCluster {
            authentication_mode: found.authentication_mode.unwrap_or_else(|| "CONFIG_MAP".to_string()),
            endpoint_public: found.endpoint_public,
            endpoint_private: found.endpoint_private,
            public_cidrs: found.public_access_cidrs,
            version: found.version,
        }),
        Err(err) => Fact::unreadable(&format!("EKS cluster {name}"), &err),
    }
}

/// The argument a governed resource takes its contract by.
pub fn contract_path() -> AttributePath {
    ContractArgument::CONTRACT.path()
}

/// Finds the contract's cluster; a cluster that does not exist where the contract says is refused.
pub async fn find_contract_cluster(
    client: &HyperpodClient,
    contract: &Contract,
) -> Result<HyperPodCluster, Diagnostics> {
    let wanted = &contract.cluster;
    let (account, region) = (client.account_id.as_str(), client.region.as_str());
    if wanted.account_id != account || wanted.region != region {
        return Err(Diagnostic::invalid_value(
            contract_path().push_attr(ContractGovernance::CLUSTER_ACCOUNT_ID.name()),
            format!("{} in {}", wanted.account_id, wanted.region),
            &format!("the provider is configured for account {account} in {region}"),
            "plan tenants with a provider configured for the contract's capacity account and region",
        )
        .into());
    }
    client.cluster(&wanted.name).await.map_err(|err| {
        if err.is_not_found() {
            Diagnostics::from(Diagnostic::invalid_value(
                contract_path().push_attr(ContractGovernance::CLUSTER_NAME.name()),
                format!("{:?}", wanted.name),
                &format!("no HyperPod cluster of that name exists in account {account} region {region}"),
                "fix the contract's cluster, or create the cluster first",
            ))
        } else {
            err.diagnostics(contract_path(), "Cannot read the HyperPod cluster")
        }
    })
}

/// The task-governance add-on of an EKS-orchestrated cluster, as read for CLU-10 (one `eks:DescribeAddon`, shared
/// per provider process).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskGovernanceAddon {
    pub eks_cluster: String,
    pub addon: Fact<Option<Addon>>,
}

/// The task-governance add-on of `cluster`; `None` for a Slurm cluster, which has no task governance.
pub async fn task_governance_addon(client: &HyperpodClient, cluster: &HyperPodCluster) -> Option<TaskGovernanceAddon> {
    let eks_cluster = cluster.eks_cluster_name()?;
    let addon = match client.addon(&eks_cluster, TASK_GOVERNANCE_ADDON).await {
        Ok(addon) => Fact::Known(addon.map(|a| Addon {
            name: a.name,
            version: a.version,
            status: a.status,
        })),
        Err(err) => Fact::unreadable(&format!("the {TASK_GOVERNANCE_ADDON} add-on"), &err),
    };
    Some(TaskGovernanceAddon { eks_cluster, addon })
}

/// CLU-10 for a resource that puts compute quotas or a scheduler config on `cluster`, judged at `at`. `None` for a
/// Slurm cluster.
pub async fn task_governance(client: &HyperpodClient, cluster: &HyperPodCluster, at: AttributePath) -> Option<Check> {
    let read = task_governance_addon(client, cluster).await?;
    Some(clu_10(&read.addon, &read.eks_cluster, at))
}

/// The cluster's facts a resource's rules read. Of the access entries only those of `principals` (the roles the
/// resource's rules are about: a tenant's workload roles, a restriction's or binding's project role) are read with
/// their policies, so a resource's cost does not grow with the number of teams on the cluster.
pub async fn gather(
    client: &HyperpodClient,
    cluster: HyperPodCluster,
    needs: ClusterReads,
    principals: &[&str],
) -> ClusterFacts {
    let Some(eks_name) = cluster.eks_cluster_name() else {
        // Slurm: no compute quotas, no cluster policy, no access entries; the rules that need them do not apply.
        return ClusterFacts {
            cluster,
            tenants: Fact::Known(Vec::new()),
            projects: Fact::Known(Vec::new()),
            scheduling_policy: Fact::Known(None),
            access_entries: Fact::Known(Vec::new()),
        };
    };
    fn not_read<T>() -> Fact<T> {
        Fact::Unavailable("not read for this resource".to_string())
    }
    let (tenants, policy, entries) = tokio::join!(
        async {
            match needs {
                ClusterReads::AccessEntries => not_read(),
                ClusterReads::Capacity => live_tenants(client, &cluster.arn).await,
            }
        },
        async {
            match needs {
                ClusterReads::AccessEntries => not_read(),
                ClusterReads::Capacity => live_policy(client, &cluster.arn).await,
            }
        },
        live_access_entries(client, &eks_name, principals),
    );
    ClusterFacts {
        cluster,
        tenants,
        projects: not_read(),
        scheduling_policy: policy,
        access_entries: entries,
    }
}

async fn live_tenants(client: &HyperpodClient, cluster_arn: &str) -> Fact<Vec<TenantCapacity>> {
    match client.compute_quotas(cluster_arn).await {
        Ok(quotas) => Fact::Known(quotas.iter().map(capacity_of).collect()),
        Err(err) => Fact::unreadable("the cluster's compute quotas", &err),
    }
}

/// The projects on the cluster by the tags this provider writes on each compute quota (CLU-2 for a project role
/// without a task view restriction): one tag read per quota, shared by the run. Foreign quotas have no such tags,
/// nor has a quota deleted while listing; any other failure leaves the projects unknown, not empty.
pub async fn tagged_projects(client: &HyperpodClient, cluster: &HyperPodCluster) -> Fact<Vec<ProjectOnCluster>> {
    if cluster.eks_cluster_name().is_none() {
        return Fact::Known(Vec::new()); // Slurm: no compute quotas
    }
    let quotas = match client.compute_quotas(&cluster.arn).await {
        Ok(quotas) => quotas,
        Err(err) => return Fact::unreadable("the cluster's compute quotas", &err),
    };
    // Boxed and collected first: a lazy iterator of async blocks is not provably Send across the await.
    let reads: Vec<BoxFuture<'_, Result<Option<ProjectOnCluster>, AwsError>>> = quotas
        .iter()
        .map(|quota| {
            async move {
                let tags = match client.quota_tags(&quota.arn).await {
                    Ok(tags) => tags,
                    Err(err) if err.is_not_found() => std::collections::BTreeMap::default(),
                    Err(err) => return Err(err),
                };
                Ok(tags.get(crate::tags::PROJECT).map(|project_id| ProjectOnCluster {
                    project_id: project_id.clone(),
                    project_role_arn: tags.get(crate::tags::PROJECT_ROLE).cloned(),
                }))
            }
            .boxed()
        })
        .collect();
    match futures::stream::iter(reads)
        .buffered(CONCURRENT_READS)
        .try_collect::<Vec<_>>()
        .await
    {
        Ok(projects) => Fact::Known(projects.into_iter().flatten().collect()),
        Err(err) => Fact::unreadable("the compute quotas' tags", &err),
    }
}

async fn live_policy(client: &HyperpodClient, cluster_arn: &str) -> Fact<Option<SchedulingPolicy>> {
    let read = async {
        let Some(config) = client.cluster_scheduler_config(cluster_arn).await? else {
            return Ok(None);
        };
        Ok::<_, AwsError>(Some(SchedulingPolicy {
            priority_classes: config.priority_classes.into_iter().map(|class| class.name).collect(),
            fair_share: config.fair_share.unwrap_or(true),
        }))
    };
    match read.await {
        Ok(policy) => Fact::Known(policy),
        Err(err) => Fact::unreadable("the cluster's scheduling policy", &err),
    }
}

/// The access entries of `principals` with their policies. Only the policies are needed (scopes for CLU-2/CLU-3,
/// cluster-admin policies for CLU-6), so each principal costs one `ListAssociatedAccessPolicies` (which answers
/// not-found when it has no entry), and the cluster's entries are never listed.
async fn live_access_entries(client: &HyperpodClient, eks_name: &str, principals: &[&str]) -> Fact<Vec<AccessEntry>> {
    let read = async {
        let mut unique: Vec<String> = Vec::new();
        for principal in principals {
            if !unique.iter().any(|seen| same_role(seen, principal)) {
                unique.push(principal.to_string());
            }
        }
        let principals = unique;
        // Collected first, and boxed: a lazy iterator of async blocks is not provably Send across the await.
        let reads: Vec<BoxFuture<'_, Result<Option<AccessEntry>, AwsError>>> = principals
            .into_iter()
            .map(|principal| {
                async move {
                    match client.access_policies(eks_name, &principal).await {
                        Ok(None) => Ok(None),
                        Ok(Some(policies)) => Ok(Some(AccessEntry {
                            principal_arn: principal,
                            policies: policies
                                .into_iter()
                                .map(|policy| AssociatedPolicy {
                                    policy_arn: policy.policy_arn,
                                    scope: policy.scope,
                                })
                                .collect(),
                        })),
                        Err(err) => Err(err),
                    }
                }
                .boxed()
            })
            .collect();
        let entries: Vec<Option<AccessEntry>> = futures::stream::iter(reads)
            .buffered(CONCURRENT_READS)
            .try_collect()
            .await?;
        Ok::<_, AwsError>(entries.into_iter().flatten().collect())
    };
    match read.await {
        Ok(entries) => Fact::Known(entries),
        Err(err) => Fact::unreadable("the EKS access entries", &err),
    }
}

/// A HyperPod cluster by the name a resource's `cluster_name` gives (the run's shared read); one that does not exist
/// is an error at `at` naming the provider's account and region.
pub async fn cluster_named(
    client: &HyperpodClient,
    name: &str,
    at: AttributePath,
) -> Result<HyperPodCluster, Diagnostics> {
    client.cluster(name).await.map_err(|err| match err {
        AwsError::NotFound { .. } => Diagnostics::from(Diagnostic::invalid_value(
            at,
            format!("{name:?}"),
            &format!(
                "no HyperPod cluster of that name exists in account {} region {}",
                client.account_id,
                client.region.as_str()
            ),
            "check the name (`aws sagemaker list-clusters`), or the provider's account and region",
        )),
        other => other.diagnostics(at, "Cannot read the HyperPod cluster"),
    })
}

pub fn capacity_of(quota: &ComputeQuota) -> TenantCapacity {
    TenantCapacity {
        team: quota.team_name.clone(),
        // Every entry in the units SageMaker returns (it fills vCPU and memory of a one-amount entry), so WKL-3
        // counts a quota given in accelerators as much as one in instances.
        quota: quota.resources.clone(),
        sharing: quota.sharing_strategy.map(|strategy| Sharing {
            strategy,
            borrow_limit: quota.borrow_limit.map(i64::from),
            absolute_borrow_limits: quota.absolute_borrow_limits.clone(),
        }),
    }
}
