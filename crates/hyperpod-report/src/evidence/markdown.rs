//! The evidence as Markdown, for an audit trail or a wiki page: the verdict line first, then per contract its
//! identity, owners and approval, approved facts, every rule's last verdict and every composed object. Text from
//! the state is escaped and rule links are reference-style, as in the plan report.

use std::collections::BTreeSet;

use super::components::{ComposedObject, Locator};
use super::model::{ContractEvidence, Evidence, FACTS_NOT_RECORDED};
use crate::markdown::{Out, code, link, link_definitions, text};
use crate::rules::Status;
use crate::verdict::Level;

/// What each document says of where its values come from.
const PROVENANCE: &str = "Read from the state (`terraform show -json`): every value, verdict and review status below is \
     the one state recorded at the last apply or refresh.";
const KUBERNETES: &str = "A Kubernetes object has no ARN: its path on the cluster's API server stands in. An object \
     without an ARN of its own is given with the ARN of what it is on.";

pub fn render(evidence: &Evidence) -> String {
    let mut out = Out::default();
    out.line(&format!(
        "# {}: {}",
        text(&evidence.options.title),
        words(evidence.level)
    ));
    out.blank();
    // One line, unwrapped, as the plan report's verdict.
    out.line(&evidence.summary);
    out.blank();
    out.wrapped(PROVENANCE, "", "");
    for contract in &evidence.contracts {
        section(&mut out, contract);
    }
    out.blank();
    out.line(&format!(
        "<sub>terraform-provider-hyperpod report evidence {} · Terraform {}state</sub>",
        text(&evidence.options.version),
        evidence
            .terraform_version
            .as_deref()
            .map_or(String::new(), |version| format!("{} ", text(version)))
    ));
    link_definitions(
        &mut out,
        evidence
            .contracts
            .iter()
            .flat_map(|c| c.results.iter().map(|r| &r.rule)),
        &evidence.options.rules_url,
    );
    out.0
}

/// The heading's words for the evidence's level.
fn words(level: Level) -> &'static str {
    match level {
        Level::Compliant => "current",
        Level::Attention => "needs attention",
        Level::NotCompliant => "not compliant",
    }
}

fn icon(level: Level) -> &'static str {
    match level {
        Level::Compliant => "✅",
        Level::Attention => "⚠️",
        Level::NotCompliant => "❌",
    }
}

/// `—` for a value state does not hold.
fn shown(value: Option<&String>) -> String {
    value.map_or_else(|| "—".to_string(), |value| text(value))
}

fn section(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line(&format!(
        "## {} — project {} on cluster {}",
        text(&c.name),
        shown(c.project_id.as_ref()),
        shown(c.cluster.name.as_ref())
    ));
    out.blank();
    let mut status = format!("{} {}", icon(c.level), words(c.level));
    if !c.reasons.is_empty() {
        status.push_str(&format!(": {}", text(&c.reasons.join(", "))));
    }
    out.wrapped(&format!("{status} · {}", code(&c.address)), "", "");
    identity(out, c);
    owners_and_approval(out, c);
    approved_facts(out, c);
    rules(out, c);
    composed_objects(out, c);
}

/// The contract, its Unified Studio project, its cluster and roles.
fn identity(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line("### Identity");
    out.blank();
    table(
        out,
        &[
            ("contract", text(&c.name)),
            ("address", code(&c.address)),
            (
                "Unified Studio",
                format!(
                    "domain {}, domain unit {}, project {}",
                    shown(c.domain_id.as_ref()),
                    shown(c.domain_unit_id.as_ref()),
                    shown(c.project_id.as_ref())
                ),
            ),
            (
                "cluster",
                format!(
                    "{} in account {}, region {}, orchestrator {}",
                    shown(c.cluster.name.as_ref()),
                    shown(c.cluster.account_id.as_ref()),
                    shown(c.cluster.region.as_ref()),
                    shown(c.cluster.orchestrator.as_ref())
                ),
            ),
            ("project role", c.project_role_arn.as_deref().map_or("—".into(), code)),
            ("access role", c.access_role_arn.as_deref().map_or("—".into(), code)),
            ("lifecycle", shown(c.lifecycle_state.as_ref())),
        ],
    );
}

/// Who owns the contract, who approved it and when it is next reviewed; its exceptions.
fn owners_and_approval(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line("### Owners and approval");
    out.blank();
    table(
        out,
        &[
            ("business owner", shown(c.owners.business.as_ref())),
            ("operations owner", shown(c.owners.operations.as_ref())),
            ("cost owner", shown(c.owners.cost.as_ref())),
            ("approved by", shown(c.review.approved_by.as_ref())),
            ("last reviewed", shown(c.review.last_reviewed.as_ref())),
            (
                "review interval",
                c.review
                    .interval_days
                    .as_deref()
                    .map_or("—".into(), |days| format!("{} days", text(days))),
            ),
            ("next review", shown(c.review.next_review_date.as_ref())),
            ("review status", shown(c.review.review_status.as_ref())),
        ],
    );
    out.blank();
    if c.exceptions.is_empty() {
        out.line("No exception.");
    } else {
        out.line("Exceptions:");
        out.blank();
        for e in &c.exceptions {
            let rule = crate::rules::Rule::parse(&e.rule);
            out.wrapped(
                &format!(
                    "{} owned by {} until {}: {}",
                    link(&rule),
                    text(&e.owner),
                    text(&e.expires),
                    text(&e.reason)
                ),
                "- ",
                "  ",
            );
        }
    }
}

/// The facts approved with the contract beside their current values.
fn approved_facts(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line("### Approved facts");
    out.blank();
    match &c.facts {
        None => out.line(&format!("Approved facts: {}.", text(FACTS_NOT_RECORDED))),
        Some(facts) if facts.is_empty() => out.line("No approved fact is recorded."),
        Some(facts) => {
            out.line("| fact | approved value | current value |");
            out.line("|---|---|---|");
            for f in facts {
                let current = if f.changed {
                    format!("{} {} (changed)", Status::Warning.icon(), text(&f.current))
                } else {
                    text(&f.current)
                };
                out.line(&format!(
                    "| {} | {} | {current} |",
                    code(&f.key),
                    f.approved.as_deref().map_or("not recorded".into(), text)
                ));
            }
        }
    }
}

/// Each rule's verdict on the contract and the resources it governs.
fn rules(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line("### Rules");
    out.blank();
    if c.results.is_empty() {
        out.line("State records no rule verdict for this contract or the resources it governs.");
    } else {
        let present: BTreeSet<Status> = c.results.iter().map(|r| r.status).collect();
        let legend: Vec<String> = Status::ALL
            .iter()
            .filter(|status| present.contains(status))
            .map(|status| format!("{} {}", status.icon(), status.words()))
            .collect();
        out.line(&legend.join(" · "));
        out.blank();
        out.line("| rule | verdict | resource | detail |");
        out.line("|---|---|---|---|");
        for r in &c.results {
            let rule = match r.rule.title() {
                Some(title) => format!("{} {}", link(&r.rule), text(title)),
                None => link(&r.rule),
            };
            out.line(&format!(
                "| {rule} | {} {} | {} | {} |",
                r.status.icon(),
                r.status.words(),
                code(&r.address),
                text(r.detail.as_deref().unwrap_or_default())
            ));
        }
    }
}

/// The AWS and Kubernetes objects the governed resources compose, each with where to find it.
fn composed_objects(out: &mut Out, c: &ContractEvidence) {
    out.blank();
    out.line("### Composed objects");
    out.blank();
    let listed: Vec<String> = c.resources.iter().map(|m| code(&m.address)).collect();
    out.wrapped(
        &format!(
            "Resources: {}. The contract itself creates no AWS object.",
            listed.join(", ")
        ),
        "",
        "",
    );
    if c.components.is_empty() {
        out.blank();
        out.line("State records no composed object for the resources this contract governs.");
        return;
    }
    out.blank();
    out.wrapped(KUBERNETES, "", "");
    for member in &c.resources {
        let objects: Vec<&ComposedObject> = c.components.iter().filter(|o| o.address == member.address).collect();
        if objects.is_empty() {
            continue;
        }
        out.blank();
        out.line(&format!("#### {}", code(&member.address)));
        out.blank();
        out.line("| component | object | recorded value | ARN or API path |");
        out.line("|---|---|---|---|");
        for o in objects {
            let located = match &o.locator {
                Locator::Arn(arn) => code(arn),
                Locator::ApiPath(path) => format!("API {}", code(path)),
                Locator::On(arn) => format!("no ARN of its own; on {}", code(arn)),
                Locator::Unlocated(why) => format!("no ARN: {}", text(why)),
            };
            out.line(&format!(
                "| {} | {} | {} | {located} |",
                code(&o.key),
                text(o.kind),
                code(&o.value)
            ));
        }
    }
}

/// A two-column table without a header row's words (Markdown needs the row; it stays empty).
fn table(out: &mut Out, rows: &[(&str, String)]) {
    out.line("| | |");
    out.line("|---|---|");
    for (name, value) in rows {
        out.line(&format!("| {name} | {value} |"));
    }
}
