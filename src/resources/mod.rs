//! Resources, one module each: schema, plan checks, create/read/update/delete, import, flatten/expand.
pub mod scheduling_policy;
