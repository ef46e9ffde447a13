//! The contract's verdict, from `ContractPlanInputs` alone: the engine's rules (`check_contract`) with those that
//! read an unknown argument waiting for apply, the approval (the live facts recorded at approval, and what changed
//! since), and the review status, with LIF-2 held until re-approval. Errors are what apply refuses; warnings are
//! returned for the reviewer.

use std::collections::BTreeMap;

use super::super::model::RecordedContract;
use super::super::schema::ReviewBlock;
use super::ContractPlanInputs;
use super::deferral;
use crate::governance::{Contract, Fact, Finding, Report, ReviewStatus, RuleId, approval, check_contract, paths};
use crate::governance::{reapproved, review_status};
use crate::protocol::diagnostics::Diagnostics;

/// What the plan decides about the contract.
#[derive(Clone, Debug)]
pub enum ContractVerdict {
    /// A value every rule needs is unknown: all of them are judged at apply (the warning says which values).
    Deferred(Diagnostics),
    Judged(ContractJudgement),
}

/// A judged contract: what its computed attributes show, and the warnings for the reviewer.
#[derive(Clone, Debug)]
pub struct ContractJudgement {
    pub report: Report,
    pub status: ReviewStatus,
    /// Whether the status is known at plan: not while LIF-2 waits for a material argument known only at apply.
    pub status_known: bool,
    pub next_review: time::Date,
    /// The rules with a valid exception.
    pub excepted: Vec<String>,
    /// The facts that stand approved: as recorded, or (on a (re-)approval) the account as it is now.
    pub approved: BTreeMap<String, String>,
    /// The approved facts that differ now, with their current value.
    pub changed: BTreeMap<String, String>,
    pub warnings: Diagnostics,
    /// What apply must refuse (the findings of error severity; under strict, of every severity).
    pub refusals: Diagnostics,
}

impl ContractVerdict {
    /// The diagnostics the plan shows beside a planned contract, and what apply must refuse.
    pub fn outcome(self) -> (Diagnostics, Diagnostics) {
        match self {
            Self::Deferred(deferred) => {
                let (refusals, warnings) = split(deferred);
                (warnings, refusals)
            }
            Self::Judged(judged) => {
                let (mut refusals, warnings) = split(judged.warnings);
                refusals.extend(judged.refusals);
                (warnings, refusals)
            }
        }
    }
}

/// Errors (refusals) apart from warnings: `(refusals, warnings)`.
fn split(diagnostics: Diagnostics) -> (Diagnostics, Diagnostics) {
    let (errors, warnings): (Vec<_>, Vec<_>) = diagnostics
        .into_iter()
        .partition(|d| d.severity == crate::protocol::diagnostics::Severity::Error);
    (Diagnostics(errors), Diagnostics(warnings))
}

pub fn judge(inputs: &ContractPlanInputs) -> ContractVerdict {
    let (Some(contract), Some(live)) = (&inputs.config.contract, &inputs.live) else {
        // A value the rules need comes from a resource not created yet: judge it at apply, and say so.
        let what = format!("{} not known until apply", inputs.config.unknown_arguments.join(", "));
        let deferred = crate::findings::deferred_diagnostic("all rules", &what, inputs.strict);
        return ContractVerdict::Deferred(deferred.into());
    };
    let unknown = &inputs.config.unknown;
    let prior = inputs.prior.as_ref();
    let prior_contract = prior.and_then(|p| p.contract.as_ref());
    let lif_2_waits = deferral::lif_2_waits(unknown, contract, prior_contract);
    let facts = approval::current_facts(contract, live);
    let recorded = recorded_approval(prior, contract);
    let caller = Fact::Known(inputs.caller_arn.clone());
    let checked = check_contract(contract, live, &caller, inputs.today, prior_contract, recorded.as_ref());
    let report = deferral::defer(checked, unknown, lif_2_waits);
    let changes = recorded
        .as_ref()
        .map(|approved| approval::compare(approved, &facts).changes)
        .unwrap_or_default();
    let review = review(inputs, contract, !changes.is_empty(), lif_2_waits);
    let mut diagnostics = deferral::diagnostics(&report, unknown, lif_2_waits, inputs.strict);
    if let Some(finding) = &review.still_required {
        diagnostics.push(crate::findings::finding_diagnostic(finding, inputs.strict));
    }
    let (refusals, diagnostics) = split(diagnostics);
    ContractVerdict::Judged(ContractJudgement {
        excepted: excepted(contract, inputs.today),
        approved: recorded.unwrap_or_else(|| approval::to_record(&facts)),
        changed: approval::changed_facts(&changes),
        report,
        status: review.status,
        status_known: review.known,
        next_review: review.next_review,
        warnings: diagnostics,
        refusals,
    })
}

/// The facts stand approved as recorded, unless this plan (re-)approves: create, a new review, or state written
/// before facts were recorded (that baseline is the account as it is now).
fn recorded_approval(prior: Option<&RecordedContract>, contract: &Contract) -> Option<BTreeMap<String, String>> {
    let prior = prior?;
    let approved = prior.approved_facts.as_ref()?;
    prior
        .contract
        .as_ref()
        .is_some_and(|p| !reapproved(p, contract))
        .then(|| approved.clone())
}

/// The review status the plan shows, and the LIF-2 finding that holds it at `review_required`.
struct ContractReview {
    status: ReviewStatus,
    known: bool,
    next_review: time::Date,
    still_required: Option<Finding>,
}

/// The schedule's status, `review_required` while approved facts changed (`facts_changed`) or an argument change
/// awaits re-approval. LIF-2 holds until re-approval: an argument change applied without one keeps the contract
/// "review required". A change of facts is compared afresh each plan (`changed_facts`), so it is not carried over.
fn review(inputs: &ContractPlanInputs, contract: &Contract, facts_changed: bool, lif_2_waits: bool) -> ContractReview {
    let prior = inputs.prior.as_ref();
    let prior_contract = prior.and_then(|p| p.contract.as_ref());
    let (mut status, next_review) = review_status(contract, inputs.today, prior_contract);
    if facts_changed && status != ReviewStatus::Revoked {
        status = ReviewStatus::ReviewRequired;
    }
    let still_required = prior.is_some_and(|p| {
        p.review_status.as_deref() == Some(ReviewStatus::ReviewRequired.as_str())
            && !p.facts_changed
            && p.contract.as_ref().is_some_and(|p| !reapproved(p, contract))
    });
    let mut finding = None;
    if still_required && !matches!(status, ReviewStatus::Revoked | ReviewStatus::ReviewRequired) {
        status = ReviewStatus::ReviewRequired;
        finding = Some(Finding {
            path: paths::contract::review(ReviewBlock::LAST_REVIEWED.name()),
            observed: contract.review.last_reviewed.to_string(),
            problem: "the contract changed materially since its last approval and has not been re-approved".to_string(),
            fix: "have the accountable administrator review the change, then update review.last_reviewed and \
             review.approved_by"
                .into(),
            ..Finding::of(RuleId::Lif2)
        });
    }
    ContractReview {
        // Whether a material change awaits re-approval is known only once the unknown material argument is.
        known: !lif_2_waits || still_required || status == ReviewStatus::Revoked,
        status,
        next_review,
        still_required: finding,
    }
}

/// The rules a valid exception waives today.
fn excepted(contract: &Contract, today: time::Date) -> Vec<String> {
    contract
        .exceptions
        .iter()
        .filter(|exception| exception.is_valid(today))
        .map(|exception| exception.rule.id().to_string())
        .collect()
}
