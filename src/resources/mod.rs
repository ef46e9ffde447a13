//! Resources, one module each: schema, plan checks, create/read/update/delete, import, flatten/expand.
pub mod cluster_facts;
pub mod connection_contract;
pub mod domain_unit_policy_grant;
pub mod import_id;
pub mod planned;
pub mod project_binding;
pub mod project_facts;
pub mod scheduling_policy;
pub mod task_view_restriction;
pub mod tenant;
pub mod validators;
