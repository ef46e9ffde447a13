//! Apply for EKS tenants: one reconciler for create and update, in steps (`Composer::reconcile`): the compute quota
//! first (the claim on shared capacity, `quota.rs` and `claim.rs`), the workload role (`role.rs`), then the
//! Kubernetes objects, the Pod Identity association, the access entries and the KMS grants at once (`access.rs`).
//! Identity and access come before scheduling, as the governance model orders them. Destroy is `remove.rs`. A Slurm
//! tenant writes nothing: its artefacts are rendered for the cluster's admins.

mod access;
mod claim;
mod composer;
mod quota;
mod remove;
mod role;

use crate::resources::{record_components, recorded_components};
use std::collections::BTreeMap;

use super::model::TenantConfig;
use super::model::components;
use super::plan;
use super::schema::TenantModel as M;
use crate::client::HyperpodClient;
use crate::component::{Component, ComponentKind, Components};
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::Field;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;
use composer::{Composer, Recorded, TenantApplyTarget, first_failure};

pub async fn create(client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
    let (target, value) = match resolve_target(client, planned, None, context).await {
        Ok(resolved) => resolved,
        Err(diagnostics) => return diagnostics.into(),
    };
    if !is_eks(&value) {
        return Applied::ok(unknowns_to_null(value));
    }
    let mut composer = Composer {
        client,
        context,
        target: &target,
        components: Recorded::default(),
        quota_arn: None,
    };
    match Box::pin(composer.reconcile()).await {
        Ok(()) => Applied::ok(state_after(&value, &composer)),
        // Whatever exists is in state: Terraform taints it, and the next apply replaces it cleanly.
        Err(diagnostics) if composer.components.is_empty() => diagnostics.into(),
        Err(diagnostics) => Applied::failed(Some(state_after(&value, &composer)), diagnostics),
    }
}

pub async fn update(client: &HyperpodClient, prior: &Value, planned: &Value, context: &OperationContext) -> Applied {
    let (target, value) = match resolve_target(client, planned, Some(prior), context).await {
        Ok(resolved) => resolved,
        Err(diagnostics) => return Applied::failed(Some(prior.clone()), diagnostics),
    };
    if !is_eks(&value) {
        return Applied::ok(unknowns_to_null(value));
    }
    let mut composer = Composer {
        client,
        context,
        target: &target,
        components: Recorded::new(recorded_components(M::COMPONENTS, prior)),
        quota_arn: M::COMPUTE_QUOTA_ARN.known(prior),
    };
    match Box::pin(composer.reconcile()).await {
        Ok(()) => Applied::ok(state_after(&value, &composer)),
        // Keep the prior arguments (so the next plan still shows the change as pending) with what exists.
        Err(diagnostics) => Applied::failed(Some(state_after(prior, &composer)), diagnostics),
    }
}

pub async fn delete(client: &HyperpodClient, prior: &Value, context: &OperationContext) -> Result<(), Diagnostics> {
    let components = M::COMPONENTS.known(prior).unwrap_or_default();
    if components.is_empty() {
        return Ok(());
    }
    let cluster_arn = M::CLUSTER_ARN.known(prior).unwrap_or_default();
    let eks_cluster_name = match client.cluster(&cluster_arn).await {
        Ok(cluster) => cluster.eks_cluster_name().unwrap_or_default(),
        Err(err) if err.is_not_found() => String::new(),
        Err(err) => return Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod cluster")),
    };
    let Some(config) = TenantConfig::from_value(prior) else {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Cannot read the tenant's state",
            "The recorded tenant is incomplete; refresh and try again.",
        ));
    };
    let target = TenantApplyTarget {
        cluster_name: M::CLUSTER_NAME.known(prior).unwrap_or_default(),
        cluster_arn,
        eks_cluster_name,
        role_name: M::WORKLOAD_ROLE_NAME.known(prior).unwrap_or_default(),
        role_arn: M::WORKLOAD_ROLE_ARN.known(prior).unwrap_or_default(),
        tags: M::TAGS_ALL.known(prior).unwrap_or_default(),
        partition: client.region.partition().to_string(),
        config,
    };
    let composer = Composer {
        client,
        context,
        target: &target,
        components: Recorded::new(Components::from_stored(components)),
        quota_arn: None,
    };
    composer.remove_all().await
}

impl Composer<'_> {
    /// Runs the steps in order: the compute quota (the capacity claim), the role and its policies, then four steps
    /// independent of each other that run at once, every one to its end (a step cut short could leave an object it
    /// made unrecorded).
    async fn reconcile(&mut self) -> Result<(), Diagnostics> {
        // The quota first: it is the claim on shared capacity (`claim.rs`), so a tenant that does not fit fails
        // before anything else of it exists.
        let identity = self.target.config.workload.is_some();
        if identity {
            self.refuse_foreign_role().await?;
        }
        self.ensure_quota().await?;
        if identity {
            self.ensure_role().await?;
            self.ensure_role_policies().await?;
        }
        let (manifests, pod_identity, access_entries, grants) = tokio::join!(
            self.ensure_manifests(),
            self.ensure_pod_identity(),
            self.ensure_access_entries(),
            self.ensure_grants(),
        );
        first_failure([manifests, pod_identity, access_entries, grants])?;
        // A workload block removed: its role goes last, after the association that named it.
        if !identity {
            self.remove_role().await?;
        }
        Ok(())
    }
}

/// Everything apply needs from the planned value, judged and derived first where the plan could not
/// (`plan::resolve`), and the cluster's EKS name.
async fn resolve_target(
    client: &HyperpodClient,
    planned: &Value,
    prior: Option<&Value>,
    context: &OperationContext,
) -> Result<(TenantApplyTarget, Value), Diagnostics> {
    let (config, value) = plan::resolve(client, planned, prior, &context.deferred_checks).await?;
    let cluster_arn = M::CLUSTER_ARN.known(&value).unwrap_or_default();
    let cluster = client
        .cluster(&cluster_arn)
        .await
        .map_err(|err| err.diagnostics(M::CLUSTER_ARN.path(), "Cannot read the HyperPod cluster"))?;
    let target = TenantApplyTarget {
        eks_cluster_name: cluster.eks_cluster_name().unwrap_or_default(),
        cluster_name: cluster.name,
        cluster_arn,
        role_name: M::WORKLOAD_ROLE_NAME.known(&value).unwrap_or_default(),
        role_arn: M::WORKLOAD_ROLE_ARN.known(&value).unwrap_or_default(),
        tags: M::TAGS_ALL.known(&value).unwrap_or_default(),
        partition: client.region.partition().to_string(),
        config,
    };
    Ok((target, value))
}

/// The state after a reconcile, complete or not: the planned value with what now exists.
fn state_after(value: &Value, composer: &Composer<'_>) -> Value {
    let mut state = value.clone();
    let recorded = &composer.components;
    record_components(M::COMPONENTS, &mut state, &recorded.snapshot());
    let quota_id = recorded
        .get(&Component::ComputeQuota)
        .map(|value| components::quota_id(&value));
    M::COMPUTE_QUOTA_ID.set(&mut state, &quota_id.into());
    let quota_arn = (composer.quota_arn.clone()).filter(|_| recorded.contains_key(&Component::ComputeQuota));
    M::COMPUTE_QUOTA_ARN.set(&mut state, &quota_arn.into());
    let association = recorded.get(&Component::PodIdentityAssociation);
    M::POD_IDENTITY_ASSOCIATION_ID.set(&mut state, &association.into());
    let grants: BTreeMap<String, String> = (recorded.of_kind(ComponentKind::KmsGrant).into_iter())
        .filter_map(|(component, id)| Some((component.name()?.to_string(), id)))
        .collect();
    M::KMS_GRANTS.set(&mut state, &Field::Known(grants));
    unknowns_to_null(state)
}

fn is_eks(value: &Value) -> bool {
    value.get_attr(M::SLURM_ARTEFACTS.name()).is_none_or(Value::is_null)
}
