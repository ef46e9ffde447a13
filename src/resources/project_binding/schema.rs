//! `hyperpod_unified_studio_project_binding` schema: its state upgrader (the declaration of the project, cluster and
//! contract it binds, its groups and what it computes at plan time is in crate `hyperpod-declarations`).

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`project_binding.rs`), below the provider and the report alike.
pub use hyperpod_declarations::project_binding::*;

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `contract`, `task_view_restriction` and `tenants` are write-only, so their stored copies are dropped.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `contract`, \
                 `task_view_restriction` and `tenants` become write-only",
        upgrade: upgrade_state,
    }];

fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    Ok(())
}
