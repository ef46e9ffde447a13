//! Plan time: judge the tenant against its contract, its cluster and every other tenant on it, and predict every
//! object apply will compose, so the reviewer sees names, ARNs and a digest of each Kubernetes object's content
//! before anything exists.

use std::collections::BTreeMap;

use super::compose::foreign_quota;
use super::desired::{
    POD_IDENTITY, QUOTA, ROLE, access_entry_component, desired_entries, entry_value, grant_component, policy_component,
    quota_spec, role_policies,
};
use super::manifests;
use super::model::{self, TenantSpec, policy_from_value};
use super::slurm;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::findings::ToDiagnostics;
use crate::governance::{Contract, Orchestrator, Phase, check_tenant, cluster::cluster_admin_principals, paths};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{object, string_map, text, text_list, text_map};
use crate::protocol::value::Value;
use crate::resources::cluster_facts as live;
use crate::resources::references::{self, References};
use crate::resources::validators::MAX_TAGS;

/// The attributes derived at plan time; unknown while the contract or the spec is.
pub const DERIVED: [&str; 17] = [
    "governance",
    "id",
    "cluster_name",
    "cluster_arn",
    "namespace",
    "workload_role_arn",
    "tags_all",
    "compute_quota_id",
    "compute_quota_arn",
    "pod_identity_association_id",
    "kms_grants",
    "components",
    "slurm_artefacts",
    "passed_checks",
    "not_applicable_checks",
    "findings",
    "workload_role_name",
];

/// The planned value's derived attributes, or the diagnostics that fail the plan.
pub struct Derived {
    pub attributes: BTreeMap<&'static str, Value>,
    pub warnings: Diagnostics,
    /// The team's live compute quota on the cluster, as the run's shared read saw it (`keep::warnings`).
    pub live_quota: Option<crate::governance::TenantCapacity>,
}

/// `arn:<partition>:iam::<cluster account>:role/<name>`.
pub fn role_arn(partition: &str, account: &str, role_name: &str) -> String {
    format!("arn:{partition}:iam::{account}:role/{role_name}")
}

/// The components the tenant will have: recorded values where the prior state has them, else predictions (names
/// and ARNs known now) or unknown (IDs AWS assigns).
pub fn predicted_components(
    spec: &TenantSpec,
    role_name: &str,
    partition: &str,
    prior: &BTreeMap<String, String>,
) -> BTreeMap<String, Value> {
    let namespace = spec.namespace();
    let mut out: BTreeMap<String, Value> = BTreeMap::new();
    let mut add = |key: String, predicted: Option<String>| {
        let value = match (prior.get(&key), predicted) {
            (_, Some(predicted)) => text(predicted),
            (Some(recorded), None) => text(recorded),
            (None, None) => Value::Unknown,
        };
        out.insert(key, value);
    };
    // The role by name, and each inline policy by the role it is on (its key names the policy).
    add(ROLE.to_string(), Some(role_name.to_string()));
    for name in role_policies(spec, partition).keys() {
        add(policy_component(name), Some(role_name.to_string()));
    }
    // Its id once recorded (a recorded failed write, `<id> (UpdateFailed)`, is planned back to the bare id).
    add(
        QUOTA.to_string(),
        prior.get(QUOTA).map(|value| super::desired::quota_id(value)),
    );
    for manifest in manifests::render(spec) {
        add(
            manifest.component(),
            Some(manifests::rendered_value(&namespace, &manifest)),
        );
    }
    if spec.workload.is_some() {
        add(POD_IDENTITY.to_string(), None);
    }
    for entry in desired_entries(spec) {
        add(access_entry_component(&entry.principal_arn), Some(entry_value(&entry)));
    }
    for key in &spec.data.kms_keys {
        add(grant_component(key), None);
    }
    out
}

fn slurm_value(spec: &TenantSpec, contract: &Contract) -> Value {
    let artefacts = slurm::render(spec, &contract.name);
    object([
        ("account", text(artefacts.account)),
        ("sacctmgr_commands", text_list(&artefacts.sacctmgr_commands)),
        ("slurm_conf", text(artefacts.slurm_conf)),
    ])
}

/// Where CLU-10 points on a tenant: the contract's cluster, the attribute that puts the tenant on that cluster.
pub fn task_governance_path() -> AttributePath {
    live::contract_path().push_attr("cluster_name")
}

/// Every tag the tenant's AWS objects carry: the provider's default tags, the tenant's own and the governance tags
/// from its contract (contract, cluster, team, project, project role).
pub fn composed_tags(client: &HyperpodClient, spec: &TenantSpec, contract: &Contract) -> BTreeMap<String, String> {
    let mut tags_all = model::tags_all(&client.default_tags, &spec.tags, contract, &spec.team);
    if let Some(role) = &contract.project_role_arn {
        tags_all.insert(crate::tags::PROJECT_ROLE.to_string(), role.clone());
    }
    tags_all
}

/// Judges and predicts. `value` is the planned (or, at apply, the applied) value; `prior` the state.
#[allow(clippy::too_many_arguments)]
pub async fn derive(
    client: &HyperpodClient,
    value: &Value,
    prior: Option<&Value>,
    spec: &TenantSpec,
    contract: &Contract,
    config_role_name: Option<String>,
    today: time::Date,
    phase: Phase,
) -> Result<Derived, Diagnostics> {
    let cluster = live::find_contract_cluster(client, contract).await?;
    let real = match cluster.orchestrator {
        crate::aws::sagemaker::ClusterOrchestrator::Eks { .. } => Orchestrator::Eks,
        crate::aws::sagemaker::ClusterOrchestrator::Slurm => Orchestrator::Slurm,
    };
    if real != contract.cluster.orchestrator {
        return Err(Diagnostic::invalid_value(
            live::contract_path().push_attr("orchestrator"),
            format!("{:?}", contract.cluster.orchestrator.to_string()),
            &format!("[CLU-1] cluster {:?} is orchestrated by {real}", cluster.name),
            "fix the contract's cluster.orchestrator (the contract's own plan reports CLU-1 too)",
        )
        .into());
    }
    let eks = real == Orchestrator::Eks;
    if eks && spec.workload.is_none() {
        return Err(Diagnostic::error(
            AttributePath::attr("workload"),
            "Missing workload block",
            "An EKS tenant needs its workload identity: add `workload { service_account = \"...\" }` (the Pod \
             Identity association maps it to the tenant's own IAM role).",
        )
        .into());
    }
    if !eks && spec.workload.is_some() {
        return Err(Diagnostic::error(
            AttributePath::attr("workload"),
            "Pod Identity needs an EKS cluster",
            format!(
                "Cluster {:?} is Slurm-orchestrated: remove the workload block; Slurm tenants use OS identities \
                 (slurm.users).",
                cluster.name
            ),
        )
        .into());
    }
    let partition = client.region.partition();
    let account = contract.cluster.account_id.clone();
    let role_name = config_role_name.unwrap_or_else(|| model::default_role_name(&cluster.name, &spec.team));
    let role_arn = role_arn(partition, &account, &role_name);
    let tags_all = composed_tags(client, spec, contract);

    let cluster_arn = cluster.arn.clone();
    let cluster_name = cluster.name.clone();
    let tenant = spec.to_governance(real, eks.then(|| role_arn.clone()));
    // The tenants counted with this one: itself and those it borrows from, never whatever else this provider
    // process happens to have planned (that would make the verdict depend on planning order).
    let mut tenants = references::tenants(value, paths::tenant::BORROWS_FROM);
    tenants
        .known
        .insert(0, references::own_entry(&contract.cluster.name, tenant.capacity()));
    // CLU-6 asks whether the tenant's own workload roles are cluster admins: only their entries are read.
    let mut workload_roles = vec![role_arn.as_str()];
    if let crate::governance::Setting::Set(target) = &tenant.target_role_arn {
        workload_roles.push(target);
    }
    let facts = live::gather(client, cluster, live::ClusterReads::Tenant, &workload_roles).await;
    let admins = facts
        .access_entries
        .known()
        .map(|entries| cluster_admin_principals(entries))
        .unwrap_or_default();
    let mut view =
        crate::resources::cluster_view::view(&facts, tenants, References::default(), policy_from_value(value), &[]);
    view.allocation = references::allocation(value, paths::tenant::ALLOCATION);
    view.phase = phase;
    let mut report = check_tenant(&tenant, contract, &view, &admins, today);
    // CLU-10: the quota needs the task-governance add-on. Judged here, where the cluster is known: at plan, and again
    // at apply before the first write (so a cluster that was unknown at plan is checked too).
    if let Some(check) = live::task_governance(client, &facts.cluster, task_governance_path()).await {
        report.push(check);
    }
    let diagnostics = report.diagnostics(client.strict);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }

    let prior_components: BTreeMap<String, String> = prior.map(|p| string_map(p, "components")).unwrap_or_default();
    if eks && !prior_components.contains_key(QUOTA) {
        refuse_foreign_quota(client, &cluster_arn, &cluster_name, spec).await?;
    }
    if tags_all.len() > MAX_TAGS {
        return Err(Diagnostic::invalid_value(
            AttributePath::attr("tags"),
            format!("{} tags with default_tags and the governance tags", tags_all.len()),
            &format!("AWS accepts at most {MAX_TAGS} tags on an object"),
            "remove tags from `tags` or the provider's default_tags (the provider adds up to 5 hyperpod: tags)",
        )
        .into());
    }
    let mut attributes: BTreeMap<&'static str, Value> = BTreeMap::new();
    attributes.insert("id", text(format!("{cluster_name}/{}", spec.team)));
    attributes.insert("governance", references::tenant_value(value));
    attributes.insert("cluster_name", text(&cluster_name));
    attributes.insert("cluster_arn", text(&cluster_arn));
    attributes.insert("tags_all", text_map(&tags_all));
    attributes.extend(crate::resources::checklist::of(&report));
    if eks {
        let components = predicted_components(spec, &role_name, partition, &prior_components);
        let recorded = |key: &str| components.get(key).cloned().unwrap_or(Value::Null);
        let quota_known = prior_components.contains_key(QUOTA);
        attributes.insert("namespace", text(spec.namespace()));
        attributes.insert("workload_role_name", text(&role_name));
        attributes.insert("workload_role_arn", text(&role_arn));
        attributes.insert("compute_quota_id", recorded(QUOTA));
        attributes.insert(
            "compute_quota_arn",
            match (quota_known, prior.and_then(|p| p.get_attr("compute_quota_arn"))) {
                (true, Some(arn @ Value::String(_))) => arn.clone(),
                _ => Value::Unknown,
            },
        );
        attributes.insert("pod_identity_association_id", recorded(POD_IDENTITY));
        attributes.insert(
            "kms_grants",
            Value::Map(
                spec.data
                    .kms_keys
                    .iter()
                    .map(|key| (key.clone(), recorded(&grant_component(key))))
                    .collect(),
            ),
        );
        // The target policy is a component only once the target role is known: until then the set of components is
        // not known either (a known map would gain a key at apply).
        let target_unknown = matches!(
            spec.workload.as_ref().map(|w| &w.target_role_arn),
            Some(crate::governance::Setting::Unknown)
        );
        attributes.insert(
            "components",
            if target_unknown {
                Value::Unknown
            } else {
                Value::Map(components)
            },
        );
        attributes.insert("slurm_artefacts", Value::Null);
    } else {
        for name in [
            "namespace",
            "workload_role_name",
            "workload_role_arn",
            "compute_quota_id",
            "compute_quota_arn",
            "pod_identity_association_id",
        ] {
            attributes.insert(name, Value::Null);
        }
        attributes.insert("kms_grants", Value::Map(BTreeMap::new()));
        attributes.insert("components", Value::Map(BTreeMap::new()));
        attributes.insert("slurm_artefacts", slurm_value(spec, contract));
    }
    let live_quota = facts.tenants.known().and_then(|live| {
        live.iter()
            .find(|t| t.capacity.team == spec.team)
            .map(|t| t.capacity.clone())
    });
    Ok(Derived {
        attributes,
        warnings: diagnostics,
        live_quota,
    })
}

/// A quota the tenant is about to create that exists already: fine when its tags name this tenant (an interrupted
/// apply made it; apply adopts it), refused before anything is written when they do not.
async fn refuse_foreign_quota(
    client: &HyperpodClient,
    cluster_arn: &str,
    cluster_name: &str,
    spec: &TenantSpec,
) -> Result<(), Diagnostics> {
    let name = quota_spec(spec, cluster_arn, &BTreeMap::new()).name;
    // Unreadable quotas are WKL-3's to report; the apply still refuses a foreign quota on its conflict.
    let Ok(quotas) = client.compute_quotas(cluster_arn).await else {
        return Ok(());
    };
    let Some(found) = quotas.iter().find(|q| q.name == name || q.team_name == spec.team) else {
        return Ok(());
    };
    let tags = crate::aws::sagemaker::list_tags(&client.sagemaker, &found.arn)
        .await
        .map_err(|err| {
            err.diagnostics(
                AttributePath::attr("team"),
                "Cannot read the existing compute quota's tags",
            )
        })?;
    if crate::tags::is_tenants_own(&tags, cluster_name, &spec.team) {
        Ok(())
    } else {
        Err(foreign_quota(found, cluster_name, &spec.team).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::tenant::manifests::tests::spec;

    #[test]
    fn predictions_name_every_object_and_leave_aws_ids_unknown() {
        let mut spec = spec();
        spec.viewer_principal_arns = vec!["arn:aws:iam::123456789012:role/research-viewers".into()];
        spec.data.kms_keys = vec!["arn:aws:kms:us-west-2:123456789012:key/k".into()];
        let components = predicted_components(&spec, "hyperpod-ml-capacity-research", "aws", &BTreeMap::new());
        assert_eq!(components["iam_role"], text("hyperpod-ml-capacity-research"));
        assert_eq!(
            components["iam_policy/hyperpod-tenant-data"],
            text("hyperpod-ml-capacity-research")
        );
        let Value::String(deny) = &components["kubernetes/NetworkPolicy/hyperpod-tenant-default-deny"] else {
            panic!("{components:?}")
        };
        let (namespace, digest) = deny.split_once('@').unwrap_or_default();
        assert_eq!(namespace, "hyperpod-ns-research");
        assert!(
            digest.len() == 8 && digest.chars().all(|c| c.is_ascii_hexdigit()),
            "{deny}"
        );
        assert_eq!(components["compute_quota"], Value::Unknown);
        assert_eq!(components["pod_identity_association"], Value::Unknown);
        assert_eq!(
            components["kms_grant/arn:aws:kms:us-west-2:123456789012:key/k"],
            Value::Unknown
        );
        assert!(components.contains_key("access_entry/arn:aws:iam::123456789012:role/research-viewers"));
    }

    #[test]
    fn recorded_ids_are_kept_and_a_missing_component_is_planned_again() {
        let spec = spec();
        let prior: BTreeMap<String, String> = [("compute_quota".to_string(), "abcdef123456".to_string())].into();
        let components = predicted_components(&spec, "r", "aws", &prior);
        assert_eq!(components["compute_quota"], text("abcdef123456"));
        // Deleted out of band: not in the recorded components, so the plan shows it (unknown until re-created).
        assert_eq!(components["pod_identity_association"], Value::Unknown);
    }
}
