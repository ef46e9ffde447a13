//! Resources, one module each: schema, plan checks, create/read/update/delete, import, flatten/expand.
pub mod checks;
pub mod cluster_facts;
pub mod connection_contract;
#[cfg(test)]
pub(crate) mod decode_property;
pub mod domain_unit_policy_grant;
pub mod handoff;
pub mod import_id;
pub mod project_binding;
pub mod project_facts;
pub mod references;
pub mod scheduling_policy;
pub mod task_view_restriction;
pub mod tenant;
pub mod validators;

/// An apply or read step that failed, for the whole resource: `summary` says which step, `detail` why.
pub fn failed(summary: &str, detail: impl std::fmt::Display) -> crate::protocol::diagnostics::Diagnostics {
    crate::protocol::diagnostics::Diagnostics::error(
        crate::protocol::diagnostics::AttributePath::root(),
        summary,
        detail.to_string(),
    )
}
