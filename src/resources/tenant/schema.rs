//! `hyperpod_tenant` schema: what `terraform validate` checks beyond the declaration's validators (every quota-shaped
//! entry at its path, a capacity handoff written by hand).

use crate::protocol::value::Value;

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`tenant.rs`), below the provider and the report alike.
pub use hyperpod_declarations::tenant::*;

/// What `terraform validate` checks beyond the attributes' validators and the schema walk (which reports
/// `sharing { strategy = null }` and null elements, once): every quota-shaped entry (the quota, the absolute borrow
/// limits, the spaces' share), at its path; and a capacity handoff written by hand (`allocation`, `borrows_from`)
/// held to the rules of the resource it stands for (`handoff::unreadable_capacity`).
pub fn validate(config: &Value, diagnostics: &mut crate::protocol::diagnostics::Diagnostics) {
    use crate::protocol::object::elements;
    use crate::resources::quota_entry::{validate_each, validate_entries};
    // Every quota-shaped list SageMaker (or WKL-12) reads is checked alike, each at its own path (the absolute limits'
    // and the spaces' share are capped at 15 by their `ListAtMost` validators).
    let quota = TenantModel::QUOTA;
    validate_entries(elements(config, quota.name()), &quota.path(), diagnostics);
    let (sharing, limits) = (TenantModel::SHARING, SharingBlock::ABSOLUTE_BORROW_LIMIT.name());
    if let Some(block) = config.get_attr(sharing.name()).filter(|s| !s.is_null()) {
        validate_each(elements(block, limits), &sharing.path().push_attr(limits), diagnostics);
    }
    let (spaces, guaranteed) = (TenantModel::SPACES, SpacesBlock::GUARANTEED.name());
    if let Some(block) = config.get_attr(spaces.name()).filter(|s| !s.is_null()) {
        validate_each(
            elements(block, guaranteed),
            &spaces.path().push_attr(guaranteed),
            diagnostics,
        );
    }
    diagnostics.extend(crate::resources::handoff::unreadable_capacity(
        config,
        &CAPACITY_HANDOFFS,
    ));
}
