//! The policy's planned state, known at plan time wherever its inputs are: `id` (the cluster's name), the default
//! `name`, `tags_all`, `governance` (what tenants reference) and `cluster_arn`; the status SageMaker will report is
//! unknown again after a write that failed, so the plan proposes it again.

use super::super::model::{default_name, governance};
use super::super::schema::SchedulingPolicyModel as Policy;
use super::PolicyPlanInputs;
use crate::aws::scheduler_status::SchedulerStatus;
use crate::protocol::model::Field;
use crate::protocol::value::Value;

/// Fills the derived attributes of `value`, the planned value `planned` decodes.
pub fn predict(inputs: &PolicyPlanInputs, planned: &Policy, value: &mut Value) {
    if let Some(cluster_name) = &inputs.config.cluster_name {
        Policy::ID.set(value, &Field::Known(cluster_name.clone()));
        if !inputs.name_configured {
            // Unset: the name the config has (imported, or made with an earlier default) on the same cluster, else the
            // default. Only a name the configuration sets replaces the config.
            let kept = inputs
                .prior
                .as_ref()
                .filter(|prior| prior.cluster_name.as_deref() == Some(cluster_name.as_str()))
                .and_then(|prior| prior.name.clone());
            Policy::NAME.set(value, &Field::Known(kept.unwrap_or_else(|| default_name(cluster_name))));
        }
    }
    // tags_all is known at plan time, so reviewers see exactly which tags apply; a tag value unknown at plan
    // leaves it unknown.
    if let Some(all) = inputs.config.tags_all(&inputs.default_tags) {
        Policy::TAGS_ALL.set(value, &Field::Known(all));
    }
    // The last write ended `UpdateFailed` (or another *Failed): it is not in effect, so plan it again.
    let prior_status = inputs.prior.as_ref().and_then(|prior| prior.status.as_deref());
    if prior_status.is_some_and(|status| SchedulerStatus::parse(status).is_failed()) {
        reported_after_write(value);
    }
    Policy::GOVERNANCE.set(value, &Field::Known(governance(planned)));
    if let Some(cluster) = &inputs.cluster {
        Policy::CLUSTER_ARN.set(value, &Field::Known(cluster.arn.clone()));
    }
}

/// Marks unknown what SageMaker reports only once a write is read back: the status settling from `Creating`, the
/// version an update increments.
pub fn reported_after_write(value: &mut Value) {
    Policy::STATUS.set(value, &Field::Unknown);
    Policy::STATUS_DETAILS.set(value, &Field::Unknown);
    Policy::VERSION.set(value, &Field::Unknown);
}
