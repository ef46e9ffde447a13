//! Diagnostics and attribute paths, as Terraform shows them to users.

use std::fmt;

/// Attribute paths are the model crate's: the engine's findings point with the same type.
pub use hyperpod_model::path::{AttributePath, PathStep};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// Always set; the root path when the problem is the whole block (e.g. an AWS error on create).
    pub path: AttributePath,
}

impl Diagnostic {
    pub fn error(path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            path,
        }
    }
    pub fn warning(path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(path, summary, detail)
        }
    }
    /// An invalid value: says what was seen at `path` and how to fix it.
    pub fn invalid_value(path: AttributePath, observed: impl fmt::Display, problem: &str, fix: &str) -> Self {
        Self::error(
            path.clone(),
            "Invalid attribute value",
            format!("{path}: {problem}. Observed: {observed}. Fix: {fix}"),
        )
    }
}

/// A list of diagnostics; the error half of `Result<T, Diagnostics>` and the carrier of warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    /// `Ok(value)` when there are no errors (warnings are dropped: use this only where none can arise).
    pub fn into_result<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.has_errors() { Err(self) } else { Ok(value) }
    }
    pub fn error(path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self(vec![Diagnostic::error(path, summary, detail)])
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_terraform_addresses() {
        let path = AttributePath::attr("priority_class").index(2).push_attr("weight");
        assert_eq!(path.to_string(), "priority_class[2].weight");
        assert_eq!(AttributePath::attr("tags").key("team").to_string(), "tags[\"team\"]");
        assert_eq!(path.attribute_names().collect::<Vec<_>>(), ["priority_class", "weight"]);
    }

    #[test]
    fn errors_and_warnings_are_told_apart() {
        let mut diagnostics = Diagnostics::new();
        diagnostics.push(Diagnostic::warning(AttributePath::root(), "w", ""));
        assert!(!diagnostics.has_errors());
        diagnostics.push(Diagnostic::invalid_value(
            AttributePath::attr("x"),
            101,
            "too big",
            "use 100 or less",
        ));
        assert!(diagnostics.has_errors());
        assert!(diagnostics.0[1].detail.contains("Observed: 101"));
    }
}
