//! `hyperpod_task_view_restriction`: what a Unified Studio project's users see of a shared cluster.
//!
//! - `schema.rs`; `model.rs` (pure: the wanted access policies, RBAC objects, Slurm tag and their `components` keys);
//! - this file: plan (CLU-9, CLU-3, CLU-4, CLU-5, CLU-7, CLU-8, LIF-3 through `governance::check_restriction`), the
//!   `governance` value bindings reference (CLU-2 is judged there), and the CRUD plumbing;
//! - `apply.rs` (apply and destroy), `refresh.rs` (read).

mod apply;
mod list;
mod model;
mod order;
mod refresh;
mod schema;

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::aws::ssm;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::findings::ToDiagnostics;
use crate::governance::cluster_slurm::SessionPreferences;
use crate::governance::{
    AccessEntry, Contract, Fact, Orchestrator, RestrictionFacts, TaskViewRestriction, check_restriction,
};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, string_map, text, text_list, text_map, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use crate::resources::checklist::{self, today};
use crate::resources::cluster_facts::{self as live, ClusterFacts};
use crate::resources::connection_contract::contract_from_governance;
use crate::resources::kubernetes_reads::kube_client;
use apply::Applier;
use model::{GROUP_MAX, PROBES_PREFIX, RestrictionConfig, RestrictionMode, components, private_data_conf};
use schema::kubernetes_group;

pub use schema::TYPE_NAME;

pub use list::RestrictionList;

/// The schema's block, for tests that check what the engine's paths name.
#[cfg(test)]
pub(crate) fn schema_block() -> crate::protocol::schema::Block {
    schema::schema().block
}

// What the governance evidence reads of a restriction's `components`.
pub use model::{ENTRY, component_path, component_policy_arn};
const DERIVED: [&str; 10] = [
    "id",
    "governance",
    "cluster_name",
    "cluster_arn",
    "orchestrator",
    "project_role_arn",
    "namespaces",
    "kubernetes_group",
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

fn inputs(value: &Value) -> Option<(Contract, RestrictionConfig)> {
    let contract = contract_from_governance(value.get_attr("contract")?)?;
    let spec = RestrictionConfig::from_value(value, contract.project_role_arn.clone(), &contract.eks_namespaces)?;
    Some((contract, spec))
}

/// WKL-12 on the restriction: the HyperPod space policies it grants (access-policy mode; the RBAC mode's Roles grant
/// no Workspaces), at the attribute that grants them.
fn spaces_check(spec: &RestrictionConfig, contract: &Contract) -> crate::governance::Check {
    let mut granted: Vec<String> = Vec::new();
    let mut at = AttributePath::attr("access_policies");
    if spec.mode == RestrictionMode::AccessPolicy {
        granted.extend(
            spec.access_policies
                .iter()
                .filter(|p| *p == schema::SPACE_POLICY)
                .cloned(),
        );
        if spec.space_templates {
            if granted.is_empty() {
                at = AttributePath::attr("space_templates");
            }
            granted.push(model::SPACE_TEMPLATE_POLICY.to_string());
        }
    }
    crate::governance::spaces::wkl_12_studio_access(&granted, contract, at)
}

/// Arguments that decide only what is written, never a rule's verdict: while one is unknown the rules are still
/// judged at plan, and only what it decides (associations, manifests, `components`) is planned unknown.
const GRANTS: [&str; 3] = ["mode", "access_policies", "space_templates"];

fn grants_known(value: &Value) -> bool {
    GRANTS
        .iter()
        .all(|name| value.get_attr(name).is_none_or(Value::is_wholly_known))
}

/// The inputs not known until apply, as the deferred warning names them.
fn unknown_inputs(value: &Value) -> Vec<String> {
    let mut out: Vec<String> = match value.get_attr("contract") {
        Some(Value::Object(fields)) => fields
            .iter()
            .filter(|(_, field)| !field.is_wholly_known())
            .map(|(name, _)| format!("contract.{name}"))
            .collect(),
        Some(contract) if !contract.is_wholly_known() => vec!["contract".to_string()],
        _ => Vec::new(),
    };
    for name in ["project_role_arn", "namespaces", "kubernetes_group", "slurm"] {
        if value.get_attr(name).is_some_and(|field| !field.is_wholly_known()) {
            out.push(name.to_string());
        }
    }
    out
}

/// The contract facts a restriction cannot do without: `contract_from_governance` gives up without them.
const CONTRACT_FACTS: [&str; 6] = [
    "contract",
    "cluster_account_id",
    "cluster_region",
    "cluster_name",
    "orchestrator",
    "lifecycle_state",
];

/// A `contract` object that is known but lacks what a contract's `governance` always has (a hand-built or
/// `merge`d object with a null fact): an error at `contract` at plan, never a deferral to an apply that cannot
/// proceed either.
fn incomplete_contract(value: &Value) -> Option<Diagnostic> {
    let contract = value
        .get_attr("contract")
        .filter(|c| c.is_wholly_known() && !c.is_null())?;
    let null = |name: &str| contract.get_attr(name).is_none_or(Value::is_null);
    let mut missing: Vec<&str> = CONTRACT_FACTS.iter().copied().filter(|name| null(name)).collect();
    let unset = |name: &str| value.get_attr(name).is_none_or(Value::is_null);
    if unset("project_role_arn") && null("project_role_arn") {
        missing.push("project_role_arn");
    }
    let eks = contract.get_attr("orchestrator") == Some(&text("eks"));
    if eks && unset("namespaces") && null("eks_namespaces") {
        missing.push("eks_namespaces");
    }
    if missing.is_empty() {
        if contract_from_governance(contract).is_some() {
            return None;
        }
        return Some(Diagnostic::invalid_value(
            AttributePath::attr("contract"),
            "an object that is not a contract's governance",
            "the restriction cannot read the contract's facts from it",
            "pass `hyperpod_connection_contract.<name>.governance`",
        ));
    }
    Some(Diagnostic::invalid_value(
        AttributePath::attr("contract"),
        format!("an object with {} null", missing.join(", ")),
        "the contract object lacks facts a connection contract's `governance` always has",
        "pass `hyperpod_connection_contract.<name>.governance` as it is (the restriction's own `project_role_arn` \
         and `namespaces` override the contract's)",
    ))
}

/// The project role's current access entry, as the plan sees it: `None` when it has none.
fn entry_exists(facts: &ClusterFacts, principal: &str) -> Option<bool> {
    facts
        .access_entries
        .known()
        .map(|entries: &Vec<AccessEntry>| entries.iter().any(|e| e.principal_arn == principal))
}

/// Whether the access entry is adopted (someone else's: destroy leaves it), as apply will decide it; `None` when
/// the plan cannot tell (an unreadable entry). Ours: recorded in state, absent (apply creates it), or, on create,
/// carrying this restriction's ownership tag (made by an earlier apply that was killed or failed before its state
/// was saved). An entry of an existing restriction that is not recorded stays adopted (an import counts as adopted).
async fn entry_adopted(
    client: &HyperpodClient,
    facts: &ClusterFacts,
    eks_cluster: &str,
    principal: &str,
    owner: &str,
    prior: Option<&Value>,
) -> Option<bool> {
    if prior.is_some_and(|p| string_map(p, "components").contains_key(ENTRY)) {
        return Some(false);
    }
    if !entry_exists(facts, principal)? {
        return Some(false);
    }
    if prior.is_some() {
        return Some(true);
    }
    let entry = client.access_entry(eks_cluster, principal).await.ok()?;
    Some(entry.tags.get(model::OWNER_TAG).map(String::as_str) != Some(owner))
}

/// The group the access entry maps the role to must fit the probe ClusterRole's name; the default one (from the
/// role's name) is checked here too, at the role, since it is derived from it.
fn group_problem(group: &str) -> Option<String> {
    if group.len() > GROUP_MAX {
        return Some(format!(
            "{} characters: the ClusterRole `{PROBES_PREFIX}<group>` would exceed Kubernetes' 253",
            group.len()
        ));
    }
    (!kubernetes_group().is_match(group)).then(|| format!("{group:?} is not a valid Kubernetes name"))
}

impl TaskViewRestrictionResource {
    /// Judges the restriction and fills the derived attributes of `value`; errors fail the plan.
    async fn derive(
        &self,
        client: &HyperpodClient,
        value: &mut Value,
        prior: Option<&Value>,
    ) -> Result<Diagnostics, Diagnostics> {
        if let Some(problem) = incomplete_contract(value) {
            return Err(problem.into());
        }
        let grants_known = grants_known(value);
        let mode_known = value.get_attr("mode").is_none_or(Value::is_wholly_known);
        let mut judged = value.clone();
        for name in GRANTS {
            // Judged without them: no rule reads them; what they decide is planned unknown below.
            if value.get_attr(name).is_some_and(|field| !field.is_wholly_known()) {
                set_attr(&mut judged, name, Value::Null);
            }
        }
        let Some((contract, spec)) = inputs(&judged) else {
            for name in DERIVED {
                // Unknown, except the arguments the user set (known or not, they stay as written).
                let own = ["project_role_arn", "namespaces", "kubernetes_group"].contains(&name);
                if !own || value.get_attr(name).is_none_or(Value::is_null) {
                    set_attr(value, name, Value::Unknown);
                }
            }
            checklist::set_unknown(value);
            let facts = crate::resources::references::restriction_value(value);
            set_attr(value, "governance", facts);
            let unknown = unknown_inputs(value);
            let what = if unknown.is_empty() {
                "the restriction's inputs are not known until apply".to_string()
            } else {
                format!(
                    "{} not known until apply",
                    unknown.join(", ") + if unknown.len() == 1 { " is" } else { " are" }
                )
            };
            return Ok(crate::findings::deferred_diagnostic("all rules", &what, client.strict).into());
        };
        let cluster = live::find_contract_cluster(client, &contract).await?;
        let eks_name = cluster.eks_cluster_name();
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
        let facts = live::gather(
            client,
            cluster,
            live::ClusterReads::Restriction,
            &[&spec.project_role_arn],
        )
        .await;
        let partition = client.region.partition();
        let restriction_facts = match &eks_name {
            Some(name) => RestrictionFacts::Eks {
                entries: facts.access_entries.clone(),
                eks: live::eks_cluster(client, name).await,
            },
            None => RestrictionFacts::Slurm {
                preferences: match ssm::find_run_as_enabled(&client.ssm).await {
                    Ok(run_as_enabled) => Fact::Known(SessionPreferences { run_as_enabled }),
                    Err(err) => Fact::unreadable("Session Manager preferences", &err),
                },
                project_role: crate::resources::project_facts::role_permissions(client, &spec.project_role_arn).await,
                cluster_arn: cluster_arn.clone(),
            },
        };
        let mut report = check_restriction(&restriction, &contract, &restriction_facts, today());
        report.push(spaces_check(&spec, &contract));
        let mut diagnostics = report.diagnostics(client.strict);
        if let Some(eks_cluster) = &eks_name {
            diagnostics.extend(
                self.namespaces_in_order(client, eks_cluster, value, &spec, mode_known, &cluster_name)
                    .await?,
            );
        }
        let maybe_rbac = !mode_known || spec.mode == RestrictionMode::Rbac;
        if let (true, Some(problem)) = (maybe_rbac, group_problem(&spec.kubernetes_group)) {
            diagnostics.push(Diagnostic::invalid_value(
                AttributePath::attr("project_role_arn"),
                format!("{:?}", spec.project_role_arn),
                &format!("the Kubernetes group derived from the role's name, {problem}"),
                "set `kubernetes_group` to a valid Kubernetes name",
            ));
        }
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }

        // An entry that existed before this restriction is adopted: on destroy only what was added goes.
        let role = model::role_name(&spec.project_role_arn);
        let owner = format!("{cluster_name}/{role}");
        let adopted = match &eks_name {
            Some(eks_cluster) => {
                entry_adopted(client, &facts, eks_cluster, &spec.project_role_arn, &owner, prior).await
            }
            None => Some(true),
        };
        let eks = eks_name.is_some();
        let wanted = adopted.map(|adopted| components(&spec, partition, eks, adopted, &contract.name));
        set_attr(value, "id", text(&owner));
        set_attr(value, "cluster_name", text(&cluster_name));
        set_attr(value, "cluster_arn", text(&cluster_arn));
        set_attr(value, "orchestrator", text(orchestrator.to_string()));
        set_attr(value, "project_role_arn", text(&spec.project_role_arn));
        set_attr(value, "namespaces", text_list(&spec.namespaces));
        set_attr(value, "kubernetes_group", text(&spec.kubernetes_group));
        let facts = crate::resources::references::restriction_value(value);
        set_attr(value, "governance", facts);
        set_attr(
            value,
            "private_data_conf",
            if eks { Value::Null } else { text(private_data_conf()) },
        );
        set_attr(
            value,
            "components",
            match wanted {
                Some(wanted) if grants_known => text_map(&wanted),
                _ => Value::Unknown,
            },
        );
        checklist::set(value, &report);
        Ok(diagnostics)
    }

    /// RBAC mode: every namespace exists or is a referenced tenant's (which Terraform then applies first). Errors
    /// fail the plan; the warnings say what is left to apply (`mode` or `tenants` unknown, the API unreachable).
    async fn namespaces_in_order(
        &self,
        client: &HyperpodClient,
        eks_cluster: &str,
        value: &Value,
        spec: &RestrictionConfig,
        mode_known: bool,
        cluster_name: &str,
    ) -> Result<Diagnostics, Diagnostics> {
        let referenced = order::referenced_namespaces(value, cluster_name)?;
        let deferred = |why: &str| {
            Diagnostics::from(Diagnostic::warning(
                AttributePath::attr(order::TENANTS),
                "Namespaces not checked at plan: a value is known only at apply",
                format!(
                    "{why}. In rbac mode apply checks that each namespace exists before this restriction writes \
                     anything, and fails there naming the tenant to reference."
                ),
            ))
        };
        if !mode_known {
            return Ok(deferred("`mode` is not known until apply"));
        }
        if spec.mode != RestrictionMode::Rbac {
            return Ok(Diagnostics::new());
        }
        let Some(referenced) = referenced else {
            return Ok(deferred("`tenants` is not known until apply"));
        };
        let unreferenced: Vec<String> = spec
            .namespaces
            .iter()
            .filter(|namespace| !referenced.contains(namespace))
            .cloned()
            .collect();
        if unreferenced.is_empty() {
            return Ok(Diagnostics::new());
        }
        let read = match kube_client(client, eks_cluster).await {
            Ok(kube) => order::absent(&kube, &unreferenced).await.map_err(|err| err.to_string()),
            Err(err) => Err(err),
        };
        match read {
            Ok(absent) if absent.is_empty() => Ok(Diagnostics::new()),
            Ok(absent) => Err(Diagnostics(
                absent
                    .iter()
                    .map(|namespace| order::missing(namespace, "at plan"))
                    .collect(),
            )),
            Err(err) => Ok(Diagnostics::from(Diagnostic::warning(
                AttributePath::attr(order::TENANTS),
                "Namespaces (not checked)",
                format!(
                    "The cluster's namespaces could not be read: {err}. Apply checks them before this restriction \
                     writes anything."
                ),
            ))),
        }
    }

    /// The HyperPod cluster behind the state (by ARN), and its EKS cluster; `None`: the cluster is gone.
    async fn cluster_of(&self, client: &HyperpodClient, state: &Value) -> Result<Option<Option<String>>, Diagnostics> {
        let cluster_ref = string(state, "cluster_arn")
            .or_else(|| string(state, "cluster_name"))
            .unwrap_or_default();
        match client.cluster(&cluster_ref).await {
            Ok(cluster) => Ok(Some(cluster.eks_cluster_name())),
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err.diagnostics(AttributePath::root(), "Cannot read the HyperPod cluster")),
        }
    }

    async fn write(&self, client: &HyperpodClient, planned: &Value, prior: Option<&Value>) -> Applied {
        let mut value = planned.clone();
        if !checklist::known(planned) {
            // Judged now: a dependency was unknown at plan.
            if let Err(diagnostics) = self.derive(client, &mut value, prior).await {
                return Applied::failed(prior.cloned(), diagnostics);
            }
        }
        let Some((_, spec)) = inputs(&value) else {
            let unknown = unknown_inputs(&value);
            return Diagnostics::error(
                AttributePath::attr("contract"),
                "The restriction's inputs are still unknown at apply",
                format!(
                    "Still unknown: {}. Terraform passes every input known at apply; if this persists, report it \
                     with the configuration.",
                    if unknown.is_empty() {
                        "an input".to_string()
                    } else {
                        unknown.join(", ")
                    }
                ),
            )
            .into();
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
            tags.insert(model::CONTRACT_TAG.to_string(), contract.name);
        }
        // Derived from the restriction's identity: an entry carrying it was made by this restriction.
        let owner = string(&value, "id").unwrap_or_default();
        tags.insert(model::OWNER_TAG.to_string(), owner.clone());
        let mut applier = Applier {
            client,
            spec: &spec,
            eks_cluster,
            partition: client.region.partition().to_string(),
            tags,
            owner: prior.is_none().then_some(owner),
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
impl Resource<HyperpodClient> for TaskViewRestrictionResource {
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

    /// The other resources' checks see the project role's access policies as they now are.
    fn after_apply(&self, client: &HyperpodClient, states: [&Value; 3]) {
        client.reads.forget_kubernetes_objects();
        for role in states.into_iter().filter_map(|state| string(state, "project_role_arn")) {
            client.reads.forget_access_entry(&role);
        }
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        // `contract` is write-only: derive reads it from the configuration.
        let mut planned = change.arguments();
        // Left unset, these default to the contract's, resolved by derive on every plan: the contract leaves no
        // copy in state, so a recorded default would not move with it.
        for name in ["project_role_arn", "namespaces", "kubernetes_group"] {
            if change.config_attr(name).is_null() {
                set_attr(&mut planned, name, Value::Null);
            }
        }
        // Left to its default, the project's Studio access includes spaces only under a contract that approves
        // interactive workloads (WKL-12); written out, a space policy such a contract does not approve fails.
        if change.config_attr("access_policies").is_null() {
            match planned.get_attr("contract").and_then(contract_from_governance) {
                Some(contract) if !crate::governance::spaces::approves_interactive(&contract) => {
                    let without_spaces = schema::NAMESPACE_POLICIES
                        .iter()
                        .filter(|policy| **policy != schema::SPACE_POLICY)
                        .map(|policy| Value::String(policy.to_string()))
                        .collect();
                    set_attr(&mut planned, "access_policies", Value::List(without_spaces));
                }
                Some(_) => {}
                // The default depends on the contract: known once it is.
                None => set_attr(&mut planned, "access_policies", Value::Unknown),
            }
        }
        let result = self.derive(client, &mut planned, change.prior.as_ref()).await;
        let Some(warnings) = checklist::judged(change, client.strict, result)? else {
            return Ok(());
        };
        change.set_planned(planned);
        checklist::keep_recorded(change);
        change.diagnostics.extend(warnings);
        Ok(())
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        self.write(client, planned, None).await
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        // An import records only the cluster and the role: its first plan resolves the rest (namespaces from the
        // contract), and until then there is nothing recorded to refresh.
        if current.get_attr("namespaces").is_none_or(Value::is_null) {
            return Ok(Some(current.clone()));
        }
        // From what the restriction recorded (`contract` is write-only, never in state): its resolved project role
        // and namespaces.
        let Some(spec) = RestrictionConfig::from_value(current, None, &[]) else {
            return Ok(Some(current.clone()));
        };
        let Some(eks_cluster) = self.cluster_of(client, current).await? else {
            return Ok(None);
        };
        refresh::refresh(client, current, &spec, eks_cluster.as_deref()).await
    }

    async fn update(&self, client: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        self.write(client, planned, Some(prior)).await
    }

    async fn delete(&self, client: &HyperpodClient, prior: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        let components: BTreeMap<String, String> = string_map(prior, "components");
        if components.is_empty() {
            return Ok(());
        }
        // From what the restriction recorded: `contract` is write-only, never in state.
        let Some(spec) = RestrictionConfig::from_value(prior, None, &[]) else {
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
            owner: None,
            components,
        };
        applier.remove().await
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_fit_the_probe_cluster_role_name() {
        assert!(group_problem("hyperpod-studio-research").is_none());
        assert!(group_problem(&"g".repeat(GROUP_MAX)).is_none());
        assert!(group_problem(&"g".repeat(GROUP_MAX + 1)).is_some());
        assert!(group_problem("a..b").is_some() && group_problem("-a").is_some());
    }
}
