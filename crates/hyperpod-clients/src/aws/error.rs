//! The AWS layer's typed errors: not-found is its own variant, and a service's error code is an `ErrorCode`, matched
//! by type rather than by string.

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_types::error::display::DisplayErrorContext;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;

/// Declares `ErrorCode` from one list: each variant is named exactly as the service's code, so the name is the text
/// both ways (`as_str`, `From<&str>`).
macro_rules! error_codes {
    ($($(#[$doc:meta])* $code:ident,)*) => {
        /// A service's error code. The codes the provider acts on are variants, so a misspelt code does not compile;
        /// any other code keeps its text in `Other`. It displays as the service sent it.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum ErrorCode {
            $($(#[$doc])* $code,)*
            /// Any other code, as sent (or named by this layer: `InvalidResponse`, `Timeout`, `DispatchFailure`...).
            Other(String),
        }

        impl ErrorCode {
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$code => stringify!($code),)*
                    Self::Other(code) => code,
                }
            }
        }

        impl From<&str> for ErrorCode {
            fn from(code: &str) -> Self {
                match code {
                    $(stringify!($code) => Self::$code,)*
                    other => Self::Other(other.to_string()),
                }
            }
        }
    };
}

error_codes! {
    /// SageMaker: the object does not exist.
    ResourceNotFound,
    /// EKS, DataZone: the object does not exist.
    ResourceNotFoundException,
    /// IAM: the role or policy does not exist (also while a new role propagates).
    NoSuchEntity,
    /// KMS: the key or grant does not exist.
    NotFoundException,
    /// A request the service refused as invalid; SageMaker also says "not found" this way.
    ValidationException,
    /// A concurrent write, or an object that already exists (SageMaker, DataZone).
    ConflictException,
    /// IAM: a role of that name exists.
    EntityAlreadyExists,
    /// EKS: the access entry or Pod Identity association being created exists (or the object is in use).
    ResourceInUseException,
    /// EKS: a parameter is invalid (also: a principal still propagating in IAM).
    InvalidParameterException,
    /// KMS: a malformed ARN (from CreateGrant: a grantee still propagating).
    InvalidArnException,
    /// KMS: the grant is gone.
    InvalidGrantIdException,
    /// SSM: the Session Manager preferences document does not exist.
    InvalidDocument,
    /// SSM: a parameter of that name exists (PutParameter without Overwrite).
    ParameterAlreadyExists,
    /// SSM: the parameter does not exist.
    ParameterNotFound,
    /// IAM: the policy does not parse (also: a principal still propagating).
    MalformedPolicyDocument,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AwsError {
    #[error("{kind} {id:?} was not found")]
    NotFound { kind: &'static str, id: String },
    #[error("{operation} failed: {code}: {message}")]
    Api {
        operation: &'static str,
        code: ErrorCode,
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
    /// The operation's deadline (`timeouts`) passed before the call was sent or before its answer arrived.
    #[error("{operation}: {passed}")]
    DeadlinePassed {
        operation: &'static str,
        passed: crate::deadline::DeadlinePassed,
    },
}

impl AwsError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
    /// The service's error code, for an error the service answered.
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            Self::Api { code, .. } => Some(code),
            _ => None,
        }
    }
    /// Whether the service answered with `code`.
    pub fn is(&self, code: ErrorCode) -> bool {
        self.code() == Some(&code)
    }
}

/// Turns an SDK error into `AwsError::Api`, keeping the service's error code and the whole error chain.
pub fn api_error<E, R>(operation: &'static str, err: SdkError<E, R>) -> AwsError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    if let Some(passed) = crate::deadline::find_in(&err) {
        return AwsError::DeadlinePassed { operation, passed };
    }
    let code = match &err {
        SdkError::ServiceError(service) => service.err().code().unwrap_or("Unknown").into(),
        SdkError::TimeoutError(_) => "Timeout".into(),
        SdkError::DispatchFailure(_) => "DispatchFailure".into(),
        _ => "Unknown".into(),
    };
    let message = match &err {
        SdkError::ServiceError(service) => service
            .err()
            .message()
            .map_or_else(|| DisplayErrorContext(&err).to_string(), str::to_string),
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
pub(super) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
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
/// DataZone as `ResourceNotFoundException`, IAM as `NoSuchEntity`, KMS as `NotFoundException`, SSM as
/// `ParameterNotFound`.
pub fn is_not_found_error(err: &AwsError) -> bool {
    match err {
        AwsError::NotFound { .. } => true,
        AwsError::Api { code, message, .. } => match code {
            ErrorCode::ResourceNotFound
            | ErrorCode::ResourceNotFoundException
            | ErrorCode::NoSuchEntity
            | ErrorCode::NotFoundException
            | ErrorCode::ParameterNotFound => true,
            ErrorCode::ValidationException => ["not found", "does not exist", "could not find"]
                .iter()
                .any(|needle| message.to_ascii_lowercase().contains(needle)),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: &str, message: &str) -> AwsError {
        AwsError::Api {
            operation: "Describe",
            code: code.into(),
            message: message.to_string(),
        }
    }

    #[test]
    fn codes_are_typed_both_ways_and_unknown_ones_keep_their_text() {
        assert_eq!(ErrorCode::from("ConflictException"), ErrorCode::ConflictException);
        assert_eq!(ErrorCode::ConflictException.to_string(), "ConflictException");
        assert_eq!(
            ErrorCode::from("Throttling"),
            ErrorCode::Other("Throttling".to_string())
        );
        assert_eq!(ErrorCode::from("Throttling").to_string(), "Throttling");
        assert!(api("ConflictException", "busy").is(ErrorCode::ConflictException));
        assert!(!api("ConflictException", "busy").is(ErrorCode::ResourceInUseException));
        assert_eq!(
            api("ConflictException", "busy").to_string(),
            "Describe failed: ConflictException: busy"
        );
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
