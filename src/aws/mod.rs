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
pub mod iam;
pub mod iam_roles;
/// The identifier newtypes live in the model crate the governance engine shares.
pub use hyperpod_model::ids;
pub mod kms;
pub mod memo;
pub mod permissions;
pub mod retry;
pub mod sagemaker;
pub mod shared_reads;
pub mod ssm;
pub mod target_version;
pub mod wait;

use std::collections::BTreeMap;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_types::error::display::DisplayErrorContext;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;

use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use ids::{AccountId, RegionName};

/// Everything a resource needs to talk to AWS, built once by `ConfigureProvider`.
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
    /// The provider's `default_tags`, merged under every taggable resource's own tags.
    pub default_tags: BTreeMap<String, String>,
    /// Governance warnings fail the plan (provider `strict`; a resource may also opt in).
    pub strict: bool,
    /// What this process has read, shared by every resource (`shared_reads`).
    pub reads: shared_reads::SharedReads,
}

#[derive(Debug, thiserror::Error)]
pub enum AwsError {
    #[error("{kind} {id:?} was not found")]
    NotFound { kind: &'static str, id: String },
    #[error("{operation} failed: {code}: {message}")]
    Api {
        operation: &'static str,
        code: String,
        message: String,
    },
    #[error("{kind} {id:?} reached status {status}: {reason}")]
    Failed {
        kind: &'static str,
        id: String,
        status: String,
        reason: String,
    },
    #[error("timed out after {waited:?} waiting for {kind} {id:?} to become {target}; it is still {status}")]
    Timeout {
        kind: &'static str,
        id: String,
        target: String,
        status: String,
        waited: std::time::Duration,
    },
    #[error("interrupted while waiting for {kind} {id:?} (last status {status})")]
    Stopped {
        kind: &'static str,
        id: String,
        status: String,
    },
}

impl AwsError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Api { code, .. } => Some(code),
            _ => None,
        }
    }
    /// An error diagnostic for a failed step, pointing at `path`.
    pub fn diagnostics(&self, path: AttributePath, summary: &str) -> Diagnostics {
        Diagnostics::error(path, summary, self.to_string())
    }
}

/// Turns an SDK error into `AwsError::Api`, keeping the service's error code and the whole error chain.
pub fn api_error<E, R>(operation: &'static str, err: SdkError<E, R>) -> AwsError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    let code = match &err {
        SdkError::ServiceError(service) => service.err().code().unwrap_or("Unknown").to_string(),
        SdkError::TimeoutError(_) => "Timeout".to_string(),
        SdkError::DispatchFailure(_) => "DispatchFailure".to_string(),
        _ => "Unknown".to_string(),
    };
    let message = match &err {
        SdkError::ServiceError(service) => service
            .err()
            .message()
            .map(str::to_string)
            .unwrap_or_else(|| DisplayErrorContext(&err).to_string()),
        // Connection failures: the chain of causes reads well; the debug dump of the response does not.
        _ => error_chain(&err),
    };
    AwsError::Api {
        operation,
        code,
        message,
    }
}

/// Turns a service's way of saying "not found" into the typed `NotFound`; other errors pass through.
pub fn not_found_as(kind: &'static str, id: &str, err: AwsError) -> AwsError {
    if is_not_found_error(&err) {
        AwsError::NotFound {
            kind,
            id: id.to_string(),
        }
    } else {
        err
    }
}

/// "outer: cause: root cause", without repeating a cause that its parent already prints.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if parts.last().is_none_or(|last| !last.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// SageMaker reports a missing object as `ResourceNotFound`, or as a `ValidationException` that says so; EKS and
/// DataZone as `ResourceNotFoundException`, IAM as `NoSuchEntity`, KMS as `NotFoundException`.
pub fn is_not_found_error(err: &AwsError) -> bool {
    match err {
        AwsError::NotFound { .. } => true,
        AwsError::Api { code, message, .. } => {
            code == "ResourceNotFound"
                || code == "ResourceNotFoundException"
                || code == "NoSuchEntity"
                || code == "NotFoundException"
                || (code == "ValidationException"
                    && ["not found", "does not exist", "could not find"]
                        .iter()
                        .any(|needle| message.to_ascii_lowercase().contains(needle)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: &str, message: &str) -> AwsError {
        AwsError::Api {
            operation: "Describe",
            code: code.to_string(),
            message: message.to_string(),
        }
    }

    #[test]
    fn each_service_says_not_found_its_own_way() {
        for code in [
            "ResourceNotFound",
            "ResourceNotFoundException",
            "NoSuchEntity",
            "NotFoundException",
        ] {
            assert!(is_not_found_error(&api(code, "gone")), "{code}");
        }
        assert!(is_not_found_error(&api(
            "ValidationException",
            "Cluster x does not exist"
        )));
        assert!(!is_not_found_error(&api("ValidationException", "Name is too long")));
        assert!(!is_not_found_error(&api("AccessDeniedException", "not found")));
        let typed = not_found_as("thing", "t-1", api("NotFoundException", "Key 'k' does not exist"));
        assert!(matches!(typed, AwsError::NotFound { kind: "thing", .. }));
    }
}
