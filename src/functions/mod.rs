//! Provider functions, called as `provider::hyperpod::<name>(…)`.
pub mod team_namespace;
