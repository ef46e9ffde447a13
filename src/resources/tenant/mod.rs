//! `hyperpod_tenant`: one team on a shared HyperPod cluster, with everything the governance model asks for it.
//!
//! - `schema.rs`: arguments and computed attributes; `model.rs`: the typed spec and the engine's `Tenant`.
//! - `plan.rs`: the rules at plan time (`check_tenant`, with live facts from `resources::cluster_facts` and the
//!   tenants it borrows from, `resources::references`) and every predicted object.
//! - `compose.rs` and `compose_access.rs`: apply (create and update share one reconciler) and destroy, towards what
//!   `desired.rs` computes; `manifests.rs` renders the Kubernetes objects, `slurm.rs` the Slurm accounting artefacts.
//! - `refresh.rs`: read (drift) and import; `drift.rs`: the plan warning for an object edited outside Terraform.

mod claim;
mod compose;
mod compose_access;
mod desired;
mod drift;
mod keep;
mod list;
mod manifests;
mod model;
mod plan;
mod refresh;
mod schema;
mod slurm;

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::Contract;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, string_map, text, text_map, timeout, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use crate::resources::connection_contract::contract_from_governance;
use compose::{Composer, Recorded, Target};
use model::TenantSpec;

pub use list::TenantList;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub const TYPE_NAME: &str = "hyperpod_tenant";

// What the governance evidence reads of a tenant's `components`.
pub use desired::{POD_IDENTITY, QUOTA, ROLE, entry_principal};
pub use plan::role_arn;
const DEFAULT_TIMEOUT: Duration = Duration::from_mins(20);

pub struct TenantResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for TenantResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

/// The contract and spec in `value`, or `None` while either depends on a resource not created yet.
fn inputs(value: &Value) -> Option<(Contract, TenantSpec)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let spec = TenantSpec::from_value(value)?;
    Some((contract, spec))
}

/// The state with its `governance` derived from its own arguments, as the plan derives it.
fn with_governance(mut state: Value) -> Value {
    // State holds no unknowns: a fact missing there (an imported tenant has no contract yet) is null.
    let facts = unknowns_to_null(crate::resources::references::tenant_value(&state));
    set_attr(&mut state, "governance", facts);
    state
}

/// The workload role name the user chose, if any (from configuration, or kept from state).
fn chosen_role_name(config: &Value, prior: Option<&Value>) -> Option<String> {
    string(config, "workload_role_name").or_else(|| prior.and_then(|p| string(p, "workload_role_name")))
}

impl TenantResource {
    /// Everything apply needs from the planned value. Apply re-derives (and re-judges) when the plan could not.
    async fn target(
        &self,
        client: &HyperpodClient,
        planned: &Value,
        prior: Option<&Value>,
        operation: &str,
    ) -> Result<(Target, Value), Diagnostics> {
        let Some((contract, spec)) = inputs(planned) else {
            return Err(Diagnostics::error(
                AttributePath::attr("contract"),
                "The tenant's inputs are still unknown",
                "A value the tenant depends on was not known after its dependencies were applied.",
            ));
        };
        let mut value = planned.clone();
        // The plan judged and derived everything unless a dependency was unknown then: do it now, before any write.
        // A rule the plan could not evaluate (WKL-3 without the cluster's allocation) is judged now, too.
        if !crate::resources::checklist::known(planned)
            || string(planned, "cluster_arn").is_none()
            || crate::resources::checklist::not_evaluated_at_plan(planned)
        {
            let derived = plan::derive(
                client,
                planned,
                prior,
                &spec,
                &contract,
                chosen_role_name(planned, prior),
                crate::resources::checklist::today(),
                crate::governance::Phase::Apply,
            )
            .await?;
            for (name, derived_value) in derived.attributes {
                let keep = value
                    .get_attr(name)
                    .is_some_and(|v| v.is_wholly_known() && !v.is_null());
                if !keep {
                    set_attr(&mut value, name, derived_value);
                }
            }
        }
        let cluster_arn = string(&value, "cluster_arn").unwrap_or_default();
        let cluster = client
            .cluster(&cluster_arn)
            .await
            .map_err(|err| err.diagnostics(AttributePath::attr("cluster_arn"), "Cannot read the HyperPod cluster"))?;
        let target = Target {
            eks_cluster_name: cluster.eks_cluster_name().unwrap_or_default(),
            cluster_name: cluster.name,
            cluster_arn,
            role_name: string(&value, "workload_role_name").unwrap_or_default(),
            role_arn: string(&value, "workload_role_arn").unwrap_or_default(),
            tags: string_map(&value, "tags_all"),
            partition: client.region.partition().to_string(),
            timeout: timeout(planned, operation, DEFAULT_TIMEOUT),
            spec,
        };
        Ok((target, value))
    }

    /// The state after a reconcile, complete or not: the planned value with what now exists.
    fn state_after(value: &Value, composer: &Composer<'_>) -> Value {
        let mut state = value.clone();
        let components = &composer.components.snapshot();
        let optional = |key: &str| components.get(key).map_or(Value::Null, text);
        set_attr(&mut state, "components", text_map(components));
        set_attr(
            &mut state,
            "compute_quota_id",
            components
                .get(desired::QUOTA)
                .map_or(Value::Null, |value| text(desired::quota_id(value))),
        );
        set_attr(
            &mut state,
            "compute_quota_arn",
            match (&composer.quota_arn, components.contains_key(desired::QUOTA)) {
                (Some(arn), true) => text(arn),
                _ => Value::Null,
            },
        );
        set_attr(
            &mut state,
            "pod_identity_association_id",
            optional(desired::POD_IDENTITY),
        );
        let grants: BTreeMap<String, String> = components
            .iter()
            .filter_map(|(key, id)| Some((key.strip_prefix("kms_grant/")?.to_string(), id.clone())))
            .collect();
        set_attr(&mut state, "kms_grants", text_map(&grants));
        unknowns_to_null(state)
    }

    fn is_eks(value: &Value) -> bool {
        value.get_attr("slurm_artefacts").is_none_or(Value::is_null)
    }
}

#[async_trait]
impl Resource<HyperpodClient> for TenantResource {
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
        // `sharing { strategy = null }` and null elements are the schema walk's (protocol/validators.rs), once.
        let quota = crate::protocol::object::elements(config, "quota");
        crate::resources::quota_share::validate_entries(quota, &AttributePath::attr("quota"), diagnostics);
    }

    /// The other resources' checks see this tenant's quota tags and access policies as they now are.
    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        client.reads.forget_kubernetes_objects();
        for state in states {
            client
                .reads
                .forget_compute_quota(string(state, "compute_quota_arn").as_deref());
            for component in string_map(state, "components").keys() {
                if component.starts_with("access_entry/") {
                    client.reads.forget_access_entry(desired::entry_principal(component));
                }
            }
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        // A workload role name known only at apply names the role, its ARN and every prediction: all wait for it.
        let role_name_unknown = !change.config_attr("workload_role_name").is_known();
        keep::carry_partitions(change);
        keep::carry_absolute_borrow_limits(change);
        // The handoffs (`contract`, `scheduling_policy`, `allocation`, `borrows_from`) are write-only: read from the configuration.
        let arguments = change.arguments();
        // A contract value that is wholly known yet unreadable (a fact replaced by null) never becomes known.
        if let Some(unreadable) = arguments
            .get_attr("contract")
            .and_then(crate::resources::connection_contract::unreadable_contract)
        {
            return Err(unreadable.into());
        }
        // Likewise a scheduling policy's governance with its classes nulled (other facts may still be unknown): WKL-4
        // could never read it.
        if let Some(facts) = arguments.get_attr("scheduling_policy")
            && matches!(facts, Value::Object(_))
            && facts.get_attr("priority_classes").is_none_or(Value::is_null)
        {
            return Err(Diagnostic::invalid_value(
                AttributePath::attr("scheduling_policy"),
                "a scheduling policy value with priority_classes null",
                "the tenant needs the policy's priority classes (WKL-4)",
                "pass hyperpod_scheduling_policy.<name>.governance unchanged",
            )
            .into());
        }
        let Some((contract, spec)) = inputs(&arguments).filter(|_| !role_name_unknown) else {
            for name in plan::DERIVED {
                if change.config_attr(name).is_null() {
                    change.set(name, Value::Unknown);
                }
            }
            change.set("governance", crate::resources::references::tenant_value(&arguments));
            change.diagnostics.push(crate::resources::checklist::deferred(
                &arguments,
                if role_name_unknown {
                    "workload_role_name"
                } else {
                    "contract"
                },
                client.strict,
            ));
            return Ok(());
        };
        let role_name = chosen_role_name(&change.config, change.prior.as_ref());
        let result = plan::derive(
            client,
            &arguments,
            change.prior.as_ref(),
            &spec,
            &contract,
            role_name,
            crate::resources::checklist::today(),
            crate::governance::Phase::Plan,
        )
        .await;
        if change.prior.is_some() {
            // No copy of the handoffs is kept, so a change in one is a change of what the tenant composes from them
            // (its facts for others, its tags): planned before judging, so a tenant whose composition moves is
            // judged as changed (its findings fail the plan) rather than as unchanged (they would only warn).
            change.set("governance", crate::resources::references::tenant_value(&arguments));
            change.set(
                "tags_all",
                crate::protocol::object::text_map(&plan::composed_tags(client, &spec, &contract)),
            );
        }
        let Some(derived) = crate::resources::checklist::judged(change, client.strict, result)? else {
            return Ok(());
        };
        for (name, value) in derived.attributes {
            change.set(name, value);
        }
        // Rules reading the cluster policy or the lenders judge them as unknown now ("skipped"), and for real at
        // apply: their outcome is not known yet.
        let waits = ["scheduling_policy", "borrows_from", "allocation"]
            .iter()
            .any(|name| arguments.get_attr(name).is_some_and(|value| !value.is_wholly_known()));
        if waits {
            crate::resources::checklist::set_unknown(&mut change.planned);
        }
        crate::resources::checklist::keep_recorded(change);
        change.diagnostics.extend(derived.warnings);
        for warning in keep::warnings(&change.config, &change.planned, derived.live_quota.as_ref()) {
            change.diagnostics.push(warning);
        }
        drift::warn(client, change).await;
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
        let (target, value) = match self.target(client, planned, None, "create").await {
            Ok(resolved) => resolved,
            Err(diagnostics) => return diagnostics.into(),
        };
        if !Self::is_eks(&value) {
            return Applied::ok(unknowns_to_null(value));
        }
        let mut composer = Composer {
            client,
            context,
            target: &target,
            components: Recorded::default(),
            quota_arn: None,
        };
        match Box::pin(composer.reconcile()).await {
            Ok(()) => Applied::ok(Self::state_after(&value, &composer)),
            // Whatever exists is in state: Terraform taints it, and the next apply replaces it cleanly.
            Err(diagnostics) if composer.components.is_empty() => diagnostics.into(),
            Err(diagnostics) => Applied::failed(Some(Self::state_after(&value, &composer)), diagnostics),
        }
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        Ok(refresh::refresh(client, current).await?.map(with_governance))
    }

    async fn update(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        planned: &Value,
        context: &OperationContext,
    ) -> Applied {
        let (target, value) = match self.target(client, planned, Some(prior), "update").await {
            Ok(resolved) => resolved,
            Err(diagnostics) => return Applied::failed(Some(prior.clone()), diagnostics),
        };
        if !Self::is_eks(&value) {
            return Applied::ok(unknowns_to_null(value));
        }
        let mut composer = Composer {
            client,
            context,
            target: &target,
            components: Recorded::new(string_map(prior, "components")),
            quota_arn: string(prior, "compute_quota_arn"),
        };
        match Box::pin(composer.reconcile()).await {
            Ok(()) => Applied::ok(Self::state_after(&value, &composer)),
            Err(diagnostics) => {
                // Keep the prior arguments (so the next plan still shows the change as pending) with what exists.
                Applied::failed(Some(Self::state_after(prior, &composer)), diagnostics)
            }
        }
    }

    async fn delete(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        context: &OperationContext,
    ) -> Result<(), Diagnostics> {
        let components = string_map(prior, "components");
        if components.is_empty() {
            return Ok(());
        }
        let cluster_arn = string(prior, "cluster_arn").unwrap_or_default();
        let eks_cluster_name = match client.cluster(&cluster_arn).await {
            Ok(cluster) => cluster.eks_cluster_name().unwrap_or_default(),
            Err(err) if err.is_not_found() => String::new(),
            Err(err) => return Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod cluster")),
        };
        let Some(spec) = TenantSpec::from_value(prior) else {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Cannot read the tenant's state",
                "The recorded tenant is incomplete; refresh and try again.",
            ));
        };
        let target = Target {
            cluster_name: string(prior, "cluster_name").unwrap_or_default(),
            cluster_arn,
            eks_cluster_name,
            role_name: string(prior, "workload_role_name").unwrap_or_default(),
            role_arn: string(prior, "workload_role_arn").unwrap_or_default(),
            tags: string_map(prior, "tags_all"),
            partition: client.region.partition().to_string(),
            timeout: timeout(prior, "delete", DEFAULT_TIMEOUT),
            spec,
        };
        let composer = Composer {
            client,
            context,
            target: &target,
            components: Recorded::new(components),
            quota_arn: None,
        };
        composer.remove_all().await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let (cluster, team) = crate::resources::import_id::two_parts(
            &target,
            TYPE_NAME,
            ["cluster_name", "team"],
            "ml-capacity/research",
        )?;
        refresh::import(client, self.schema.block.null_value(), &cluster, &team)
            .await
            .map(with_governance)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(schema::identity(
            &string(state, "cluster_name")?,
            &string(state, "team")?,
        ))
    }
}
