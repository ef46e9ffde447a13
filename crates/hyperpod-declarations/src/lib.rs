//! One declaration per resource (`#[derive(Model)]`, crate `hyperpod-protocol`): its schema, its typed config and
//! state, and its docs come from one struct each, so a misspelt attribute does not compile and computed attributes
//! are known from the declaration. Below both the provider (which plans, applies, reads and imports through them)
//! and the governance report (which reads plans and states through them), so neither names an attribute as a string.
//!
//! A resource's module here holds what it declares: its structs, `schema()`, `identity_schema()`, its name limits
//! and the validators its attributes carry. What it does with them (plan, apply, its state upgraders and the checks
//! beyond the attributes' validators) stays in the provider, in `src/resources/<resource>/`.

use hyperpod_governance as governance;
use hyperpod_model::{ids, names, quota_settings};
use hyperpod_protocol as protocol;

pub mod checklist;
pub mod governance_objects;
pub mod handoff;
pub mod printable_text;
pub mod quota_entry;
pub mod validators;

pub mod cluster_allocation;
pub mod connection_contract;
pub mod domain_unit_policy_grant;
pub mod project_binding;
pub mod scheduling_policy;
pub mod task_view_restriction;
pub mod tenant;
