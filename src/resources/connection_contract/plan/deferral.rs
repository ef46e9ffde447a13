//! The rules that wait for apply while an argument the plan may leave unknown is (`model::Partial`): each such rule
//! is reported "not checked at plan", at the first unknown argument it reads; CON-1 keeps what it found on the known
//! fields. Pure: from the report and the unknown arguments.

use super::super::model::Partial;
use crate::findings::ToDiagnostics as _;
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

/// The report's diagnostics in the order of its rules, each rule deferred to apply reported at the first unknown
/// argument it reads (decided on the rule's outcome, not on how its message reads).
pub fn diagnostics(report: &Report, unknown: &[&Partial], lif_2: bool, strict: bool) -> Diagnostics {
    let mut all = Diagnostics::new();
    for check in &report.checks {
        let mut part = Report::from_iter([check.clone()]).diagnostics(strict);
        let reads = |partial: &&&Partial| {
            partial.rules.contains(&check.rule) || (lif_2 && partial.material && check.rule == RuleId::Lif2)
        };
        if let Some(first) = unknown.iter().find(reads).filter(|_| check.is_deferred()) {
            for diagnostic in &mut part.0 {
                if diagnostic.path == AttributePath::root() {
                    diagnostic.path = (first.path)();
                }
            }
        }
        all.extend(part);
    }
    all
}
