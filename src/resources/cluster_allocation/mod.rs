//! `hyperpod_cluster_allocation`: the documented split of one cluster's guaranteed capacity. No AWS object of its
//! own: at plan it reads the cluster once (its instance groups, and its compute quotas for teams it does not list)
//! and checks each share against the instance types the cluster has; its `governance` is what every tenant and
//! binding of the cluster references, so WKL-3 and CLU-2 see the cluster's teams on the first plan
//! (`docs/design/cluster-allocation.md`).

mod model;
mod schema;

pub use model::allocation_from_governance;
pub use schema::governance_type;

use async_trait::async_trait;

use crate::client::HyperpodClient;
use crate::governance::{Fact, shapes};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{object, string, text, text_map, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use crate::resources::cluster_facts;

pub const TYPE_NAME: &str = "hyperpod_cluster_allocation";

pub struct ClusterAllocationResource {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for ClusterAllocationResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
        }
    }
}

fn cluster_path() -> AttributePath {
    AttributePath::attr("cluster_name")
}

/// The entry at `teams[team].quota[index].<field>`.
fn entry_path(team: &str, index: usize, field: &str) -> AttributePath {
    crate::governance::paths::allocation::share(team, index, field)
}

/// A WKL-3 finding on the allocation, as the rules' diagnostics read (`[WKL-3] <title>`, at the entry).
fn wkl_3(at: AttributePath, observed: String, problem: &str, fix: &str) -> Diagnostic {
    let finding = crate::governance::Finding::new(crate::governance::RuleId::Wkl3, at, observed, problem, fix);
    crate::findings::finding_diagnostic(&finding, false)
}

impl ClusterAllocationResource {
    /// Fills `id`, `cluster_arn`, `capacity` and `governance` from the configuration and the cluster; a share the
    /// cluster cannot hold at all (an instance type it has no group of, an amount of a shape the provider does not
    /// know) fails here, at its entry.
    async fn evaluate(&self, client: &HyperpodClient, value: &mut Value) -> Result<(), Diagnostics> {
        set_attr(value, "governance", model::governance_value(value));
        let Some(cluster_name) = string(value, "cluster_name") else {
            for name in ["id", "cluster_arn", "capacity"] {
                set_attr(value, name, Value::Unknown);
            }
            return Ok(());
        };
        set_attr(value, "id", text(&cluster_name));
        let cluster = cluster_facts::cluster_named(client, &cluster_name, cluster_path()).await?;
        set_attr(value, "cluster_arn", text(&cluster.arn));
        let Some(allocation) = model::allocation_from_value(value) else {
            set_attr(value, "capacity", Value::Unknown);
            return Ok(());
        };
        let groups = crate::resources::cluster_view::instance_group_capacity(&cluster);
        let mut errors = Diagnostics::new();
        for (team, row) in &allocation.teams {
            for (index, share) in row.iter().enumerate() {
                let instance_type = &share.instance_type;
                if !groups.iter().any(|g| &g.instance_type == instance_type) {
                    errors.push(wkl_3(
                        entry_path(team, index, "instance_type"),
                        format!(
                            "{instance_type}: no instance group of cluster {cluster_name:?} has it (its types: {:?})",
                            groups.iter().map(|g| g.instance_type.as_str()).collect::<Vec<_>>()
                        ),
                        "the allocation guarantees capacity the cluster does not have",
                        "guarantee an instance type the cluster has, or add the instance group first",
                    ));
                    continue;
                }
                let amount = [
                    ("accelerators", share.accelerators.is_some()),
                    ("vcpu", share.vcpu.is_some()),
                    ("memory_gib", share.memory_gib.is_some()),
                ]
                .into_iter()
                .find(|(_, set)| *set);
                if let Some((field, _)) = amount
                    && shapes::shape(instance_type).is_none()
                {
                    errors.push(wkl_3(
                        entry_path(team, index, field),
                        format!("{instance_type}: {team} {field} given"),
                        "the provider does not know this instance type's shape (accelerators, vCPU and memory per \
                         instance), so a share in amounts cannot be counted against the cluster",
                        "give the share in whole instances (count), which WKL-3 can always count",
                    ));
                }
            }
        }
        if errors.has_errors() {
            return Err(errors);
        }
        let live = match cluster.orchestrator {
            crate::aws::sagemaker::ClusterOrchestrator::Slurm => Fact::Known(Vec::new()),
            crate::aws::sagemaker::ClusterOrchestrator::Eks { .. } => match client.compute_quotas(&cluster.arn).await {
                Ok(quotas) => Fact::Known(quotas.iter().map(cluster_facts::capacity_of).collect()),
                Err(err) => Fact::unreadable("the cluster's compute quotas", &err),
            },
        };
        let unlisted = match &live {
            Fact::Known(live) => live.as_slice(),
            Fact::Unavailable(_) => &[],
        };
        let capacity = model::capacity_summary(&allocation, &groups, unlisted);
        set_attr(value, "capacity", text_map(&capacity));
        if let Fact::Unavailable(reason) = live {
            // The tenants' WKL-3 reports what this leaves out; the summary says it is partial.
            tracing::warn!(%reason, "allocation summary without the cluster's live quotas");
        }
        Ok(())
    }
}

#[async_trait]
impl Resource<HyperpodClient> for ClusterAllocationResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        schema::validate_team_names(config, diagnostics);
        if let Some(Value::Map(teams)) = config.get_attr("teams") {
            for (team, row) in teams {
                let entries = crate::protocol::object::elements(row, "quota");
                let at = AttributePath::attr("teams").key(team).push_attr("quota");
                crate::resources::quota_share::validate_entries(entries, &at, diagnostics);
            }
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        let mut planned = change.planned.clone();
        let result = self.evaluate(client, &mut planned).await;
        if crate::resources::checklist::judged(change, client.strict, result)?.is_some() {
            change.set_planned(planned);
        }
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        self.record(client, planned).await
    }

    async fn read(
        &self,
        _: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        // The record lives in state; the next plan reads the cluster again.
        Ok(Some(current.clone()))
    }

    async fn update(&self, client: &HyperpodClient, _: &Value, planned: &Value, _: &OperationContext) -> Applied {
        self.record(client, planned).await
    }

    async fn delete(&self, _: &HyperpodClient, _: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        Ok(())
    }

    async fn import(&self, _: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let name = match target {
            ImportTarget::Id(id) => id,
            ImportTarget::Identity(identity) => string(&identity, "cluster_name").unwrap_or_default(),
        };
        if name.trim().is_empty() {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Missing import ID",
                format!("Import {TYPE_NAME} by the cluster's name."),
            ));
        }
        // Only configuration and state hold an allocation: import records the cluster, the next apply the teams.
        let mut state = self.schema.block.null_value();
        set_attr(&mut state, "id", text(&name));
        set_attr(&mut state, "cluster_name", text(&name));
        set_attr(&mut state, "teams", Value::Map(std::collections::BTreeMap::default()));
        set_attr(
            &mut state,
            "governance",
            object([
                ("cluster_name", text(&name)),
                ("teams", Value::Map(std::collections::BTreeMap::default())),
            ]),
        );
        Ok(state)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        Some(object([("cluster_name", text(string(state, "cluster_name")?))]))
    }
}

impl ClusterAllocationResource {
    /// Apply records the planned value; what was unknown at plan (a cluster name from a resource created in the same
    /// apply) is evaluated now.
    async fn record(&self, client: &HyperpodClient, planned: &Value) -> Applied {
        if planned.is_wholly_known() {
            return Applied::ok(planned.clone());
        }
        let mut value = planned.clone();
        match self.evaluate(client, &mut value).await {
            Ok(()) => Applied::ok(unknowns_to_null(value)),
            Err(errors) => Applied::failed(None, errors),
        }
    }
}
