//! The report of a plan, assembled (`Report::build`): each governed resource with its checklist and the log's
//! diagnostics, the contracts and what each governs, the tenants, what is destroyed, and the verdict.

use std::collections::{BTreeMap, BTreeSet};

use super::associate::{ContractKey, contract_of, shown};
use super::checklist::checks_from_values;
use super::log::{LogSeverity, LoggedDiagnostic, Subject};
use super::model::{ContractSummary, Counts, GovernanceReport, Governed, Options, RuleResult};
use super::plan::{Action, Plan, ResourceChange};
use super::rules::{Rule, Status};
use super::verdict::{Level, Verdict};
use hyperpod_declarations::connection_contract::{self, ClusterBlock, ContractModel as C, UnifiedStudioBlock};
use hyperpod_declarations::domain_unit_policy_grant::{self, PolicyGrantModel};
use hyperpod_declarations::scheduling_policy::{self, SchedulingPolicyModel};

impl GovernanceReport {
    pub fn build(plan: &Plan, log: Option<&[LoggedDiagnostic]>, options: Options) -> GovernanceReport {
        let governed: Vec<&ResourceChange> = plan.changes.iter().filter(|change| change.is_governed()).collect();
        let contract_changes: Vec<&ResourceChange> = sorted_by_name(
            governed
                .iter()
                .copied()
                .filter(|c| c.resource_type == connection_contract::TYPE_NAME && c.after.is_present())
                .collect(),
        );
        let keys: Vec<ContractKey> = contract_changes.iter().map(|c| ContractKey::of(c)).collect();

        let mut results: BTreeMap<(String, Rule), RuleResult> = BTreeMap::new();
        let mut resources = planned_resources(plan, &governed, &keys, &mut results);
        let messages = read_log(log.unwrap_or_default(), &mut resources, &mut results, &keys, plan);

        let contracts = contract_summaries(&contract_changes, &resources);
        let tenants = super::tenants::tenants(plan, &governed, &resources);
        let of_type = |kind: &str, attribute: &str| -> Vec<(String, Option<String>)> {
            governed
                .iter()
                .filter(|c| c.resource_type == kind && c.after.is_present())
                .map(|c| (c.address.clone(), c.after.get(&[attribute]).as_text()))
                .collect()
        };
        let mut report = GovernanceReport {
            options,
            terraform_version: plan.terraform_version.clone(),
            errored: plan.errored,
            log_read: log.is_some(),
            resources: resources.into_values().collect(),
            results: results.into_values().collect(),
            contracts,
            tenants,
            grants: of_type(
                domain_unit_policy_grant::TYPE_NAME,
                PolicyGrantModel::DOMAIN_UNIT_ID.name(),
            ),
            policies: of_type(scheduling_policy::TYPE_NAME, SchedulingPolicyModel::CLUSTER_NAME.name()),
            destroyed: super::destroyed::destroyed(plan),
            messages,
            counts: Counts::default(),
            verdict: Verdict::default(),
        };
        report.counts = counts(&report, plan);
        report.verdict = decide(&report);
        report
    }
}

/// Each governed resource of the plan, tied to its contract, with the verdicts its planned values record.
fn planned_resources(
    plan: &Plan,
    governed: &[&ResourceChange],
    keys: &[ContractKey],
    results: &mut BTreeMap<(String, Rule), RuleResult>,
) -> BTreeMap<String, Governed> {
    let mut resources: BTreeMap<String, Governed> = BTreeMap::new();
    for change in governed {
        let deferred = change.after.is_present() && checks_from_values(change, results);
        resources.insert(
            change.address.clone(),
            Governed {
                address: change.address.clone(),
                resource_type: change.resource_type.clone(),
                action: change.action.clone(),
                planned: true,
                deferred,
                contract: if change.after.is_present() {
                    contract_of(change, keys, plan)
                } else {
                    None
                },
            },
        );
    }
    resources
}

/// The log's diagnostics merged into the resources and verdicts; what says something else is kept as a message.
fn read_log(
    log: &[LoggedDiagnostic],
    resources: &mut BTreeMap<String, Governed>,
    results: &mut BTreeMap<(String, Rule), RuleResult>,
    keys: &[ContractKey],
    plan: &Plan,
) -> Vec<LoggedDiagnostic> {
    let mut messages = Vec::new();
    for diagnostic in log {
        let address = diagnostic.address.clone().unwrap_or_default();
        if address.starts_with("hyperpod_") || address.contains(".hyperpod_") {
            let (module_address, resource_type) = split_address(&address);
            resources.entry(address.clone()).or_insert_with(|| Governed {
                contract: super::associate::by_reference(&address, &module_address, keys, plan),
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
                    merge(results, &address, rule, diagnostic);
                }
            }
            (Subject::AllRules, Status::Deferred) => {
                if let Some(resource) = resources.get_mut(&address) {
                    resource.deferred = true;
                }
            }
            _ if diagnostic.severity == LogSeverity::Error || diagnostic.address.is_some() => {
                messages.push(diagnostic.clone());
            }
            // Terraform's own warnings (development overrides, deprecations) say nothing about governance.
            _ => {}
        }
    }
    messages
}

/// Each contract with the addresses of the resources it governs, sorted.
fn contract_summaries(
    contract_changes: &[&ResourceChange],
    resources: &BTreeMap<String, Governed>,
) -> Vec<ContractSummary> {
    contract_changes
        .iter()
        .enumerate()
        .map(|(index, change)| {
            let mut members: Vec<String> = resources
                .values()
                .filter(|resource| resource.contract == Some(index))
                .map(|resource| resource.address.clone())
                .collect();
            members.sort();
            ContractSummary {
                address: change.address.clone(),
                name: shown(change.after.get(&[C::NAME.name()])),
                project_id: shown(
                    change
                        .after
                        .get(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::PROJECT_ID.name()]),
                ),
                cluster: shown(change.after.get(&[C::CLUSTER.name(), ClusterBlock::NAME.name()])),
                domain_unit: change
                    .after
                    .get(&[C::UNIFIED_STUDIO.name(), UnifiedStudioBlock::DOMAIN_UNIT_ID.name()])
                    .as_text(),
                resources: members,
            }
        })
        .collect()
}

fn sorted_by_name(mut changes: Vec<&ResourceChange>) -> Vec<&ResourceChange> {
    changes.sort_by_key(|c| (c.after.get(&[C::NAME.name()]).as_text(), c.address.clone()));
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

/// A diagnostic about a rule: the worse of it and what the plan's values say, with the diagnostic's attribute.
fn merge(
    results: &mut BTreeMap<(String, Rule), RuleResult>,
    address: &str,
    rule: &Rule,
    diagnostic: &LoggedDiagnostic,
) {
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

fn counts(report: &GovernanceReport, plan: &Plan) -> Counts {
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
        errors: report
            .messages
            .iter()
            .filter(|m| m.severity == LogSeverity::Error)
            .count(),
        create: actions(&[Action::Create, Action::Replace]),
        update: actions(&[Action::Update]),
        destroy: actions(&[Action::Delete, Action::Replace]),
        replace: actions(&[Action::Replace]),
    }
}

pub fn decide(report: &GovernanceReport) -> Verdict {
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

/// `(WKL-3, WKL-7)` of the rules with `status`, in catalog order.
fn rules_with(report: &GovernanceReport, status: Status) -> String {
    let rules: BTreeSet<_> = report
        .results
        .iter()
        .filter(|r| r.status == status)
        .map(|r| &r.rule)
        .collect();
    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
}

fn summary(report: &GovernanceReport, level: Level) -> String {
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
        Level::Attention => needs_attention(report, passed, &scope, &changes),
        Level::NotCompliant => not_compliant(report, changes),
    }
}

/// The summary of a compliant plan with warnings, unchecked rules or rules judged at apply: what needs a look.
fn needs_attention(report: &GovernanceReport, passed: String, scope: &str, changes: &str) -> String {
    let c = &report.counts;
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

/// The summary of a plan that is not compliant: the failed rules and the resources they fail on, the errors.
fn not_compliant(report: &GovernanceReport, changes: String) -> String {
    let c = &report.counts;
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

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}
