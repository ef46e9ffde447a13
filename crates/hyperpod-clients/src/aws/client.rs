//! The configured AWS clients, built once (`config::connect`) and shared by every resource through the provider's
//! client.

use super::ids::{AccountId, RegionName};
use super::{eks, shared_reads};

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
