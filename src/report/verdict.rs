//! The verdict of a report, its one-line summary and the exit code that carries it.

use std::collections::BTreeSet;

use super::model::Report;
use super::rules::Status;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Every evaluated rule passed, is excepted or does not apply; nothing deferred, skipped or warned.
    #[default]
    Compliant,
    /// Compliant, but with warnings, skipped checks or rules judged at apply.
    Attention,
    /// A failed rule, an error diagnostic, or a plan that stopped.
    NotCompliant,
}

/// Exit code for input the report could not read.
pub const UNREADABLE: u8 = 3;

impl Level {
    pub fn exit_code(self) -> u8 {
        match self {
            Level::Compliant => 0,
            Level::NotCompliant => 1,
            Level::Attention => 2,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Level::Compliant => "compliant",
            Level::Attention => "attention",
            Level::NotCompliant => "not_compliant",
        }
    }

    /// The heading's words.
    pub fn words(self) -> &'static str {
        match self {
            Level::Compliant => "compliant",
            Level::Attention => "compliant, needs attention",
            Level::NotCompliant => "not compliant",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub level: Level,
    /// One line, icon first.
    pub summary: String,
}

pub fn decide(report: &Report) -> Verdict {
    let c = &report.counts;
    let level = if report.errored || c.failed > 0 || c.errors > 0 {
        Level::NotCompliant
    } else if c.warnings > 0 || c.skipped > 0 || c.deferred > 0 || report.attention().iter().any(|a| a.rule.is_none()) {
        Level::Attention
    } else {
        Level::Compliant
    };
    Verdict {
        level,
        summary: summary(report, level),
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `(WKL-3, WKL-7)` of the rules with `status`, in catalog order.
fn rules_with(report: &Report, status: Status) -> String {
    let rules: BTreeSet<_> = report
        .results
        .iter()
        .filter(|r| r.status == status)
        .map(|r| &r.rule)
        .collect();
    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
}

fn summary(report: &Report, level: Level) -> String {
    let c = &report.counts;
    if report.errored && !report.log_read {
        return "❌ Not compliant — the plan failed; pass --log with the output of `terraform plan -json` to see why."
            .to_string();
    }
    let scope = format!(
        "{}, {}",
        plural(c.contracts, "connection contract", "connection contracts"),
        plural(c.tenants, "tenant", "tenants")
    );
    let changes = format!(
        "{} to create, {} to change, {} to destroy",
        c.create, c.update, c.destroy
    );
    let mut passed = plural(c.passed, "check passed", "checks passed");
    if c.excepted > 0 {
        passed.push_str(&format!(", {} by exception", c.excepted));
    }
    match level {
        Level::Compliant => format!("✅ Compliant — {scope}; {passed}; {changes}."),
        Level::Attention => {
            let mut parts = vec![passed];
            if c.warnings > 0 {
                parts.push(format!(
                    "{} ({})",
                    plural(c.warnings, "warning", "warnings"),
                    rules_with(report, Status::Warning)
                ));
            }
            if c.skipped > 0 {
                parts.push(format!(
                    "{} not checked ({})",
                    c.skipped,
                    rules_with(report, Status::Skipped)
                ));
            }
            let deferred_rules = report.results.iter().filter(|r| r.status == Status::Deferred).count();
            if deferred_rules > 0 {
                parts.push(format!(
                    "{} judged at apply ({})",
                    plural(deferred_rules, "rule", "rules"),
                    rules_with(report, Status::Deferred)
                ));
            }
            let deferred_resources = c.deferred - deferred_rules;
            if deferred_resources > 0 {
                parts.push(format!(
                    "{} judged at apply",
                    plural(deferred_resources, "resource", "resources")
                ));
            }
            let others = report
                .attention()
                .iter()
                .filter(|a| a.rule.is_none() && a.status == Status::Warning)
                .count();
            if others > 0 {
                parts.push(plural(others, "other warning", "other warnings"));
            }
            format!(
                "⚠️ Compliant, needs attention — {scope}; {}; {changes}.",
                parts.join(", ")
            )
        }
        Level::NotCompliant => {
            let failed: BTreeSet<&str> = report
                .results
                .iter()
                .filter(|r| r.status == Status::Failed)
                .map(|r| r.address.as_str())
                .collect();
            let mut parts = Vec::new();
            if c.failed > 0 {
                let rules: BTreeSet<_> = report
                    .results
                    .iter()
                    .filter(|r| r.status == Status::Failed)
                    .map(|r| &r.rule)
                    .collect();
                parts.push(format!(
                    "{} failed ({}) on {}",
                    plural(rules.len(), "rule", "rules"),
                    rules_with(report, Status::Failed),
                    plural(failed.len(), "resource", "resources")
                ));
            }
            if c.errors > 0 {
                parts.push(plural(
                    c.errors,
                    if c.failed > 0 { "other error" } else { "error" },
                    if c.failed > 0 { "other errors" } else { "errors" },
                ));
            }
            if report.errored {
                parts.push(if parts.is_empty() {
                    "the plan failed and its log names no error".to_string()
                } else {
                    "the plan stopped".to_string()
                });
            } else {
                parts.push(changes);
            }
            format!("❌ Not compliant — {}.", parts.join("; "))
        }
    }
}
