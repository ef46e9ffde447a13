//! What a rule returns: a [`Check`] per rule with an [`Outcome`] (passed, failed with [`Finding`]s, not applicable
//! to these facts, or skipped with a reason), and the [`Report`] a resource turns into [`Message`]s (the provider's
//! diagnostics) and a reviewer's checklist. Nothing that was not evaluated reads `passed`: a skipped check is always
//! a message.

use time::Date;

use super::catalog::{FindingSeverity, RuleId};
use super::model::Exception;
use crate::path::{AttributePath, PathStep};

/// What a report tells the user about one rule: a finding, or a check that did not run. The provider shows each as
/// one diagnostic, with `summary` as its title and `detail` as its text, at `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub severity: FindingSeverity,
    pub summary: String,
    pub detail: String,
    pub path: AttributePath,
}

/// A report's messages, in the order of its checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages(pub Vec<Message>);

impl Messages {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|message| message.severity == FindingSeverity::Error)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Message> {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a Messages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// One broken rule at one attribute: what was seen, why it is wrong, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    pub severity: FindingSeverity,
    /// Relative to the resource the rule checked (see `paths`); the empty path is the whole block.
    pub path: AttributePath,
    pub observed: String,
    pub problem: String,
    pub fix: String,
}

impl Finding {
    /// The base of a finding literal, at the rule's catalog severity: what was seen, why it is wrong and how to fix it
    /// are named where the finding is built, so none can be passed for another.
    ///
    /// ```
    /// # use hyperpod_governance::{Finding, RuleId};
    /// # use hyperpod_governance::AttributePath;
    /// let finding = Finding {
    ///     path: AttributePath::attr("priority_class"),
    ///     observed: "\"urgent\"".into(),
    ///     problem: "the cluster policy has no such priority class".into(),
    ///     fix: "use one of the policy's classes".into(),
    ///     ..Finding::of(RuleId::Wkl4)
    /// };
    /// assert_eq!(finding.severity, RuleId::Wkl4.default_severity());
    /// ```
    pub fn of(rule: RuleId) -> Self {
        Self {
            rule,
            severity: rule.default_severity(),
            path: AttributePath::root(),
            observed: String::new(),
            problem: String::new(),
            fix: String::new(),
        }
    }

    /// `path: problem. Observed: …. Fix: …`, the path left out when the finding is about the whole block.
    pub fn detail(&self) -> String {
        let problem = self.problem.trim_end_matches('.');
        let fix = self.fix.trim_end_matches('.');
        let body = format!("{problem}. Observed: {}. Fix: {fix}", self.observed);
        if self.path.is_root() {
            body
        } else {
            format!("{}: {body}", self.path)
        }
    }

    /// `strict` turns warnings into errors (for pipelines that want every governance warning refused at apply).
    pub fn to_message(&self, strict: bool) -> Message {
        let severity = if strict { FindingSeverity::Error } else { self.severity };
        Message {
            severity,
            summary: format!("[{}] {}", self.rule.id(), self.rule.title()),
            detail: self.detail(),
            path: self.path.clone(),
        }
    }
}

/// Why a check did not run. Both become a warning (an error under `strict`): a value unknown until apply is judged
/// again at apply before the resource writes anything, and an unread fact (no permission, service error) would
/// otherwise look like a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipCause {
    UnknownUntilApply,
    Unavailable,
    /// The facts the rule needs are not all visible at plan (siblings planned beside the resource that it does not
    /// reference): the checklist says so, and apply evaluates the rule against what then exists before writing.
    NotAtPlan,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed {
        detail: String,
    },
    Failed(Vec<Finding>),
    /// The rule does not concern these facts (WKL-8 on a Slurm tenant): evaluated, and nothing to pass.
    NotApplicable {
        why: String,
    },
    /// Failed, and waived by a valid exception: `detail` names the exception and what it waives.
    Excepted {
        detail: String,
    },
    Skipped {
        reason: String,
        cause: SkipCause,
    },
}

/// The result of one rule; a check that could not run is `Skipped` with its reason, never a silent pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub rule: RuleId,
    pub outcome: Outcome,
}

impl Check {
    pub fn passed(rule: RuleId, detail: impl Into<String>) -> Self {
        Self {
            rule,
            outcome: Outcome::Passed { detail: detail.into() },
        }
    }
    /// A rule that does not apply to these facts (e.g. WKL-8 on a Slurm tenant), and why.
    pub fn not_applicable(rule: RuleId, why: impl Into<String>) -> Self {
        Self {
            rule,
            outcome: Outcome::NotApplicable { why: why.into() },
        }
    }
    /// Failed with `findings`, or passed with `detail` when there are none.
    pub fn from_findings(rule: RuleId, findings: Vec<Finding>, detail: impl Into<String>) -> Self {
        if findings.is_empty() {
            Self::passed(rule, detail)
        } else {
            Self {
                rule,
                outcome: Outcome::Failed(findings),
            }
        }
    }
    /// `what` names the value, e.g. "project_role_arn"; the reason reads "project_role_arn is not known until apply".
    pub fn unknown(rule: RuleId, what: impl AsRef<str>) -> Self {
        Self {
            rule,
            outcome: Outcome::Skipped {
                reason: format!("{} is not known until apply", what.as_ref()),
                cause: SkipCause::UnknownUntilApply,
            },
        }
    }
    /// Several values at once: "a, b and c are not known until apply".
    pub fn unknowns(rule: RuleId, names: &[String]) -> Self {
        let what = match names {
            [] => return Self::passed(rule, ""),
            [one] => return Self::unknown(rule, one),
            [init @ .., last] => format!("{} and {last} are", init.join(", ")),
        };
        Self {
            rule,
            outcome: Outcome::Skipped {
                reason: format!("{what} not known until apply"),
                cause: SkipCause::UnknownUntilApply,
            },
        }
    }
    /// Not evaluated at plan, for `reason` (which names what would let the plan decide it); apply evaluates it.
    pub fn not_at_plan(rule: RuleId, reason: impl Into<String>) -> Self {
        Self {
            rule,
            outcome: Outcome::Skipped {
                reason: reason.into(),
                cause: SkipCause::NotAtPlan,
            },
        }
    }
    /// A live fact that could not be read; `reason` comes from the resource, e.g. "AccessDenied reading role X".
    pub fn unavailable(rule: RuleId, reason: impl Into<String>) -> Self {
        Self {
            rule,
            outcome: Outcome::Skipped {
                reason: reason.into(),
                cause: SkipCause::Unavailable,
            },
        }
    }
    pub fn is_failed(&self) -> bool {
        matches!(self.outcome, Outcome::Failed(_))
    }
    pub fn is_passed(&self) -> bool {
        matches!(self.outcome, Outcome::Passed { .. })
    }
    pub fn is_skipped(&self) -> bool {
        matches!(self.outcome, Outcome::Skipped { .. })
    }
    /// Skipped only because a configuration value is unknown until apply: judged again at apply.
    pub fn is_deferred(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Skipped {
                cause: SkipCause::UnknownUntilApply,
                ..
            }
        )
    }
    pub fn findings(&self) -> &[Finding] {
        match &self.outcome {
            Outcome::Failed(findings) => findings,
            _ => &[],
        }
    }
}

/// A rule that did not simply pass or not apply, as the reviewer's checklist lists it (`findings`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecklistRow {
    pub rule: &'static str,
    /// One of [`ChecklistRow::STATUSES`].
    pub status: &'static str,
    pub detail: String,
}

impl ChecklistRow {
    /// `warning`: failed with warning-severity findings only (the plan goes on); `skipped`: a fact could not be
    /// read; `excepted`: failed, waived by a valid exception.
    pub const STATUSES: [&'static str; 4] = ["failed", "warning", "skipped", "excepted"];
}

/// The reviewer's checklist of one report: the rules that passed outright and those that do not apply, by ID, and
/// every other rule with its detail, each in the order the rules ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checklist {
    pub passed: Vec<&'static str>,
    pub not_applicable: Vec<&'static str>,
    pub findings: Vec<ChecklistRow>,
    /// Some rule waits for a value known only at apply: the plan cannot tell the checklist yet, and apply fills it
    /// in before writing anything.
    pub deferred: bool,
}

/// The checks one resource ran, in the order it ran them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, check: Check) {
        self.checks.push(check);
    }
    pub fn check(&self, rule: RuleId) -> Option<&Check> {
        self.checks.iter().find(|check| check.rule == rule)
    }

    /// The rules this report could not evaluate at plan (`SkipCause::NotAtPlan`), by ID, in the order they ran: what
    /// apply evaluates against what then exists, before the resource's first write.
    pub fn not_evaluated_at_plan(&self) -> Vec<&'static str> {
        self.checks
            .iter()
            .filter(|check| {
                matches!(
                    check.outcome,
                    Outcome::Skipped {
                        cause: SkipCause::NotAtPlan,
                        ..
                    }
                )
            })
            .map(|check| check.rule.id())
            .collect()
    }

    /// Findings as messages, plus a warning (an error under `strict`) for every check that did not run.
    pub fn messages(&self, strict: bool) -> Messages {
        let mut diagnostics = Messages::default();
        let skipped_severity = if strict {
            FindingSeverity::Error
        } else {
            FindingSeverity::Warning
        };
        for check in &self.checks {
            match &check.outcome {
                Outcome::Failed(findings) => findings
                    .iter()
                    .for_each(|finding| diagnostics.0.push(finding.to_message(strict))),
                Outcome::Skipped {
                    reason,
                    cause: SkipCause::Unavailable,
                } => diagnostics.0.push(Message {
                    severity: skipped_severity,
                    summary: format!("[{}] {} {NOT_CHECKED}", check.rule.id(), check.rule.title()),
                    detail: format!(
                        "{}. This rule could not be verified in this plan; grant the provider's identity read \
                         access or fix the cause, and plan again.",
                        reason.trim_end_matches('.')
                    ),
                    path: AttributePath::root(),
                }),
                Outcome::Skipped {
                    reason,
                    cause: SkipCause::UnknownUntilApply,
                } => diagnostics.0.push(deferred_message(check.rule.id(), reason, strict)),
                Outcome::Skipped {
                    reason,
                    cause: SkipCause::NotAtPlan,
                } => diagnostics.0.push(Message {
                    severity: skipped_severity,
                    summary: format!("[{}] {} (not evaluated at plan)", check.rule.id(), check.rule.title()),
                    detail: format!(
                        "{}. Apply evaluates this rule against what then exists, before this resource writes \
                         anything, and fails there if it is broken.",
                        reason.trim_end_matches('.')
                    ),
                    path: AttributePath::root(),
                }),
                _ => {}
            }
        }
        diagnostics
    }

    pub fn has_errors(&self, strict: bool) -> bool {
        self.messages(strict).has_errors()
    }

    /// What a plan says of a report judged twice (see [`super::tenancy::Neighbours`]): `self` without the live
    /// objects of other teams and projects (the checklist the plan records) and `live` with them (the same rules, in
    /// the same order). Returns `self`'s messages, and apart from them the messages of the rules only `live` fails
    /// (their errors are refusals that rest on live state), and of the rules both fail the findings only `live` has.
    /// A rule `self` passes whose live half could not be read adds that "not checked" to the first; a rule `self`
    /// could not evaluate at plan that `live` passes says nothing.
    pub fn messages_with_live(&self, live: &Report, strict: bool) -> (Messages, Messages) {
        let mut recorded = Messages::default();
        let mut live_only = Messages::default();
        for (index, check) in self.checks.iter().enumerate() {
            let counted = live
                .checks
                .get(index)
                .filter(|other| other.rule == check.rule)
                .or_else(|| live.check(check.rule));
            let one = |check: &Check| Report::from_iter([check.clone()]).messages(strict).0;
            match counted {
                Some(counted) if counted.is_failed() && !check.is_failed() => live_only.0.extend(one(counted)),
                Some(counted) if counted.is_failed() => {
                    // Both fail: what only the live half finds is said apart, the rest once.
                    recorded.0.extend(one(check));
                    let extra: Vec<Finding> = counted
                        .findings()
                        .iter()
                        .filter(|found| !check.findings().iter().any(|known| known.path == found.path))
                        .cloned()
                        .collect();
                    if !extra.is_empty() {
                        live_only.0.extend(one(&Check::from_findings(check.rule, extra, "")));
                    }
                }
                Some(counted)
                    if check.is_passed()
                        && matches!(
                            counted.outcome,
                            Outcome::Skipped {
                                cause: SkipCause::Unavailable,
                                ..
                            }
                        ) =>
                {
                    recorded.0.extend(one(counted));
                }
                // Not evaluated in what the plan records, but judged beside it on the live objects and passed: nothing
                // to say (the checklist says `skipped`; apply's re-plan judges it again before the write). A warning
                // here would be one a good configuration cannot silence.
                Some(counted)
                    if matches!(
                        check.outcome,
                        Outcome::Skipped {
                            cause: SkipCause::NotAtPlan,
                            ..
                        }
                    ) && matches!(counted.outcome, Outcome::Passed { .. } | Outcome::NotApplicable { .. }) => {}
                _ => recorded.0.extend(one(check)),
            }
        }
        (recorded, live_only)
    }

    /// The plan-time checklist.
    pub fn checklist(&self) -> Checklist {
        let mut list = Checklist::default();
        for check in &self.checks {
            let rule = check.rule.id();
            let row = |status, detail: &str| ChecklistRow {
                rule,
                status,
                detail: detail.to_string(),
            };
            match &check.outcome {
                Outcome::Passed { .. } => list.passed.push(rule),
                Outcome::NotApplicable { .. } => list.not_applicable.push(rule),
                Outcome::Failed(findings) => {
                    let errors = findings.iter().any(|f| f.severity == FindingSeverity::Error);
                    let detail = findings.iter().map(Finding::detail).collect::<Vec<_>>().join(" | ");
                    list.findings
                        .push(row(if errors { "failed" } else { "warning" }, &detail));
                }
                Outcome::Excepted { detail } => list.findings.push(row("excepted", detail)),
                Outcome::Skipped {
                    cause: SkipCause::UnknownUntilApply,
                    ..
                } => list.deferred = true,
                Outcome::Skipped { reason, .. } => list.findings.push(row("skipped", reason)),
            }
        }
        list
    }

    /// Failed checks whose rule has a valid exception (owned, unexpired; EXC-1 judges the exceptions themselves)
    /// become `excepted`, naming the exception and what it waives. EXC-1 itself can never be waived.
    pub fn with_exceptions(mut self, exceptions: &[Exception], today: Date) -> Self {
        for check in &mut self.checks {
            let Outcome::Failed(findings) = &check.outcome else {
                continue;
            };
            let Some(exception) = exceptions
                .iter()
                .find(|exception| exception.rule == check.rule && exception.is_valid(today))
            else {
                continue;
            };
            let waived: Vec<String> = findings.iter().map(Finding::detail).collect();
            // The wording is 0.2.0's "passed with exception (…)" without "passed with ": the state upgrader
            // (`resources::checks::upgrade_state`) relies on it.
            check.outcome = Outcome::Excepted {
                detail: format!(
                    "exception (owner {}, expires {}: {}); waived: {}",
                    exception.owner,
                    exception.expires,
                    exception.reason,
                    waived.join(" | ")
                ),
            };
        }
        self
    }

    /// Moves every finding's path under `prefix`, for facts a resource holds inside one of its attributes (a
    /// tenant checking its contract through its `contract` attribute).
    pub fn under(mut self, prefix: &AttributePath) -> Self {
        for check in &mut self.checks {
            if let Outcome::Failed(findings) = &mut check.outcome {
                for finding in findings {
                    let steps: Vec<PathStep> = prefix.0.iter().chain(finding.path.0.iter()).cloned().collect();
                    finding.path = AttributePath(steps);
                }
            }
        }
        self
    }
}

/// The end of a summary for a rule whose facts could not be read (`SkipCause::Unavailable`), and what follows the
/// rule IDs in the summary for rules waiting on a value known only at apply (`deferred_message`). The governance
/// report reads diagnostics back from `terraform plan -json`, where they are text only: it tells these by the same
/// constants, so the marks are written and read in one place.
pub const NOT_CHECKED: &str = "(not checked)";
pub const NOT_CHECKED_AT_PLAN: &str = "not checked at plan";

/// The message for rules a plan cannot evaluate because `what` is unknown until apply: a warning (a refusal under
/// `strict`) naming the rules, the unknown input and that apply judges them before writing anything.
pub fn deferred_message(rules: &str, what: &str, strict: bool) -> Message {
    Message {
        severity: if strict {
            FindingSeverity::Error
        } else {
            FindingSeverity::Warning
        },
        summary: format!("[{rules}] {NOT_CHECKED_AT_PLAN}: a value is known only at apply"),
        detail: format!(
            "{}. Apply evaluates the rule with the known value before this resource writes anything, and refuses \
             the change there if it is broken. To decide it in the plan, use a value known at plan time (a literal \
             or an existing object's attribute).",
            what.trim_end_matches('.')
        ),
        path: AttributePath::root(),
    }
}

impl FromIterator<Check> for Report {
    fn from_iter<I: IntoIterator<Item = Check>>(iter: I) -> Self {
        Self {
            checks: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
#[path = "finding_tests.rs"]
mod tests;
