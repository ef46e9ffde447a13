//! The JSON lines `terraform plan -json` (or `tofu plan -json`) prints, read for their diagnostics: what the plan
//! JSON does not hold (rule findings with their attribute and range, and the resources whose plan failed).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::rules::{Rule, Status};
use crate::terraform_json::{self as terraform, LogLine, is_diagnostic};
use hyperpod_governance::finding::{NOT_CHECKED, NOT_CHECKED_AT_PLAN};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogSeverity {
    Warning,
    Error,
}

/// What a diagnostic is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// `[WKL-3] …`: one or more rules.
    Rules(Vec<Rule>),
    /// `[all rules] not checked at plan …`: a resource none of whose rules the plan could judge.
    AllRules,
    /// No rule: a provider or Terraform message.
    None,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedDiagnostic {
    pub severity: LogSeverity,
    pub summary: String,
    /// The detail without the leading `path: ` when that became `attribute`.
    pub detail: String,
    /// The resource's address; for a diagnostic without one, the resource its snippet is in.
    pub address: Option<String>,
    pub subject: Subject,
    /// The rule's status this diagnostic stands for (`Deferred` for "not checked at plan", `Skipped` for "(not
    /// checked)", else by severity).
    pub status: Status,
    /// The attribute path the detail starts with (`quota[0].count`), else the argument the snippet highlights.
    pub attribute: Option<String>,
    /// `main.tf:75`.
    pub location: Option<String>,
}

/// Why the log cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError(pub String);

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads every `"type": "diagnostic"` line. Another line that is not JSON fails the read: a report that skipped it
/// could miss an error.
pub fn parse(text: &str) -> Result<Vec<LoggedDiagnostic>, LogError> {
    let mut diagnostics = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let json: Value = serde_json::from_str(line).map_err(|err| {
            LogError(format!(
                "line {}: not a JSON line of `terraform plan -json` ({err})",
                number + 1
            ))
        })?;
        let line: LogLine = terraform::read(&json);
        if !is_diagnostic(line.line_type.as_ref()) {
            continue;
        }
        let Some(diagnostic) = &line.diagnostic else {
            return Err(LogError(format!(
                "line {}: a diagnostic line without `diagnostic`",
                number + 1
            )));
        };
        diagnostics.push(read(diagnostic));
    }
    Ok(diagnostics)
}

fn read(diagnostic: &Value) -> LoggedDiagnostic {
    let text = |pointer: &str| diagnostic.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let summary = text("/summary").to_string();
    // A refusal is a warning at plan (so that no rule can stop `terraform destroy`) that apply returns as an error:
    // the report counts it as the error it will be (`docs/design/where-rules-run.md`).
    let refused = hyperpod_protocol::refusal::refusal_of_summary(&summary) == Some(true);
    let severity = if text("/severity") == "error" || refused {
        LogSeverity::Error
    } else {
        LogSeverity::Warning
    };
    let subject = subject(&summary);
    let status = if summary.contains(NOT_CHECKED_AT_PLAN) {
        Status::Deferred
    } else if summary.ends_with(NOT_CHECKED) && severity == LogSeverity::Warning {
        Status::Skipped
    } else if severity == LogSeverity::Error {
        Status::Failed
    } else {
        Status::Warning
    };
    let (path, detail) = split_path(text("/detail"));
    let snippet_argument = text("/snippet/code")
        .split_once('=')
        .map(|(left, _)| left.trim().to_string())
        .filter(|left| !left.is_empty() && left.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let location = match (text("/range/filename"), diagnostic.pointer("/range/start/line")) {
        ("", _) => None,
        (file, Some(line)) => Some(format!("{file}:{line}")),
        (file, None) => Some(file.to_string()),
    };
    let address = match text("/address") {
        "" => address_of_context(text("/snippet/context")),
        address => Some(address.to_string()),
    };
    LoggedDiagnostic {
        severity,
        summary,
        detail,
        address,
        subject,
        status,
        attribute: path.or(snippet_argument),
        location,
    }
}

fn subject(summary: &str) -> Subject {
    let Some(inside) = summary
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .map(|(inside, _)| inside)
    else {
        return Subject::None;
    };
    if inside.eq_ignore_ascii_case("all rules") {
        return Subject::AllRules;
    }
    let rules: Vec<&str> = inside.split(',').map(str::trim).collect();
    if rules.iter().all(|rule| looks_like_rule_id(rule)) {
        Subject::Rules(rules.into_iter().map(Rule::parse).collect())
    } else {
        Subject::None
    }
}

/// `WKL-3`, or an ID of the same shape a newer catalog may have.
fn looks_like_rule_id(text: &str) -> bool {
    static ID: OnceLock<Option<Regex>> = OnceLock::new();
    ID.get_or_init(|| Regex::new(r"^[A-Za-z]{3}-[0-9]{1,3}$").ok())
        .as_ref()
        .is_some_and(|id| id.is_match(text))
}

/// `quota[0].count: the guaranteed …` → (`quota[0].count`, `the guaranteed …`). Attribute names are lower-case,
/// so prose that starts with a capitalised word and a colon (`AccessDenied: …`) is no path.
fn split_path(detail: &str) -> (Option<String>, String) {
    static PATH: OnceLock<Option<Regex>> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        Regex::new(r#"^([a-z_][a-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["(?:[^"\\]|\\.)*"\])*): "#).ok()
    });
    match path.as_ref().and_then(|path| path.captures(detail)) {
        Some(found) => {
            let whole = found.get(0).map_or(0, |m| m.end());
            let name = found.get(1).map(|m| m.as_str().to_string());
            (name, detail[whole..].to_string())
        }
        None => (None, detail.to_string()),
    }
}

/// `resource "hyperpod_tenant" "research"` → `hyperpod_tenant.research` (root module only: the snippet does not
/// say which module).
fn address_of_context(context: &str) -> Option<String> {
    let rest = context.strip_prefix("resource ")?;
    let parts: Vec<&str> = rest.split('"').collect();
    match parts.as_slice() {
        ["", kind, " ", name, ""] => Some(format!("{kind}.{name}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyperpod_governance::catalog::RuleId;

    #[test]
    fn rule_diagnostics_give_rule_status_address_attribute_and_range() {
        let log = r#"{"type":"version","terraform":"1.15.5"}

{"type":"diagnostic","diagnostic":{"severity":"error","summary":"[WKL-3] Guaranteed quotas fit","detail":"quota[0].count: the guaranteed quotas overcommit. Observed: 9. Fix: lower it","address":"hyperpod_tenant.research","range":{"filename":"main.tf","start":{"line":75}},"snippet":{"context":"resource \"hyperpod_tenant\" \"research\"","code":"    count = 9"}}}
{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"[ORG-1] The project belongs (not checked)","detail":"AccessDenied reading the project","address":"hyperpod_connection_contract.c"}}
{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"[all rules] not checked at plan: a value is known only at apply","detail":"contract.cluster_name is not known until apply. Apply evaluates","address":"hyperpod_tenant.t"}}
{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"Provider development overrides are in effect","detail":"The following"}}
{"type":"diagnostic","diagnostic":{"severity":"error","summary":"[WKL-8] Default deny","detail":"the namespace accepts traffic","snippet":{"context":"resource \"hyperpod_tenant\" \"x\"","code":"    default_deny = false"}}}"#;
        let found = parse(log).expect("a log");
        assert_eq!(found.len(), 5);
        let wkl3 = &found[0];
        assert_eq!(wkl3.subject, Subject::Rules(vec![Rule::Known(RuleId::Wkl3)]));
        assert_eq!(wkl3.status, Status::Failed);
        assert_eq!(wkl3.address.as_deref(), Some("hyperpod_tenant.research"));
        assert_eq!(wkl3.attribute.as_deref(), Some("quota[0].count"));
        assert!(wkl3.detail.starts_with("the guaranteed quotas"));
        assert_eq!(wkl3.location.as_deref(), Some("main.tf:75"));
        assert_eq!(found[1].status, Status::Skipped);
        assert_eq!(found[1].attribute, None);
        assert_eq!(
            (found[2].subject.clone(), found[2].status),
            (Subject::AllRules, Status::Deferred)
        );
        assert_eq!(found[2].attribute, None);
        assert_eq!(found[3].subject, Subject::None);
        // Without an address: the snippet's resource, and the argument it highlights.
        assert_eq!(found[4].address.as_deref(), Some("hyperpod_tenant.x"));
        assert_eq!(found[4].attribute.as_deref(), Some("default_deny"));
    }

    #[test]
    fn a_line_that_is_not_json_is_named() {
        let err = parse("{\"type\":\"version\"}\nError: something\n").expect_err("not JSON");
        assert!(err.0.starts_with("line 2:"), "{err}");
    }

    #[test]
    fn map_keys_in_paths_and_bracketed_text_that_is_no_rule() {
        let (path, rest) = split_path(r#"kms_grants["arn:aws:kms:x"]: not granted"#);
        assert_eq!(path.as_deref(), Some(r#"kms_grants["arn:aws:kms:x"]"#));
        assert_eq!(rest, "not granted");
        assert_eq!(split_path("Observed: x").0, None, "prose with a colon is no path");
        assert_eq!(subject("[hyperpod] something"), Subject::None);
        assert_eq!(
            subject("[CLU-2, WKL-1] both"),
            Subject::Rules(vec![Rule::Known(RuleId::Clu2), Rule::Known(RuleId::Wkl1)])
        );
    }
}
