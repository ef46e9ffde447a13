//! Apply for EKS tenants: one reconciler for create and update. Each step brings one kind of object to what the plan
//! says and records it in `components` as soon as it exists, so a failure at any step leaves state that names
//! exactly what was made: the next apply resumes from it (update) or removes it (a tainted create is replaced), and
//! destroy removes what `components` names and nothing else. Identity and access come before scheduling, as the
//! governance model orders them; the order is the order of `STEPS`.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::Value as Json;

use super::manifests::{self, Manifest};
use super::model::TenantSpec;
use crate::aws::compute_quota::{self as cq, QuotaResource, QuotaSpec};
use crate::aws::eks_access::{self as access, PodIdentitySpec};
use crate::aws::{AwsClient, eks, iam, kms};
use crate::kubernetes::{KubeClient, KubeError, namespaces, paths};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::resource::OperationContext;

pub const ROLE: &str = "iam_role";
pub const QUOTA: &str = "compute_quota";
pub const POD_IDENTITY: &str = "pod_identity_association";
pub const TARGET_POLICY: &str = "hyperpod-tenant-target";
pub const DATA_POLICY: &str = "hyperpod-tenant-data";
pub const VIEW_POLICY: &str = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy";
pub const EDIT_POLICY: &str = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy";
pub const GRANT_OPERATIONS: [&str; 4] = ["Decrypt", "Encrypt", "GenerateDataKey", "DescribeKey"];
/// How long a just-created IAM role may take to be usable by EKS and KMS.
const PROPAGATION: Duration = Duration::from_secs(120);
const QUOTA_UPDATE_ATTEMPTS: usize = 3;

pub fn policy_component(name: &str) -> String {
    format!("iam_policy/{name}")
}
pub fn access_entry_component(principal: &str) -> String {
    format!("access_entry/{principal}")
}
pub fn grant_component(key_arn: &str) -> String {
    format!("kms_grant/{key_arn}")
}

/// An access entry the tenant wants: the principal, its Kubernetes groups, and one namespace-scoped policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesiredEntry {
    pub principal_arn: String,
    pub kubernetes_groups: Vec<String>,
    pub policy_arn: String,
    pub namespaces: Vec<String>,
}

/// Viewers get the view policy, operators the edit policy, both on the tenant namespace only. A principal listed
/// as both is an operator (the edit policy includes viewing).
pub fn desired_entries(spec: &TenantSpec) -> Vec<DesiredEntry> {
    let namespace = spec.namespace();
    let mut out: Vec<DesiredEntry> = Vec::new();
    for principal in &spec.operator_principal_arns {
        out.push(DesiredEntry {
            principal_arn: principal.clone(),
            kubernetes_groups: spec.operator_groups.clone(),
            policy_arn: EDIT_POLICY.to_string(),
            namespaces: vec![namespace.clone()],
        });
    }
    for principal in &spec.viewer_principal_arns {
        if !out.iter().any(|entry| &entry.principal_arn == principal) {
            out.push(DesiredEntry {
                principal_arn: principal.clone(),
                kubernetes_groups: spec.viewer_groups.clone(),
                policy_arn: VIEW_POLICY.to_string(),
                namespaces: vec![namespace.clone()],
            });
        }
    }
    out
}

/// The workload role's trust policy: only EKS Pod Identity may assume it (and tag the session).
pub fn trust_policy() -> String {
    serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{
            "Sid": "EksPodIdentity",
            "Effect": "Allow",
            "Principal": { "Service": "pods.eks.amazonaws.com" },
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }],
    })
    .to_string()
}

/// Inline policies of the workload role, by name: chaining to the target role, and the tenant's data.
pub fn role_policies(spec: &TenantSpec, partition: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(target) = spec.workload.as_ref().and_then(|w| match &w.target_role_arn {
        crate::governance::Setting::Set(arn) => Some(arn.clone()),
        _ => None,
    }) {
        out.insert(
            TARGET_POLICY.to_string(),
            serde_json::json!({
                "Version": "2012-10-17",
                "Statement": [{
                    "Sid": "AssumeTenantTargetRole",
                    "Effect": "Allow",
                    "Action": ["sts:AssumeRole", "sts:TagSession"],
                    "Resource": target,
                }],
            })
            .to_string(),
        );
    }
    let data = &spec.data;
    if !data.buckets.is_empty() || !data.kms_keys.is_empty() {
        let mut statements = Vec::new();
        if !data.buckets.is_empty() {
            let buckets: Vec<String> = data
                .buckets
                .iter()
                .map(|b| format!("arn:{partition}:s3:::{b}"))
                .collect();
            let objects: Vec<String> = buckets.iter().map(|b| format!("{b}/*")).collect();
            statements.push(serde_json::json!({
                "Sid": "TenantBuckets",
                "Effect": "Allow",
                "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
                "Resource": buckets,
            }));
            statements.push(serde_json::json!({
                "Sid": "TenantObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                "Resource": objects,
            }));
        }
        if !data.kms_keys.is_empty() {
            statements.push(serde_json::json!({
                "Sid": "TenantKeys",
                "Effect": "Allow",
                "Action": ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
                "Resource": data.kms_keys,
            }));
        }
        out.insert(
            DATA_POLICY.to_string(),
            serde_json::json!({ "Version": "2012-10-17", "Statement": statements }).to_string(),
        );
    }
    out
}

/// The compute quota request the spec asks for.
pub fn quota_spec(spec: &TenantSpec, cluster_arn: &str, tags: &BTreeMap<String, String>) -> QuotaSpec {
    let to_i32 = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    QuotaSpec {
        name: format!("{}-quota", spec.team),
        cluster_arn: cluster_arn.to_string(),
        team_name: spec.team.clone(),
        description: Some(format!("hyperpod_tenant {}", spec.team)),
        resources: spec
            .quota
            .iter()
            .map(|entry| QuotaResource {
                instance_type: entry.instance_type.clone(),
                count: entry.count.map(to_i32),
                accelerators: entry.accelerators.map(to_i32),
                vcpu: entry.vcpu,
                memory_gib: entry.memory_gib,
            })
            .collect(),
        sharing_strategy: spec.sharing.as_ref().map(|s| s.strategy.to_string()),
        borrow_limit: spec.sharing.as_ref().and_then(|s| s.borrow_limit).map(to_i32),
        preempt_team_tasks: Some(spec.preempt_team_tasks.clone()),
        fair_share_weight: spec.fair_share_weight.map(to_i32),
        activation_state: Some(spec.activation_state.clone()),
        tags: tags.clone(),
    }
}

/// Whether the live quota already is what `wanted` asks for (fields the user left to SageMaker are not compared).
pub fn quota_matches(wanted: &QuotaSpec, live: &cq::ComputeQuota) -> bool {
    let resources_match = wanted.resources.len() == live.resources.len()
        && wanted.resources.iter().zip(&live.resources).all(|(w, l)| {
            w.instance_type == l.instance_type
                && (w.count.is_none() || w.count == l.count)
                && (w.accelerators.is_none() || w.accelerators == l.accelerators)
                && (w.vcpu.is_none() || w.vcpu == l.vcpu)
                && (w.memory_gib.is_none() || w.memory_gib == l.memory_gib)
        });
    let optional = |w: &Option<String>, l: &Option<String>| w.is_none() || w == l;
    resources_match
        && optional(&wanted.sharing_strategy, &live.sharing_strategy)
        && (wanted.borrow_limit.is_none() || wanted.borrow_limit == live.borrow_limit)
        && optional(&wanted.preempt_team_tasks, &live.preempt_team_tasks)
        && wanted.fair_share_weight.unwrap_or(0) == live.fair_share_weight.unwrap_or(0)
        && optional(&wanted.activation_state, &live.activation_state)
}

/// The API version and plural resource of a kind the tenant manages (for a `components` key of a stale object).
pub fn kind_path(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "ServiceAccount" => Some((paths::CORE_V1, "serviceaccounts")),
        "Role" => Some((paths::RBAC_V1, "roles")),
        "RoleBinding" => Some((paths::RBAC_V1, "rolebindings")),
        "NetworkPolicy" => Some((paths::NETWORKING_V1, "networkpolicies")),
        _ => None,
    }
}

/// A client for the cluster's Kubernetes API with a fresh token (tokens live 60 seconds: one per operation).
pub async fn kube_client(client: &AwsClient, eks_cluster_name: &str) -> Result<KubeClient, String> {
    let cluster = eks::find_cluster(&client.eks, eks_cluster_name)
        .await
        .map_err(|err| format!("cannot describe EKS cluster {eks_cluster_name}: {err}"))?;
    let token = eks::token(&client.eks_tokens, eks_cluster_name, SystemTime::now())
        .await
        .map_err(|err| format!("cannot sign a Kubernetes token: {err}"))?;
    KubeClient::new(&cluster.endpoint, &cluster.certificate_authority_pem, &token).map_err(|err| err.to_string())
}

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
    pub client: &'a AwsClient,
    pub context: &'a OperationContext,
    pub target: &'a Target,
    pub components: BTreeMap<String, String>,
    pub quota_arn: Option<String>,
}

fn failed(summary: &str, detail: impl std::fmt::Display) -> Diagnostics {
    Diagnostics::error(AttributePath::root(), summary, detail.to_string())
}

fn kube_failed(summary: &str, err: KubeError) -> Diagnostics {
    failed(summary, err)
}

impl<'a> Composer<'a> {
    fn tagged_as_ours(&self, tags: &BTreeMap<String, String>) -> bool {
        tags.get("hyperpod:tenant") == Some(&self.target.spec.team)
            && tags.get("hyperpod:cluster") == Some(&self.target.cluster_name)
    }

    /// Runs every step in order.
    pub async fn reconcile(&mut self, prior_spec: Option<&TenantSpec>) -> Result<(), Diagnostics> {
        self.ensure_role().await?;
        self.ensure_role_policies().await?;
        self.ensure_quota(prior_spec).await?;
        self.ensure_manifests().await?;
        self.ensure_pod_identity().await?;
        self.ensure_access_entries().await?;
        self.ensure_grants().await?;
        Ok(())
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
            Ok(role) => {
                self.components.insert(ROLE.to_string(), role.arn);
                Ok(())
            }
            Err(err) if err.code() == Some("EntityAlreadyExists") => {
                let role = iam::find_role(&self.client.iam, &target.role_name)
                    .await
                    .map_err(|err| failed("Reading the existing workload role failed", err))?;
                if !self.tagged_as_ours(&role.tags) {
                    return Err(Diagnostic::invalid_value(
                        AttributePath::attr("workload_role_name"),
                        format!("{:?}", target.role_name),
                        "an IAM role of that name already exists and is not this tenant's (its hyperpod:tenant and \
                         hyperpod:cluster tags do not name it)",
                        "choose another workload_role_name; the tenant never takes over a role it did not create",
                    )
                    .into());
                }
                // Ours from an earlier, interrupted apply: adopt it.
                self.components.insert(ROLE.to_string(), role.arn);
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
            self.components
                .insert(policy_component(name), format!("{}/{name}", target.role_name));
        }
        let stale: Vec<String> = self
            .components
            .keys()
            .filter_map(|key| key.strip_prefix("iam_policy/"))
            .filter(|name| !wanted.contains_key(*name))
            .map(str::to_string)
            .collect();
        for name in stale {
            iam::delete_role_policy(&self.client.iam, &target.role_name, &name)
                .await
                .map_err(|err| failed(&format!("Removing the workload role's {name} policy failed"), err))?;
            self.components.remove(&policy_component(&name));
        }
        Ok(())
    }

    async fn ensure_quota(&mut self, prior_spec: Option<&TenantSpec>) -> Result<(), Diagnostics> {
        let target = self.target;
        let wanted = quota_spec(&target.spec, &target.cluster_arn, &target.tags);
        let sm = &self.client.sagemaker;
        if let Some(id) = self.components.get(QUOTA).cloned() {
            match cq::find_compute_quota(sm, &id).await {
                Ok(live) => {
                    self.quota_arn = Some(live.arn.clone());
                    let tags_changed = prior_spec.is_some_and(|prior| prior.tags != target.spec.tags);
                    if !quota_matches(&wanted, &live) {
                        self.update_quota(&id, &wanted).await?;
                    }
                    if tags_changed || !quota_matches(&wanted, &live) {
                        let current = crate::aws::sagemaker::list_tags(sm, &live.arn)
                            .await
                            .map_err(|err| failed("Reading the compute quota's tags failed", err))?;
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
        let (id, arn) = cq::create_compute_quota(sm, &wanted)
            .await
            .map_err(|err| failed("Creating the compute quota failed", err))?;
        self.components.insert(QUOTA.to_string(), id.clone());
        self.quota_arn = Some(arn);
        cq::wait_compute_quota_ready(sm, &id, target.timeout, self.context)
            .await
            .map_err(|err| failed("The compute quota did not become ready", err))?;
        self.wait_namespace().await
    }

    /// Other teams' quota updates do not bump this quota's version, but a console edit or another pipeline does:
    /// re-read the version and retry.
    async fn update_quota(&mut self, id: &str, wanted: &QuotaSpec) -> Result<(), Diagnostics> {
        let sm = &self.client.sagemaker;
        for attempt in 1..=QUOTA_UPDATE_ATTEMPTS {
            let mut live = cq::find_compute_quota(sm, id)
                .await
                .map_err(|err| failed("Reading the compute quota failed", err))?;
            if matches!(live.status.as_str(), "Creating" | "Updating") {
                live = match cq::wait_compute_quota_ready(sm, id, self.target.timeout, self.context).await {
                    Ok(settled) => settled,
                    Err(_) => cq::find_compute_quota(sm, id)
                        .await
                        .map_err(|err| failed("Reading the compute quota failed", err))?,
                };
            }
            match cq::update_compute_quota(sm, id, live.version, wanted).await {
                Ok(_) => {
                    return cq::wait_compute_quota_ready(sm, id, self.target.timeout, self.context)
                        .await
                        .map(|_| ())
                        .map_err(|err| failed("The compute quota update did not complete", err));
                }
                Err(err) if err.code() == Some("ConflictException") && attempt < QUOTA_UPDATE_ATTEMPTS => {
                    tracing::warn!(
                        id,
                        attempt,
                        "compute quota changed concurrently; re-reading its version"
                    );
                    tokio::time::sleep(Duration::from_millis(500 * attempt as u64)).await;
                }
                Err(err) => return Err(failed("Updating the compute quota failed", err)),
            }
        }
        unreachable!("the last attempt returns")
    }

    async fn kube(&self) -> Result<KubeClient, Diagnostics> {
        kube_client(self.client, &self.target.eks_cluster_name)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))
    }

    /// HyperPod creates `hyperpod-ns-<team>` with the quota; the tenant's objects go into it.
    async fn wait_namespace(&self) -> Result<(), Diagnostics> {
        let namespace = self.target.spec.namespace();
        namespaces::wait_namespace(&self.kube().await?, &namespace, self.target.timeout, self.context)
            .await
            .map(|_| ())
            .map_err(|err| kube_failed("The tenant namespace did not appear", err))
    }

    async fn ensure_manifests(&mut self) -> Result<(), Diagnostics> {
        let namespace = self.target.spec.namespace();
        let wanted = manifests::render(&self.target.spec);
        let kube = self.kube().await?;
        for manifest in &wanted {
            apply_manifest(&kube, &namespace, manifest).await?;
            self.components
                .insert(manifest.component(), format!("{namespace}/{}", manifest.name));
        }
        let keep: Vec<String> = wanted.iter().map(Manifest::component).collect();
        let stale: Vec<String> = self
            .components
            .keys()
            .filter(|key| key.starts_with("kubernetes/") && !keep.contains(key))
            .cloned()
            .collect();
        for key in stale {
            delete_manifest(&kube, &namespace, &key).await?;
            self.components.remove(&key);
        }
        Ok(())
    }

    fn pod_identity_spec(&self) -> Option<PodIdentitySpec> {
        let workload = self.target.spec.workload.as_ref()?;
        Some(PodIdentitySpec {
            namespace: self.target.spec.namespace(),
            service_account: workload.service_account.clone(),
            role_arn: self.target.role_arn.clone(),
            target_role_arn: match &workload.target_role_arn {
                crate::governance::Setting::Set(arn) => Some(arn.clone()),
                _ => None,
            },
            disable_session_tags: workload.disable_session_tags,
            policy: workload.session_policy.clone(),
            tags: self.target.tags.clone(),
        })
    }

    async fn ensure_pod_identity(&mut self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let Some(wanted) = self.pod_identity_spec() else {
            return Ok(());
        };
        let eks = &self.client.eks;
        let mut existing = None;
        if let Some(id) = self.components.get(POD_IDENTITY).cloned() {
            match access::find_pod_identity_association(eks, eks_name, &id).await {
                Ok(found) => existing = Some(found),
                Err(err) if err.is_not_found() => {
                    self.components.remove(POD_IDENTITY);
                }
                Err(err) => return Err(failed("Reading the Pod Identity association failed", err)),
            }
        }
        if existing.is_none() {
            let found =
                access::find_pod_identity_association_for(eks, eks_name, &wanted.namespace, &wanted.service_account)
                    .await
                    .map_err(|err| failed("Listing Pod Identity associations failed", err))?;
            if let Some(found) = found {
                if found.role_arn != wanted.role_arn {
                    return Err(failed(
                        "The service account is already mapped to another role",
                        format!(
                            "Pod Identity association {} maps {}/{} to {}; the tenant maps it to {}. Remove that \
                             association or choose another workload.service_account.",
                            found.id, wanted.namespace, wanted.service_account, found.role_arn, wanted.role_arn
                        ),
                    ));
                }
                existing = Some(found);
            }
        }
        let association = match existing {
            Some(found) => {
                let differs = found.target_role_arn != wanted.target_role_arn
                    || found.disable_session_tags != wanted.disable_session_tags
                    || found.policy != wanted.policy;
                if differs {
                    access::update_pod_identity_association(eks, eks_name, &found.id, &wanted)
                        .await
                        .map_err(|err| failed("Updating the Pod Identity association failed", err))?;
                }
                found.id
            }
            None => {
                let created = crate::aws::wait::retry_propagation("the Pod Identity association", PROPAGATION, || {
                    access::create_pod_identity_association(eks, eks_name, &wanted)
                })
                .await
                .map_err(|err| failed("Creating the Pod Identity association failed", err))?;
                created.id
            }
        };
        self.components.insert(POD_IDENTITY.to_string(), association);
        Ok(())
    }

    async fn ensure_access_entries(&mut self) -> Result<(), Diagnostics> {
        let eks_name = &self.target.eks_cluster_name;
        let eks = &self.client.eks;
        let wanted = desired_entries(&self.target.spec);
        for entry in &wanted {
            let key = access_entry_component(&entry.principal_arn);
            let live = match access::find_access_entry(eks, eks_name, &entry.principal_arn).await {
                Ok(live) => Some(live),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading an access entry failed", err)),
            };
            match live {
                Some(live) if self.components.contains_key(&key) || self.tagged_as_ours(&live.tags) => {
                    if live.kubernetes_groups != entry.kubernetes_groups {
                        access::update_access_entry_groups(
                            eks,
                            eks_name,
                            &entry.principal_arn,
                            &entry.kubernetes_groups,
                        )
                        .await
                        .map_err(|err| failed("Updating an access entry failed", err))?;
                    }
                }
                Some(_) => {
                    return Err(Diagnostic::invalid_value(
                        AttributePath::attr(if entry.policy_arn == EDIT_POLICY {
                            "operator_principal_arns"
                        } else {
                            "viewer_principal_arns"
                        }),
                        format!("{:?}", entry.principal_arn),
                        "the principal already has an EKS access entry that this tenant did not create (EKS allows \
                         one per principal per cluster)",
                        "give each tenant group its own IAM role, or remove the principal from this tenant",
                    )
                    .into());
                }
                None => {
                    access::create_access_entry(
                        eks,
                        eks_name,
                        &entry.principal_arn,
                        &entry.kubernetes_groups,
                        &self.target.tags,
                    )
                    .await
                    .map_err(|err| failed("Creating an access entry failed", err))?;
                }
            }
            self.components.insert(key, entry.principal_arn.clone());
            access::associate_access_policy(
                eks,
                eks_name,
                &entry.principal_arn,
                &entry.policy_arn,
                &entry.namespaces,
            )
            .await
            .map_err(|err| failed("Associating the access policy failed", err))?;
        }
        let keep: Vec<String> = wanted
            .iter()
            .map(|e| access_entry_component(&e.principal_arn))
            .collect();
        let stale: Vec<(String, String)> = self
            .components
            .iter()
            .filter(|(key, _)| key.starts_with("access_entry/") && !keep.contains(key))
            .map(|(key, principal)| (key.clone(), principal.clone()))
            .collect();
        for (key, principal) in stale {
            access::delete_access_entry(eks, eks_name, &principal)
                .await
                .map_err(|err| failed("Deleting an access entry failed", err))?;
            self.components.remove(&key);
        }
        Ok(())
    }

    fn grantee(&self) -> String {
        self.target
            .spec
            .data
            .grantee_role_arn
            .clone()
            .unwrap_or_else(|| self.target.role_arn.clone())
    }

    async fn ensure_grants(&mut self) -> Result<(), Diagnostics> {
        let grantee = self.grantee();
        let name = self.target.role_name.clone();
        let keys = self.target.spec.data.kms_keys.clone();
        for key in &keys {
            let component = grant_component(key);
            if let Some(id) = self.components.get(&component).cloned() {
                match kms::find_grant(&self.client.kms, key, &id).await {
                    Ok(grant) if grant.grantee_principal == grantee => continue,
                    Ok(_) => {
                        // The grantee changed: grants are immutable, so revoke and grant again.
                        kms::revoke_grant(&self.client.kms, key, &id)
                            .await
                            .map_err(|err| failed("Revoking a KMS grant failed", err))?;
                    }
                    Err(err) if err.is_not_found() => {}
                    Err(err) => return Err(failed("Reading a KMS grant failed", err)),
                }
                self.components.remove(&component);
            }
            let id = crate::aws::wait::retry_propagation("the KMS grant", PROPAGATION, || {
                kms::create_grant(&self.client.kms, key, &grantee, &name, &GRANT_OPERATIONS)
            })
            .await
            .map_err(|err| failed(&format!("Granting {grantee} use of KMS key {key} failed"), err))?;
            self.components.insert(component, id);
        }
        let stale: Vec<(String, String)> = self
            .components
            .iter()
            .filter_map(|(component, id)| {
                let key = component.strip_prefix("kms_grant/")?;
                (!keys.iter().any(|k| k == key)).then(|| (key.to_string(), id.clone()))
            })
            .collect();
        for (key, id) in stale {
            kms::revoke_grant(&self.client.kms, &key, &id)
                .await
                .map_err(|err| failed("Revoking a KMS grant failed", err))?;
            self.components.remove(&grant_component(&key));
        }
        Ok(())
    }

    /// Destroy: every recorded component, in reverse order; objects already gone are fine.
    pub async fn remove_all(&mut self) -> Result<(), Diagnostics> {
        let eks_name = self.target.eks_cluster_name.clone();
        let namespace = self.target.spec.namespace();
        let recorded: Vec<(String, String)> = self.components.clone().into_iter().collect();
        for (component, id) in recorded.iter().filter(|(c, _)| c.starts_with("kms_grant/")) {
            let key = component.trim_start_matches("kms_grant/");
            kms::revoke_grant(&self.client.kms, key, id)
                .await
                .map_err(|err| failed("Revoking a KMS grant failed", err))?;
            self.components.remove(component);
        }
        for (component, principal) in recorded.iter().filter(|(c, _)| c.starts_with("access_entry/")) {
            access::delete_access_entry(&self.client.eks, &eks_name, principal)
                .await
                .map_err(|err| failed("Deleting an access entry failed", err))?;
            self.components.remove(component);
        }
        if let Some(id) = self.components.get(POD_IDENTITY).cloned() {
            access::delete_pod_identity_association(&self.client.eks, &eks_name, &id)
                .await
                .map_err(|err| failed("Deleting the Pod Identity association failed", err))?;
            self.components.remove(POD_IDENTITY);
        }
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
        if let Some(id) = self.components.get(QUOTA).cloned() {
            cq::delete_compute_quota(&self.client.sagemaker, &id)
                .await
                .map_err(|err| failed("Deleting the compute quota failed", err))?;
            cq::wait_compute_quota_deleted(&self.client.sagemaker, &id, self.target.timeout, self.context)
                .await
                .map_err(|err| failed("The compute quota was not deleted", err))?;
            self.components.remove(QUOTA);
        }
        if self.components.contains_key(ROLE) {
            // delete_role removes the inline policies first.
            iam::delete_role(&self.client.iam, &self.target.role_name)
                .await
                .map_err(|err| failed("Deleting the tenant workload role failed", err))?;
            self.components.retain(|c, _| !c.starts_with("iam_"));
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

/// Creates the object, or replaces it when its managed fields drifted.
async fn apply_manifest(kube: &KubeClient, namespace: &str, manifest: &Manifest) -> Result<(), Diagnostics> {
    let path = paths::namespaced(manifest.api_version, manifest.resource, namespace, &manifest.name);
    let what = format!("{} {namespace}/{}", manifest.kind, manifest.name);
    let live = kube
        .get(&path)
        .await
        .map_err(|err| kube_failed(&format!("Reading {what} failed"), err))?;
    match live {
        None => {
            let collection = paths::namespaced_collection(manifest.api_version, manifest.resource, namespace);
            match kube.create(&collection, &manifest.body).await {
                Ok(_) => Ok(()),
                // Created meanwhile (an earlier, interrupted apply that the API saw): replace it with ours.
                Err(KubeError::AlreadyExists { .. }) => kube
                    .replace(&path, &manifest.body)
                    .await
                    .map(|_| ())
                    .map_err(|err| kube_failed(&format!("Replacing {what} failed"), err)),
                Err(err) => Err(kube_failed(&format!("Creating {what} failed"), err)),
            }
        }
        Some(live) if manifests::normalize(&live) == manifest.body => Ok(()),
        Some(live) => {
            let mut body = manifest.body.clone();
            if let (Some(version), Some(meta)) = (
                live.pointer("/metadata/resourceVersion").cloned(),
                body.get_mut("metadata").and_then(Json::as_object_mut),
            ) {
                meta.insert("resourceVersion".to_string(), version);
            }
            kube.replace(&path, &body)
                .await
                .map(|_| ())
                .map_err(|err| kube_failed(&format!("Replacing {what} failed"), err))
        }
    }
}

async fn delete_manifest(kube: &KubeClient, namespace: &str, component: &str) -> Result<(), Diagnostics> {
    let mut parts = component.splitn(3, '/');
    let (_, kind, name) = (parts.next(), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let Some((api_version, resource)) = kind_path(kind) else {
        return Ok(());
    };
    kube.delete(&paths::namespaced(api_version, resource, namespace, name))
        .await
        .map_err(|err| kube_failed(&format!("Deleting {kind} {namespace}/{name} failed"), err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::tenant::manifests::tests::spec;

    #[test]
    fn operators_get_edit_viewers_get_view_and_both_only_on_the_namespace() {
        let mut spec = spec();
        spec.viewer_principal_arns = vec!["arn:aws:iam::1:role/v".into(), "arn:aws:iam::1:role/o".into()];
        spec.operator_principal_arns = vec!["arn:aws:iam::1:role/o".into()];
        let entries = desired_entries(&spec);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].policy_arn, EDIT_POLICY);
        assert_eq!(entries[0].kubernetes_groups, ["research-operators"]);
        assert_eq!(entries[1].policy_arn, VIEW_POLICY);
        assert!(entries.iter().all(|e| e.namespaces == ["hyperpod-ns-research"]));
    }

    #[test]
    fn role_policies_follow_the_target_role_and_the_data() {
        let mut spec = spec();
        assert!(role_policies(&spec, "aws").is_empty());
        if let Some(workload) = spec.workload.as_mut() {
            workload.target_role_arn = crate::governance::Setting::Set("arn:aws:iam::444455556666:role/t".into());
        }
        spec.data.buckets = vec!["research-datasets".into()];
        let policies = role_policies(&spec, "aws");
        assert_eq!(policies.keys().collect::<Vec<_>>(), [DATA_POLICY, TARGET_POLICY]);
        assert!(policies[DATA_POLICY].contains("arn:aws:s3:::research-datasets/*"));
        assert!(policies[TARGET_POLICY].contains("arn:aws:iam::444455556666:role/t"));
    }

    #[test]
    fn trust_is_only_pod_identity() {
        let trust: Json = serde_json::from_str(&trust_policy()).unwrap_or_default();
        assert_eq!(trust["Statement"][0]["Principal"]["Service"], "pods.eks.amazonaws.com");
        assert_eq!(trust["Statement"].as_array().map(Vec::len), Some(1));
    }
}
