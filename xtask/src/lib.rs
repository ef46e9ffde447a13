//! Repository tasks that are not part of the shipped provider (`cargo xtask <task>`, `.cargo/config.toml`).

pub mod docs;
pub mod structure;

use std::path::Path;

/// The repository root: this crate is `xtask/` in it.
pub fn repository_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}
