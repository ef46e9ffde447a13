//! terraform-provider-hyperpod: a Terraform/OpenTofu provider that governs shared Amazon SageMaker HyperPod capacity
//! for SageMaker Unified Studio projects.
//!
//! Layout: `protocol` (the plugin protocol, crate `hyperpod-protocol`, no AWS), `governance` (the engine, crate
//! `hyperpod-governance`), `aws` and `kubernetes` (the cloud clients, crate `hyperpod-clients`: `find_*` / `wait_*`
//! helpers, typed errors), `client` (what every resource gets: the clients and the provider block's options),
//! `provider` (the provider block and the registry of resources, data sources and functions),
//! `resources`, `data_sources` and `functions` (one module each), `findings` and `errors` (the engine's messages and
//! the clients' errors as diagnostics), `permissions` (the least-privilege policy of each resource), `report` (the
//! governance report, crate `hyperpod-report`).

/// The AWS clients (crate `hyperpod-clients`).
pub use hyperpod_clients::aws;
/// Which resource a request is made for (crate `hyperpod-clients`).
pub use hyperpod_clients::caller;
pub mod client;
pub mod data_sources;
/// SHA-256 in hex (the protocol crate's: it digests write-only values too).
pub use hyperpod_protocol::digest;
pub mod errors;
pub mod findings;
pub mod functions;
/// An EKS cluster's Kubernetes API (crate `hyperpod-clients`).
pub use hyperpod_clients::kubernetes;
/// The governance engine (crate `hyperpod-governance`): the catalog, the model, one pure function per rule.
pub use hyperpod_governance as governance;
/// The names HyperPod derives (a team's namespace) and the tags the provider writes (crate `hyperpod-model`).
pub use hyperpod_model::{component, names, quota_settings, tags};
/// The plugin protocol (crate `hyperpod-protocol`): no AWS, no governance.
pub use hyperpod_protocol as protocol;
pub mod permissions;
pub mod provider;
/// The governance report and the evidence (crate `hyperpod-report`): plan and state JSON in, never a resource's
/// internals.
pub use hyperpod_report as report;
pub mod resources;
pub mod run;
