//! Repository tasks that are not part of the shipped provider (`cargo xtask <task>`, `.cargo/config.toml`).

pub mod docs;
