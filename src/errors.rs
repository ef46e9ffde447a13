//! The cloud clients' errors as diagnostics: the clients know nothing of Terraform, so the provider says where an
//! error points.

use crate::aws::AwsError;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};

pub trait ErrorDiagnostics {
    /// An error diagnostic for a failed step, pointing at `path`.
    fn diagnostics(&self, path: AttributePath, summary: &str) -> Diagnostics;
}

impl ErrorDiagnostics for AwsError {
    fn diagnostics(&self, path: AttributePath, summary: &str) -> Diagnostics {
        Diagnostics::error(path, summary, self.to_string())
    }
}
