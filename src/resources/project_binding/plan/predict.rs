//! The binding's planned state: where the connection goes (`domain_id`, `connection_name`, `environment_id`,
//! `cluster_arn`, `orchestrator`), its recorded identity, and the checklist; and the replacements the API forces on a
//! recorded binding.

use std::collections::BTreeMap;

use super::super::schema::BindingModel;
use super::BindingPlanInputs;
use super::judge::BindingVerdict;
use crate::governance::Fact;
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::{Field, Model};
use crate::protocol::object::text;
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
    attributes.insert(BindingModel::ID.name(), recorded(prior.and_then(|p| p.id.as_ref())));
    attributes.insert(
        BindingModel::CONNECTION_ID.name(),
        recorded(prior.and_then(|p| p.connection_id.as_ref())),
    );
    attributes.insert(BindingModel::DOMAIN_ID.name(), text(&inputs.domain_id));
    // Unset: the recorded connection's own name (imported, or made with an earlier default), else the default. Only
    // a name the configuration sets replaces the connection.
    let connection_name = match (
        &inputs.config.connection_name,
        prior.and_then(|p| p.connection_name.clone()),
    ) {
        (None, Some(recorded)) => recorded,
        _ => inputs.config.connection_name_or_default(),
    };
    attributes.insert(BindingModel::CONNECTION_NAME.name(), text(connection_name));
    attributes.insert(BindingModel::ENVIRONMENT_ID.name(), environment_id);
    attributes.insert(BindingModel::CLUSTER_ARN.name(), text(&inputs.cluster.arn));
    attributes.insert(BindingModel::ORCHESTRATOR.name(), text(inputs.cluster.orchestrator));
    attributes.extend(crate::resources::checklist::of(&verdict.report));
    attributes
}

/// What forces a recorded binding's replacement: the API cannot move a connection to another environment or clear
/// its description, and a binding whose connection is gone (a destroy that stopped part-way, or a delete out of band
/// while its memberships remain) is replaced: the rest is removed, and the connection created again.
pub fn replacements(prior: &Value, planned: &Value) -> Vec<AttributePath> {
    let (Ok(prior), Ok(planned)) = (BindingModel::decode(prior), BindingModel::decode(planned)) else {
        return Vec::new();
    };
    let moved = |before: &Field<String>, after: &Field<String>| {
        *before != Field::Null && !matches!(after, Field::Unknown) && before != after
    };
    let cleared = prior.description.as_known().is_some() && planned.description.as_known().is_none();
    let mut replaced = Vec::new();
    if prior.cluster_arn == Field::Null {
        replaced.push(BindingModel::CLUSTER_ARN.path());
    }
    if moved(&prior.environment_id, &planned.environment_id) {
        replaced.push(BindingModel::ENVIRONMENT_ID.path());
    }
    if cleared {
        replaced.push(BindingModel::DESCRIPTION.path());
    }
    replaced
}
