//! Data sources, one module each.
pub mod cluster;
pub mod team_usage;
