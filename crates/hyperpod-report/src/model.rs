//! The report's content, built from the plan and its diagnostics: every rule's status per resource, the
//! resources grouped by connection contract, what each tenant gets, what is destroyed, and what needs a look.
//! Renderers only format it; `build.rs` assembles it.

use std::collections::{BTreeMap, BTreeSet};

use super::log::{LogSeverity, LoggedDiagnostic};
use super::plan::Action;
use super::rules::{Rule, Status};
use super::verdict::Verdict;

/// How the report is titled and linked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub title: String,
    pub rules_url: String,
    /// The provider's version, for the footer.
    pub version: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GovernanceReport {
    pub options: Options,
    pub terraform_version: Option<String>,
    pub errored: bool,
    /// Whether a `plan -json` log was given.
    pub log_read: bool,
    /// This provider's resources, in the plan or only in the log (their plan failed), by address.
    pub resources: Vec<Governed>,
    /// Every rule outcome, by (address, rule).
    pub results: Vec<RuleResult>,
    pub contracts: Vec<ContractSummary>,
    pub tenants: Vec<TenantSummary>,
    /// Domain unit policy grants: (address, domain unit).
    pub grants: Vec<(String, Option<String>)>,
    /// Scheduling policies: (address, cluster).
    pub policies: Vec<(String, Option<String>)>,
    pub destroyed: Vec<Destroyed>,
    /// Diagnostics without a rule that weigh on the verdict: errors, and warnings about a resource.
    pub messages: Vec<LoggedDiagnostic>,
    pub counts: Counts,
    pub verdict: Verdict,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Governed {
    pub address: String,
    pub resource_type: String,
    pub action: Action,
    /// In the plan JSON; `false` for a resource only the log names (its plan failed).
    pub planned: bool,
    /// None of its rules could be judged at plan: all are judged at apply.
    pub deferred: bool,
    /// Index into `Report::contracts`.
    pub contract: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleResult {
    pub address: String,
    pub rule: Rule,
    pub status: Status,
    /// Passed rules have none (the plan lists them by ID only).
    pub detail: Option<String>,
    pub attribute: Option<String>,
    pub location: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractSummary {
    pub address: String,
    pub name: String,
    pub project_id: String,
    pub cluster: String,
    pub domain_unit: Option<String>,
    /// Its own and every associated resource's address, sorted.
    pub resources: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TenantSummary {
    pub address: String,
    pub team: String,
    pub namespace: String,
    pub guaranteed: String,
    pub sharing: String,
    pub priority: String,
    pub viewers: String,
    pub operators: String,
    pub cluster: Option<String>,
    pub contract: Option<usize>,
    pub planned: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destroyed {
    pub address: String,
    /// `destroy` or `replace`.
    pub action: &'static str,
    /// Why, in words (Terraform's `action_reason`).
    pub reason: String,
}

/// One line of "Needs attention".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attention {
    pub status: Status,
    pub rule: Option<Rule>,
    pub address: String,
    pub attribute: Option<String>,
    pub detail: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub contracts: usize,
    pub tenants: usize,
    pub resources: usize,
    pub passed: usize,
    pub excepted: usize,
    pub not_applicable: usize,
    /// Rules, and resources all of whose rules, judged at apply.
    pub deferred: usize,
    pub skipped: usize,
    pub warnings: usize,
    pub failed: usize,
    /// Error diagnostics without a rule.
    pub errors: usize,
    pub create: usize,
    pub update: usize,
    pub destroy: usize,
    pub replace: usize,
}

impl GovernanceReport {
    /// The worst status of one resource: its rules, a deferral, and its messages.
    pub fn status_of(&self, address: &str) -> Option<Status> {
        let rules = self.results.iter().filter(|r| r.address == address).map(|r| r.status);
        let deferred = self
            .resources
            .iter()
            .filter(|r| r.address == address && r.deferred)
            .map(|_| Status::Deferred);
        let messages = self
            .messages
            .iter()
            .filter(|m| m.address.as_deref() == Some(address))
            .map(|m| match m.severity {
                LogSeverity::Error => Status::Failed,
                LogSeverity::Warning => Status::Warning,
            });
        let worst = rules.chain(deferred).chain(messages).max();
        let unplanned = self.resources.iter().any(|r| r.address == address && !r.planned);
        match worst {
            None if unplanned => Some(Status::Failed),
            None => self
                .resources
                .iter()
                .any(|r| r.address == address)
                .then_some(Status::Passed),
            worst => worst,
        }
    }

    /// The rule outcomes of a group of resources (a contract's): per rule, the worst, in catalog order.
    pub fn worst_rules(&self, addresses: &[String]) -> Vec<&RuleResult> {
        let mut worst: BTreeMap<&Rule, &RuleResult> = BTreeMap::new();
        for result in self.results.iter().filter(|r| addresses.contains(&r.address)) {
            let entry = worst.entry(&result.rule).or_insert(result);
            if result.status > entry.status {
                *entry = result;
            }
        }
        worst.into_values().collect()
    }

    /// Resources of a group none of whose rules the plan could judge.
    pub fn deferred_in(&self, addresses: &[String]) -> Vec<&str> {
        self.resources
            .iter()
            .filter(|r| r.deferred && addresses.contains(&r.address))
            .map(|r| r.address.as_str())
            .collect()
    }

    /// Resources with rule outcomes (or judged at apply) that belong to no contract of this plan: a binding whose
    /// contract lives in another configuration, a rule diagnostic without an address.
    pub fn unassociated(&self) -> Vec<String> {
        let mut addresses: BTreeSet<String> = self
            .results
            .iter()
            .map(|r| r.address.clone())
            .filter(|address| !self.contracts.iter().any(|c| c.resources.contains(address)))
            .collect();
        addresses.extend(
            self.resources
                .iter()
                .filter(|r| r.deferred && r.contract.is_none())
                .map(|r| r.address.clone()),
        );
        addresses.into_iter().collect()
    }

    /// Failures first, then warnings, skipped and deferred checks; each by address and rule.
    pub fn attention(&self) -> Vec<Attention> {
        let mut items: Vec<Attention> = self
            .results
            .iter()
            .filter(|r| r.status.needs_attention())
            .map(|r| Attention {
                status: r.status,
                rule: Some(r.rule.clone()),
                address: r.address.clone(),
                attribute: r.attribute.clone(),
                detail: r.detail.clone().unwrap_or_default(),
            })
            .collect();
        items.extend(self.resources.iter().filter(|r| r.deferred).map(|r| {
            Attention {
                status: Status::Deferred,
                rule: None,
                address: r.address.clone(),
                attribute: None,
                detail:
                    "all rules are judged at apply, before anything is written: a value they read is known only then"
                        .to_string(),
            }
        }));
        items.extend(self.messages.iter().map(|m| Attention {
            status: if m.severity == LogSeverity::Error {
                Status::Failed
            } else {
                Status::Warning
            },
            rule: None,
            address: m.address.clone().unwrap_or_default(),
            attribute: m.attribute.clone(),
            detail: format!("{}: {}", m.summary.trim_end_matches('.'), m.detail),
        }));
        items.sort_by(|a, b| {
            (b.status, &a.address, &a.rule, &a.detail).cmp(&(a.status, &b.address, &b.rule, &b.detail))
        });
        items
    }

    /// The rules applied with an exception, for the reviewer to see who owns it and until when.
    pub fn excepted(&self) -> Vec<&RuleResult> {
        self.results.iter().filter(|r| r.status == Status::Excepted).collect()
    }

    /// Which statuses the report shows, best first (for the legend).
    pub fn statuses(&self) -> BTreeSet<Status> {
        let deferred = self.resources.iter().any(|r| r.deferred).then_some(Status::Deferred);
        self.results.iter().map(|r| r.status).chain(deferred).collect()
    }
}
