//! Retrying through IAM propagation: a role created moments ago is not yet visible to IAM's own reads, nor to the
//! services that check principals (EKS, KMS). Each says so in its own way; `is_propagation_error` knows which.

use std::future::Future;
use std::time::{Duration, Instant};

use super::iam_roles::IAM_ROLE;
use super::{AwsError, ErrorCode};

const FIRST_DELAY: Duration = Duration::from_millis(500);
const MAX_DELAY: Duration = Duration::from_secs(5);

/// Whether `err` is how a service answers while a freshly created IAM principal propagates. Every case here also
/// means "really does not exist": only wrap calls that name a principal just created (or that may be), and keep the
/// timeout short (the AWS provider uses 2 minutes), since a real typo is retried until then.
///
/// * IAM `NoSuchEntity` (and this layer's typed `NotFound` for a role): PutRolePolicy, TagRole, GetRole... of a new
///   role.
/// * IAM `MalformedPolicyDocument` "Invalid principal": a trust policy naming a role that IAM cannot see yet.
/// * EKS `InvalidParameterException` "The specified principalArn is invalid" (CreateAccessEntry) and "Role provided
///   in the request does not exist" (CreatePodIdentityAssociation). Other `InvalidParameterException`s are real.
/// * KMS `InvalidArnException` from CreateGrant: the grantee is not known yet. Elsewhere it means a malformed ARN.
///
/// Not `AccessDenied`: STS answers that for AssumeRole of a role still propagating, but it is also the answer to a
/// missing permission, which retrying would only hide for the whole timeout; nothing here assumes the new role.
pub fn is_propagation_error(err: &AwsError) -> bool {
    match err {
        AwsError::NotFound { kind, .. } => *kind == IAM_ROLE,
        AwsError::Api {
            operation,
            code,
            message,
        } => {
            let message = message.to_ascii_lowercase();
            match code {
                ErrorCode::NoSuchEntity => true,
                ErrorCode::MalformedPolicyDocument => message.contains("invalid principal"),
                ErrorCode::InvalidParameterException => {
                    message.contains("principalarn is invalid")
                        || message.contains("role provided in the request does not exist")
                }
                ErrorCode::InvalidArnException => *operation == "CreateGrant",
                _ => false,
            }
        }
        _ => false,
    }
}

/// Runs `f` until it succeeds, fails with an error that is not `is_propagation_error`, or `timeout` has passed;
/// waits 0.5 s, 1 s, 2 s, then every 5 s between attempts. `what` names the principal for logs and the final error.
/// Make `f` idempotent: it may have to run more than once.
pub async fn retry_propagation<T, F, Fut>(what: &str, timeout: Duration, mut f: F) -> Result<T, AwsError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, AwsError>>,
{
    let started = Instant::now();
    let mut delay = FIRST_DELAY;
    let mut attempt = 1u32;
    loop {
        let err = match f().await {
            Ok(value) => return Ok(value),
            Err(err) if is_propagation_error(&err) => err,
            Err(err) => return Err(err),
        };
        let waited = started.elapsed();
        if waited >= timeout {
            return Err(gave_up(err, what, waited, attempt));
        }
        let sleep = delay.min(timeout.saturating_sub(waited));
        tracing::debug!(what, attempt, error = %err, ?sleep, "waiting for IAM propagation");
        tokio::time::sleep(sleep).await;
        delay = (delay * 2).min(MAX_DELAY);
        attempt += 1;
    }
}

/// The last error, saying how long it was retried so the user can tell propagation from a real mistake.
fn gave_up(err: AwsError, what: &str, waited: Duration, attempts: u32) -> AwsError {
    match err {
        AwsError::Api {
            operation,
            code,
            message,
        } => AwsError::Api {
            operation,
            code,
            message: format!(
                "{message} (still failing after {attempts} attempts over {}s of waiting for {what} to propagate in \
                 IAM)",
                waited.as_secs()
            ),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn api(operation: &'static str, code: &str, message: &str) -> AwsError {
        AwsError::Api {
            operation,
            code: code.into(),
            message: message.to_string(),
        }
    }

    #[test]
    fn propagation_errors_are_told_apart_from_real_ones() {
        let retried = [
            api("PutRolePolicy", "NoSuchEntity", "The role with name r cannot be found."),
            api(
                "CreateRole",
                "MalformedPolicyDocument",
                "Invalid principal in policy: \"AWS\":\"arn:...\"",
            ),
            api(
                "CreateAccessEntry",
                "InvalidParameterException",
                "The specified principalArn is invalid: invalid principal.",
            ),
            api(
                "CreatePodIdentityAssociation",
                "InvalidParameterException",
                "Role provided in the request does not exist",
            ),
            api(
                "CreateGrant",
                "InvalidArnException",
                "ARN does not refer to a valid principal",
            ),
            AwsError::NotFound {
                kind: IAM_ROLE,
                id: "r".into(),
            },
        ];
        for err in &retried {
            assert!(is_propagation_error(err), "{err}");
        }
        let final_ = [
            api("CreateRole", "MalformedPolicyDocument", "Syntax errors in policy."),
            api(
                "CreateAccessEntry",
                "InvalidParameterException",
                "The type X is not valid.",
            ),
            api(
                "CreatePodIdentityAssociation",
                "InvalidParameterException",
                "A session policy can only be specified when disableSessionTags is true.",
            ),
            api("RevokeGrant", "InvalidArnException", "malformed"),
            api(
                "AssumeRole",
                "AccessDenied",
                "User is not authorized to perform: sts:AssumeRole",
            ),
            api("CreateRole", "EntityAlreadyExists", "Role with name r already exists."),
            api("CreateAccessEntry", "ResourceInUseException", "in use"),
            AwsError::NotFound {
                kind: "EKS cluster",
                id: "c".into(),
            },
        ];
        for err in &final_ {
            assert!(!is_propagation_error(err), "{err}");
        }
    }

    #[tokio::test]
    async fn retries_until_the_role_is_visible() {
        let calls = Cell::new(0);
        let result = retry_propagation("IAM role r", Duration::from_secs(30), || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move {
                if n < 2 {
                    Err(api(
                        "PutRolePolicy",
                        "NoSuchEntity",
                        "The role with name r cannot be found.",
                    ))
                } else {
                    Ok(n)
                }
            }
        })
        .await;
        assert_eq!(result.unwrap(), 2);
    }

    #[tokio::test]
    async fn other_errors_fail_at_once() {
        let calls = Cell::new(0);
        let result: Result<(), _> = retry_propagation("IAM role r", Duration::from_secs(30), || {
            calls.set(calls.get() + 1);
            async { Err(api("CreateRole", "EntityAlreadyExists", "exists")) }
        })
        .await;
        assert!(result.unwrap_err().is(ErrorCode::EntityAlreadyExists));
        assert_eq!(calls.get(), 1);
    }

    #[tokio::test]
    async fn gives_up_after_the_timeout_with_the_last_error() {
        let calls = Cell::new(0);
        let result: Result<(), _> = retry_propagation("IAM role r", Duration::from_millis(300), || {
            calls.set(calls.get() + 1);
            async { Err(api("CreateGrant", "InvalidArnException", "not a valid principal")) }
        })
        .await;
        let err = result.unwrap_err();
        assert!(err.is(ErrorCode::InvalidArnException));
        assert!(err.to_string().contains("IAM role r to propagate"), "{err}");
        assert_eq!(calls.get(), 2);
    }
}
