//! The rules that wait for apply while an argument the plan may leave unknown is (`model::Partial`): each such rule
//! is reported "not checked at plan", at the first unknown argument it reads; CON-1 keeps what it found on the known
//! fields. Pure: from the report and the unknown arguments.

use super::super::model::Partial;
use crate::governance::{Check, Contract, Outcome, Report, RuleId, lifecycle};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};

/// Whether LIF-2 (and the review status) must wait for apply: an update whose unknown arguments include a material
/// one, not re-approved (a re-approval settles LIF-2 whatever changed).
pub fn lif_2_waits(unknown: &[&Partial], contract: &Contract, prior: Option<&Contract>) -> bool {
    prior.is_some_and(|prior| !lifecycle::reapproved(prior, contract)) && unknown.iter().any(|p| p.material)
}

/// The report with every rule that reads an unknown argument deferred to apply. CON-1 keeps findings it has on
/// known fields (refused at once); any other outcome of a rule reading an unknown value is a guess.
pub fn defer(mut report: Report, unknown: &[&Partial], lif_2: bool) -> Report {
    for check in &mut report.checks {
        let mut names: Vec<String> = unknown
            .iter()
            .filter(|partial| partial.rules.contains(&check.rule))
            .map(|partial| (partial.path)().to_string())
            .collect();
        if lif_2 && check.rule == RuleId::Lif2 {
            names.extend(unknown.iter().filter(|p| p.material).map(|p| (p.path)().to_string()));
        }
        if names.is_empty() {
            continue;
        }
        if check.rule == RuleId::Con1 && matches!(check.outcome, Outcome::Failed(_)) {
            continue;
        }
        *check = Check::unknowns(check.rule, &names);
    }
    report
}

/// Points each "not checked at plan" diagnostic at the first unknown argument its rule reads.
pub fn point_deferred(diagnostics: &mut Diagnostics, unknown: &[&Partial], lif_2: bool) {
    for diagnostic in &mut diagnostics.0 {
        for partial in unknown {
            let reads =
                |rule: &RuleId| partial.rules.contains(rule) || (lif_2 && partial.material && *rule == RuleId::Lif2);
            let deferred_rule = crate::governance::RuleId::ALL.iter().find(|rule| {
                diagnostic
                    .summary
                    .starts_with(&format!("[{}] not checked at plan", rule.id()))
            });
            if deferred_rule.is_some_and(reads) && diagnostic.path == AttributePath::root() {
                diagnostic.path = (partial.path)();
            }
        }
    }
}
