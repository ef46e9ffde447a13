//! `hyperpod_unified_studio_project_binding`: the HyperPod connection of a Unified Studio project, and the groups
//! that collaborate in it, created only when the four control layers agree.
//!
//! - `schema.rs`: arguments and computed attributes; `model.rs`: the typed spec and the engine's `Binding`.
//! - `plan.rs`: the rules at plan time (`check_binding`, with live facts from `resources::cluster_facts` and
//!   `resources::project_facts`, and what this process planned from `resources::planned`) and the predictions.
//! - `apply.rs`: create, update and delete of the connection and the memberships.
//! - `refresh.rs`: read (drift) and import.

mod apply;
mod list;
mod model;
mod plan;
mod refresh;
mod schema;
mod validate;

use std::time::Duration;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::governance::Contract;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, timeout, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use crate::resources::connection_contract::contract_from_governance;
use model::{BindingSpec, members_of, same_member};

pub use list::BindingList;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub const TYPE_NAME: &str = "hyperpod_unified_studio_project_binding";
const DEFAULT_TIMEOUT: Duration = Duration::from_mins(10);

pub struct ProjectBindingResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ProjectBindingResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

/// The contract and spec, or `None` while either depends on a resource not created yet. `chosen` holds the user's
/// own `domain_id` and `connection_name` (the configuration at plan time); null there means "derive it".
fn inputs(value: &Value, chosen: &Value) -> Option<(Contract, BindingSpec)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let mut spec = BindingSpec::from_value(value)?;
    for name in ["domain_id", "connection_name"] {
        if chosen.get_attr(name).is_some_and(|v| !v.is_known()) {
            return None;
        }
    }
    spec.domain_id = string(chosen, "domain_id");
    spec.connection_name = string(chosen, "connection_name");
    Some((contract, spec))
}

impl ProjectBindingResource {
    /// The applied value and its spec: the planned value, judged and derived now where the plan could not (a value
    /// unknown then). Errors come before any write.
    async fn resolve(
        &self,
        client: &HyperpodClient,
        planned: &Value,
        prior: Option<&Value>,
    ) -> Result<Value, Diagnostics> {
        let chosen = unknowns_to_null(planned.clone());
        let Some((contract, spec)) = inputs(planned, &chosen) else {
            return Err(Diagnostics::error(
                AttributePath::attr("contract"),
                "The binding's inputs are still unknown",
                "A value the binding depends on was not known after its dependencies were applied.",
            ));
        };
        let mut value = planned.clone();
        let judged = crate::resources::checklist::known(planned)
            && ["environment_id", "cluster_arn"]
                .iter()
                .all(|name| planned.get_attr(name).is_some_and(Value::is_wholly_known));
        // A rule the plan could not evaluate (CLU-2 without the cluster's allocation) is judged now, too.
        if !judged || crate::resources::checklist::not_evaluated_at_plan(planned) {
            let derived = plan::derive(
                client,
                planned,
                &spec,
                &contract,
                prior,
                crate::resources::checklist::today(),
                crate::governance::Phase::Apply,
            )
            .await?;
            // Only what the plan left unknown is filled in: a part it knew stays as planned.
            for (name, derived_value) in derived.attributes {
                let planned_part = value.get_attr(name).cloned().unwrap_or(Value::Unknown);
                let filled = crate::resources::checklist::fill_unknowns(&planned_part, &derived_value);
                set_attr(&mut value, name, filled);
            }
        }
        Ok(value)
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ProjectBindingResource {
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

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        validate::validate(config, diagnostics);
        let Some(members) = members_of(config) else { return };
        for (index, member) in members.iter().enumerate() {
            if members[..index].iter().any(|earlier| same_member(earlier, member)) {
                diagnostics.push(Diagnostic::invalid_value(
                    crate::governance::paths::binding::member(index),
                    format!("{:?} again", member.name),
                    "a member can be listed once (a project membership has one designation)",
                    "remove the repeated member block, keeping the designation you want",
                ));
            }
        }
    }

    /// The other bindings' checks see this binding's connection and memberships as they now are.
    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        for state in states {
            client.reads.forget_connection(
                string(state, "connection_id").as_deref(),
                string(state, "project_id").as_deref(),
            );
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        // The handoffs (`contract`, `task_view_restriction`, `tenants`) are write-only: read from the configuration.
        let arguments = change.arguments();
        let facts = arguments.get_attr("contract").cloned().unwrap_or(Value::Null);
        // Known, yet not a contract's facts (a fact nulled or replaced): nothing at apply would make it one.
        if let Some(unreadable) = crate::resources::connection_contract::unreadable_contract(&facts) {
            return Err(unreadable.into());
        }
        let Some((contract, spec)) = inputs(&arguments, &change.config) else {
            for name in plan::DERIVED {
                if change.config_attr(name).is_null() && change.prior_attr(name).is_none_or(Value::is_null) {
                    change.set(name, Value::Unknown);
                }
            }
            crate::resources::checklist::set_unknown(&mut change.planned);
            let deferred = crate::resources::checklist::deferred(&arguments, "contract", client.strict);
            change.diagnostics.push(deferred);
            return Ok(());
        };
        let result = plan::derive(
            client,
            &arguments,
            &spec,
            &contract,
            change.prior.as_ref(),
            crate::resources::checklist::today(),
            crate::governance::Phase::Plan,
        )
        .await;
        let Some(derived) = crate::resources::checklist::judged(change, client.strict, result)? else {
            return Ok(());
        };
        for (name, value) in derived.attributes {
            change.set(name, value);
        }
        if let Some(prior) = change.prior.clone() {
            // The API forces these: a connection cannot move to another environment or lose its description.
            let moved = |name: &str| {
                let (before, after) = (prior.get_attr(name), change.planned.get_attr(name));
                before.is_some_and(|b| !b.is_null())
                    && after.is_some_and(hyperpod_protocol::value::Value::is_known)
                    && before != after
            };
            let cleared = string(&prior, "description").is_some() && string(&change.planned, "description").is_none();
            // A binding whose connection is gone (a destroy that stopped part-way, or a delete out of band while
            // its memberships remain) is replaced: the rest is removed, and the connection created again.
            if prior.get_attr("cluster_arn").is_some_and(Value::is_null) {
                change.requires_replace.push(AttributePath::attr("cluster_arn"));
            }
            if moved("environment_id") {
                change.requires_replace.push(AttributePath::attr("environment_id"));
            }
            if cleared {
                change.requires_replace.push(AttributePath::attr("description"));
            }
        }
        crate::resources::checklist::keep_recorded(change);
        change.diagnostics.extend(derived.warnings);
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
        let value = match self.resolve(client, planned, None).await {
            Ok(value) => value,
            Err(diagnostics) => return diagnostics.into(),
        };
        let (Some(spec), Some(environment_id)) = (BindingSpec::from_value(&value), string(&value, "environment_id"))
        else {
            return Diagnostics::error(
                AttributePath::attr("environment_id"),
                "The project's tooling environment is unknown",
                "The HyperPod connection is created in the project's tooling environment, which could not be read; \
                 check the provider's DataZone permissions and plan again.",
            )
            .into();
        };
        let Some(contract) = value.get_attr("contract").and_then(contract_from_governance) else {
            return Diagnostics::error(
                AttributePath::attr("contract"),
                "The contract's facts are unknown",
                "Plan again once the contract is applied.",
            )
            .into();
        };
        let target = apply::Target {
            domain_id: string(&value, "domain_id").unwrap_or_default(),
            environment_id,
            connection_name: string(&value, "connection_name").unwrap_or_default(),
            account_id: contract.cluster.account_id,
            region: contract.cluster.region,
            spec: &spec,
            timeout: timeout(planned, "create", DEFAULT_TIMEOUT),
        };
        apply::create(client, context, &value, &target).await
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        refresh::refresh(client, current).await
    }

    async fn update(&self, client: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        let value = match self.resolve(client, planned, Some(prior)).await {
            Ok(value) => value,
            Err(diagnostics) => return Applied::failed(Some(prior.clone()), diagnostics),
        };
        let Some(spec) = BindingSpec::from_value(&value) else {
            return Applied::failed(
                Some(prior.clone()),
                Diagnostics::error(
                    AttributePath::root(),
                    "The binding's arguments are unknown",
                    "A value the binding depends on was not known at apply.",
                ),
            );
        };
        apply::update(client, prior, &value, &spec).await
    }

    async fn delete(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        context: &OperationContext,
    ) -> Result<(), Diagnostics> {
        let applied = self.destroy(client, prior, context).await;
        if applied.diagnostics.has_errors() {
            Err(applied.diagnostics)
        } else {
            Ok(())
        }
    }

    async fn destroy(&self, client: &HyperpodClient, prior: &Value, context: &OperationContext) -> Applied {
        let members = members_of(prior).unwrap_or_default();
        apply::delete(
            client,
            context,
            prior,
            &members,
            timeout(prior, "delete", DEFAULT_TIMEOUT),
        )
        .await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        refresh::import(client, self.schema.block.null_value(), target).await
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(schema::identity(
            &string(state, "domain_id")?,
            &string(state, "connection_id")?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text};

    fn member(designation: &str) -> Value {
        object([
            ("kind", text("group")),
            ("name", text("research-leads")),
            ("designation", text(designation)),
        ])
    }

    #[test]
    fn a_member_listed_twice_fails_validation() {
        let config = object([(
            "member",
            Value::List(vec![member("PROJECT_OWNER"), member("PROJECT_CONTRIBUTOR")]),
        )]);
        let mut diagnostics = Diagnostics::new();
        ProjectBindingResource::default().validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path.to_string(), "member[1].name");
    }
}
