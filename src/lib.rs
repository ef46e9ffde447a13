//! terraform-provider-hyperpod: a Terraform/OpenTofu provider that governs shared Amazon SageMaker HyperPod capacity
//! for SageMaker Unified Studio projects.
//!
//! Layout: `protocol` (the plugin protocol, no AWS), `provider` (the provider block and registry), `resources`,
//! `data_sources` and `functions` (one module each), `aws` (clients, `find_*` / `wait_*` helpers, typed errors),
//! `kubernetes` (an EKS cluster's API: a JSON client, paths, namespace helpers), `digest` (SHA-256 in hex).

pub mod aws;
pub mod data_sources;
pub mod digest;
pub mod docs;
pub mod findings;
pub mod functions;
/// The governance engine (crate `hyperpod-governance`): the catalog, the model, one pure function per rule.
pub use hyperpod_governance as governance;
pub mod kubernetes;
pub mod protocol;
pub mod provider;
pub mod report;
pub mod resources;
pub mod run;
