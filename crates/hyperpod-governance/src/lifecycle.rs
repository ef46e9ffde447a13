//! Lifecycle rules (LIF-*): approved → operating → under review → renewed or revoked. Review status and material
//! changes are pure functions of the contract, its prior approved version (from state) and today's date.

use std::fmt;

use time::Date;

use super::approval::{self, FactComparison};
use super::arns::role_identity;
use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Contract, Fact, LifecycleState, Review};
use super::paths::contract as path;
use crate::path::AttributePath;
use hyperpod_model::ids::Arn;

/// A review due within this many days shows as `due_soon`.
pub const DUE_SOON_DAYS: i64 = 14;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewStatus {
    Current,
    DueSoon,
    Overdue,
    ReviewRequired,
    Revoked,
}

impl ReviewStatus {
    /// The value of the contract's computed `review_status` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Current => "current",
            ReviewStatus::DueSoon => "due_soon",
            ReviewStatus::Overdue => "overdue",
            ReviewStatus::ReviewRequired => "review_required",
            ReviewStatus::Revoked => "revoked",
        }
    }
}

impl fmt::Display for ReviewStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The attributes that changed materially between the prior approved contract and this one. Beyond the catalog's
/// list (owners, roles, account/region, orchestrator, data classification, monitoring) the cluster name, the
/// project and the access scope count too: each changes what the approval covers. Values unknown until apply are
/// not compared.
pub fn material_changes(prior: &Contract, new: &Contract) -> Vec<String> {
    let mut changed: Vec<String> = ownership_values(prior, new)
        .into_iter()
        .chain(scope_values(prior, new))
        .filter_map(|(name, before, after)| match (before, after) {
            (Some(before), Some(after)) if before != after => Some(name),
            _ => None,
        })
        .collect();
    // Reinstating a revoked contract is a new approval, not a continuation.
    if prior.lifecycle == LifecycleState::Revoked && new.lifecycle == LifecycleState::Approved {
        changed.push(path::LIFECYCLE.into());
    }
    changed
}

/// One attribute compared by `material_changes`: its name, and its value before and after (`None`: unknown until
/// apply, so not compared).
type Compared = (String, Option<String>, Option<String>);

/// Who answers for the project: the owners, the project and access roles, and the Unified Studio project.
fn ownership_values(prior: &Contract, new: &Contract) -> Vec<Compared> {
    let text = |value: &str| Some(value.to_string());
    let mut compared: Vec<Compared> = [
        ("business", &prior.owners.business, &new.owners.business),
        ("operations", &prior.owners.operations, &new.owners.operations),
        ("cost", &prior.owners.cost, &new.owners.cost),
    ]
    .into_iter()
    .map(|(field, before, after)| (path::owner(field).to_string(), text(before), text(after)))
    .collect();
    compared.extend([
        (
            path::PROJECT_ROLE_ARN.into(),
            prior.project_role_arn.clone(),
            new.project_role_arn.clone(),
        ),
        (
            path::ACCESS_ROLE_ARN.into(),
            prior.access_role_arn.clone(),
            new.access_role_arn.clone(),
        ),
        (
            path::unified_studio("project_id").to_string(),
            prior.unified_studio.project_id.clone(),
            new.unified_studio.project_id.clone(),
        ),
    ]);
    compared
}

/// Where and what the approval covers: the cluster (account, region, name, orchestrator), the data
/// classification, the monitoring, and the access scope (namespaces, Slurm, approved accounts).
fn scope_values(prior: &Contract, new: &Contract) -> Vec<Compared> {
    let text = |value: &str| Some(value.to_string());
    let debug = |value: &dyn fmt::Debug| Some(format!("{value:?}"));
    vec![
        (
            path::cluster("account_id").to_string(),
            text(&prior.cluster.account_id),
            text(&new.cluster.account_id),
        ),
        (
            path::cluster("region").to_string(),
            text(&prior.cluster.region),
            text(&new.cluster.region),
        ),
        (
            path::cluster("name").to_string(),
            text(&prior.cluster.name),
            text(&new.cluster.name),
        ),
        (
            path::cluster("orchestrator").to_string(),
            debug(&prior.cluster.orchestrator),
            debug(&new.cluster.orchestrator),
        ),
        (
            path::DATA_CLASSIFICATION.into(),
            text(&prior.data_classification),
            text(&new.data_classification),
        ),
        (
            path::signals().to_string(),
            debug(&prior.monitoring),
            debug(&new.monitoring),
        ),
        (
            path::EKS_NAMESPACES.into(),
            debug(&prior.eks_namespaces),
            debug(&new.eks_namespaces),
        ),
        ("slurm".into(), debug(&prior.slurm), debug(&new.slurm)),
        (
            path::APPROVED_ACCOUNT_IDS.into(),
            debug(&prior.approved_account_ids),
            debug(&new.approved_account_ids),
        ),
    ]
}

/// Whether the new contract records a new review: a later `last_reviewed`, or another approver.
pub fn reapproved(prior: &Contract, new: &Contract) -> bool {
    new.review.last_reviewed > prior.review.last_reviewed || new.review.approved_by != prior.review.approved_by
}

/// `(review_status, next_review_date)` for the contract's computed attributes. Precedence: revoked, then
/// review_required (a material change not re-approved), then overdue, due_soon, current.
pub fn review_status(contract: &Contract, today: Date, prior: Option<&Contract>) -> (ReviewStatus, Date) {
    let due = contract.review.next_review_date();
    let status = if contract.lifecycle == LifecycleState::Revoked {
        ReviewStatus::Revoked
    } else if prior.is_some_and(|prior| !material_changes(prior, contract).is_empty() && !reapproved(prior, contract)) {
        ReviewStatus::ReviewRequired
    } else {
        schedule_status(&contract.review, today)
    };
    (status, due)
}

/// Where the review schedule alone stands on `today`: overdue, due soon (within 14 days) or current. Also behind the
/// `review_status` provider function.
pub fn schedule_status(review: &Review, today: Date) -> ReviewStatus {
    let due = review.next_review_date();
    if today > due {
        ReviewStatus::Overdue
    } else if (due - today).whole_days() <= DUE_SOON_DAYS {
        ReviewStatus::DueSoon
    } else {
        ReviewStatus::Current
    }
}

/// LIF-1 (warning; strict: error): the contract is not past its review date, and its last review is not dated in
/// the future (which would postpone every review).
pub fn lif_1(contract: &Contract, today: Date) -> Check {
    let rule = RuleId::Lif1;
    if contract.lifecycle == LifecycleState::Revoked {
        return Check::not_applicable(rule, "the contract is revoked");
    }
    let review = &contract.review;
    let due = review.next_review_date();
    let mut findings = Vec::new();
    if review.last_reviewed > today {
        findings.push(Finding {
            path: path::review("last_reviewed"),
            observed: format!("{} (today is {today})", review.last_reviewed),
            problem: "the last review is dated in the future".into(),
            fix: "record the date the review actually happened".into(),
            ..Finding::of(rule)
        });
    }
    if today > due {
        findings.push(Finding {
            path: path::review("last_reviewed"),
            observed: format!(
                "last reviewed {}, every {} days: due {due}, overdue by {} days",
                review.last_reviewed,
                review.interval_days,
                (today - due).whole_days()
            ),
            problem: "the contract is overdue for review".into(),
            fix: "review the connection with its owners, then record the new last_reviewed date and approved_by; \
             revoke it if it has no business purpose"
                .into(),
            ..Finding::of(rule)
        });
    }
    // No "in N days": the checklist is state, and a detail that changes daily would show as a change in every plan.
    Check::from_findings(rule, findings, format!("next review on {due}"))
}

/// LIF-2 (warning; strict: error): nothing material changed since the last approval. Two sources: the contract's
/// arguments against `prior` (the contract as last applied; None on create), and the live facts it was approved
/// against compared with the account now (`facts`; None when this plan records them: create, re-approval, or state
/// written before facts were recorded).
pub fn lif_2(contract: &Contract, prior: Option<&Contract>, facts: Option<&FactComparison>) -> Check {
    let rule = RuleId::Lif2;
    // One detail for every passing case, so the checklist does not change between consecutive plans.
    let settled = || {
        Check::passed(
            rule,
            format!(
                "no change awaiting re-approval (last approved {} by {})",
                contract.review.last_reviewed, contract.review.approved_by
            ),
        )
    };
    if prior.is_some_and(|prior| reapproved(prior, contract)) {
        return settled();
    }
    let arguments: Vec<String> = prior.map(|prior| material_changes(prior, contract)).unwrap_or_default();
    let changes = facts.map(|facts| facts.changes.as_slice()).unwrap_or_default();
    if arguments.is_empty() && changes.is_empty() {
        return match facts.filter(|facts| !facts.unverified.is_empty()) {
            Some(facts) => Check::unavailable(
                rule,
                format!(
                    "the facts approved against could not be read: {}",
                    facts.unverified.join("; ")
                ),
            ),
            None => settled(),
        };
    }
    let mut observed = Vec::new();
    if !changes.is_empty() {
        observed.push(approval::describe_all(changes, contract.review.last_reviewed));
    }
    if !arguments.is_empty() {
        observed.push(format!(
            "changed {}; last_reviewed ({}) and approved_by unchanged",
            arguments.join(", "),
            contract.review.last_reviewed
        ));
    }
    let finding = Finding {
        path: path::review("last_reviewed"),
        observed: (observed.join("; ")),
        problem: "the connection changed materially since its approval, so its review status is review_required".into(),
        fix:
            "have an accountable administrator review the change and record the new last_reviewed date and approved_by"
                .into(),
        ..Finding::of(rule)
    };
    Check::from_findings(rule, vec![finding], "")
}

/// LIF-3: a revoked contract, or one without an accountable owner, backs no binding or tenant. `at` is the
/// subject's attribute that references the contract (`paths::tenant::contract()`, `paths::binding::contract()`).
pub fn lif_3(contract: &Contract, at: AttributePath) -> Check {
    let rule = RuleId::Lif3;
    let mut findings = Vec::new();
    if contract.lifecycle == LifecycleState::Revoked {
        findings.push(Finding {
            path: at.clone(),
            observed: format!("contract {:?} is revoked", contract.name),
            problem: "a revoked contract cannot back a binding or tenant".into(),
            fix: "remove this resource, or re-approve the contract after a review".into(),
            ..Finding::of(rule)
        });
    }
    let missing = contract.owners.missing();
    if !missing.is_empty() {
        findings.push(Finding {
            path: at,
            observed: format!("contract {:?} has no {} owner", contract.name, missing.join(", ")),
            problem: "a contract without an accountable owner cannot back a binding or tenant".into(),
            fix: "name every owner in the contract's owners block".into(),
            ..Finding::of(rule)
        });
    }
    Check::from_findings(
        rule,
        findings,
        format!("contract {:?} is approved and owned", contract.name),
    )
}

/// The names an identity goes by, lowercased: its ARN, role or user name, session name, and the session's
/// e-mail local part (SSO sessions are often e-mail addresses).
fn names_of(caller: &str) -> Vec<String> {
    let mut names = vec![caller.trim().to_ascii_lowercase()];
    if let Ok(arn) = Arn::parse(caller.trim()) {
        let mut segments = arn.resource.split('/');
        match (segments.next(), arn.service.as_str()) {
            (Some("assumed-role"), "sts") => names.extend(segments.map(str::to_string)),
            (Some("user" | "role"), "iam") => names.extend(arn.resource.rsplit('/').next().map(str::to_string)),
            _ => {}
        }
    }
    let local_parts: Vec<String> = names
        .iter()
        .filter_map(|n| n.split_once('@'))
        .map(|(local, _)| local.to_string())
        .collect();
    names.extend(local_parts);
    names
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Whether the recorded approver is the caller. An ARN approver is compared as an identity (a role ARN matches any
/// session of that role; an assumed-role ARN matches only the same session); a plain name or e-mail matches the
/// caller's user, role or session name.
pub fn approver_is_caller(approver: &str, caller: &str) -> bool {
    let approver = approver.trim();
    match Arn::parse(approver) {
        Ok(arn) if arn.service == "sts" => approver.eq_ignore_ascii_case(caller.trim()),
        Ok(_) => match (role_identity(approver), role_identity(caller)) {
            (Some(a), Some(c)) => a == c,
            _ => approver.eq_ignore_ascii_case(caller.trim()),
        },
        Err(_) => {
            let wanted = approver.to_ascii_lowercase();
            let local = wanted.split_once('@').map(|(local, _)| local.to_string());
            let names = names_of(caller);
            names.contains(&wanted) || local.is_some_and(|local| names.contains(&local))
        }
    }
}

/// LIF-4: the approver is recorded and is not the identity running the apply (`caller` from sts:GetCallerIdentity).
pub fn lif_4(contract: &Contract, caller: &Fact<String>) -> Check {
    let rule = RuleId::Lif4;
    let approver = &contract.review.approved_by;
    let at = path::review("approved_by");
    if approver.trim().is_empty() {
        let finding = Finding {
            path: at,
            observed: "no approver".into(),
            problem: "the approval is not recorded".into(),
            fix: "record the accountable administrator who approved the contract".into(),
            ..Finding::of(rule)
        };
        return Check::from_findings(rule, vec![finding], "");
    }
    let caller = match caller {
        Fact::Known(caller) => caller,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let findings = if approver_is_caller(approver, caller) {
        vec![Finding {
            path: at,
            observed: format!("approved_by {approver:?}; the apply runs as {caller}"),
            problem: "the contract is approved by the identity that applies it; approval stays with an accountable \
             administrator, apart from automation"
                .into(),
            fix:
                "have another administrator approve and record them in review.approved_by, or apply as another identity"
                    .into(),
            ..Finding::of(rule)
        }]
    } else {
        Vec::new()
    };
    // The caller is left out of the detail: a plan run by another identity would otherwise show a change.
    Check::from_findings(
        rule,
        findings,
        format!("approved by {approver}, not the identity running this plan"),
    )
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
