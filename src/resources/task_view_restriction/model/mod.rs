//! What a restriction wants, as pure values: its configuration, typed (`config.rs`), with the contract it passes
//! (`contract.rs`); the access policies and their scopes (`access.rs`); the RBAC objects (`manifests.rs`); the
//! `components` keys all of it is recorded under, with the Slurm tag and `PrivateData` lines (`components.rs`); the
//! state upgrades (`upgrade.rs`).

mod access;
mod components;
mod config;
mod contract;
mod governance;
mod manifests;
#[cfg(test)]
mod tests;
mod upgrade;

pub use super::schema::{GROUP_MAX, PROBES_PREFIX};
pub use access::{RestrictionAssociation, SPACE_TEMPLATE_POLICY, component_policy_arn, policy_name};
pub use components::{CONTRACT_TAG, OWNER_TAG, RUN_AS_TAG, components, contract_mark, private_data_conf, run_as_tag};
pub use config::{
    RestrictionConfig, RestrictionMode, grants_known, restriction_id, role_name, unknown_inputs, without_unknown_grants,
};
pub use contract::{contract_problem, with_contract};
pub use governance::governance_value;
pub use manifests::{component_path, object_component, object_value};
pub use upgrade::STATE_UPGRADERS;
