//! `hyperpod_connection_contract`: the governance record for one project-to-cluster connection. No AWS object of its
//! own; at plan time it gathers live facts and asks the governance engine, and its computed attributes (review
//! status, the checklist, the `governance` facts) are known before apply.

pub(crate) mod deferral;
mod live;
mod model;
mod schema;

pub use model::{contract_from_governance, unreadable_contract};
pub use schema::governance_type;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::findings::ToDiagnostics;
use crate::governance::{
    Fact, Finding, ReviewStatus, RuleId, approval, check_contract, paths, reapproved, review_status,
};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{boolean, object, string, string_map, text, text_map, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentityAttribute, IdentitySchema, Schema};
use crate::protocol::value::{Type, Value};
use model::{contract_from_value, governance_value};

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub const TYPE_NAME: &str = "hyperpod_connection_contract";
/// The attributes the provider derives at plan time.
const DERIVED: [&str; 8] = [
    "review_status",
    "approved_facts",
    "changed_facts",
    "next_review_date",
    "passed_checks",
    "not_applicable_checks",
    "findings",
    "governance",
];

pub struct ConnectionContractResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ConnectionContractResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: IdentitySchema {
                version: 0,
                attributes: vec![IdentityAttribute {
                    name: "name",
                    ty: Type::String,
                    description: "The contract's name.".to_string(),
                    required_for_import: true,
                }],
            },
        }
    }
}

impl ConnectionContractResource {
    /// Judges the contract in `value` (planned or applied) and fills the derived attributes. Errors fail the plan;
    /// warnings are returned for the reviewer.
    async fn evaluate(
        &self,
        client: &HyperpodClient,
        value: &mut Value,
        prior: Option<&Value>,
    ) -> Result<Diagnostics, Diagnostics> {
        if let Some(name) = string(value, "name") {
            set_attr(value, "id", text(name));
        }
        // Arguments a plan may leave unknown defer only the rules that read them; anything else defers them all.
        let unknown = deferral::unknown_in(value);
        let decodable = deferral::with_stand_ins(value, &unknown, prior);
        let Some(contract) = contract_from_value(&decodable) else {
            // A value the rules need comes from a resource not created yet: judge it at apply, and say so.
            for name in DERIVED {
                set_attr(value, name, Value::Unknown);
            }
            let strict = boolean(value, "strict").unwrap_or(client.strict);
            let unknown: Vec<String> = match value {
                Value::Object(fields) => fields
                    .iter()
                    .filter(|(name, field)| !field.is_wholly_known() && !DERIVED.contains(&name.as_str()))
                    .map(|(name, _)| name.clone())
                    .collect(),
                _ => Vec::new(),
            };
            let what = format!("{} not known until apply", unknown.join(", "));
            return Ok(crate::findings::deferred_diagnostic("all rules", &what, strict).into());
        };
        let prior_contract = prior.and_then(contract_from_value);
        let today = crate::resources::checklist::today();
        let live = live::gather(client, &contract).await;
        let lif_2_waits = deferral::lif_2_waits(&unknown, &contract, prior_contract.as_ref());
        let facts = approval::current_facts(&contract, &live);
        // The facts stand approved as recorded, unless this plan (re-)approves: create, a new review, or state
        // written before facts were recorded (that baseline is the account as it is now).
        let recorded = prior
            .filter(|p| p.get_attr("approved_facts").is_some_and(|f| !f.is_null()))
            .map(|p| string_map(p, "approved_facts"))
            .filter(|_| prior_contract.as_ref().is_some_and(|p| !reapproved(p, &contract)));
        let report = deferral::defer(
            check_contract(
                &contract,
                &live,
                &Fact::Known(client.caller_arn.clone()),
                today,
                prior_contract.as_ref(),
                recorded.as_ref(),
            ),
            &unknown,
            lif_2_waits,
        );
        let changes = recorded
            .as_ref()
            .map(|approved| approval::compare(approved, &facts).changes)
            .unwrap_or_default();
        let approved = recorded.unwrap_or_else(|| approval::to_record(&facts));
        let (mut status, next_review) = review_status(&contract, today, prior_contract.as_ref());
        if !changes.is_empty() && status != ReviewStatus::Revoked {
            status = ReviewStatus::ReviewRequired;
        }
        let mut findings = Vec::new();
        // LIF-2 holds until re-approval: an argument change applied without one keeps the contract "review
        // required". A change of facts is compared afresh each plan (`changed_facts`), so it is not carried over.
        let prior_cause_was_arguments = prior.is_some_and(|p| p.get_attr("changed_facts").is_none_or(Value::is_null));
        let still_required = prior
            .and_then(|p| string(p, "review_status"))
            .is_some_and(|s| s == ReviewStatus::ReviewRequired.as_str())
            && prior_cause_was_arguments
            && prior_contract.as_ref().is_some_and(|p| !reapproved(p, &contract));
        if still_required && !matches!(status, ReviewStatus::Revoked | ReviewStatus::ReviewRequired) {
            status = ReviewStatus::ReviewRequired;
            findings.push(Finding::new(
                RuleId::Lif2,
                paths::contract::review("last_reviewed"),
                contract.review.last_reviewed.to_string(),
                "the contract changed materially since its last approval and has not been re-approved".to_string(),
                "have the accountable administrator review the change, then update review.last_reviewed and \
                 review.approved_by",
            ));
        }
        // Whether a material change awaits re-approval is known only once the unknown material argument is.
        let status_known = !lif_2_waits || still_required || status == ReviewStatus::Revoked;
        let excepted: Vec<String> = contract
            .exceptions
            .iter()
            .filter(|exception| exception.is_valid(today))
            .map(|exception| exception.rule.id().to_string())
            .collect();
        let status_value = if status_known {
            text(status.as_str())
        } else {
            Value::Unknown
        };
        let mut governance = governance_value(&contract, status.as_str(), &excepted);
        for partial in &unknown {
            let name = match partial.name {
                "domain_unit_id" => continue, // not among the facts dependents read
                name => name,
            };
            set_attr(&mut governance, name, Value::Unknown);
        }
        set_attr(&mut governance, "review_status", status_value.clone());
        set_attr(value, "review_status", status_value);
        set_attr(value, "next_review_date", text(next_review.to_string()));
        // Facts read with stand-ins for values unknown until apply are not recorded: apply records them.
        if unknown.is_empty() {
            set_attr(value, "approved_facts", text_map(&approved));
            // Null when nothing changed, like `findings`: a plan shows the attribute only when it has something to say.
            let changed = approval::changed_facts(&changes);
            set_attr(
                value,
                "changed_facts",
                if changed.is_empty() {
                    Value::Null
                } else {
                    text_map(&changed)
                },
            );
        } else {
            set_attr(value, "approved_facts", Value::Unknown);
            set_attr(value, "changed_facts", Value::Unknown);
        }
        crate::resources::checklist::set(value, &report);
        set_attr(value, "governance", governance);

        let strict = boolean(value, "strict").unwrap_or(client.strict);
        let mut diagnostics = report.diagnostics(strict);
        deferral::point_deferred(&mut diagnostics, &unknown, lif_2_waits);
        for finding in findings {
            diagnostics.push(crate::findings::finding_diagnostic(&finding, strict));
        }
        if diagnostics.has_errors() {
            Err(diagnostics)
        } else {
            Ok(diagnostics)
        }
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ConnectionContractResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn state_upgraders(&self) -> &[crate::protocol::state_upgrade::StateUpgrader] {
        &schema::STATE_UPGRADERS
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    /// The configuration-only rules run here too, so `terraform validate` catches a malformed contract without
    /// credentials.
    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        if let Some(contract) = contract_from_value(config) {
            let today = crate::resources::checklist::today();
            let report: crate::governance::Report = [
                crate::governance::contract::con_1(&contract),
                crate::governance::contract::con_2(&contract),
                crate::governance::contract::con_3(&contract),
                crate::governance::exceptions::exc_1(&contract, today),
                crate::governance::lifecycle::lif_1(&contract, today),
            ]
            .into_iter()
            .collect();
            let strict = boolean(config, "strict").unwrap_or(false);
            diagnostics.extend(report.with_exceptions(&contract.exceptions, today).diagnostics(strict));
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        // Under strict (the provider's or the contract's own) every finding fails the plan, changed or not.
        let strict = boolean(&change.planned, "strict").unwrap_or(client.strict);
        // `organization` is write-only: judged from the configuration, never planned.
        let mut planned = change.arguments();
        let result = self.evaluate(client, &mut planned, change.prior.as_ref()).await;
        if let Some(warnings) = crate::resources::checklist::judged(change, strict, result)? {
            change.set_planned(planned);
            change.diagnostics.extend(warnings);
        }
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        self.record(client, planned, None).await
    }

    async fn read(
        &self,
        _: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        // The record lives in state; there is nothing in AWS to refresh it from.
        Ok(Some(current.clone()))
    }

    async fn update(&self, client: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        self.record(client, planned, Some(prior)).await
    }

    async fn delete(&self, _: &HyperpodClient, _: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        Ok(())
    }

    async fn import(&self, _: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let name = match target {
            ImportTarget::Id(id) => id,
            ImportTarget::Identity(identity) => string(&identity, "name").unwrap_or_default(),
        };
        if name.trim().is_empty() {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Missing import ID",
                format!("Import {TYPE_NAME} by the contract's name."),
            ));
        }
        // The contract exists only in configuration and state: import records its name, and the next apply fills
        // in the rest from the configuration (no AWS call).
        let mut state = self.schema.block.null_value();
        set_attr(&mut state, "id", text(&name));
        set_attr(&mut state, "name", text(&name));
        Ok(state)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(object([("name", text(string(state, "name")?))]))
    }
}

impl ConnectionContractResource {
    /// Apply writes the planned record; values unknown at plan (references to new resources) are judged now.
    async fn record(&self, client: &HyperpodClient, planned: &Value, prior: Option<&Value>) -> Applied {
        if planned.is_wholly_known() {
            return Applied::ok(planned.clone());
        }
        let mut value = planned.clone();
        match self.evaluate(client, &mut value, prior).await {
            Ok(warnings) => Applied {
                state: Some(unknowns_to_null(deferral::fill_unknowns(planned, &value))),
                diagnostics: warnings,
            },
            Err(errors) => Applied::failed(None, errors),
        }
    }
}
