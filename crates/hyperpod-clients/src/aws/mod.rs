//! Thin AWS layer: the configured clients, typed errors (not-found is its own variant), and per-service `find_*` /
//! `wait_*` helpers. Resources call the SDK for mutations and these helpers for reads and waits.

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
pub mod retry;
pub mod sagemaker;
pub mod shared_reads;
pub mod ssm;
pub mod target_version;
pub mod wait;

use error::error_chain;
pub use error::{AwsError, ErrorCode, api_error, is_not_found_error, not_found_as};

use ids::{AccountId, RegionName};

/// Everything needed to talk to AWS, built once (`config::connect`); the provider hands it to every resource inside
/// its own client, with the provider block's options.
pub struct AwsClient {
    pub sagemaker: aws_sdk_sagemaker::Client,
    pub datazone: aws_sdk_datazone::Client,
    pub iam: aws_sdk_iam::Client,
    pub eks: aws_sdk_eks::Client,
    pub kms: aws_sdk_kms::Client,
    /// Container Insights metrics (`hyperpod_team_usage`).
    pub cloudwatch: aws_sdk_cloudwatch::Client,
    /// Session Manager preferences (Slurm task view restrictions: Run As).
    pub ssm: aws_sdk_ssm::Client,
    /// Signs Kubernetes API bearer tokens for EKS clusters (`eks::token`).
    pub eks_tokens: eks::TokenSource,
    /// The account the provider's credentials belong to (checked against allowed/forbidden accounts).
    pub account_id: AccountId,
    pub region: RegionName,
    /// The ARN of the identity running Terraform.
    pub caller_arn: String,
    /// What this process has read, shared by every resource (`shared_reads`).
    pub reads: shared_reads::SharedReads,
}
