//! The engine's verdict as Terraform diagnostics: a [`Report`]'s messages, a [`Finding`], the message for rules
//! deferred to apply. Paths are shared (the model crate's); severities are the engine's own and are mapped here.

use crate::governance::{self, Finding, Message, Report};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics, Severity};

fn severity(severity: governance::FindingSeverity) -> Severity {
    match severity {
        governance::FindingSeverity::Error => Severity::Error,
        governance::FindingSeverity::Warning => Severity::Warning,
    }
}

/// One message as one diagnostic.
pub fn diagnostic(message: &Message) -> Diagnostic {
    Diagnostic {
        severity: severity(message.severity),
        summary: message.summary.clone(),
        detail: message.detail.clone(),
        path: message.path.clone(),
    }
}

/// The diagnostic for rules a plan cannot evaluate because `what` is known only at apply (see
/// [`governance::finding::deferred_message`]).
pub fn deferred_diagnostic(rules: &str, what: &str, strict: bool) -> Diagnostic {
    diagnostic(&governance::finding::deferred_message(rules, what, strict))
}

/// Diagnostics from the engine's types.
pub trait ToDiagnostics {
    /// `strict` turns warnings into errors.
    fn diagnostics(&self, strict: bool) -> Diagnostics;
}

impl ToDiagnostics for Report {
    fn diagnostics(&self, strict: bool) -> Diagnostics {
        Diagnostics(self.messages(strict).iter().map(diagnostic).collect())
    }
}

/// One finding as one diagnostic (`strict` turns a warning into an error).
pub fn finding_diagnostic(finding: &Finding, strict: bool) -> Diagnostic {
    diagnostic(&finding.to_message(strict))
}

#[cfg(test)]
#[path = "findings_tests.rs"]
mod tests;
