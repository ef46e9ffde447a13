//! The evidence as JSON (`--format json`): the same content as the Markdown, keys in a fixed order.

use serde::Serialize;

use super::components::{ComposedObject, Locator};
use super::model::{ContractEvidence, Evidence, FACTS_NOT_RECORDED};
use crate::json::VerdictJson;
use crate::model::RuleResult;

#[derive(Serialize)]
struct Document<'a> {
    evidence: VerdictJson<'a>,
    state: StateJson<'a>,
    contracts: Vec<ContractJson<'a>>,
}

#[derive(Serialize)]
struct StateJson<'a> {
    terraform_version: Option<&'a str>,
    report_version: &'a str,
}

#[derive(Serialize)]
struct ContractJson<'a> {
    name: &'a str,
    address: &'a str,
    status: &'static str,
    /// Why the status is not `compliant`.
    reasons: &'a [String],
    unified_studio: UnifiedStudioJson<'a>,
    cluster: ClusterJson<'a>,
    project_role_arn: Option<&'a str>,
    access_role_arn: Option<&'a str>,
    lifecycle_state: Option<&'a str>,
    owners: OwnersJson<'a>,
    review: ReviewJson<'a>,
    exceptions: Vec<ExceptionJson<'a>>,
    facts: FactsJson<'a>,
    resources: Vec<MemberJson<'a>>,
    rules: Vec<RuleJson<'a>>,
    components: Vec<ComponentJson<'a>>,
}

#[derive(Serialize)]
#[allow(clippy::struct_field_names, reason = "the JSON's field names are Unified Studio's")]
struct UnifiedStudioJson<'a> {
    domain_id: Option<&'a str>,
    domain_unit_id: Option<&'a str>,
    project_id: Option<&'a str>,
}

#[derive(Serialize)]
struct ClusterJson<'a> {
    name: Option<&'a str>,
    account_id: Option<&'a str>,
    region: Option<&'a str>,
    orchestrator: Option<&'a str>,
}

#[derive(Serialize)]
struct OwnersJson<'a> {
    business: Option<&'a str>,
    operations: Option<&'a str>,
    cost: Option<&'a str>,
}

#[derive(Serialize)]
struct ReviewJson<'a> {
    approved_by: Option<&'a str>,
    last_reviewed: Option<&'a str>,
    interval_days: Option<&'a str>,
    next_review_date: Option<&'a str>,
    review_status: Option<&'a str>,
}

#[derive(Serialize)]
struct ExceptionJson<'a> {
    rule: &'a str,
    owner: &'a str,
    expires: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct FactsJson<'a> {
    /// `false`: the state was written before the provider recorded approved facts; `items` is empty.
    recorded: bool,
    note: Option<&'static str>,
    items: Vec<FactJson<'a>>,
}

#[derive(Serialize)]
struct FactJson<'a> {
    fact: &'a str,
    approved: Option<&'a str>,
    current: &'a str,
    changed: bool,
}

#[derive(Serialize)]
struct MemberJson<'a> {
    address: &'a str,
    #[serde(rename = "type")]
    resource_type: &'a str,
}

#[derive(Serialize)]
struct RuleJson<'a> {
    rule: &'a str,
    title: Option<&'static str>,
    status: &'static str,
    detail: Option<&'a str>,
    address: &'a str,
    link: Option<String>,
}

#[derive(Serialize)]
struct ComponentJson<'a> {
    address: &'a str,
    component: &'a str,
    kind: &'static str,
    value: &'a str,
    /// The object's ARN; null for a Kubernetes object or an object without one.
    arn: Option<&'a str>,
    /// A Kubernetes object's path on the cluster's API server.
    api_path: Option<&'a str>,
    /// The ARN of what holds an object that has no ARN of its own.
    on: Option<&'a str>,
    /// How an object that cannot be located from state is identified.
    note: Option<&'a str>,
}

pub fn render(evidence: &Evidence) -> String {
    let document = Document {
        evidence: VerdictJson {
            status: evidence.level.key(),
            summary: &evidence.summary,
            exit_code: evidence.level.exit_code(),
        },
        state: StateJson {
            terraform_version: evidence.terraform_version.as_deref(),
            report_version: &evidence.options.version,
        },
        contracts: evidence
            .contracts
            .iter()
            .map(|c| contract(c, &evidence.options.rules_url))
            .collect(),
    };
    serde_json::to_string_pretty(&document).unwrap_or_else(|err| format!("{{\"error\": {:?}}}", err.to_string())) + "\n"
}

fn contract<'a>(c: &'a ContractEvidence, base: &str) -> ContractJson<'a> {
    ContractJson {
        name: &c.name,
        address: &c.address,
        status: c.level.key(),
        reasons: &c.reasons,
        unified_studio: UnifiedStudioJson {
            domain_id: c.domain_id.as_deref(),
            domain_unit_id: c.domain_unit_id.as_deref(),
            project_id: c.project_id.as_deref(),
        },
        cluster: ClusterJson {
            name: c.cluster.name.as_deref(),
            account_id: c.cluster.account_id.as_deref(),
            region: c.cluster.region.as_deref(),
            orchestrator: c.cluster.orchestrator.as_deref(),
        },
        project_role_arn: c.project_role_arn.as_deref(),
        access_role_arn: c.access_role_arn.as_deref(),
        lifecycle_state: c.lifecycle_state.as_deref(),
        owners: OwnersJson {
            business: c.owners.business.as_deref(),
            operations: c.owners.operations.as_deref(),
            cost: c.owners.cost.as_deref(),
        },
        review: ReviewJson {
            approved_by: c.review.approved_by.as_deref(),
            last_reviewed: c.review.last_reviewed.as_deref(),
            interval_days: c.review.interval_days.as_deref(),
            next_review_date: c.review.next_review_date.as_deref(),
            review_status: c.review.review_status.as_deref(),
        },
        exceptions: exceptions(c),
        facts: facts(c),
        resources: c
            .resources
            .iter()
            .map(|m| MemberJson {
                address: &m.address,
                resource_type: &m.resource_type,
            })
            .collect(),
        rules: c.results.iter().map(|r| rule(r, base)).collect(),
        components: c.components.iter().map(component).collect(),
    }
}

fn exceptions(c: &ContractEvidence) -> Vec<ExceptionJson<'_>> {
    c.exceptions
        .iter()
        .map(|e| ExceptionJson {
            rule: &e.rule,
            owner: &e.owner,
            expires: &e.expires,
            reason: &e.reason,
        })
        .collect()
}

fn facts(c: &ContractEvidence) -> FactsJson<'_> {
    FactsJson {
        recorded: c.facts.is_some(),
        note: c.facts.is_none().then_some(FACTS_NOT_RECORDED),
        items: c
            .facts
            .iter()
            .flatten()
            .map(|f| FactJson {
                fact: &f.key,
                approved: f.approved.as_deref(),
                current: &f.current,
                changed: f.changed,
            })
            .collect(),
    }
}

fn rule<'a>(r: &'a RuleResult, base: &str) -> RuleJson<'a> {
    RuleJson {
        rule: r.rule.id(),
        title: r.rule.title(),
        status: r.status.key(),
        detail: r.detail.as_deref(),
        address: &r.address,
        link: r.rule.link(base),
    }
}

fn component(c: &ComposedObject) -> ComponentJson<'_> {
    let (mut arn, mut api_path, mut on, mut note) = (None, None, None, None);
    match &c.locator {
        Locator::Arn(text) => arn = Some(text.as_str()),
        Locator::ApiPath(text) => api_path = Some(text.as_str()),
        Locator::On(text) => on = Some(text.as_str()),
        Locator::Unlocated(text) => note = Some(text.as_str()),
    }
    ComponentJson {
        address: &c.address,
        component: &c.key,
        kind: c.kind,
        value: &c.value,
        arn,
        api_path,
        on,
        note,
    }
}
