//! `hyperpod_task_view_restriction`: what a Unified Studio project's users see of a shared cluster.
//!
//! - `schema.rs`; `model.rs` (pure: the wanted access policies, RBAC objects, Slurm tag and their `components` keys);
//! - this file: plan (CLU-9, CLU-3, CLU-4, CLU-5, CLU-7, CLU-8, LIF-3 through `governance::check_restriction`), the
//!   `governance` value bindings reference (CLU-2 is judged there), and the CRUD plumbing;
//! - `apply.rs` (apply and destroy), `refresh.rs` (read).

mod apply;
mod model;
mod refresh;
mod schema;

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::aws::{AwsClient, ssm};
use crate::governance::{
    AccessEntry, Contract, Fact, Orchestrator, RestrictionFacts, TaskViewRestriction, check_restriction,
};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{object, string, string_map, text, text_list, text_map, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use crate::resources::checks::{self, today};
use crate::resources::cluster_facts::{self as live, ClusterFacts};
use crate::resources::connection_contract::contract_from_governance;
use apply::Applier;
use model::{ENTRY, RestrictionSpec, components, object_component, private_data_conf};

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

pub const TYPE_NAME: &str = "hyperpod_task_view_restriction";
const DERIVED: [&str; 12] = [
    "id",
    "governance",
    "cluster_name",
    "cluster_arn",
    "orchestrator",
    "project_role_arn",
    "namespaces",
    "kubernetes_group",
    "associated_policies",
    "kubernetes_manifests",
    "private_data_conf",
    "components",
];

pub struct TaskViewRestrictionResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for TaskViewRestrictionResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

fn inputs(value: &Value) -> Option<(Contract, RestrictionSpec)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let spec = RestrictionSpec::from_value(value, contract.project_role_arn.clone(), &contract.eks_namespaces)?;
    Some((contract, spec))
}

/// The restriction's view of the project role's current access entry: does it exist, so the plan says "adopt"?
fn entry_exists(facts: &ClusterFacts, principal: &str) -> bool {
    facts
        .access_entries
        .known()
        .is_some_and(|entries: &Vec<AccessEntry>| entries.iter().any(|e| e.principal_arn == principal))
}

impl TaskViewRestrictionResource {
    /// Judges the restriction and fills the derived attributes of `value`; errors fail the plan.
    async fn derive(
        &self,
        client: &AwsClient,
        value: &mut Value,
        prior: Option<&Value>,
    ) -> Result<Diagnostics, Diagnostics> {
        let Some((contract, spec)) = inputs(value) else {
            for name in DERIVED {
                if value.get_attr(name).is_none_or(|v| v.is_null()) {
                    set_attr(value, name, Value::Unknown);
                }
            }
            set_attr(value, "checks", Value::Unknown);
            let facts = crate::resources::references::restriction_value(value);
            set_attr(value, "governance", facts);
            return Ok(checks::deferred(value, "contract", client.strict).into());
        };
        let cluster = live::find_contract_cluster(client, &contract).await?;
        let eks_name = live::eks_name(&cluster);
        let orchestrator = if eks_name.is_some() {
            Orchestrator::Eks
        } else {
            Orchestrator::Slurm
        };
        if orchestrator != contract.cluster.orchestrator {
            return Err(Diagnostic::invalid_value(
                live::contract_path().push_attr("orchestrator"),
                format!("{:?}", contract.cluster.orchestrator.to_string()),
                &format!("[CLU-1] cluster {:?} is orchestrated by {orchestrator}", cluster.name),
                "fix the contract's cluster.orchestrator (the contract's own plan reports CLU-1 too)",
            )
            .into());
        }
        let cluster_arn = cluster.arn.clone();
        let cluster_name = cluster.name.clone();
        let restriction = TaskViewRestriction {
            project_role_arn: Some(spec.project_role_arn.clone()),
            namespaces: spec.namespaces.clone(),
        };
        let facts = live::gather(client, cluster, live::Needs::Restriction, &[&spec.project_role_arn]).await;
        let partition = client.region.partition();
        let restriction_facts = match &eks_name {
            Some(name) => RestrictionFacts::Eks {
                entries: facts.access_entries.clone(),
                eks: live::eks_cluster(client, name).await,
            },
            None => RestrictionFacts::Slurm {
                preferences: match ssm::find_session_preferences(&client.ssm).await {
                    Ok(preferences) => Fact::Known(preferences),
                    Err(err) => Fact::unreadable("Session Manager preferences", &err),
                },
                project_role: crate::resources::project_facts::role_permissions(client, &spec.project_role_arn).await,
                cluster_arn: cluster_arn.clone(),
            },
        };
        let report = check_restriction(&restriction, &contract, &restriction_facts, today());
        let diagnostics = report.diagnostics(client.strict);
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }

        // An entry that existed before this restriction is adopted: on destroy only what was added goes.
        let prior_components = prior.map(|p| string_map(p, "components")).unwrap_or_default();
        let adopted = match prior {
            Some(_) => !prior_components.contains_key(ENTRY),
            None => entry_exists(&facts, &spec.project_role_arn),
        };
        let eks = eks_name.is_some();
        let wanted = components(&spec, partition, eks, adopted);
        let mut manifests = spec.manifests();
        manifests.sort_by_key(object_component);
        let mut associations = spec.associations(partition);
        associations.sort_by(|a, b| a.policy_arn.cmp(&b.policy_arn));
        let role = model::role_name(&spec.project_role_arn);
        set_attr(value, "id", text(format!("{cluster_name}/{role}")));
        set_attr(value, "cluster_name", text(&cluster_name));
        set_attr(value, "cluster_arn", text(&cluster_arn));
        set_attr(value, "orchestrator", text(orchestrator.to_string()));
        set_attr(value, "project_role_arn", text(&spec.project_role_arn));
        set_attr(value, "namespaces", text_list(&spec.namespaces));
        set_attr(value, "kubernetes_group", text(&spec.kubernetes_group));
        let facts = crate::resources::references::restriction_value(value);
        set_attr(value, "governance", facts);
        if !eks {
            associations.clear();
        }
        set_attr(
            value,
            "associated_policies",
            Value::List(
                associations
                    .iter()
                    .map(|a| {
                        object([
                            ("policy_arn", text(&a.policy_arn)),
                            (
                                "scope",
                                text(if a.namespaces.is_empty() {
                                    "cluster"
                                } else {
                                    "namespace"
                                }),
                            ),
                            ("namespaces", text_list(&a.namespaces)),
                        ])
                    })
                    .collect(),
            ),
        );
        set_attr(
            value,
            "kubernetes_manifests",
            Value::List(manifests.iter().map(|m| text(m.to_json())).collect()),
        );
        set_attr(
            value,
            "private_data_conf",
            if eks { Value::Null } else { text(private_data_conf()) },
        );
        set_attr(value, "components", text_map(&wanted));
        set_attr(value, "checks", checks::of(&report));
        Ok(diagnostics)
    }

    /// The HyperPod cluster behind the state (by ARN), and its EKS cluster; `None`: the cluster is gone.
    async fn cluster_of(&self, client: &AwsClient, state: &Value) -> Result<Option<Option<String>>, Diagnostics> {
        let cluster_ref = string(state, "cluster_arn")
            .or_else(|| string(state, "cluster_name"))
            .unwrap_or_default();
        match client.cluster(&cluster_ref).await {
            Ok(cluster) => Ok(Some(live::eks_name(&cluster))),
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod cluster")),
        }
    }

    async fn write(&self, client: &AwsClient, planned: &Value, prior: Option<&Value>) -> Applied {
        let mut value = planned.clone();
        if !planned.get_attr("checks").is_some_and(Value::is_wholly_known) {
            // Judged now: a dependency was unknown at plan.
            if let Err(diagnostics) = self.derive(client, &mut value, prior).await {
                return Applied::failed(prior.cloned(), diagnostics);
            }
        }
        let Some((_, spec)) = inputs(&value) else {
            return Diagnostics::error(AttributePath::attr("contract"), "The inputs are still unknown", "").into();
        };
        let eks_cluster = match self.cluster_of(client, &value).await {
            Ok(Some(eks)) => eks,
            Ok(None) => {
                return Diagnostics::error(AttributePath::attr("contract"), "The HyperPod cluster is gone", "").into();
            }
            Err(diagnostics) => return diagnostics.into(),
        };
        let mut tags = client.default_tags.clone();
        if let Some(contract) = inputs(&value).map(|(c, _)| c) {
            tags.insert("hyperpod:contract".to_string(), contract.name);
        }
        let mut applier = Applier {
            client,
            spec: &spec,
            eks_cluster,
            partition: client.region.partition().to_string(),
            tags,
            components: prior.map(|p| string_map(p, "components")).unwrap_or_default(),
        };
        let result = applier.apply().await;
        let mut state = match (&result, prior) {
            (Err(_), Some(prior)) => prior.clone(),
            _ => value,
        };
        set_attr(&mut state, "components", text_map(&applier.components));
        let state = unknowns_to_null(state);
        match result {
            Ok(()) => Applied::ok(state),
            Err(diagnostics) if applier.components.is_empty() => Applied::failed(prior.cloned(), diagnostics),
            Err(diagnostics) => Applied::failed(Some(state), diagnostics),
        }
    }
}

#[async_trait]
impl Resource<AwsClient> for TaskViewRestrictionResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    /// The other resources' checks see the project role's access policies as they now are.
    fn after_apply(&self, client: &AwsClient, states: [&Value; 3]) {
        client.reads.forget_kubernetes_objects();
        for role in states.into_iter().filter_map(|state| string(state, "project_role_arn")) {
            client.reads.forget_access_entry(&role);
        }
    }

    async fn modify_plan(&self, client: &AwsClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        let mut planned = change.planned.clone();
        // Left unset, these default to the contract's (derive resolves them); unknown would mean a reference.
        for name in ["project_role_arn", "namespaces", "kubernetes_group"] {
            if change.config_attr(name).is_null() && !planned.get_attr(name).is_some_and(Value::is_known) {
                set_attr(&mut planned, name, Value::Null);
            }
        }
        let result = self.derive(client, &mut planned, change.prior.as_ref()).await;
        let Some(warnings) = checks::judged(change, client.strict, result)? else {
            return Ok(());
        };
        change.planned = planned;
        checks::keep_recorded(change);
        change.diagnostics.extend(warnings);
        Ok(())
    }

    async fn create(&self, client: &AwsClient, planned: &Value, _: &OperationContext) -> Applied {
        self.write(client, planned, None).await
    }

    async fn read(
        &self,
        client: &AwsClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        let Some((_, spec)) = inputs(current) else {
            return Ok(Some(current.clone()));
        };
        let Some(eks_cluster) = self.cluster_of(client, current).await? else {
            return Ok(None);
        };
        refresh::refresh(client, current, &spec, eks_cluster.as_deref()).await
    }

    async fn update(&self, client: &AwsClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        self.write(client, planned, Some(prior)).await
    }

    async fn delete(&self, client: &AwsClient, prior: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        let components: BTreeMap<String, String> = string_map(prior, "components");
        if components.is_empty() {
            return Ok(());
        }
        let Some((_, spec)) = inputs(prior) else {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Cannot read the restriction's state",
                "The recorded restriction is incomplete; refresh and try again.",
            ));
        };
        let Some(eks_cluster) = self.cluster_of(client, prior).await? else {
            return Ok(()); // the cluster is gone, and its access entries with it
        };
        let mut applier = Applier {
            client,
            spec: &spec,
            eks_cluster,
            partition: client.region.partition().to_string(),
            tags: BTreeMap::new(),
            components,
        };
        applier.remove().await
    }

    async fn import(&self, client: &AwsClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let (cluster, role) = crate::resources::import_id::two_parts(
            &target,
            TYPE_NAME,
            ["cluster_name", "project_role_arn"],
            "ml-capacity/datazone_usr_role_research",
        )?;
        // The `id` form names the role; the identity names its ARN. Both mean a role of the provider's account.
        let role = if role.starts_with("arn:") {
            role
        } else {
            format!(
                "arn:{}:iam::{}:role/{role}",
                client.region.partition(),
                client.account_id
            )
        };
        // What an import can name is the principal; the next plan derives the rest from the configuration and
        // shows the additions it would make, which apply then records (an imported entry counts as adopted).
        let mut state = self.schema.block.null_value();
        set_attr(&mut state, "cluster_name", text(&cluster));
        set_attr(&mut state, "project_role_arn", text(&role));
        set_attr(&mut state, "components", Value::Map(BTreeMap::new()));
        Ok(state)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(schema::identity(
            &string(state, "cluster_name")?,
            &string(state, "project_role_arn")?,
        ))
    }
}
