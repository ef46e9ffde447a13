//! Data sources, one module each.
pub mod cluster;
