//! Apply for EKS tenants: one reconciler for create and update. Each step brings one kind of object to what the plan
//! says and records it in `components` as soon as it exists, so a failure at any step leaves state that names
//! exactly what was made: the next apply resumes from it (update) or removes it (a tainted create is replaced), and
//! destroy removes what `components` names and nothing else. Identity and access come before scheduling, as the
//! governance model orders them; the order is the order of `Composer::reconcile`. The
//! Kubernetes, Pod Identity, access-entry and KMS steps are in `compose_access.rs`; what is wanted, in `desired.rs`.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use futures::future::join_all;
use std::time::Duration;

use super::compose_access::delete_manifest;
use super::desired::{
    POD_IDENTITY, QUOTA, ROLE, entry_principal, policy_component, quota_id, quota_matches, quota_spec, role_policies,
    trust_policy,
};
use super::keep;
use super::model::TenantSpec;
use crate::aws::ErrorCode;
use crate::aws::compute_quota::{self as cq, QuotaSpec};
use crate::aws::eks_access as access;
use crate::aws::{eks, iam, kms, target_version};
use crate::client::HyperpodClient;
use crate::kubernetes::{KubeClient, KubeError, namespaces};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::resource::OperationContext;
pub use crate::resources::kubernetes_reads::kube_client;

/// How long a just-created IAM role may take to be usable by EKS and KMS.
pub(super) const PROPAGATION: Duration = Duration::from_mins(2);
const QUOTA_UPDATE_ATTEMPTS: usize = 3;

/// Everything apply needs, resolved from the planned value.
pub struct Target {
    pub spec: TenantSpec,
    pub cluster_name: String,
    pub cluster_arn: String,
    pub eks_cluster_name: String,
    pub role_name: String,
    pub role_arn: String,
    pub tags: BTreeMap<String, String>,
    pub partition: String,
    pub timeout: Duration,
}

/// The reconciler: `components` starts as what exists (empty on create) and grows as steps succeed.
pub struct Composer<'a> {
    pub client: &'a HyperpodClient,
    pub context: &'a OperationContext,
    pub target: &'a Target,
    pub components: Recorded,
    pub quota_arn: Option<String>,
}

/// The components that exist, written by steps that run at once: each records its object the moment it exists.
#[derive(Default)]
pub struct Recorded(Mutex<BTreeMap<String, String>>);

impl Recorded {
    pub fn new(components: BTreeMap<String, String>) -> Self {
        Self(Mutex::new(components))
    }

    fn locked(&self) -> MutexGuard<'_, BTreeMap<String, String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn get(&self, component: &str) -> Option<String> {
        self.locked().get(component).cloned()
    }

    pub fn contains_key(&self, component: &str) -> bool {
        self.locked().contains_key(component)
    }

    pub fn is_empty(&self) -> bool {
        self.locked().is_empty()
    }

    pub fn insert(&self, component: String, id: String) {
        self.locked().insert(component, id);
    }

    pub fn remove(&self, component: &str) {
        self.locked().remove(component);
    }

    pub fn retain(&self, keep: impl Fn(&str) -> bool) {
        self.locked().retain(|component, _| keep(component));
    }

    /// The components whose names start with `prefix`, with their ids.
    pub fn with_prefix(&self, prefix: &str) -> Vec<(String, String)> {
        self.locked()
            .iter()
            .filter(|(component, _)| component.starts_with(prefix))
            .map(|(component, id)| (component.clone(), id.clone()))
            .collect()
    }

    pub fn snapshot(&self) -> BTreeMap<String, String> {
        self.locked().clone()
    }
}

/// The first failure of steps that ran at once (each has recorded what it made).
pub(super) fn first_failure(results: impl IntoIterator<Item = Result<(), Diagnostics>>) -> Result<(), Diagnostics> {
    let mut failures = Diagnostics::new();
    for result in results {
        if let Err(diagnostics) = result {
            failures.extend(diagnostics);
        }
    }
    if failures.has_errors() { Err(failures) } else { Ok(()) }
}

pub(super) use crate::resources::failed;

pub(super) fn kube_failed(summary: &str, err: KubeError) -> Diagnostics {
    failed(summary, err)
}

impl Composer<'_> {
    pub(super) fn tagged_as_ours(&self, tags: &BTreeMap<String, String>) -> bool {
        crate::tags::is_tenants_own(tags, &self.target.cluster_name, &self.target.spec.team)
    }

    /// Runs the steps in order: the compute quota (the capacity claim), the role and its policies, then four steps
    /// independent of each other that run at once, every one to its end (a step cut short could leave an object it
    /// made unrecorded).
    pub async fn reconcile(&mut self) -> Result<(), Diagnostics> {
        // The quota first: it is the claim on shared capacity (`claim.rs`), so a tenant that does not fit fails
        // before anything else of it exists.
        self.refuse_foreign_role().await?;
        self.ensure_quota().await?;
        self.ensure_role().await?;
        self.ensure_role_policies().await?;
        let (manifests, pod_identity, access_entries, grants) = tokio::join!(
            self.ensure_manifests(),
            self.ensure_pod_identity(),
            self.ensure_access_entries(),
            self.ensure_grants(),
        );
        first_failure([manifests, pod_identity, access_entries, grants])
    }

    /// Before the first write of a create: a role of the workload role's name that is not this tenant's fails the
    /// apply now, before the quota claims capacity, so nothing of the tenant is left to clean up.
    async fn refuse_foreign_role(&self) -> Result<(), Diagnostics> {
        if self.components.contains_key(ROLE) {
            return Ok(());
        }
        match iam::find_role(&self.client.iam, &self.target.role_name).await {
            Ok(role) if !self.tagged_as_ours(&role.tags) => Err(foreign_role(&self.target.role_name).into()),
            Ok(_) => Ok(()),
            Err(err) if err.is_not_found() => Ok(()),
            Err(err) => Err(failed("Reading the tenant workload role failed", err)),
        }
    }

    async fn ensure_role(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        if self.components.contains_key(ROLE) {
            let role = match iam::find_role(&self.client.iam, &target.role_name).await {
                Ok(role) => Some(role),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading the tenant workload role failed", err)),
            };
            if let Some(role) = role {
                if role.tags != target.tags {
                    iam::set_role_tags(&self.client.iam, &target.role_name, &role.tags, &target.tags)
                        .await
                        .map_err(|err| failed("Tagging the tenant workload role failed", err))?;
                }
                return Ok(());
            }
            self.components.remove(ROLE);
        }
        let description = format!("hyperpod_tenant {} on {}", target.spec.team, target.cluster_name);
        let created = iam::create_role(
            &self.client.iam,
            &target.role_name,
            &trust_policy(),
            &description,
            &target.tags,
        )
        .await;
        match created {
            Ok(_) => {
                self.components.insert(ROLE.to_string(), target.role_name.clone());
                Ok(())
            }
            Err(err) if err.is(ErrorCode::EntityAlreadyExists) => {
                let role = iam::find_role(&self.client.iam, &target.role_name)
                    .await
                    .map_err(|err| failed("Reading the existing workload role failed", err))?;
                if !self.tagged_as_ours(&role.tags) {
                    return Err(foreign_role(&target.role_name).into());
                }
                // Ours from an earlier, interrupted apply: adopt it.
                self.components.insert(ROLE.to_string(), target.role_name.clone());
                Ok(())
            }
            Err(err) => Err(failed("Creating the tenant workload role failed", err)),
        }
    }

    async fn ensure_role_policies(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        let wanted = role_policies(&target.spec, &target.partition);
        for (name, document) in &wanted {
            iam::put_role_policy(&self.client.iam, &target.role_name, name, document)
                .await
                .map_err(|err| failed(&format!("Writing the workload role's {name} policy failed"), err))?;
            self.components.insert(policy_component(name), target.role_name.clone());
        }
        let stale: Vec<String> = self
            .components
            .with_prefix("iam_policy/")
            .into_iter()
            .filter_map(|(key, _)| key.strip_prefix("iam_policy/").map(str::to_string))
            .filter(|name| !wanted.contains_key(name))
            .collect();
        for name in stale {
            iam::delete_role_policy(&self.client.iam, &target.role_name, &name)
                .await
                .map_err(|err| failed(&format!("Removing the workload role's {name} policy failed"), err))?;
            self.components.remove(&policy_component(&name));
        }
        Ok(())
    }

    async fn ensure_quota(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        let wanted = quota_spec(&target.spec, &target.cluster_arn, &target.tags);
        let sm = &self.client.sagemaker;
        if let Some(id) = self.components.get(QUOTA).map(|value| quota_id(&value)) {
            match cq::find_compute_quota(sm, &id).await {
                Ok(live) => {
                    self.quota_arn = Some(live.arn.clone());
                    let kept = keep::keeping(wanted.clone(), &target.spec.left_to_live, &live);
                    // A write that ended `*Failed` is not in effect, whatever settings the quota reports.
                    if !quota_matches(&kept, &live) || live.status.ends_with("Failed") {
                        self.update_quota(&id, &wanted).await?;
                    }
                    self.components.insert(QUOTA.to_string(), id.clone());
                    // Read every time, not only when the tags argument changed: an imported quota made out of band
                    // lacks the tenant's marks (`hyperpod:tenant`, `hyperpod:cluster`, `hyperpod:contract`), and
                    // without them the inventory and the takeover check would not know the quota is governed.
                    let current = crate::aws::sagemaker::list_tags(sm, &live.arn)
                        .await
                        .map_err(|err| failed("Reading the compute quota's tags failed", err))?;
                    if current != target.tags {
                        crate::aws::sagemaker::update_tags(sm, &live.arn, &current, &target.tags)
                            .await
                            .map_err(|err| failed("Tagging the compute quota failed", err))?;
                    }
                    return self.wait_namespace().await;
                }
                Err(err) if err.is_not_found() => {
                    self.components.remove(QUOTA);
                }
                Err(err) => return Err(failed("Reading the compute quota failed", err)),
            }
        }
        let (id, arn) = match cq::create_compute_quota(sm, &wanted).await {
            Ok(created) => created,
            // A quota of this name or team exists: ours from an interrupted apply (adopt it), or someone else's.
            Err(err) if err.is(ErrorCode::ConflictException) => return self.adopt_quota(&wanted, err).await,
            Err(err) => {
                let refusal = failed("Creating the compute quota failed", err);
                return Err(super::claim::explain_refusal(self, refusal).await);
            }
        };
        self.components.insert(QUOTA.to_string(), id.clone());
        self.quota_arn = Some(arn);
        cq::wait_compute_quota_ready(sm, &id, target.timeout, &self.context.stop)
            .await
            .map_err(|err| failed("The compute quota did not become ready", err))?;
        super::claim::verify(self, &id).await?;
        self.wait_namespace().await
    }

    /// After a create conflict: the cluster's quota of this name or team, adopted when its tags name this tenant
    /// (an earlier apply created it and was killed before recording it), refused otherwise with its import ID.
    async fn adopt_quota(&mut self, wanted: &QuotaSpec, conflict: crate::aws::AwsError) -> Result<(), Diagnostics> {
        let sm = &self.client.sagemaker;
        let quotas = cq::list_compute_quotas(sm, &self.target.cluster_arn)
            .await
            .map_err(|err| failed("Listing the cluster's compute quotas failed", err))?;
        let Some(found) = quotas
            .into_iter()
            .find(|q| q.name == wanted.name || q.team_name == wanted.team_name)
        else {
            return Err(failed("Creating the compute quota failed", conflict));
        };
        let tags = crate::aws::sagemaker::list_tags(sm, &found.arn)
            .await
            .map_err(|err| failed("Reading the existing compute quota's tags failed", err))?;
        if !self.tagged_as_ours(&tags) {
            return Err(foreign_quota(&found, &self.target.cluster_name, &self.target.spec.team).into());
        }
        tracing::info!(id = %found.id, "adopting the tenant's compute quota from an interrupted apply");
        self.components.insert(QUOTA.to_string(), found.id.clone());
        self.quota_arn = Some(found.arn.clone());
        let live = cq::wait_compute_quota_ready(sm, &found.id, self.target.timeout, &self.context.stop)
            .await
            .map_err(|err| failed("The compute quota did not become ready", err))?;
        if !quota_matches(
            &keep::keeping(wanted.clone(), &self.target.spec.left_to_live, &live),
            &live,
        ) {
            self.update_quota(&found.id, wanted).await?;
        }
        if tags != self.target.tags {
            crate::aws::sagemaker::update_tags(sm, &found.arn, &tags, &self.target.tags)
                .await
                .map_err(|err| failed("Tagging the compute quota failed", err))?;
        }
        self.wait_namespace().await
    }

    /// Other teams' quota updates do not bump this quota's version, but a console edit or another pipeline does:
    /// re-read the version and retry.
    /// A conflict on an unchanged version is the other `TargetVersion` reading (`aws::target_version`): retried at
    /// once with it, from the version just re-read.
    async fn update_quota(&mut self, id: &str, wanted: &QuotaSpec) -> Result<(), Diagnostics> {
        let sm = &self.client.sagemaker;
        let mut reread = None;
        for attempt in 1..=QUOTA_UPDATE_ATTEMPTS {
            let mut live = match reread.take() {
                Some(live) => live,
                None => cq::find_compute_quota(sm, id)
                    .await
                    .map_err(|err| failed("Reading the compute quota failed", err))?,
            };
            if matches!(live.status.as_str(), "Creating" | "Updating") {
                live = match cq::wait_compute_quota_ready(sm, id, self.target.timeout, &self.context.stop).await {
                    Ok(settled) => settled,
                    Err(_) => cq::find_compute_quota(sm, id)
                        .await
                        .map_err(|err| failed("Reading the compute quota failed", err))?,
                };
            }
            let reading = target_version::LEARNED.reading();
            // What the configuration leaves unset is sent as the quota holds it now, so nothing set out of band is
            // erased by this write.
            let sent = keep::keeping(wanted.clone(), &self.target.spec.left_to_live, &live);
            match cq::update_compute_quota(sm, id, live.version, reading, &sent).await {
                Ok(_) => {
                    return cq::wait_compute_quota_ready(sm, id, self.target.timeout, &self.context.stop)
                        .await
                        .map(|_| ())
                        .map_err(|err| failed("The compute quota update did not complete", err));
                }
                Err(err) if err.is(ErrorCode::ConflictException) && attempt < QUOTA_UPDATE_ATTEMPTS => {
                    let now = cq::find_compute_quota(sm, id)
                        .await
                        .map_err(|err| failed("Reading the compute quota failed", err))?;
                    let (version, status) = (now.version, now.status.as_str());
                    target_version::after_conflict(
                        "compute quota",
                        id,
                        reading,
                        live.version,
                        version,
                        status,
                        attempt,
                    )
                    .await;
                    reread = Some(now);
                }
                Err(err) => {
                    let refusal = failed("Updating the compute quota failed", err);
                    return Err(super::claim::explain_refusal(self, refusal).await);
                }
            }
        }
        unreachable!("the last attempt returns")
    }

    pub(super) async fn kube(&self) -> Result<KubeClient, Diagnostics> {
        kube_client(self.client, &self.target.eks_cluster_name)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))
    }

    /// HyperPod creates `hyperpod-ns-<team>` with the quota; the tenant's objects go into it.
    async fn wait_namespace(&self) -> Result<(), Diagnostics> {
        let namespace = self.target.spec.namespace();
        namespaces::wait_namespace(&self.kube().await?, &namespace, self.target.timeout, &self.context.stop)
            .await
            .map(|_| ())
            .map_err(|err| kube_failed("The tenant namespace did not appear", err))
    }

    /// Destroy: every recorded component, in reverse order; objects already gone are fine. KMS grants, access
    /// entries and the Pod Identity association are independent and go at once.
    pub async fn remove_all(&self) -> Result<(), Diagnostics> {
        let eks_name = self.target.eks_cluster_name.clone();
        let namespace = self.target.spec.namespace();
        let recorded: Vec<(String, String)> = self.components.snapshot().into_iter().collect();
        let grants = recorded
            .iter()
            .filter(|(c, _)| c.starts_with("kms_grant/"))
            .map(|(component, id)| async move {
                let key = component.trim_start_matches("kms_grant/");
                kms::revoke_grant(&self.client.kms, key, id)
                    .await
                    .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                self.components.remove(component);
                Ok(())
            });
        let entries = recorded
            .iter()
            .filter(|(c, _)| c.starts_with("access_entry/"))
            .map(|(component, _)| {
                let eks_name = &eks_name;
                async move {
                    access::delete_access_entry(&self.client.eks, eks_name, entry_principal(component))
                        .await
                        .map_err(|err| failed("Deleting an access entry failed", err))?;
                    self.components.remove(component);
                    Ok(())
                }
            });
        let pod_identity = async {
            if let Some(id) = self.components.get(POD_IDENTITY) {
                access::delete_pod_identity_association(&self.client.eks, &eks_name, &id)
                    .await
                    .map_err(|err| failed("Deleting the Pod Identity association failed", err))?;
                self.components.remove(POD_IDENTITY);
            }
            Ok(())
        };
        let (grants, entries, pod_identity) = tokio::join!(join_all(grants), join_all(entries), pod_identity);
        first_failure(grants.into_iter().chain(entries).chain([pod_identity]))?;
        let mut kubernetes: Vec<&String> = recorded
            .iter()
            .map(|(c, _)| c)
            .filter(|c| c.starts_with("kubernetes/"))
            .collect();
        if !kubernetes.is_empty() {
            // Reverse of the apply order: network policies, bindings, roles, then the service account.
            kubernetes.sort_by_key(|c| delete_rank(c));
            match self.kube().await {
                Ok(kube) => {
                    for component in kubernetes {
                        delete_manifest(&kube, &namespace, component).await?;
                        self.components.remove(component);
                    }
                }
                // The EKS cluster is gone, and its objects with it.
                Err(_)
                    if eks::find_cluster(&self.client.eks, &eks_name)
                        .await
                        .is_err_and(|e| e.is_not_found()) => {}
                Err(diagnostics) => return Err(diagnostics),
            }
        }
        if let Some(id) = self.components.get(QUOTA).map(|value| quota_id(&value)) {
            cq::delete_compute_quota(&self.client.sagemaker, &id)
                .await
                .map_err(|err| failed("Deleting the compute quota failed", err))?;
            cq::wait_compute_quota_deleted(&self.client.sagemaker, &id, self.target.timeout, &self.context.stop)
                .await
                .map_err(|err| failed("The compute quota was not deleted", err))?;
            self.components.remove(QUOTA);
        }
        if self.components.contains_key(ROLE) {
            // delete_role removes the inline policies first.
            iam::delete_role(&self.client.iam, &self.target.role_name)
                .await
                .map_err(|err| failed("Deleting the tenant workload role failed", err))?;
            self.components.retain(|c| !c.starts_with("iam_"));
        }
        Ok(())
    }
}

fn delete_rank(component: &str) -> u8 {
    match component.split('/').nth(1) {
        Some("NetworkPolicy") => 0,
        Some("RoleBinding") => 1,
        Some("Role") => 2,
        _ => 3,
    }
}

/// The refusal of a compute quota the tenant would need but cannot prove is its own: at `team`, with the import ID.
/// A role of the workload role's name that the tenant did not create: never taken over.
fn foreign_role(role_name: &str) -> Diagnostic {
    Diagnostic::invalid_value(
        AttributePath::attr("workload_role_name"),
        format!("{role_name:?}"),
        "an IAM role of that name already exists and is not this tenant's (its hyperpod:tenant and \
         hyperpod:cluster tags do not name it)",
        "choose another workload_role_name; the tenant never takes over a role it did not create",
    )
}

pub(super) fn foreign_quota(quota: &cq::ComputeQuota, cluster: &str, team: &str) -> Diagnostic {
    Diagnostic::error(
        AttributePath::attr("team"),
        "A compute quota for this team already exists",
        format!(
            "Compute quota {:?} ({}) for team {:?} on cluster {cluster:?} exists, and its hyperpod:tenant and \
             hyperpod:cluster tags do not name this tenant, so the tenant does not take it over (SageMaker allows \
             one quota per team and cluster). If it is this tenant's, import it: `terraform import \
             <address> {cluster}/{team}` (or an import block with id = \"{cluster}/{team}\"); otherwise delete \
             it or choose another team.",
            quota.name, quota.id, quota.team_name
        ),
    )
}
