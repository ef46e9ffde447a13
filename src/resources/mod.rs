//! Resources, one module each: schema, plan checks, create/read/update/delete, import, flatten/expand.
pub mod checklist;
/// Declared with the resources (crate `hyperpod-declarations`): the `governance` objects resources hand each other,
/// the text and value validators, the one quota entry type.
pub use hyperpod_declarations::{governance_objects, printable_text, quota_entry, validators};
pub mod cluster_allocation;
pub mod cluster_facts;
pub mod cluster_view;
pub mod connection_contract;
#[cfg(test)]
pub(crate) mod decode_property;
pub mod domain_unit_policy_grant;
pub mod handoff;
pub mod import_id;
pub mod inventory;
pub mod kubernetes_reads;
pub mod project_binding;
pub mod project_facts;
#[cfg(test)]
pub(crate) mod recorded_state;
pub mod references;
pub mod scheduling_policy;
pub mod task_view_restriction;
pub mod tenant;

use std::collections::BTreeMap;

use crate::component::Components;
use crate::protocol::model::{Attr, Field};
use crate::protocol::value::Value;

/// An apply or read step that failed, for the whole resource: `summary` says which step, `detail` why.
pub fn failed(summary: &str, detail: impl std::fmt::Display) -> crate::protocol::diagnostics::Diagnostics {
    crate::protocol::diagnostics::Diagnostics::error(
        crate::protocol::diagnostics::AttributePath::root(),
        summary,
        detail.to_string(),
    )
}

/// A component's value with a short digest of what the provider writes into the object (`<id>@1a2b3c4d`): when that
/// content changes — a live edit, or a provider version that writes it differently — the value changes, and the plan
/// names the object as an in-place update instead of rendering its content.
pub fn with_digest(id: &str, content: &str) -> String {
    format!("{id}@{}", short_digest(content))
}

pub use crate::component::digested_id;

/// The `components` attribute a tenant and a task view restriction record their objects in.
pub type ComponentsAttribute<M> = Attr<M, Field<BTreeMap<String, String>>>;

/// What a recorded `components` names (empty when it names nothing, as after an import).
pub fn recorded_components<M>(attribute: ComponentsAttribute<M>, state: &Value) -> Components {
    Components::from_stored(attribute.known(state).unwrap_or_default())
}

/// `state` recording `components` at `attribute`.
pub fn record_components<M>(attribute: ComponentsAttribute<M>, state: &mut Value, components: &Components) {
    attribute.set(state, &Field::Known(components.stored().clone()));
}

/// The first 4 bytes of `content`'s SHA-256 in hex (`1a2b3c4d`): enough to tell a changed object, short in a plan.
pub fn short_digest(content: &str) -> String {
    crate::digest::sha256_hex(content.as_bytes())[..8].to_string()
}

/// Upgrading state of schema version 0: removes `kubernetes_manifests` (the JSON of each object as the last refresh
/// read it) and returns the objects, so the upgrader can give each component the digest of what state recorded.
pub fn take_recorded_manifests(state: &mut crate::protocol::state_upgrade::RawState) -> Vec<serde_json::Value> {
    let recorded = state.remove("kubernetes_manifests");
    let manifests = recorded.as_ref().and_then(serde_json::Value::as_array);
    manifests
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .filter_map(|manifest| serde_json::from_str(manifest).ok())
        .collect()
}
