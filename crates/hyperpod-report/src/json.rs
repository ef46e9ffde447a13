//! The report as JSON for bots (`--format json`): the same content as the Markdown, keys in a fixed order.

use serde::Serialize;

use super::mermaid;
use super::model::{Counts, GovernanceReport, RuleResult};
use super::rules::{Rule, Section};

#[derive(Serialize)]
struct Document<'a> {
    verdict: VerdictJson<'a>,
    plan: PlanJson<'a>,
    counts: CountsJson,
    contracts: Vec<ContractJson<'a>>,
    /// Resources with rule outcomes that belong to no contract of the plan.
    unassociated: Option<GroupJson<'a>>,
    tenants: Vec<TenantJson<'a>>,
    destroyed: Vec<DestroyedJson<'a>>,
    attention: Vec<AttentionJson>,
    excepted: Vec<ResultJson<'a>>,
    mermaid: String,
}

/// The one-line verdict, as the plan report and the evidence both write it.
#[derive(Serialize)]
pub(super) struct VerdictJson<'a> {
    pub(super) status: &'static str,
    pub(super) summary: &'a str,
    pub(super) exit_code: u8,
}

#[derive(Serialize)]
struct PlanJson<'a> {
    terraform_version: Option<&'a str>,
    errored: bool,
    log: bool,
    report_version: &'a str,
}

#[derive(Serialize)]
struct CountsJson {
    contracts: usize,
    tenants: usize,
    resources: usize,
    passed: usize,
    excepted: usize,
    not_applicable: usize,
    deferred: usize,
    skipped: usize,
    warnings: usize,
    failed: usize,
    errors: usize,
    create: usize,
    update: usize,
    destroy: usize,
    replace: usize,
}

#[derive(Serialize)]
struct ContractJson<'a> {
    name: &'a str,
    address: &'a str,
    project_id: &'a str,
    cluster: &'a str,
    domain_unit: Option<&'a str>,
    #[serde(flatten)]
    group: GroupJson<'a>,
}

#[derive(Serialize)]
struct GroupJson<'a> {
    resources: Vec<&'a str>,
    /// Resources all of whose rules are judged at apply.
    deferred: Vec<&'a str>,
    layers: LayersJson<'a>,
}

/// Every rule outcome of the group's resources, one entry per rule and resource, in catalog order.
#[derive(Serialize)]
struct LayersJson<'a> {
    organization: Vec<ResultJson<'a>>,
    project: Vec<ResultJson<'a>>,
    cluster: Vec<ResultJson<'a>>,
    workload: Vec<ResultJson<'a>>,
    contract: Vec<ResultJson<'a>>,
}

#[derive(Serialize)]
struct ResultJson<'a> {
    rule: &'a str,
    /// The catalog's one-line text of the rule.
    title: Option<&'static str>,
    status: &'static str,
    detail: Option<&'a str>,
    address: &'a str,
    attribute: Option<&'a str>,
    link: Option<String>,
}

#[derive(Serialize)]
struct TenantJson<'a> {
    address: &'a str,
    team: &'a str,
    namespace: &'a str,
    guaranteed: &'a str,
    sharing: &'a str,
    priority: &'a str,
    viewers: &'a str,
    operators: &'a str,
    contract: Option<&'a str>,
    status: Option<&'static str>,
    planned: bool,
}

#[derive(Serialize)]
struct DestroyedJson<'a> {
    address: &'a str,
    action: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct AttentionJson {
    status: &'static str,
    rule: Option<String>,
    title: Option<&'static str>,
    link: Option<String>,
    address: String,
    attribute: Option<String>,
    detail: String,
}

fn result<'a>(r: &'a RuleResult, base: &str) -> ResultJson<'a> {
    ResultJson {
        rule: r.rule.id(),
        title: r.rule.title(),
        status: r.status.key(),
        detail: r.detail.as_deref(),
        address: &r.address,
        attribute: r.attribute.as_deref(),
        link: r.rule.link(base),
    }
}

fn group<'a>(report: &'a GovernanceReport, addresses: &'a [String]) -> GroupJson<'a> {
    let base = report.options.rules_url.as_str();
    let of = |section: Section| {
        let mut rows: Vec<&RuleResult> = report
            .results
            .iter()
            .filter(|r| addresses.contains(&r.address) && r.rule.section() == section)
            .collect();
        rows.sort_by(|a, b| (&a.rule, &a.address).cmp(&(&b.rule, &b.address)));
        rows.into_iter().map(|r| result(r, base)).collect()
    };
    GroupJson {
        resources: addresses.iter().map(String::as_str).collect(),
        deferred: report.deferred_in(addresses),
        layers: LayersJson {
            organization: of(Section::Organization),
            project: of(Section::Project),
            cluster: of(Section::Cluster),
            workload: of(Section::Workload),
            contract: of(Section::Contract),
        },
    }
}

pub fn render(report: &GovernanceReport) -> String {
    let base = report.options.rules_url.as_str();
    let unassociated = report.unassociated();
    let document = Document {
        verdict: VerdictJson {
            status: report.verdict.level.key(),
            summary: &report.verdict.summary,
            exit_code: report.verdict.level.exit_code(),
        },
        plan: PlanJson {
            terraform_version: report.terraform_version.as_deref(),
            errored: report.errored,
            log: report.log_read,
            report_version: &report.options.version,
        },
        counts: counts(&report.counts),
        contracts: contract_entries(report),
        unassociated: (!unassociated.is_empty()).then(|| group(report, &unassociated)),
        tenants: tenant_entries(report),
        destroyed: report
            .destroyed
            .iter()
            .map(|d| DestroyedJson {
                address: &d.address,
                action: d.action,
                reason: &d.reason,
            })
            .collect(),
        attention: attention_entries(report, base),
        excepted: report.excepted().into_iter().map(|r| result(r, base)).collect(),
        mermaid: mermaid::diagram(report),
    };
    // Serialising these plain structs cannot fail; the fallback keeps the output JSON anyway.
    serde_json::to_string_pretty(&document).unwrap_or_else(|err| format!("{{\"error\": {:?}}}", err.to_string())) + "\n"
}

fn contract_entries(report: &GovernanceReport) -> Vec<ContractJson<'_>> {
    report
        .contracts
        .iter()
        .map(|c| ContractJson {
            name: &c.name,
            address: &c.address,
            project_id: &c.project_id,
            cluster: &c.cluster,
            domain_unit: c.domain_unit.as_deref(),
            group: group(report, &c.resources),
        })
        .collect()
}

fn tenant_entries(report: &GovernanceReport) -> Vec<TenantJson<'_>> {
    report
        .tenants
        .iter()
        .map(|t| TenantJson {
            address: &t.address,
            team: &t.team,
            namespace: &t.namespace,
            guaranteed: &t.guaranteed,
            sharing: &t.sharing,
            priority: &t.priority,
            viewers: &t.viewers,
            operators: &t.operators,
            contract: t.contract.map(|i| report.contracts[i].name.as_str()),
            status: report.status_of(&t.address).map(super::rules::Status::key),
            planned: t.planned,
        })
        .collect()
}

fn attention_entries(report: &GovernanceReport, base: &str) -> Vec<AttentionJson> {
    report
        .attention()
        .into_iter()
        .map(|a| AttentionJson {
            status: a.status.key(),
            link: a.rule.as_ref().and_then(|r| r.link(base)),
            rule: a.rule.as_ref().map(|r: &Rule| r.id().to_string()),
            title: a.rule.as_ref().and_then(Rule::title),
            address: a.address,
            attribute: a.attribute,
            detail: a.detail,
        })
        .collect()
}

fn counts(c: &Counts) -> CountsJson {
    CountsJson {
        contracts: c.contracts,
        tenants: c.tenants,
        resources: c.resources,
        passed: c.passed,
        excepted: c.excepted,
        not_applicable: c.not_applicable,
        deferred: c.deferred,
        skipped: c.skipped,
        warnings: c.warnings,
        failed: c.failed,
        errors: c.errors,
        create: c.create,
        update: c.update,
        destroy: c.destroy,
        replace: c.replace,
    }
}
