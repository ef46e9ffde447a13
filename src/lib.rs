//! terraform-provider-hyperpod: a Terraform/OpenTofu provider that governs shared Amazon SageMaker HyperPod capacity
//! for SageMaker Unified Studio projects.
//!
//! Layout: `protocol` (the plugin protocol, crate `hyperpod-protocol`, no AWS), `governance` (the engine, crate
//! `hyperpod-governance`), `provider` (the provider block and registry), `resources`, `data_sources` and `functions`
//! (one module each), `aws` (clients, `find_*` / `wait_*` helpers, typed errors), `kubernetes` (an EKS cluster's API:
//! a JSON client, paths, namespace helpers), `findings` (the engine's messages as diagnostics).

pub mod aws;
pub mod data_sources;
/// SHA-256 in hex (the protocol crate's: it digests write-only values too).
pub use hyperpod_protocol::digest;
pub mod docs;
pub mod findings;
pub mod functions;
/// The governance engine (crate `hyperpod-governance`): the catalog, the model, one pure function per rule.
pub use hyperpod_governance as governance;
pub mod kubernetes;
/// The plugin protocol (crate `hyperpod-protocol`): no AWS, no governance.
pub use hyperpod_protocol as protocol;
pub mod provider;
pub mod report;
pub mod resources;
pub mod run;
