//! Apply's first step: the compute quota, the tenant's claim on shared capacity. Created (and checked against the
//! quotas created before it, `claim.rs`), adopted after an interrupted apply when its tags name the tenant, updated
//! in place keeping what the configuration leaves to the live quota (`model::kept`); then the namespace HyperPod
//! creates with it.

use super::super::model::components::{quota_id, quota_matches, quota_spec};
use super::super::model::kept;
use super::super::model::ownership::foreign_quota;
use super::claim;
use super::composer::{Composer, failed, kube_failed};
use crate::aws::ErrorCode;
use crate::aws::compute_quota::{self as cq, QuotaSpec};
use crate::aws::target_version;
use crate::component::Component;
use crate::kubernetes::namespaces;
use crate::protocol::diagnostics::Diagnostics;

/// Concurrent writers (the console, another pipeline) bump the quota's version: re-read and retry this many times.
const QUOTA_UPDATE_ATTEMPTS: usize = 3;

impl Composer<'_> {
    pub(super) async fn ensure_quota(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        let wanted = quota_spec(&target.config, &target.cluster_arn, &target.tags);
        let sm = &self.client.sagemaker;
        if let Some(id) = self
            .components
            .get(&Component::ComputeQuota)
            .map(|value| quota_id(&value))
        {
            match cq::find_compute_quota(sm, &id).await {
                Ok(live) => {
                    self.quota_arn = Some(live.arn.clone());
                    let kept = kept::keeping(wanted.clone(), &target.config.left_to_live, &live);
                    // A write that ended `*Failed` is not in effect, whatever settings the quota reports.
                    if !quota_matches(&kept, &live) || live.status.is_failed() {
                        self.update_quota(&id, &wanted).await?;
                    }
                    self.components.insert(&Component::ComputeQuota, id.clone());
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
                    self.components.remove(&Component::ComputeQuota);
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
                return Err(claim::explain_refusal(self, refusal).await);
            }
        };
        self.components.insert(&Component::ComputeQuota, id.clone());
        self.quota_arn = Some(arn);
        cq::wait_compute_quota_ready(sm, &id, self.context.time_left(), &self.context.stop)
            .await
            .map_err(|err| failed("The compute quota did not become ready", err))?;
        claim::verify(self, &id).await?;
        self.wait_namespace().await
    }

    /// After a create conflict: the cluster's quota of this name or team, adopted when its tags name this tenant
    /// (an earlier apply created it and was killed before recording it), refused otherwise with its import ID.
    pub(super) async fn adopt_quota(
        &mut self,
        wanted: &QuotaSpec,
        conflict: crate::aws::AwsError,
    ) -> Result<(), Diagnostics> {
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
            return Err(foreign_quota(&found, &self.target.cluster_name, &self.target.config.team).into());
        }
        tracing::info!(id = %found.id, "adopting the tenant's compute quota from an interrupted apply");
        self.components.insert(&Component::ComputeQuota, found.id.clone());
        self.quota_arn = Some(found.arn.clone());
        let live = cq::wait_compute_quota_ready(sm, &found.id, self.context.time_left(), &self.context.stop)
            .await
            .map_err(|err| failed("The compute quota did not become ready", err))?;
        if !quota_matches(
            &kept::keeping(wanted.clone(), &self.target.config.left_to_live, &live),
            &live,
        ) {
            self.update_quota(&found.id, wanted).await?;
        }
        if tags != self.target.tags {
            crate::aws::sagemaker::update_tags(sm, &found.arn, &tags, &self.target.tags)
                .await
                .map_err(|err| failed("Tagging the compute quota failed", err))?;
        }
        // The interrupted apply may have died before its claim check: judged now, as a fresh create is.
        claim::verify(self, &found.id).await?;
        self.wait_namespace().await
    }

    /// Other teams' quota updates do not bump this quota's version, but a console edit or another pipeline does:
    /// re-read the version and retry.
    /// A conflict on an unchanged version is the other `TargetVersion` reading (`aws::target_version`): retried at
    /// once with it, from the version just re-read.
    pub(super) async fn update_quota(&mut self, id: &str, wanted: &QuotaSpec) -> Result<(), Diagnostics> {
        let sm = &self.client.sagemaker;
        let mut reread = None;
        for attempt in 1..=QUOTA_UPDATE_ATTEMPTS {
            let mut live = match reread.take() {
                Some(live) => live,
                None => cq::find_compute_quota(sm, id)
                    .await
                    .map_err(|err| failed("Reading the compute quota failed", err))?,
            };
            if live.status.is_being_written() {
                live = match cq::wait_compute_quota_ready(sm, id, self.context.time_left(), &self.context.stop).await {
                    Ok(settled) => settled,
                    Err(_) => cq::find_compute_quota(sm, id)
                        .await
                        .map_err(|err| failed("Reading the compute quota failed", err))?,
                };
            }
            let reading = target_version::LEARNED.reading();
            // What the configuration leaves unset is sent as the quota holds it now, so nothing set out of band is
            // erased by this write.
            let sent = kept::keeping(wanted.clone(), &self.target.config.left_to_live, &live);
            match cq::update_compute_quota(sm, id, live.version, reading, &sent).await {
                Ok(_) => {
                    return cq::wait_compute_quota_ready(sm, id, self.context.time_left(), &self.context.stop)
                        .await
                        .map(|_| ())
                        .map_err(|err| failed("The compute quota update did not complete", err));
                }
                Err(err) if err.is(ErrorCode::ConflictException) && attempt < QUOTA_UPDATE_ATTEMPTS => {
                    let now = cq::find_compute_quota(sm, id)
                        .await
                        .map_err(|err| failed("Reading the compute quota failed", err))?;
                    let (version, status) = (now.version, &now.status);
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
                    return Err(claim::explain_refusal(self, refusal).await);
                }
            }
        }
        unreachable!("the last attempt returns")
    }

    /// HyperPod creates `hyperpod-ns-<team>` with the quota; the tenant's objects go into it.
    pub(super) async fn wait_namespace(&self) -> Result<(), Diagnostics> {
        let namespace = self.target.config.namespace();
        namespaces::wait_namespace(
            &self.kube().await?,
            &namespace,
            self.context.time_left(),
            &self.context.stop,
        )
        .await
        .map(|_| ())
        .map_err(|err| kube_failed("The tenant namespace did not appear", err))
    }
}
