//! The vocabulary the layers share, below all of them: AWS account IDs, regions and ARNs, validated once where they
//! enter (the governance engine and the cloud clients), and attribute paths (the engine's findings and the plugin
//! protocol's diagnostics). No I/O, no dependencies.

pub mod ids;
pub mod path;
