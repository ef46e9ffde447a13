//! The binding's planned state: where the connection goes (`domain_id`, `connection_name`, `environment_id`,
//! `cluster_arn`, `orchestrator`), its recorded identity, and the checklist; and the replacements the API forces on a
//! recorded binding.

use std::collections::BTreeMap;

use super::BindingPlanInputs;
use super::judge::BindingVerdict;
use crate::governance::Fact;
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::object::{string, text};
use crate::protocol::value::Value;

/// Every derived attribute, by name.
pub fn predict(inputs: &BindingPlanInputs, verdict: &BindingVerdict) -> BTreeMap<&'static str, Value> {
    let recorded = |id: Option<&String>| id.map_or(Value::Unknown, text);
    let prior = inputs.prior.as_ref();
    let environment_id = match &inputs.project.tooling_environment_id {
        Fact::Known(Some(id)) => text(id),
        // The judge refuses a project without one.
        Fact::Known(None) => Value::Null,
        // PRJ-4 warns that the project could not be read; apply resolves the environment again.
        Fact::Unavailable(_) => Value::Unknown,
    };
    let mut attributes: BTreeMap<&'static str, Value> = BTreeMap::new();
    attributes.insert("id", recorded(prior.and_then(|p| p.id.as_ref())));
    attributes.insert("connection_id", recorded(prior.and_then(|p| p.connection_id.as_ref())));
    attributes.insert("domain_id", text(&inputs.domain_id));
    // Unset: the recorded connection's own name (imported, or made with an earlier default), else the default. Only
    // a name the configuration sets replaces the connection.
    let connection_name = match (
        &inputs.config.connection_name,
        prior.and_then(|p| p.connection_name.clone()),
    ) {
        (None, Some(recorded)) => recorded,
        _ => inputs.config.connection_name_or_default(),
    };
    attributes.insert("connection_name", text(connection_name));
    attributes.insert("environment_id", environment_id);
    attributes.insert("cluster_arn", text(&inputs.cluster.arn));
    attributes.insert("orchestrator", text(inputs.cluster.orchestrator));
    attributes.extend(crate::resources::checklist::of(&verdict.report));
    attributes
}

/// What forces a recorded binding's replacement: the API cannot move a connection to another environment or clear
/// its description, and a binding whose connection is gone (a destroy that stopped part-way, or a delete out of band
/// while its memberships remain) is replaced: the rest is removed, and the connection created again.
pub fn replacements(prior: &Value, planned: &Value) -> Vec<AttributePath> {
    let moved = |name: &str| {
        let (before, after) = (prior.get_attr(name), planned.get_attr(name));
        before.is_some_and(|b| !b.is_null()) && after.is_some_and(Value::is_known) && before != after
    };
    let cleared = string(prior, "description").is_some() && string(planned, "description").is_none();
    let mut replaced = Vec::new();
    if prior.get_attr("cluster_arn").is_some_and(Value::is_null) {
        replaced.push(AttributePath::attr("cluster_arn"));
    }
    if moved("environment_id") {
        replaced.push(AttributePath::attr("environment_id"));
    }
    if cleared {
        replaced.push(AttributePath::attr("description"));
    }
    replaced
}
