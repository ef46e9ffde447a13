//! `hyperpod_connection_contract` schema: its state upgrader (the declaration of every field of the contract and of
//! what the provider derives from it at plan time is in crate `hyperpod-declarations`).

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`connection_contract.rs`), below the provider and the report alike.
pub use hyperpod_declarations::connection_contract::*;

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `organization` is write-only, so its stored copy is dropped.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `organization` becomes \
                 write-only",
        upgrade: upgrade_state,
    }];

fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    Ok(())
}
