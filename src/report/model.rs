//! The report's content, built from the plan and its diagnostics: every rule's status per resource, the
//! resources grouped by connection contract, what each tenant gets, what is destroyed, and what needs a look.
//! Renderers only format it.

use std::collections::{BTreeMap, BTreeSet};

use super::associate::{ContractKey, contract_of, shown};
use super::log::{Diagnostic, Severity, Subject};
use super::plan::{Action, Field, Plan, ResourceChange, Values};
use super::rules::{Rule, Status};
use super::verdict::{self, Verdict};

/// How the report is titled and linked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub title: String,
    pub rules_url: String,
    /// The provider's version, for the footer.
    pub version: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub options: Options,
    pub terraform_version: Option<String>,
    pub errored: bool,
    /// Whether a `plan -json` log was given.
    pub log_read: bool,
    /// This provider's resources, in the plan or only in the log (their plan failed), by address.
    pub resources: Vec<Governed>,
    /// Every rule outcome, by (address, rule).
    pub results: Vec<RuleResult>,
    pub contracts: Vec<Contract>,
    pub tenants: Vec<Tenant>,
    /// Domain unit policy grants: (address, domain unit).
    pub grants: Vec<(String, Option<String>)>,
    /// Scheduling policies: (address, cluster).
    pub policies: Vec<(String, Option<String>)>,
    pub destroyed: Vec<Destroyed>,
    /// Diagnostics without a rule that weigh on the verdict: errors, and warnings about a resource.
    pub messages: Vec<Diagnostic>,
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
pub struct Contract {
    pub address: String,
    pub name: String,
    pub project_id: String,
    pub cluster: String,
    pub domain_unit: Option<String>,
    /// Its own and every associated resource's address, sorted.
    pub resources: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant {
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

impl Report {
    pub fn build(plan: &Plan, log: Option<&[Diagnostic]>, options: Options) -> Report {
        let governed: Vec<&ResourceChange> = plan.changes.iter().filter(|change| change.is_governed()).collect();
        let contract_changes: Vec<&ResourceChange> = sorted_by_name(
            governed
                .iter()
                .copied()
                .filter(|c| c.resource_type == "hyperpod_connection_contract" && c.after.is_present())
                .collect(),
        );
        let keys: Vec<ContractKey> = contract_changes.iter().map(|c| ContractKey::of(c)).collect();

        let mut resources: BTreeMap<String, Governed> = BTreeMap::new();
        let mut results: BTreeMap<(String, Rule), RuleResult> = BTreeMap::new();
        for change in &governed {
            let deferred = change.after.is_present() && checks_from_values(change, &mut results);
            resources.insert(
                change.address.clone(),
                Governed {
                    address: change.address.clone(),
                    resource_type: change.resource_type.clone(),
                    action: change.action.clone(),
                    planned: true,
                    deferred,
                    contract: if change.after.is_present() {
                        contract_of(change, &keys, plan)
                    } else {
                        None
                    },
                },
            );
        }
        let mut messages = Vec::new();
        for diagnostic in log.unwrap_or_default() {
            let address = diagnostic.address.clone().unwrap_or_default();
            if address.starts_with("hyperpod_") || address.contains(".hyperpod_") {
                let (module_address, resource_type) = split_address(&address);
                resources.entry(address.clone()).or_insert_with(|| Governed {
                    contract: super::associate::by_reference(&address, &module_address, &keys, plan),
                    address: address.clone(),
                    resource_type,
                    action: Action::Create,
                    planned: false,
                    deferred: false,
                });
            }
            match (&diagnostic.subject, diagnostic.status) {
                (Subject::Rules(rules), _) => {
                    for rule in rules {
                        merge(&mut results, &address, rule, diagnostic);
                    }
                }
                (Subject::AllRules, Status::Deferred) => {
                    if let Some(resource) = resources.get_mut(&address) {
                        resource.deferred = true;
                    }
                }
                _ if diagnostic.severity == Severity::Error || diagnostic.address.is_some() => {
                    messages.push(diagnostic.clone());
                }
                // Terraform's own warnings (development overrides, deprecations) say nothing about governance.
                _ => {}
            }
        }

        let contracts: Vec<Contract> = contract_changes
            .iter()
            .enumerate()
            .map(|(index, change)| {
                let mut members: Vec<String> = resources
                    .values()
                    .filter(|resource| resource.contract == Some(index))
                    .map(|resource| resource.address.clone())
                    .collect();
                members.sort();
                Contract {
                    address: change.address.clone(),
                    name: shown(change.after.get(&["name"])),
                    project_id: shown(change.after.get(&["unified_studio", "project_id"])),
                    cluster: shown(change.after.get(&["cluster", "name"])),
                    domain_unit: change.after.get(&["unified_studio", "domain_unit_id"]).as_text(),
                    resources: members,
                }
            })
            .collect();
        let tenants = super::tenants::tenants(plan, &governed, &resources);
        let of_type = |kind: &str, attribute: &str| -> Vec<(String, Option<String>)> {
            governed
                .iter()
                .filter(|c| c.resource_type == kind && c.after.is_present())
                .map(|c| (c.address.clone(), c.after.get(&[attribute]).as_text()))
                .collect()
        };
        let mut report = Report {
            options,
            terraform_version: plan.terraform_version.clone(),
            errored: plan.errored,
            log_read: log.is_some(),
            resources: resources.into_values().collect(),
            results: results.into_values().collect(),
            contracts,
            tenants,
            grants: of_type("hyperpod_domain_unit_policy_grant", "domain_unit_id"),
            policies: of_type("hyperpod_scheduling_policy", "cluster_name"),
            destroyed: super::destroyed::destroyed(plan),
            messages,
            counts: Counts::default(),
            verdict: Verdict::default(),
        };
        report.counts = counts(&report, plan);
        report.verdict = verdict::decide(&report);
        report
    }

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
                Severity::Error => Status::Failed,
                Severity::Warning => Status::Warning,
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
            status: if m.severity == Severity::Error {
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

fn sorted_by_name(mut changes: Vec<&ResourceChange>) -> Vec<&ResourceChange> {
    changes.sort_by_key(|c| (c.after.get(&["name"]).as_text(), c.address.clone()));
    changes
}

/// `module.a.hyperpod_tenant.t["x"]` → (`module.a`, `hyperpod_tenant`).
fn split_address(address: &str) -> (String, String) {
    let bare = super::plan::without_keys(address);
    let parts: Vec<&str> = bare.split('.').collect();
    let at = parts.iter().position(|p| p.starts_with("hyperpod_")).unwrap_or(0);
    // The module path keeps its instance keys: they are the text before the resource's type in the address.
    let module = address
        .find(&format!(".{}.", parts.get(at).copied().unwrap_or_default()))
        .map_or(String::new(), |end| address[..end].to_string());
    (module, parts.get(at).copied().unwrap_or_default().to_string())
}

/// The rule outcomes the resource's checklist attributes hold; `true` when they are unknown (judged at apply).
pub(in crate::report) fn checks_from_values(
    change: &ResourceChange,
    results: &mut BTreeMap<(String, Rule), RuleResult>,
) -> bool {
    let after = &change.after;
    let fields = [
        after.get(&["passed_checks"]),
        after.get(&["not_applicable_checks"]),
        after.get(&["findings"]),
    ];
    if fields.iter().any(Field::is_unknown) {
        return true;
    }
    let mut add = |rule: Rule, status: Status, detail: Option<String>| {
        results.insert(
            (change.address.clone(), rule.clone()),
            RuleResult {
                address: change.address.clone(),
                rule,
                status,
                detail,
                attribute: None,
                location: None,
            },
        );
    };
    if fields[0] == Field::Null {
        return checks_before_0_3(after, &mut add);
    }
    for (field, status) in [(&fields[0], Status::Passed), (&fields[1], Status::NotApplicable)] {
        for id in field.as_text().unwrap_or_default().split_whitespace() {
            add(Rule::parse(id), status, None);
        }
    }
    if let Field::Known(serde_json::Value::Array(rows)) = &fields[2] {
        for row in rows {
            let text = |key: &str| row.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
            if let Some(rule) = text("rule") {
                add(
                    Rule::parse(&rule),
                    Status::of_finding(&text("status").unwrap_or_default()),
                    text("detail"),
                );
            }
        }
    }
    false
}

/// A plan made by a provider before 0.3.0 holds one `checks` list (rows of rule, status, detail; a passed row that
/// names an exception is an excepted rule): read it too, so such a plan is never reported as passing no checks.
fn checks_before_0_3(after: &Values, add: &mut impl FnMut(Rule, Status, Option<String>)) -> bool {
    let rows = match after.get(&["checks"]) {
        Field::Unknown => return true,
        Field::Known(serde_json::Value::Array(rows)) => rows.len(),
        _ => 0,
    };
    let mut deferred = false;
    for i in 0..rows {
        let index = i.to_string();
        let field = |name: &str| after.get(&["checks", &index, name]);
        let Some(rule) = field("rule").as_text() else {
            continue;
        };
        let detail = field("detail").as_text();
        let status = match field("status") {
            Field::Unknown => {
                deferred = true;
                continue;
            }
            status => status.as_text().unwrap_or_default(),
        };
        let status = match status.as_str() {
            "passed"
                if detail
                    .as_deref()
                    .is_some_and(|d| d.starts_with("passed with exception")) =>
            {
                Status::Excepted
            }
            "passed" => Status::Passed,
            "not_applicable" => Status::NotApplicable,
            other => Status::of_finding(other),
        };
        let detail = detail.filter(|_| status != Status::Passed && status != Status::NotApplicable);
        add(Rule::parse(&rule), status, detail);
    }
    deferred
}

/// A diagnostic about a rule: the worse of it and what the plan's values say, with the diagnostic's attribute.
fn merge(results: &mut BTreeMap<(String, Rule), RuleResult>, address: &str, rule: &Rule, diagnostic: &Diagnostic) {
    let incoming = RuleResult {
        address: address.to_string(),
        rule: rule.clone(),
        status: diagnostic.status,
        detail: Some(diagnostic.detail.clone()),
        attribute: diagnostic.attribute.clone(),
        location: diagnostic.location.clone(),
    };
    match results.get_mut(&(address.to_string(), rule.clone())) {
        Some(existing) if existing.status > incoming.status => {
            existing.attribute = existing.attribute.take().or(incoming.attribute);
            existing.location = existing.location.take().or(incoming.location);
        }
        Some(existing) => *existing = incoming,
        None => {
            results.insert((address.to_string(), rule.clone()), incoming);
        }
    }
}

fn counts(report: &Report, plan: &Plan) -> Counts {
    let of = |status: Status| report.results.iter().filter(|r| r.status == status).count();
    let actions = |wanted: &[Action]| plan.changes.iter().filter(|c| wanted.contains(&c.action)).count();
    Counts {
        contracts: report.contracts.len(),
        tenants: report.tenants.len(),
        resources: report.resources.len(),
        passed: of(Status::Passed),
        excepted: of(Status::Excepted),
        not_applicable: of(Status::NotApplicable),
        deferred: of(Status::Deferred) + report.resources.iter().filter(|r| r.deferred).count(),
        skipped: of(Status::Skipped),
        warnings: of(Status::Warning),
        failed: of(Status::Failed),
        errors: report.messages.iter().filter(|m| m.severity == Severity::Error).count(),
        create: actions(&[Action::Create, Action::Replace]),
        update: actions(&[Action::Update]),
        destroy: actions(&[Action::Delete, Action::Replace]),
        replace: actions(&[Action::Replace]),
    }
}
