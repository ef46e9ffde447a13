//! Thin AWS layer: the configured clients, typed errors (not-found is its own variant), and per-service `find_*` /
//! `wait_*` helpers. Resources call the SDK for mutations and these helpers for reads and waits.

mod client;
pub mod cloudwatch;
pub mod compute_quota;
pub mod config;
pub mod datazone;
pub mod datazone_connections;
pub mod datazone_grants;
pub mod datazone_identities;
pub mod eks;
pub mod eks_access;
mod error;
pub mod iam;
pub mod iam_roles;
/// The identifier newtypes live in the model crate the governance engine shares.
pub use hyperpod_model::ids;
pub mod kms;
pub mod memo;
mod reads;
pub mod retry;
pub mod sagemaker;
pub mod scheduler_status;
pub mod shared_reads;
pub mod ssm;
pub mod target_version;
pub mod wait;

pub use client::AwsClient;
pub use error::{AwsError, ErrorCode, api_error, is_not_found_error, not_found_as};
