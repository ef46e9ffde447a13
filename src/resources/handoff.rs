//! Handoffs: the write-only arguments through which a resource takes another's facts (`contract`,
//! `scheduling_policy`, `borrows_from`, `task_view_restriction`, `tenants`, `organization`). The facts live once, in
//! the source resource's state and plan; a consumer reads them from the configuration at plan and apply
//! (`PlannedChange::arguments`, and the planned value apply is given) and keeps no copy: plans and state hold null
//! (`docs/design/cross-resource-rules.md`).
//!
//! Up to schema version 0 the copies were stored; each resource's step from version 0 (`STATE_UPGRADERS` in its
//! schema) drops them with `drop_copies`. The handoffs are the schema's write-only attributes, so the schema is the
//! one list of them.

use crate::governance::SharingStrategy;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::Model;
use crate::protocol::schema::{Attribute, Block};
use crate::protocol::state_upgrade::RawState;
use crate::protocol::value::Value;
use crate::resources::governance_objects::{AllocationGovernance, SharingRecord};
use crate::resources::quota_entry;
use crate::resources::references::TenantGovernance;

pub use hyperpod_declarations::handoff::*;

/// What to write instead of a capacity handoff that does not read.
const PASS_UNCHANGED: &str = "pass the source resource's `governance` unchanged (hyperpod_cluster_allocation.<name>.governance, \
                              hyperpod_tenant.<name>.governance)";

/// Sets each write-only attribute of `block` to null (present or not): what state holds of a handoff.
pub fn drop_copies(state: &mut RawState, block: &Block) {
    for name in block.write_only_names() {
        state.insert(name.to_string(), serde_json::Value::Null);
    }
}

/// The fields of a team's recorded sharing (an allocation's `teams[<team>].sharing`, a row of its
/// `governance.sharing`): declared once, for the allocation's schema and for reading a handoff.
pub fn sharing_attributes() -> Vec<Attribute> {
    SharingRecord::block().attributes
}

/// The capacity handoffs of `arguments` (`allocation`; `borrows_from` and a binding's `tenants`) that are known yet
/// do not hold what their source resource writes: each an error at its path. A value written by hand is held to
/// the rules of the resource whose output it stands for, so a negative count, a fraction of an instance or an
/// instance type that is not one never reaches a rule as "known only at apply" or as a smaller share.
pub fn unreadable_capacity(arguments: &Value, handoffs: &CapacityHandoffs) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    if let Some(facts) = arguments.get_attr(handoffs.allocation) {
        unreadable_allocation(facts, &AttributePath::attr(handoffs.allocation), &mut diagnostics);
    }
    for name in handoffs.tenant_lists.iter().copied() {
        if let Some(Value::List(tenants)) = arguments.get_attr(name) {
            for (index, tenant) in tenants.iter().enumerate() {
                unreadable_tenant(tenant, &AttributePath::attr(name).index(index), &mut diagnostics);
            }
        }
    }
    diagnostics
}

/// An allocation's `governance`: each team's quota entries, a recorded sharing per team.
fn unreadable_allocation(facts: &Value, at: &AttributePath, diagnostics: &mut Diagnostics) {
    if let Some(Value::Map(teams)) = facts.get_attr(AllocationGovernance::TEAMS.name()) {
        for (team, entries) in teams {
            if let Value::List(entries) = entries {
                let team_at = at.push_attr(AllocationGovernance::TEAMS.name()).key(team);
                quota_entry::validate_handoff_entries(entries, &team_at, diagnostics);
            }
        }
    }
    if let Some(Value::Map(rows)) = facts.get_attr(AllocationGovernance::SHARING.name()) {
        let row = Block {
            attributes: sharing_attributes(),
            ..Block::default()
        };
        for (team, value) in rows {
            row.validate(
                value,
                &at.push_attr(AllocationGovernance::SHARING.name()).key(team),
                diagnostics,
            );
        }
    }
}

/// A tenant's `governance` in a list: its quota entries and its sharing strategy.
fn unreadable_tenant(tenant: &Value, at: &AttributePath, diagnostics: &mut Diagnostics) {
    if let Some(Value::List(entries)) = tenant.get_attr(TenantGovernance::QUOTA.name()) {
        quota_entry::validate_handoff_entries(entries, &at.push_attr(TenantGovernance::QUOTA.name()), diagnostics);
    }
    if let Some(Value::String(strategy)) = tenant.get_attr(TenantGovernance::SHARING_STRATEGY.name())
        && !SharingStrategy::NAMES.contains(&strategy.as_str())
    {
        diagnostics.push(Diagnostic::invalid_value(
            at.push_attr(TenantGovernance::SHARING_STRATEGY.name()),
            format!("{strategy:?}"),
            &format!("a sharing strategy is one of {}", SharingStrategy::NAMES.join(", ")),
            PASS_UNCHANGED,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::resource::Resource;
    use crate::protocol::value::Value;

    /// The recorded attributes of every instance of `type_name` in the 0.3.0-dev quickstart state, where every
    /// handoff holds a copy.
    fn recorded(type_name: &str) -> Vec<RawState> {
        let recorded = crate::resources::recorded_state::instances(type_name);
        recorded.into_iter().map(|(_, attributes)| attributes).collect()
    }

    fn check(type_name: &str, resource: &dyn Resource<crate::client::HyperpodClient>, handoffs: &[&str]) {
        assert_eq!(resource.schema().block.write_only_names(), handoffs, "{type_name}");
        for attributes in recorded(type_name) {
            // The recording holds copies: otherwise this test proves nothing.
            assert!(
                handoffs
                    .iter()
                    .any(|name| attributes.get(*name).is_some_and(|v| !v.is_null())),
                "{type_name}: the recording has no handoff copy"
            );
            let json = serde_json::Value::Object(attributes.clone()).to_string();
            let upgraded = resource
                .upgrade_state(0, json.as_bytes())
                .unwrap_or_else(|err| panic!("{type_name}: {:?}", err.0));
            for name in handoffs {
                assert_eq!(upgraded.get_attr(name), Some(&Value::Null), "{type_name}.{name}");
            }
            // Everything else is kept as stored.
            let kept = ["id", "governance"]
                .iter()
                .filter(|name| attributes.get(**name).is_some_and(|v| !v.is_null()))
                .all(|name| upgraded.get_attr(name).is_some_and(|v| !v.is_null()));
            assert!(kept, "{type_name}: an attribute besides the handoffs was lost");
            assert_eq!(resource.schema().version, 1, "{type_name}: the step leads to version 1");
        }
    }

    #[test]
    fn recorded_0_3_0_dev_state_loses_its_handoff_copies_and_nothing_else() {
        check(
            "hyperpod_tenant",
            &crate::resources::tenant::TenantResource::default(),
            &["contract", "scheduling_policy", "allocation", "borrows_from"],
        );
        check(
            "hyperpod_task_view_restriction",
            &crate::resources::task_view_restriction::TaskViewRestrictionResource::default(),
            &["contract", "tenants"],
        );
        check(
            "hyperpod_unified_studio_project_binding",
            &crate::resources::project_binding::ProjectBindingResource::default(),
            &["contract", "task_view_restriction", "allocation", "tenants"],
        );
        check(
            "hyperpod_connection_contract",
            &crate::resources::connection_contract::ConnectionContractResource::default(),
            &["organization"],
        );
    }

    #[test]
    fn the_upgrade_is_a_pure_rewrite_of_the_handoffs() {
        let mut state: RawState = serde_json::from_str(
            r#"{"id":"ml-capacity/research","contract":{"contract":"research"},"borrows_from":[{"team":"p"}],
                "team":"research"}"#,
        )
        .expect("json");
        let tenant = crate::resources::tenant::TenantResource::default();
        let block = &tenant.schema().block;
        drop_copies(&mut state, block);
        assert_eq!(state["contract"], serde_json::Value::Null);
        assert_eq!(state["borrows_from"], serde_json::Value::Null);
        assert_eq!(
            state["scheduling_policy"],
            serde_json::Value::Null,
            "absent becomes null"
        );
        assert_eq!(state["team"], "research");
        let again = state.clone();
        drop_copies(&mut state, block);
        assert_eq!(state, again, "idempotent");
    }
}
