//! Where a resource takes its capacity handoffs (`allocation`; `borrows_from` and a binding's `tenants`), named by
//! its declaration so the provider's `handoff::unreadable_capacity` reads them by typed name.

/// Where a resource takes its capacity handoffs (named by its declaration): the cluster allocation's `governance`,
/// and the lists of tenants' `governance` it references.
pub struct CapacityHandoffs {
    pub allocation: &'static str,
    pub tenant_lists: &'static [&'static str],
}
