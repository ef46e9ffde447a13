//! The compute quota is the tenant's claim on shared capacity, and apply makes it before anything else of the
//! tenant. The plan's and apply's WKL-3 see only the quotas that existed when they read, so two pipelines (two
//! states) applying at once can both pass them. Once the quota exists, the claim is judged again against the quotas
//! created before it: when those leave no room, this quota is deleted and the apply fails with WKL-3, with nothing
//! else of the tenant made. Of two claims that overcommit together the later one (by `CreationTime`, then ID)
//! yields, whichever process looks first, so exactly one survives. A create AWS refuses is judged the same way, so
//! the refusal reads as the rule it breaks.

use crate::aws::compute_quota::{self as cq, ComputeQuota};
use crate::governance::{
    ClusterView, Fact, Inventory, Neighbours, Orchestrator, Phase, Referenced, Setting, paths, workload,
};
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::cluster_facts::capacity_of;
use crate::resources::cluster_view::instance_group_capacity;

use super::composer::{Composer, failed};
use crate::component::Component;

/// WKL-3 for the tenant beside `others` (the cluster's quotas that count before it), with what apply knows: the
/// instance groups and those quotas, nothing planned.
async fn judge(composer: &Composer<'_>, others: &[ComputeQuota]) -> Result<Option<Diagnostics>, Diagnostics> {
    let target = composer.target;
    let cluster = composer
        .client
        .cluster(&target.cluster_arn)
        .await
        .map_err(|err| failed("Cannot read the HyperPod cluster", err))?;
    // WKL-3 counts quotas only: the sharing in effect does not matter here.
    let own = target.config.to_governance(Orchestrator::Eks, None, None).capacity();
    let view = ClusterView {
        cluster_name: target.cluster_name.clone(),
        instance_groups: Fact::Known(instance_group_capacity(&cluster)),
        scheduling_policy: Fact::Known(None),
        tenants: Inventory {
            referenced: vec![Referenced {
                at: paths::tenant::quota(),
                cluster_name: target.cluster_name.clone(),
                item: own.clone(),
            }],
            unresolved: Vec::new(),
            live: Fact::Known(
                others
                    .iter()
                    .filter(|q| q.team_name != own.team)
                    .map(capacity_of)
                    .collect(),
            ),
        },
        projects: Fact::Known(Vec::new()),
        restrictions: Inventory {
            referenced: Vec::new(),
            unresolved: Vec::new(),
            live: Fact::Known(Vec::new()),
        },
        allocation: Setting::Unset,
        phase: Phase::Apply,
        neighbours: Neighbours::LiveAndReferenced,
        policy_live: false,
    };
    let check = workload::wkl_3(&view, paths::tenant::quota());
    Ok(check.is_failed().then(|| {
        Diagnostics(
            check
                .findings()
                .iter()
                .map(|finding| crate::findings::finding_diagnostic(finding, false))
                .collect(),
        )
    }))
}

/// The cluster's quotas as they are now (not the run's shared read: another pipeline may just have written).
async fn current_quotas(composer: &Composer<'_>) -> Result<Vec<ComputeQuota>, Diagnostics> {
    cq::list_compute_quotas(&composer.client.sagemaker, &composer.target.cluster_arn)
        .await
        .map_err(|err| failed("Listing the cluster's compute quotas failed", err))
}

/// After this tenant's quota `id` was created: keeps it when the quotas created before it leave room, else deletes
/// it and fails with WKL-3.
pub async fn verify(composer: &Composer<'_>, id: &str) -> Result<(), Diagnostics> {
    let quotas = current_quotas(composer).await?;
    let key = |q: &ComputeQuota| (q.created, q.id.clone());
    let Some(own) = quotas.iter().find(|q| q.id == id) else {
        return Ok(());
    };
    let earlier: Vec<ComputeQuota> = quotas
        .iter()
        .filter(|q| q.id != id && key(q) < key(own))
        .cloned()
        .collect();
    let Some(mut refused) = judge(composer, &earlier).await? else {
        return Ok(());
    };
    tracing::warn!(%id, "another compute quota claimed the capacity first: withdrawing this tenant's quota");
    let sagemaker = &composer.client.sagemaker;
    cq::delete_compute_quota(sagemaker, id)
        .await
        .map_err(|err| failed("Withdrawing the compute quota that does not fit failed", err))?;
    cq::wait_compute_quota_deleted(sagemaker, id, composer.context.time_left(), &composer.context.stop)
        .await
        .map_err(|err| failed("The compute quota that does not fit was not deleted", err))?;
    composer.components.remove(&Component::ComputeQuota);
    for diagnostic in &mut refused.0 {
        diagnostic.detail = format!(
            "{} (Another compute quota on the cluster was created first, after this tenant's checks: this \
             tenant's quota was withdrawn and nothing else of it was made.)",
            diagnostic.detail
        );
    }
    Err(refused)
}

/// A create AWS refused: WKL-3's finding when the quotas that now exist leave no room for the tenant, else the
/// refusal as AWS gave it.
pub async fn explain_refusal(composer: &Composer<'_>, refusal: Diagnostics) -> Diagnostics {
    let Ok(quotas) = current_quotas(composer).await else {
        return refusal;
    };
    match judge(composer, &quotas).await {
        Ok(Some(mut wkl_3)) => {
            let said: Vec<String> = refusal.0.iter().map(|d| d.detail.clone()).collect();
            for diagnostic in &mut wkl_3.0 {
                diagnostic.detail = format!(
                    "{} (SageMaker refused the compute quota: {})",
                    diagnostic.detail,
                    said.join("; ")
                );
            }
            wkl_3
        }
        _ => refusal,
    }
}
