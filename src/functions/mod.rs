//! Provider functions, called as `provider::hyperpod::<name>(…)`.
pub mod review_status;
pub mod team_namespace;
