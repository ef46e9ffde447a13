//! `hyperpod_scheduling_policy`: a HyperPod cluster's scheduler config (SageMaker
//! `Create/Describe/Update/Delete/ListClusterSchedulerConfig(s)`).

mod model;
mod ownership;
mod schema;

pub use model::governance_type;

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use crate::aws::ErrorCode;
use crate::aws::ids::Arn;
use crate::aws::sagemaker::{
    self as sm, ClusterOrchestrator, find_scheduler_config, find_scheduler_config_for_cluster,
};
use crate::aws::{AwsError, api_error, target_version};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::findings::ToDiagnostics;
use crate::governance::Report;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{elements, string, string_map, text, text_map, timeout, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::state_upgrade::StateUpgrader;
use crate::protocol::value::Value;
use crate::resources::cluster_facts::task_governance;
use model::{PolicySpec, flatten, merge_tags};
use ownership::{OWNER_TAG, is_ours, with_owner, without_owner};

pub const TYPE_NAME: &str = "hyperpod_scheduling_policy";
const DEFAULT_TIMEOUT: Duration = Duration::from_mins(10);
/// Concurrent writers (the console, another pipeline) bump the version; re-read and retry this many times.
const UPDATE_ATTEMPTS: usize = 3;

pub struct SchedulingPolicyResource {
    schema: Schema,
    identity: IdentitySchema,
    /// Scheduler configs this provider process has seen in Terraform's state (refreshed or planned). A replacement
    /// (tainted object, forced new name) is planned as a create with no prior state; this is how its plan tells the
    /// config being replaced from a foreign one that would block the create.
    managed_ids: Mutex<HashSet<String>>,
}

impl Default for SchedulingPolicyResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
            managed_ids: Mutex::new(HashSet::new()),
        }
    }
}

/// SageMaker's ID of the scheduler config a state describes.
fn scheduler_config_id(state: &Value) -> Option<String> {
    string(state, "scheduler_config_id")
}

fn cluster_path() -> AttributePath {
    AttributePath::attr("cluster_name")
}

/// The refusal of a cluster's scheduler config that is not provably this resource's own, with its import ID.
fn foreign_policy(cluster_name: &str, existing: &str) -> Diagnostic {
    Diagnostic::error(
        cluster_path(),
        "Cluster already has a scheduling policy",
        format!(
            "HyperPod cluster {cluster_name:?} already has scheduler config {existing}, which this resource did not \
             create (it lacks the `{OWNER_TAG}` tag naming this cluster); a cluster has exactly one. Fix: import it \
             (`terraform import {TYPE_NAME}.<name> {cluster_name}` or an `import` block with \
             `identity = {{ cluster_name = \"{cluster_name}\" }}`) instead of creating another."
        ),
    )
}

/// The default scheduler config name for a cluster: `<cluster>-policy`, shortened to fit 63 characters.
fn default_name(cluster_name: &str) -> String {
    let stem: String = cluster_name.chars().take(63 - "-policy".len()).collect();
    format!("{}-policy", stem.trim_end_matches('-'))
}

impl SchedulingPolicyResource {
    /// Finds the cluster and refuses Slurm clusters: task governance exists only for EKS-orchestrated clusters.
    async fn governed_cluster(
        &self,
        client: &HyperpodClient,
        cluster_name: &str,
    ) -> Result<sm::HyperPodCluster, Diagnostics> {
        let cluster = crate::resources::cluster_facts::cluster_named(client, cluster_name, cluster_path()).await?;
        if cluster.orchestrator == ClusterOrchestrator::Slurm {
            return Err(Diagnostic::invalid_value(
                cluster_path(),
                format!("{cluster_name:?} (orchestrator: slurm)"),
                "scheduling policies (HyperPod task governance) exist only for EKS-orchestrated clusters",
                "use Slurm's QoS, priority and fair-share on this cluster (hyperpod_tenant with a Slurm contract), \
                 or choose an EKS-orchestrated cluster",
            )
            .into());
        }
        // CLU-10: a scheduler config needs the task-governance add-on. Judged wherever the cluster is resolved: at
        // plan, or at apply before the create when the cluster's name was unknown at plan.
        if let Some(check) = task_governance(client, &cluster, cluster_path()).await {
            let diagnostics = Report::from_iter([check]).diagnostics(client.strict);
            if diagnostics.has_errors() {
                return Err(diagnostics);
            }
        }
        Ok(cluster)
    }

    fn partial_state(planned: &Value, id: &str, arn: &str) -> Value {
        let mut state = planned.clone();
        set_attr(&mut state, "scheduler_config_id", text(id));
        set_attr(&mut state, "arn", text(arn));
        unknowns_to_null(state)
    }

    /// Reads the policy back after a write and builds the new state.
    async fn refreshed_state(
        &self,
        client: &HyperpodClient,
        record: sm::SchedulerConfig,
        planned: &Value,
    ) -> Result<Value, AwsError> {
        let tags = without_owner(sm::list_tags(&client.sagemaker, &record.arn).await?);
        let cluster_name = string(planned, "cluster_name").unwrap_or_default();
        Ok(flatten(&record, &cluster_name, &tags, &client.default_tags, planned))
    }

    /// The cluster's live scheduler config, if it has one, and whether its ownership tag proves it this resource's.
    async fn existing_config(
        &self,
        client: &HyperpodClient,
        cluster_arn: &str,
        cluster_name: &str,
    ) -> Result<Option<(String, bool)>, AwsError> {
        let Some(id) = find_scheduler_config_for_cluster(&client.sagemaker, cluster_arn).await? else {
            return Ok(None);
        };
        let arn = find_scheduler_config(&client.sagemaker, &id).await?.arn;
        let tags = sm::list_tags(&client.sagemaker, &arn).await?;
        Ok(Some((id, is_ours(&tags, cluster_name))))
    }

    /// Brings an adopted config (one an interrupted create left) to the plan: its settings, then its tags.
    async fn converge_adopted(
        &self,
        client: &HyperpodClient,
        record: sm::SchedulerConfig,
        planned: &Value,
        cluster_name: &str,
        wait: Duration,
        context: &OperationContext,
    ) -> Result<sm::SchedulerConfig, AwsError> {
        let wanted = PolicySpec::from_value(planned);
        let mut record = record;
        if !wanted.is_satisfied_by(&PolicySpec::from_record(&record)) {
            self.update_policy(client, &record.id, &wanted, wait, context).await?;
            record = sm::wait_scheduler_config_ready(&client.sagemaker, &record.id, wait, &context.stop).await?;
        }
        let live_tags = sm::list_tags(&client.sagemaker, &record.arn).await?;
        let wanted_tags = with_owner(&string_map(planned, "tags_all"), cluster_name);
        if live_tags != wanted_tags {
            sm::update_tags(&client.sagemaker, &record.arn, &live_tags, &wanted_tags).await?;
        }
        Ok(record)
    }

    /// Create's path for a config an interrupted create of this resource left: wait for it, converge it, record it.
    /// A config that ended `CreateFailed` is recorded (tainted) like a fresh create that failed, and replaced next.
    async fn adopt(
        &self,
        client: &HyperpodClient,
        id: &str,
        planned: &Value,
        cluster_name: &str,
        wait: Duration,
        context: &OperationContext,
    ) -> Applied {
        tracing::info!(
            id,
            cluster_name,
            "adopting the scheduler config an interrupted create left"
        );
        let record = match find_scheduler_config(&client.sagemaker, id).await {
            Ok(record) => record,
            Err(err) => {
                return err
                    .diagnostics(AttributePath::root(), "Reading the scheduling policy failed")
                    .into();
            }
        };
        let partial = Self::partial_state(planned, &record.id, &record.arn);
        let result = async {
            let record = sm::wait_scheduler_config_ready(&client.sagemaker, id, wait, &context.stop).await?;
            self.converge_adopted(client, record, planned, cluster_name, wait, context)
                .await
        }
        .await;
        let record = match result {
            Ok(record) => record,
            Err(err) => {
                let summary = "The scheduling policy left by an interrupted create could not be adopted";
                return Applied::failed(Some(partial), err.diagnostics(AttributePath::root(), summary));
            }
        };
        match self.refreshed_state(client, record, planned).await {
            Ok(state) => Applied::ok(state),
            Err(err) => Applied::failed(
                Some(partial),
                err.diagnostics(AttributePath::root(), "Reading tags failed"),
            ),
        }
    }

    fn remember(&self, id: &str) {
        if let Ok(mut ids) = self.managed_ids.lock() {
            ids.insert(id.to_string());
        }
    }

    fn is_managed(&self, id: &str) -> bool {
        self.managed_ids.lock().is_ok_and(|ids| ids.contains(id))
    }

    async fn update_policy(
        &self,
        client: &HyperpodClient,
        id: &str,
        spec: &PolicySpec,
        wait: Duration,
        context: &OperationContext,
    ) -> Result<(), AwsError> {
        // A conflict on an unchanged version is the other `TargetVersion` reading (`aws::target_version`): retried at
        // once with it, from the version just re-read.
        let mut reread = None;
        for attempt in 1..=UPDATE_ATTEMPTS {
            let mut current = match reread.take() {
                Some(current) => current,
                None => find_scheduler_config(&client.sagemaker, id).await?,
            };
            if matches!(current.status.as_str(), "Creating" | "Updating") {
                // SageMaker refuses updates while another change is in flight; let it settle first. A settle that
                // ends in a failed state is fine: the update below is what repairs it.
                current = match sm::wait_scheduler_config_ready(&client.sagemaker, id, wait, &context.stop).await {
                    Ok(settled) => settled,
                    Err(_) => find_scheduler_config(&client.sagemaker, id).await?,
                };
            }
            let reading = target_version::LEARNED.reading();
            let result = client
                .sagemaker
                .update_cluster_scheduler_config()
                .cluster_scheduler_config_id(id)
                .target_version(reading.target(current.version))
                .scheduler_config(spec.to_sdk())
                .description(spec.update_description())
                .send()
                .await
                .map_err(|err| api_error("UpdateClusterSchedulerConfig", err));
            match result {
                Ok(_) => return Ok(()),
                Err(err) if err.is(ErrorCode::ConflictException) && attempt < UPDATE_ATTEMPTS => {
                    let now = find_scheduler_config(&client.sagemaker, id).await?;
                    let (version, status) = (now.version, now.status.as_str());
                    target_version::after_conflict(
                        "scheduler config",
                        id,
                        reading,
                        current.version,
                        version,
                        status,
                        attempt,
                    )
                    .await;
                    reread = Some(now);
                }
                Err(err) => return Err(err),
            }
        }
        unreachable!("the last attempt returns")
    }
}

#[async_trait]
impl Resource<HyperpodClient> for SchedulingPolicyResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn state_upgraders(&self) -> &[StateUpgrader] {
        &schema::STATE_UPGRADERS
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        let mut seen = HashSet::new();
        for (index, class) in elements(config, "priority_class").iter().enumerate() {
            // A null name or weight is the schema walk's "Missing required argument", reported once there.
            if let Some(name) = string(class, "name")
                && !seen.insert(name.clone())
            {
                diagnostics.push(Diagnostic::invalid_value(
                    AttributePath::attr("priority_class").index(index).push_attr("name"),
                    format!("{name:?}"),
                    "another priority_class already has this name",
                    "give every priority class a distinct name",
                ));
            }
        }
        if let Some(Value::Map(tags)) = config.get_attr("tags")
            && tags.contains_key(OWNER_TAG)
        {
            diagnostics.push(Diagnostic::invalid_value(
                AttributePath::attr("tags").key(OWNER_TAG),
                format!("{OWNER_TAG:?}"),
                "the provider writes this tag itself to recognise the configs it created",
                "use another tag key",
            ));
        }
    }

    /// The tenants' checks see the cluster's scheduler config as it now is.
    fn after_apply(&self, client: &HyperpodClient, _states: [&Value; 3]) {
        client.reads.forget_scheduler_configs();
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        if let Some(id) = change.prior.as_ref().and_then(scheduler_config_id) {
            self.remember(&id);
        }
        let cluster_name = string(&change.planned, "cluster_name");
        if let Some(cluster_name) = &cluster_name {
            change.set("id", text(cluster_name));
        }
        if let Some(cluster_name) = &cluster_name
            && change.config_attr("name").is_null()
        {
            change.set("name", text(default_name(cluster_name)));
        }
        // tags_all is known at plan time, so reviewers see exactly which tags apply; a tag value unknown at plan
        // leaves it unknown.
        if change.planned_attr("tags").is_wholly_known() {
            let all = merge_tags(&client.default_tags, &string_map(&change.planned, "tags"));
            if all.len() >= schema::MAX_TAGS {
                return Err(Diagnostic::invalid_value(
                    AttributePath::attr("tags"),
                    format!("{} tags with the provider's default_tags", all.len()),
                    &format!(
                        "SageMaker allows {} tags on a scheduler config, and the provider adds its ownership tag",
                        schema::MAX_TAGS
                    ),
                    &format!("use at most {} tags, default_tags included", schema::MAX_TAGS - 1),
                )
                .into());
            }
            change.set("tags_all", text_map(&all));
        }
        // The last write ended `UpdateFailed` (or another *Failed): it is not in effect, so plan it again.
        if let Some(Value::String(status)) = change.prior_attr("status")
            && sm::SchedulerConfig::write_failed(status)
        {
            change.set("status", Value::Unknown);
            change.set("status_details", Value::Unknown);
            change.set("version", Value::Unknown);
        }
        let facts = model::governance_value(&change.planned);
        change.set("governance", facts);
        let Some(cluster_name) = cluster_name else {
            return Ok(()); // Unknown until another resource is applied; checked at apply.
        };
        let cluster_changed = change.prior_attr("cluster_name") != Some(change.planned_attr("cluster_name"));
        if !cluster_changed {
            return Ok(());
        }
        let cluster = self.governed_cluster(client, &cluster_name).await?;
        change.set("cluster_arn", text(&cluster.arn));
        // A cluster has one scheduler config: creating a second fails at apply, so say so now. One this resource
        // created in an apply that was interrupted before recording it is adopted at apply instead.
        if let Some((existing, ours)) = self
            .existing_config(client, &cluster.arn, &cluster_name)
            .await
            .map_err(|err| err.diagnostics(cluster_path(), "Cannot read the cluster's scheduler config"))?
            && !ours
            && !self.is_managed(&existing)
        {
            return Err(foreign_policy(&cluster_name, &existing).into());
        }
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
        let cluster_name = string(planned, "cluster_name").unwrap_or_default();
        // The plan already resolved and checked the cluster; look it up only when its name was unknown then.
        let cluster_arn = match string(planned, "cluster_arn") {
            Some(arn) => arn,
            None => match self.governed_cluster(client, &cluster_name).await {
                Ok(cluster) => cluster.arn,
                Err(diagnostics) => return diagnostics.into(),
            },
        };
        let spec = PolicySpec::from_value(planned);
        let name = string(planned, "name").unwrap_or_else(|| default_name(&cluster_name));
        let wait = timeout(planned, "create", DEFAULT_TIMEOUT);
        // An earlier create of this resource that was interrupted after SageMaker accepted it left a config with
        // our ownership tag: adopt it. Any other config on the cluster is refused (the plan may not have seen it:
        // the cluster's name was unknown then, or the config appeared since).
        match self.existing_config(client, &cluster_arn, &cluster_name).await {
            Ok(None) => {}
            Ok(Some((existing, true))) => {
                return self
                    .adopt(client, &existing, planned, &cluster_name, wait, context)
                    .await;
            }
            Ok(Some((existing, false))) => return Diagnostics::from(foreign_policy(&cluster_name, &existing)).into(),
            Err(err) => {
                return err
                    .diagnostics(cluster_path(), "Cannot read the cluster's scheduler config")
                    .into();
            }
        }
        let tags: Vec<_> = with_owner(&string_map(planned, "tags_all"), &cluster_name)
            .iter()
            .map(|(k, v)| sm::to_sdk_tag(k, v))
            .collect();
        let created = client
            .sagemaker
            .create_cluster_scheduler_config()
            .name(&name)
            .cluster_arn(&cluster_arn)
            .scheduler_config(spec.to_sdk())
            .set_description(spec.description.clone())
            .set_tags((!tags.is_empty()).then_some(tags))
            .send()
            .await
            .map_err(|err| api_error("CreateClusterSchedulerConfig", err));
        let created = match created {
            Ok(created) => created,
            Err(err) => {
                return err
                    .diagnostics(AttributePath::root(), "Creating the scheduling policy failed")
                    .into();
            }
        };
        let id = created.cluster_scheduler_config_id().unwrap_or_default().to_string();
        let arn = created.cluster_scheduler_config_arn().unwrap_or_default().to_string();
        // From here on the object exists: failures return its id so Terraform taints it instead of forgetting it.
        let partial = || Self::partial_state(planned, &id, &arn);
        let record = match sm::wait_scheduler_config_ready(&client.sagemaker, &id, wait, &context.stop).await {
            Ok(record) => record,
            Err(err) => {
                return Applied::failed(
                    Some(partial()),
                    err.diagnostics(AttributePath::root(), "The scheduling policy did not become ready"),
                );
            }
        };
        match self.refreshed_state(client, record, planned).await {
            Ok(state) => Applied::ok(state),
            Err(err) => Applied::failed(
                Some(partial()),
                err.diagnostics(AttributePath::root(), "Reading tags failed"),
            ),
        }
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        let id = scheduler_config_id(current).unwrap_or_default();
        self.remember(&id);
        let record = match find_scheduler_config(&client.sagemaker, &id).await {
            Ok(record) => record,
            Err(err) if err.is_not_found() => return Ok(None),
            Err(err) => {
                return Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy failed"));
            }
        };
        let mut prior = current.clone();
        if string(current, "cluster_name").is_none() {
            // Imported by ARN or id: name the cluster from its ARN via SageMaker.
            let cluster = client
                .cluster(&record.cluster_arn)
                .await
                .map_err(|err| err.diagnostics(cluster_path(), "Reading the policy's cluster failed"))?;
            set_attr(&mut prior, "cluster_name", text(cluster.name));
        }
        match self.refreshed_state(client, record, &prior).await {
            Ok(state) => Ok(Some(state)),
            Err(err) if crate::aws::is_not_found_error(&err) => Ok(None),
            Err(err) => Err(err.diagnostics(AttributePath::root(), "Reading the scheduling policy's tags failed")),
        }
    }

    async fn update(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        planned: &Value,
        context: &OperationContext,
    ) -> Applied {
        let id = scheduler_config_id(prior).unwrap_or_default();
        let arn = string(prior, "arn").unwrap_or_default();
        let wanted = PolicySpec::from_value(planned);
        // A write that ended `*Failed` is not in effect even though SageMaker reports its settings: write it again.
        let last_write_failed =
            string(prior, "status").is_some_and(|status| sm::SchedulerConfig::write_failed(&status));
        if wanted != PolicySpec::from_value(prior) || last_write_failed {
            let wait = timeout(planned, "update", DEFAULT_TIMEOUT);
            if let Err(err) = self.update_policy(client, &id, &wanted, wait, context).await {
                let summary = "Updating the scheduling policy failed";
                return Applied::failed(Some(prior.clone()), err.diagnostics(AttributePath::root(), summary));
            }
            if let Err(err) = sm::wait_scheduler_config_ready(&client.sagemaker, &id, wait, &context.stop).await {
                // Record what SageMaker now reports (e.g. `UpdateFailed` and the new version), so the next plan
                // proposes the update again even without a refresh; the prior state if it cannot be read.
                let summary = "The scheduling policy update did not complete";
                let state = match find_scheduler_config(&client.sagemaker, &id).await {
                    Ok(record) => self.refreshed_state(client, record, prior).await.ok(),
                    Err(_) => None,
                };
                return Applied::failed(
                    Some(state.unwrap_or_else(|| prior.clone())),
                    err.diagnostics(AttributePath::root(), summary),
                );
            }
        }
        let wanted_tags = string_map(planned, "tags_all");
        let prior_tags: BTreeMap<_, _> = string_map(prior, "tags_all");
        if wanted_tags != prior_tags
            && let Err(err) = sm::update_tags(&client.sagemaker, &arn, &prior_tags, &wanted_tags).await
        {
            return Applied::failed(
                Some(prior.clone()),
                err.diagnostics(AttributePath::attr("tags"), "Updating tags failed"),
            );
        }
        let result = async {
            let record = find_scheduler_config(&client.sagemaker, &id).await?;
            self.refreshed_state(client, record, planned).await
        }
        .await;
        match result {
            Ok(state) => Applied::ok(state),
            Err(err) => Applied::failed(
                Some(prior.clone()),
                err.diagnostics(AttributePath::root(), "Reading the updated policy failed"),
            ),
        }
    }

    async fn delete(
        &self,
        client: &HyperpodClient,
        prior: &Value,
        context: &OperationContext,
    ) -> Result<(), Diagnostics> {
        let id = scheduler_config_id(prior).unwrap_or_default();
        let deleted = client
            .sagemaker
            .delete_cluster_scheduler_config()
            .cluster_scheduler_config_id(&id)
            .send()
            .await
            .map_err(|err| api_error("DeleteClusterSchedulerConfig", err));
        match deleted {
            Ok(_) => {}
            Err(err) if crate::aws::is_not_found_error(&err) => return Ok(()),
            Err(err) => {
                return Err(err.diagnostics(AttributePath::root(), "Deleting the scheduling policy failed"));
            }
        }
        let wait = timeout(prior, "delete", DEFAULT_TIMEOUT);
        sm::wait_scheduler_config_deleted(&client.sagemaker, &id, wait, &context.stop)
            .await
            .map_err(|err| err.diagnostics(AttributePath::root(), "The scheduling policy was not deleted"))
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let cluster_ref = match &target {
            ImportTarget::Id(id) => id.trim().to_string(),
            ImportTarget::Identity(identity) => {
                for (attribute, expected) in [
                    ("account_id", client.account_id.as_str()),
                    ("region", client.region.as_str()),
                ] {
                    if let Some(given) = string(identity, attribute)
                        && given != expected
                    {
                        return Err(Diagnostic::invalid_value(
                            AttributePath::attr(attribute),
                            format!("{given:?}"),
                            &format!("the provider is configured for {attribute} {expected:?}"),
                            "import with a provider configuration for that account and region",
                        )
                        .into());
                    }
                }
                string(identity, "cluster_name").unwrap_or_default()
            }
        };
        if cluster_ref.is_empty() {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Missing import ID",
                format!("Import {TYPE_NAME} by the HyperPod cluster's name or ARN, e.g. `ml-capacity`."),
            ));
        }
        let cluster = client.cluster(&cluster_ref).await.map_err(|err| {
            let detail = if err.is_not_found() {
                format!(
                    "No HyperPod cluster {cluster_ref:?} exists in account {} region {}.",
                    client.account_id,
                    client.region.as_str()
                )
            } else {
                err.to_string()
            };
            Diagnostics::error(AttributePath::root(), "Cannot import the scheduling policy", detail)
        })?;
        let id = find_scheduler_config_for_cluster(&client.sagemaker, &cluster.arn)
            .await
            .map_err(|err| err.diagnostics(AttributePath::root(), "Cannot list the cluster's scheduler configs"))?
            .ok_or_else(|| {
                Diagnostics::error(
                    AttributePath::root(),
                    "Nothing to import",
                    format!(
                        "HyperPod cluster {:?} has no scheduling policy (cluster scheduler config).",
                        cluster.name
                    ),
                )
            })?;
        // Read fills in the rest; every attribute must be present, so start from nulls.
        let mut state = self.schema.block.null_value();
        set_attr(&mut state, "priority_class", Value::List(Vec::new()));
        set_attr(&mut state, "id", text(&cluster.name));
        set_attr(&mut state, "scheduler_config_id", text(id));
        set_attr(&mut state, "cluster_name", text(&cluster.name));
        set_attr(&mut state, "cluster_arn", text(&cluster.arn));
        Ok(state)
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        let cluster_name = string(state, "cluster_name")?;
        let cluster_arn = Arn::parse(&string(state, "cluster_arn")?).ok()?;
        Some(schema::identity(
            &cluster_name,
            &cluster_arn.account,
            &cluster_arn.region,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::object;

    #[test]
    fn default_names_fit_the_entity_name_pattern() {
        let pattern = crate::protocol::validators::Matches::new(crate::names::ENTITY_NAME, "");
        assert_eq!(default_name("ml-capacity"), "ml-capacity-policy");
        let long = "a".repeat(63);
        assert!(pattern.is_match(&default_name(&long)), "{}", default_name(&long));
        let hyphen_at_cut = format!("{}-b", "a".repeat(55));
        assert!(pattern.is_match(&default_name(&hyphen_at_cut)));
    }

    #[test]
    fn duplicate_priority_class_names_are_refused_with_their_path() {
        let resource = SchedulingPolicyResource::default();
        let class = |name: &str| object([("name", text(name)), ("weight", crate::protocol::object::int(1))]);
        let config = object([("priority_class", Value::List(vec![class("a"), class("b"), class("a")]))]);
        let mut diagnostics = Diagnostics::new();
        resource.validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path.to_string(), "priority_class[2].name");
    }

    #[test]
    fn the_ownership_tag_key_is_reserved() {
        let resource = SchedulingPolicyResource::default();
        let config = object([("tags", text_map(&[(OWNER_TAG.to_string(), "x".to_string())].into()))]);
        let mut diagnostics = Diagnostics::new();
        resource.validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert!(diagnostics.0[0].path.to_string().starts_with("tags"));
    }

    #[test]
    fn descriptions_with_control_or_format_characters_are_refused() {
        use crate::protocol::schema::Validator;
        let check = |text: &str| {
            let mut diagnostics = Diagnostics::new();
            schema::PrintableText.validate(
                &AttributePath::attr("description"),
                &Value::String(text.into()),
                &mut diagnostics,
            );
            diagnostics.0.first().map(|d| d.detail.clone())
        };
        assert_eq!(check("Équipe ML — priorité 🚀 (50%)"), None);
        assert!(check("two\nlines").is_some_and(|d| d.contains("U+000A at character 4")));
        assert!(check("tab\t").is_some());
        assert!(check("zero\u{200B}width").is_some_and(|d| d.contains("U+200B")));
        assert!(check("private\u{E000}").is_some());
        assert!(check("\u{FFFF}").is_some());
    }

    #[test]
    fn version_0_state_keeps_the_config_id_and_takes_the_cluster_name_as_id() {
        let resource = SchedulingPolicyResource::default();
        let version_0 = br#"{"id":"abcdef123456","cluster_name":"ml-capacity","version":3,
            "priority_class":[{"name":"production","weight":90}],"tags":{"team":"ml"}}"#;
        let state = resource.upgrade_state(0, version_0).expect("version 0 upgrades");
        assert_eq!(string(&state, "id").as_deref(), Some("ml-capacity"));
        assert_eq!(string(&state, "scheduler_config_id").as_deref(), Some("abcdef123456"));
        assert_eq!(crate::protocol::object::integer(&state, "version"), Some(3));
        assert_eq!(
            state.get_attr("arn"),
            Some(&Value::Null),
            "absent attributes decode as null"
        );

        let version_1 = br#"{"id":"ml-capacity","scheduler_config_id":"abcdef123456","cluster_name":"ml-capacity"}"#;
        let current = resource
            .upgrade_state(1, version_1)
            .expect("the current version decodes as it is");
        assert_eq!(string(&current, "scheduler_config_id").as_deref(), Some("abcdef123456"));

        let newer = resource
            .upgrade_state(7, version_1)
            .expect_err("newer versions are refused");
        assert!(newer.0[0].detail.contains("schema version 7"));
        let broken = resource
            .upgrade_state(0, br#"{"id":"abcdef123456"}"#)
            .expect_err("version 0 state always had a cluster name");
        assert!(
            broken.0[0].detail.contains("`cluster_name` is None"),
            "{}",
            broken.0[0].detail
        );
    }

    #[test]
    fn schema_declares_every_attribute_with_a_description() {
        let schema = schema::schema();
        for attribute in &schema.block.attributes {
            assert!(
                !attribute.description.is_empty(),
                "{} has no description",
                attribute.name
            );
        }
        assert_eq!(schema.block.blocks[0].max_items, 10);
    }
}
