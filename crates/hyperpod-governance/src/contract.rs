//! Contract rules (CON-*): decidable from the contract's own configuration.

use super::arns::role_arn_problem;
use super::catalog::RuleId;
use super::cidr::Cidr;
use super::finding::{Check, Finding};
use super::model::{Contract, Orchestrator};
use super::paths::contract as path;
use crate::path::AttributePath;
use hyperpod_model::ids::{AccountId, RegionName};

/// Review intervals CON-1 accepts: at least daily, at most every two years.
pub const REVIEW_INTERVAL_DAYS: std::ops::RangeInclusive<i64> = 1..=730;

pub(super) fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// A Kubernetes namespace name (DNS label): 1-63 lowercase letters, digits and hyphens, alphanumeric at both ends.
pub(super) fn is_dns_label(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

/// A Unified Studio identifier attribute: its field name, value, well-formedness test and form for the fix.
type IdentifierSpec<'a> = (&'static str, &'a Option<String>, fn(&str) -> bool, &'static str);

fn is_id(text: &str, max: usize, extra: &[u8]) -> bool {
    (1..=max).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric() || extra.contains(&b))
}

/// The SageMaker `EntityName` pattern of cluster names: `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`.
fn is_entity_name(text: &str) -> bool {
    is_id(text, 63, b"-") && !text.starts_with('-') && !text.ends_with('-')
}

/// DataZone domain IDs: `dzd[-_][a-zA-Z0-9_-]{1,36}`.
fn is_domain_id(text: &str) -> bool {
    text.len() > 4 && text.starts_with("dzd") && matches!(text.as_bytes()[3], b'-' | b'_') && is_id(text, 40, b"-_")
}

/// DataZone domain unit IDs: `[a-z0-9_\-]+`.
fn is_domain_unit_id(text: &str) -> bool {
    is_id(text, 256, b"-_") && !text.bytes().any(|b| b.is_ascii_uppercase())
}

/// DataZone project IDs: `[a-zA-Z0-9_-]{1,36}`.
fn is_project_id(text: &str) -> bool {
    is_id(text, 36, b"-_")
}

/// CON-1: every field present and well-formed.
pub fn con_1(contract: &Contract) -> Check {
    let rule = RuleId::Con1;
    let mut unknown = Vec::new();
    let mut findings = empty_fields(contract);
    findings.extend(malformed_unified_studio(contract, &mut unknown));
    findings.extend(malformed_cluster(contract));
    findings.extend(malformed_roles(contract, &mut unknown));
    findings.extend(malformed_workloads(contract));
    findings.extend(malformed_monitoring(contract));
    findings.extend(malformed_network(contract));
    if !REVIEW_INTERVAL_DAYS.contains(&contract.review.interval_days) {
        findings.push(Finding {
            path: path::review("interval_days"),
            observed: contract.review.interval_days.to_string(),
            problem: "the review interval is out of range".into(),
            fix: "use 1 to 730 days".into(),
            ..Finding::of(rule)
        });
    }
    if findings.is_empty() && !unknown.is_empty() {
        return Check::unknowns(rule, &unknown);
    }
    Check::from_findings(rule, findings, "every field is present and well-formed")
}

/// CON-1's finding for a value that is present but not of its form.
fn malformed(at: AttributePath, observed: &str, problem: String, fix: &str) -> Finding {
    Finding {
        path: at,
        observed: format!("{observed:?}"),
        problem,
        fix: fix.into(),
        ..Finding::of(RuleId::Con1)
    }
}

/// CON-1: the names, owners and expectations a contract must state.
fn empty_fields(contract: &Contract) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (at, value, what) in [
        (path::name(), &contract.name, "contract name"),
        (path::owner("business"), &contract.owners.business, "business owner"),
        (
            path::owner("operations"),
            &contract.owners.operations,
            "operations owner",
        ),
        (path::owner("cost"), &contract.owners.cost, "cost owner"),
        (
            path::attr(path::DATA_CLASSIFICATION),
            &contract.data_classification,
            "data classification",
        ),
        (
            path::scheduling("policy"),
            &contract.scheduling.policy,
            "scheduling policy",
        ),
        (
            path::scheduling("exception_owner"),
            &contract.scheduling.exception_owner,
            "owner of scheduling exceptions",
        ),
        (path::attr(path::SUPPORT), &contract.support, "support expectation"),
        (
            path::attr(path::DECOMMISSION),
            &contract.decommission,
            "decommissioning expectation",
        ),
        (path::review("approved_by"), &contract.review.approved_by, "approver"),
    ] {
        if blank(value) {
            let (problem, fix) = (format!("the {what} is empty"), format!("name the {what}"));
            findings.push(Finding {
                path: at,
                observed: format!("{value:?}"),
                problem,
                fix,
                ..Finding::of(RuleId::Con1)
            });
        }
    }

    findings
}

/// CON-1: the Unified Studio identifiers are well-formed; one not known yet is named in `unknown`.
fn malformed_unified_studio(contract: &Contract, unknown: &mut Vec<String>) -> Vec<Finding> {
    let studio = &contract.unified_studio;
    let identifiers: [IdentifierSpec; 3] = [
        (
            "domain_id",
            &studio.domain_id,
            is_domain_id,
            "dzd_ followed by up to 36 letters, digits, - or _",
        ),
        (
            "domain_unit_id",
            &studio.domain_unit_id,
            is_domain_unit_id,
            "lowercase letters, digits, - and _",
        ),
        (
            "project_id",
            &studio.project_id,
            is_project_id,
            "1 to 36 letters, digits, - or _",
        ),
    ];
    let mut findings = Vec::new();
    for (field, value, well_formed, form) in identifiers {
        match value {
            None => unknown.push(path::unified_studio(field).to_string()),
            Some(text) if !well_formed(text) => findings.push(malformed(
                path::unified_studio(field),
                text,
                format!("the {field} is not a Unified Studio identifier"),
                &format!("use {form}"),
            )),
            Some(_) => {}
        }
    }
    findings
}

/// CON-1: the cluster's account, region and name.
fn malformed_cluster(contract: &Contract) -> Vec<Finding> {
    let cluster = &contract.cluster;
    let mut findings = Vec::new();
    if let Err(err) = AccountId::parse(&cluster.account_id) {
        findings.push(malformed(
            path::cluster("account_id"),
            &cluster.account_id,
            err,
            "use the capacity account's 12-digit ID",
        ));
    }
    if let Err(err) = RegionName::parse(&cluster.region) {
        findings.push(malformed(
            path::cluster("region"),
            &cluster.region,
            err,
            "use a region name such as us-west-2",
        ));
    }
    if !is_entity_name(&cluster.name) {
        findings.push(malformed(
            path::cluster("name"),
            &cluster.name,
            "the cluster name is not a HyperPod cluster name".into(),
            "use 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
        ));
    }
    findings
}

/// CON-1: the project's and the access role's ARNs; one not known yet is named in `unknown`.
fn malformed_roles(contract: &Contract, unknown: &mut Vec<String>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (attribute, value) in [
        (path::PROJECT_ROLE_ARN, &contract.project_role_arn),
        (path::ACCESS_ROLE_ARN, &contract.access_role_arn),
    ] {
        match value.as_deref() {
            None => unknown.push(attribute.to_string()),
            Some(arn) => {
                if let Some(problem) = role_arn_problem(arn) {
                    findings.push(malformed(
                        path::attr(attribute),
                        arn,
                        problem,
                        "use the role's ARN, e.g. arn:aws:iam::111122223333:role/name",
                    ));
                }
            }
        }
    }
    findings
}

/// CON-1: at least one approved workload type, and namespaces that are Kubernetes names.
fn malformed_workloads(contract: &Contract) -> Vec<Finding> {
    let mut findings = Vec::new();
    if contract.approved_workload_types.iter().all(|t| blank(t)) {
        findings.push(malformed(
            path::attr(path::APPROVED_WORKLOAD_TYPES),
            "[]",
            "no workload type is approved".into(),
            "list the approved workload types, e.g. [\"training\"]",
        ));
    }
    for (index, namespace) in contract.eks_namespaces.iter().enumerate() {
        if !is_dns_label(namespace) {
            findings.push(malformed(
                path::attr(path::EKS_NAMESPACES).index(index),
                namespace,
                "the namespace is not a Kubernetes namespace name".into(),
                "use lowercase letters, digits and hyphens, e.g. hyperpod-ns-research",
            ));
        }
    }
    findings
}

/// CON-1: at least one monitored signal, each named.
fn malformed_monitoring(contract: &Contract) -> Vec<Finding> {
    let mut findings = Vec::new();
    if contract.monitoring.is_empty() {
        findings.push(malformed(
            path::signals(),
            "[]",
            "no monitored signal is declared".into(),
            "add at least one monitoring signal with an owner and a response",
        ));
    }
    for (index, signal) in contract.monitoring.iter().enumerate() {
        if blank(&signal.name) {
            findings.push(malformed(
                path::signal(index, "name"),
                &signal.name,
                "the signal has no name".into(),
                "name the signal",
            ));
        }
    }
    findings
}

/// CON-1: the approved account IDs and public CIDR blocks.
fn malformed_network(contract: &Contract) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (index, account) in contract.approved_account_ids.iter().enumerate() {
        if let Err(err) = AccountId::parse(account) {
            findings.push(malformed(
                path::attr(path::APPROVED_ACCOUNT_IDS).index(index),
                account,
                err,
                "use a 12-digit account ID",
            ));
        }
    }
    for (index, cidr) in contract.approved_public_cidrs.iter().enumerate() {
        if let Err(err) = cidr.parse::<Cidr>() {
            findings.push(malformed(
                path::attr(path::APPROVED_PUBLIC_CIDRS).index(index),
                cidr,
                err,
                "use a CIDR block such as 203.0.113.0/24",
            ));
        }
    }
    findings
}

/// CON-2: EKS ⇒ namespaces; Slurm ⇒ accounts or partitions; never both.
pub fn con_2(contract: &Contract) -> Check {
    let rule = RuleId::Con2;
    let orchestrator = contract.cluster.orchestrator;
    let mut findings = Vec::new();
    let namespaces = path::attr(path::EKS_NAMESPACES);
    match orchestrator {
        Orchestrator::Eks => {
            if contract.eks_namespaces.is_empty() {
                findings.push(Finding {
                    path: namespaces,
                    observed: "[]".into(),
                    problem: "an EKS contract names no namespaces".into(),
                    fix: "list the tenant namespaces, e.g. [\"hyperpod-ns-research\"]".into(),
                    ..Finding::of(rule)
                });
            }
            for (field, values) in [
                ("accounts", &contract.slurm.accounts),
                ("partitions", &contract.slurm.partitions),
            ] {
                if !values.is_empty() {
                    findings.push(Finding {
                        path: path::slurm(field),
                        observed: format!("{values:?}"),
                        problem: "an EKS contract has a Slurm access scope".into(),
                        fix: "remove the slurm block; EKS access is scoped by namespace".into(),
                        ..Finding::of(rule)
                    });
                }
            }
        }
        Orchestrator::Slurm => {
            if contract.slurm.is_empty() {
                findings.push(Finding {
                    path: path::slurm("accounts"),
                    observed: "no accounts or partitions".into(),
                    problem: "a Slurm contract names no Slurm accounts or partitions".into(),
                    fix: "list the Slurm accounts and/or partitions the project may use".into(),
                    ..Finding::of(rule)
                });
            }
            if !contract.eks_namespaces.is_empty() {
                findings.push(Finding {
                    path: namespaces,
                    observed: format!("{:?}", contract.eks_namespaces),
                    problem: "a Slurm contract has EKS namespaces".into(),
                    fix: "remove eks_namespaces; Slurm access is scoped by account and partition".into(),
                    ..Finding::of(rule)
                });
            }
        }
    }
    Check::from_findings(
        rule,
        findings,
        format!("the access scope fits the {orchestrator} orchestrator"),
    )
}

/// CON-3: every monitored signal has an owner and a response.
pub fn con_3(contract: &Contract) -> Check {
    let rule = RuleId::Con3;
    let mut findings = Vec::new();
    for (index, signal) in contract.monitoring.iter().enumerate() {
        for (field, value) in [("owner", &signal.owner), ("response", &signal.response)] {
            if blank(value) {
                findings.push(Finding {
                    path: path::signal(index, field),
                    observed: format!("signal {:?} with {field} {value:?}", signal.name),
                    problem: format!("the signal has no {field}"),
                    fix: format!("name who acts on the signal and what they do (its {field})"),
                    ..Finding::of(rule)
                });
            }
        }
    }
    let detail = match contract.monitoring.len() {
        0 => "no signals are declared (CON-1 requires one)".to_string(),
        n => format!("{n} signal(s), each with an owner and a response"),
    };
    Check::from_findings(rule, findings, detail)
}

#[cfg(test)]
#[path = "contract_tests.rs"]
mod tests;
