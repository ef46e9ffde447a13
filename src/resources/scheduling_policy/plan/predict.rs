//! The policy's planned state, known at plan time wherever its inputs are: `id` (the cluster's name), the default
//! `name`, `tags_all`, `governance` (what tenants reference) and `cluster_arn`; the status SageMaker will report is
//! unknown again after a write that failed, so the plan proposes it again.

use super::super::model::{default_name, governance_value};
use super::PolicyPlanInputs;
use crate::aws::scheduler_status::SchedulerStatus;
use crate::protocol::object::{text, text_map};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

pub fn predict(inputs: &PolicyPlanInputs, value: &mut Value) {
    if let Some(cluster_name) = &inputs.config.cluster_name {
        set_attr(value, "id", text(cluster_name));
        if !inputs.name_configured {
            // Unset: the name the config has (imported, or made with an earlier default) on the same cluster, else the
            // default. Only a name the configuration sets replaces the config.
            let kept = inputs
                .prior
                .as_ref()
                .filter(|prior| prior.cluster_name.as_deref() == Some(cluster_name.as_str()))
                .and_then(|prior| prior.name.clone());
            set_attr(value, "name", text(kept.unwrap_or_else(|| default_name(cluster_name))));
        }
    }
    // tags_all is known at plan time, so reviewers see exactly which tags apply; a tag value unknown at plan
    // leaves it unknown.
    if let Some(all) = inputs.config.tags_all(&inputs.default_tags) {
        set_attr(value, "tags_all", text_map(&all));
    }
    // The last write ended `UpdateFailed` (or another *Failed): it is not in effect, so plan it again.
    let prior_status = inputs.prior.as_ref().and_then(|prior| prior.status.as_deref());
    if prior_status.is_some_and(|status| SchedulerStatus::parse(status).is_failed()) {
        for name in ["status", "status_details", "version"] {
            set_attr(value, name, Value::Unknown);
        }
    }
    let facts = governance_value(value);
    set_attr(value, "governance", facts);
    if let Some(cluster) = &inputs.cluster {
        set_attr(value, "cluster_arn", text(&cluster.arn));
    }
}
