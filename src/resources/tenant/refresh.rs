//! Read and import: what of the tenant still exists, as it is. A component deleted out of band drops out of
//! `components` (and its detail attributes), a changed one shows its live shape, so the next plan shows the drift and
//! apply repairs it. Only when nothing of the tenant is left does it leave state.

use std::collections::BTreeMap;

use super::compose::kube_client;
use super::desired::{self, POD_IDENTITY, QUOTA, ROLE};
use super::manifests;
use crate::aws::compute_quota::{self as cq, ComputeQuota};
use crate::aws::eks_access as access;
use crate::aws::{AwsError, iam, kms};
use crate::client::HyperpodClient;
use crate::kubernetes::paths;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{elements, int, nested, object, string, string_map, text, text_map};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;
use crate::resources::kubernetes_reads::kubernetes_object;

use crate::resources::failed;

/// Missing is fine (the component is gone); other errors fail the read.
fn present<T>(result: Result<T, AwsError>, what: &str) -> Result<Option<T>, Diagnostics> {
    match result {
        Ok(found) => Ok(Some(found)),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(failed(&format!("Reading {what} failed"), err)),
    }
}

/// The state with what exists now; `None` when nothing of the tenant is left.
pub async fn refresh(client: &HyperpodClient, current: &Value) -> Result<Option<Value>, Diagnostics> {
    let cluster_ref = string(current, "cluster_arn")
        .or_else(|| string(current, "cluster_name"))
        .unwrap_or_default();
    let Some(cluster) = present(client.cluster(&cluster_ref).await, "the cluster")? else {
        return Ok(None); // the cluster is gone, and every tenant object with it
    };
    let Some(eks_cluster) = cluster.eks_cluster_name() else {
        return Ok(Some(current.clone())); // Slurm: rendered artefacts only, nothing in AWS to refresh
    };
    let prior = string_map(current, "components");
    let mut state = current.clone();
    let mut live: BTreeMap<String, String> = BTreeMap::new();

    let role_name = string(current, "workload_role_name").unwrap_or_default();
    if prior.contains_key(ROLE)
        && present(iam::find_role(&client.iam, &role_name).await, "the workload role")?.is_some()
    {
        live.insert(ROLE.to_string(), role_name.clone());
        for (key, value) in prior.iter().filter(|(k, _)| k.starts_with("iam_policy/")) {
            let name = key.trim_start_matches("iam_policy/");
            if present(
                iam::find_role_policy(&client.iam, &role_name, name).await,
                "a role policy",
            )?
            .is_some()
            {
                live.insert(key.clone(), value.clone());
            }
        }
    }

    if let Some(id) = prior.get(QUOTA).map(|value| desired::quota_id(value))
        && let Some(quota) = present(
            cq::find_compute_quota(&client.sagemaker, &id).await,
            "the compute quota",
        )?
    {
        // A last write that failed is drift: not in effect, so the plan writes it again.
        live.insert(QUOTA.to_string(), desired::quota_component(&quota.id, &quota.status));
        set_attr(&mut state, "compute_quota_arn", text(&quota.arn));
        flatten_quota(&mut state, &quota);
    }

    let namespace = string(current, "namespace").unwrap_or_default();
    // Each object is read back and recorded with the digest of its live content: one that differs from what the
    // provider writes shows as a changed `components` value at the next plan, which names it and warns.
    let objects: Vec<(&String, &str, &str)> = prior
        .keys()
        .filter_map(|key| {
            let (kind, name) = key.strip_prefix("kubernetes/")?.split_once('/')?;
            Some((key, kind, name))
        })
        .collect();
    if !objects.is_empty() {
        let kube = kube_client(client, &eks_cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
        for (key, kind, name) in objects {
            let Some((api_version, resource)) = crate::kubernetes::objects::kind_path(kind) else {
                continue;
            };
            let path = paths::namespaced(api_version, resource, &namespace, name);
            match kubernetes_object(client, &kube, &eks_cluster, &path).await {
                Ok(Some(object)) => {
                    live.insert(key.clone(), manifests::component_value(&namespace, &object));
                }
                Ok(None) => {}
                Err(err) => return Err(failed(&format!("Reading {kind} {namespace}/{name} failed"), err)),
            }
        }
    }

    if let Some(id) = prior.get(POD_IDENTITY)
        && let Some(association) = present(
            access::find_pod_identity_association(&client.eks, &eks_cluster, id).await,
            "the Pod Identity association",
        )?
    {
        live.insert(POD_IDENTITY.to_string(), association.id.clone());
        if let Some(Value::Object(workload)) = state.get_attr("workload").cloned() {
            let mut workload = Value::Object(workload);
            set_attr(
                &mut workload,
                "target_role_arn",
                optional(association.target_role_arn.clone()),
            );
            let tags_were_set = nested(current, "workload").and_then(|w| w.get_attr("disable_session_tags"));
            if association.disable_session_tags || tags_were_set.is_some_and(|v| !v.is_null()) {
                set_attr(
                    &mut workload,
                    "disable_session_tags",
                    Value::Bool(association.disable_session_tags),
                );
            }
            set_attr(&mut workload, "session_policy", optional(association.policy.clone()));
            set_attr(&mut state, "workload", workload);
        }
    }
    set_attr(
        &mut state,
        "pod_identity_association_id",
        optional(live.get(POD_IDENTITY).cloned()),
    );

    for key in prior.keys().filter(|key| key.starts_with("access_entry/")) {
        let principal = desired::entry_principal(key);
        if let Some(record) = present(client.access_entry(&eks_cluster, principal).await, "an access entry")? {
            live.insert(key.clone(), live_entry_value(&record));
        }
    }

    let mut grants_now = BTreeMap::new();
    for (key, id) in prior.iter().filter(|(k, _)| k.starts_with("kms_grant/")) {
        let key_arn = key.trim_start_matches("kms_grant/");
        if present(kms::find_grant(&client.kms, key_arn, id).await, "a KMS grant")?.is_some() {
            live.insert(key.clone(), id.clone());
            grants_now.insert(key_arn.to_string(), id.clone());
        }
    }
    set_attr(&mut state, "kms_grants", text_map(&grants_now));

    if live.is_empty() {
        return Ok(None);
    }
    set_attr(
        &mut state,
        "compute_quota_id",
        optional(live.get(QUOTA).map(|value| desired::quota_id(value))),
    );
    set_attr(&mut state, "components", text_map(&live));
    Ok(Some(state))
}

fn optional(value: Option<String>) -> Value {
    value.map_or(Value::Null, Value::String)
}

/// An access entry's `components` value from its live record (see `desired::entry_content`).
fn live_entry_value(record: &access::AccessEntryRecord) -> String {
    let policies: Vec<(String, Vec<String>)> = record
        .policies
        .iter()
        .map(|p| {
            let namespaces = if p.scope_type == "namespace" {
                p.namespaces.clone()
            } else {
                vec!["*".to_string()]
            };
            (p.policy_arn.clone(), namespaces)
        })
        .collect();
    desired::entry_value_of(&record.kubernetes_groups, &policies)
}

/// Puts the live quota's settings into state where the user manages them, so a change made in the console shows
/// as drift. Fields the user left to SageMaker's defaults stay null.
pub fn flatten_quota(state: &mut Value, quota: &ComputeQuota) {
    let prior = state.clone();
    if let Some(preempt) = &quota.preempt_team_tasks {
        set_attr(state, "preempt_team_tasks", text(preempt));
    }
    if let Some(activation) = &quota.activation_state {
        set_attr(state, "activation_state", text(activation));
    }
    let weight = quota.fair_share_weight.unwrap_or(0);
    if prior.get_attr("fair_share_weight").is_some_and(|v| !v.is_null()) || weight != 0 {
        set_attr(state, "fair_share_weight", int(i64::from(weight)));
    }
    if let Some(Value::Object(sharing)) = prior.get_attr("sharing").cloned() {
        let mut sharing = Value::Object(sharing);
        if let Some(strategy) = &quota.sharing_strategy {
            set_attr(&mut sharing, "strategy", text(strategy));
        }
        let limit_set = sharing.get_attr("borrow_limit").is_some_and(|v| !v.is_null());
        // SageMaker fills in a default limit (50) when none is written: only a limit the user set is compared.
        if limit_set {
            set_attr(
                &mut sharing,
                "borrow_limit",
                quota.borrow_limit.map_or(Value::Null, |l| int(i64::from(l))),
            );
        }
        // Absolute limits are the team's whether written or set in the console: always shown (null stays null
        // while there are none, so a tenant that never set them shows no change).
        let limits = &quota.absolute_borrow_limits;
        let written = sharing
            .get_attr("absolute_borrow_limit")
            .cloned()
            .unwrap_or(Value::Null);
        let shown = if limits.is_empty() && written.is_null() {
            Value::Null
        } else {
            let written_entries = match &written {
                Value::List(items) => items.clone(),
                _ => Vec::new(),
            };
            Value::List(flatten_entries(limits, &written_entries, true))
        };
        set_attr(&mut sharing, "absolute_borrow_limit", shown);
        set_attr(state, "sharing", sharing);
    }
    let entries = elements(&prior, "quota").to_vec();
    set_attr(
        state,
        "quota",
        Value::List(flatten_entries(&quota.resources, &entries, false)),
    );
}

/// Live entries as the state shows them: the units the user wrote, always the partition, and when the entries no
/// longer line up with what was written, the count (a quota's entries: SageMaker fills the other amounts in) or
/// every unit (`every_unit`: absolute borrow limits, which nothing fills in).
fn flatten_entries(
    quota_resources: &[crate::aws::compute_quota::QuotaResource],
    entries: &[Value],
    every_unit: bool,
) -> Vec<Value> {
    let float = |n: f64| crate::protocol::value::Number::from_f64(n).map_or(Value::Null, Value::Number);
    let same_shape = entries.len() == quota_resources.len()
        && entries
            .iter()
            .zip(quota_resources)
            .all(|(entry, live)| string(entry, "instance_type").as_deref() == Some(live.instance_type.as_str()));
    quota_resources
        .iter()
        .enumerate()
        .map(|(index, live)| {
            let written = if same_shape { entries.get(index) } else { None };
            let keep = |field: &str| {
                written.is_some_and(|e| e.get_attr(field).is_some_and(|v| !v.is_null())) || (every_unit && !same_shape)
            };
            let count_shown = keep("count") || !same_shape;
            object([
                ("instance_type", text(&live.instance_type)),
                (
                    "count",
                    live.count
                        .filter(|_| count_shown)
                        .map_or(Value::Null, |c| int(i64::from(c))),
                ),
                (
                    "accelerators",
                    live.accelerators
                        .filter(|_| keep("accelerators"))
                        .map_or(Value::Null, |c| int(i64::from(c))),
                ),
                (
                    "vcpu",
                    match (keep("vcpu"), written) {
                        (true, Some(e)) => e.get_attr("vcpu").cloned().unwrap_or(Value::Null),
                        (true, None) => live.vcpu.map_or(Value::Null, float),
                        (false, _) => Value::Null,
                    },
                ),
                (
                    "memory_gib",
                    match (keep("memory_gib"), written) {
                        (true, Some(e)) => e.get_attr("memory_gib").cloned().unwrap_or(Value::Null),
                        (true, None) => live.memory_gib.map_or(Value::Null, float),
                        (false, _) => Value::Null,
                    },
                ),
                (
                    "accelerator_partition",
                    crate::resources::quota_share::partition_value(
                        live.accelerator_partition
                            .as_ref()
                            .map(|p| (p.profile.clone(), i64::from(p.count)))
                            .as_ref(),
                    ),
                ),
            ])
        })
        .collect()
}

/// Import by `<cluster>/<team>`: finds the team's quota and the objects the tenant composes by their deterministic
/// names and this provider's tags; read then fills in the rest. Config-only arguments (`priority_class`) come from
/// the configuration at the next plan, which shows them as an in-place update; `contract` is write-only, never in
/// state.
pub async fn import(
    client: &HyperpodClient,
    block_null: Value,
    cluster_ref: &str,
    team: &str,
) -> Result<Value, Diagnostics> {
    let cluster = client
        .cluster(cluster_ref)
        .await
        .map_err(|err| failed("Cannot import the tenant", err))?;
    let quotas = cq::list_compute_quotas(&client.sagemaker, &cluster.arn)
        .await
        .map_err(|err| failed("Listing the cluster's compute quotas failed", err))?;
    let quota = quotas.into_iter().find(|q| q.team_name == team).ok_or_else(|| {
        Diagnostics::error(
            AttributePath::root(),
            "Nothing to import",
            format!(
                "HyperPod cluster {:?} has no compute quota for team {team:?}.",
                cluster.name
            ),
        )
    })?;
    let mut state = block_null;
    let role_name = super::model::default_role_name(&cluster.name, team);
    let namespace = crate::names::team_namespace(team);
    let mut components = BTreeMap::new();
    let mut role_arn = None;
    components.insert(QUOTA.to_string(), quota.id.clone());
    let ours = |tags: &BTreeMap<String, String>| crate::tags::is_tenants_own(tags, &cluster.name, team);
    if let Some(role) = present(iam::find_role(&client.iam, &role_name).await, "the workload role")?
        && ours(&role.tags)
    {
        components.insert(ROLE.to_string(), role_name.clone());
        role_arn = Some(role.arn.clone());
        for name in [desired::TARGET_POLICY, desired::DATA_POLICY] {
            if present(
                iam::find_role_policy(&client.iam, &role_name, name).await,
                "a role policy",
            )?
            .is_some()
            {
                components.insert(desired::policy_component(name), role_name.clone());
            }
        }
    }
    let mut manifests_found = Vec::new();
    let mut workload = None;
    if let Some(eks_cluster) = cluster.eks_cluster_name() {
        let associations = access::list_pod_identity_associations(&client.eks, &eks_cluster, &namespace)
            .await
            .map_err(|err| failed("Listing Pod Identity associations failed", err))?;
        if let Some(association) = associations
            .into_iter()
            .find(|a| Some(&a.role_arn) == role_arn.as_ref())
        {
            components.insert(POD_IDENTITY.to_string(), association.id.clone());
            workload = Some(object([
                ("service_account", text(&association.service_account)),
                ("target_role_arn", optional(association.target_role_arn.clone())),
                (
                    "disable_session_tags",
                    if association.disable_session_tags {
                        Value::Bool(true)
                    } else {
                        Value::Null
                    },
                ),
                ("session_policy", optional(association.policy.clone())),
            ]));
            manifests_found.push(("ServiceAccount", association.service_account.clone()));
        }
        for name in [manifests::VIEWER, manifests::OPERATOR] {
            manifests_found.push(("Role", name.to_string()));
            manifests_found.push(("RoleBinding", name.to_string()));
        }
        for name in [
            manifests::DEFAULT_DENY,
            manifests::ALLOW_DNS,
            manifests::ALLOW_SAME_NAMESPACE,
            manifests::ALLOW_EGRESS,
        ] {
            manifests_found.push(("NetworkPolicy", name.to_string()));
        }
        let kube = kube_client(client, &eks_cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))?;
        for (kind, name) in manifests_found {
            let Some((api_version, resource)) = crate::kubernetes::objects::kind_path(kind) else {
                continue;
            };
            if let Ok(Some(found)) = kube
                .get(&paths::namespaced(api_version, resource, &namespace, &name))
                .await
            {
                let value = manifests::component_value(&namespace, &found);
                components.insert(format!("kubernetes/{kind}/{name}"), value);
            }
        }
        let principals = access::list_access_entries(&client.eks, &eks_cluster)
            .await
            .map_err(|err| failed("Listing access entries failed", err))?;
        for principal in principals {
            let Some(record) = present(
                access::find_access_entry(&client.eks, &eks_cluster, &principal).await,
                "an access entry",
            )?
            else {
                continue;
            };
            if !ours(&record.tags) {
                continue;
            }
            if !record.policies.iter().any(|p| p.namespaces.contains(&namespace)) {
                continue;
            }
            components.insert(desired::access_entry_component(&principal), live_entry_value(&record));
        }
    }
    set_attr(&mut state, "id", text(format!("{}/{team}", cluster.name)));
    set_attr(&mut state, "team", text(team));
    set_attr(&mut state, "cluster_name", text(&cluster.name));
    set_attr(&mut state, "cluster_arn", text(&cluster.arn));
    set_attr(&mut state, "namespace", text(&namespace));
    set_attr(&mut state, "workload_role_name", text(&role_name));
    set_attr(&mut state, "workload_role_arn", optional(role_arn));
    set_attr(&mut state, "compute_quota_id", text(&quota.id));
    set_attr(&mut state, "compute_quota_arn", text(&quota.arn));
    set_attr(&mut state, "quota", Value::List(Vec::new()));
    // A quota with absolute borrow limits: its sharing config as it holds it, so the limits are imported too (the
    // borrow limit only where the configuration sets one: `flatten_quota`). Otherwise, as before, the first apply
    // records the sharing block from the configuration (an imported default sharing config would plan a removal
    // against a configuration that has none).
    if let Some(strategy) = quota
        .sharing_strategy
        .as_ref()
        .filter(|_| !quota.absolute_borrow_limits.is_empty())
    {
        set_attr(
            &mut state,
            "sharing",
            object([
                ("strategy", text(strategy)),
                ("borrow_limit", Value::Null),
                ("absolute_borrow_limit", Value::Null),
            ]),
        );
    }
    if let Some(workload) = workload {
        set_attr(&mut state, "workload", workload);
    }
    set_attr(&mut state, "kms_grants", Value::Map(BTreeMap::new()));
    set_attr(&mut state, "components", text_map(&components));
    flatten_quota(&mut state, &quota);
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::compute_quota::QuotaResource;

    fn quota() -> ComputeQuota {
        ComputeQuota {
            team_name: "research".into(),
            resources: vec![QuotaResource {
                instance_type: "ml.p5.48xlarge".into(),
                count: Some(3),
                accelerators: Some(24),
                vcpu: Some(192.0),
                memory_gib: Some(2048.0),
                accelerator_partition: None,
            }],
            sharing_strategy: Some("LendAndBorrow".into()),
            borrow_limit: Some(50),
            preempt_team_tasks: Some("LowerPriority".into()),
            fair_share_weight: Some(0),
            activation_state: Some("Enabled".into()),
            ..ComputeQuota::default()
        }
    }

    fn state() -> Value {
        object([
            (
                "quota",
                Value::List(vec![object([
                    ("instance_type", text("ml.p5.48xlarge")),
                    ("count", int(2)),
                    ("accelerators", Value::Null),
                    ("vcpu", Value::Null),
                    ("memory_gib", Value::Null),
                    ("accelerator_partition", Value::Null),
                ])]),
            ),
            (
                "sharing",
                object([
                    ("strategy", text("LendAndBorrow")),
                    ("borrow_limit", Value::Null),
                    ("absolute_borrow_limit", Value::Null),
                ]),
            ),
            ("preempt_team_tasks", text("Never")),
            ("fair_share_weight", Value::Null),
            ("activation_state", text("Enabled")),
        ])
    }

    #[test]
    fn live_changes_to_what_the_user_manages_show_and_service_defaults_do_not() {
        let mut state = state();
        flatten_quota(&mut state, &quota());
        let entry = &elements(&state, "quota")[0];
        assert_eq!(entry.get_attr("count"), Some(&int(3)), "a changed count is drift");
        assert_eq!(
            entry.get_attr("accelerators"),
            Some(&Value::Null),
            "filled in by SageMaker, not written"
        );
        assert_eq!(entry.get_attr("vcpu"), Some(&Value::Null));
        assert_eq!(string(&state, "preempt_team_tasks").as_deref(), Some("LowerPriority"));
        assert_eq!(
            state.get_attr("fair_share_weight"),
            Some(&Value::Null),
            "the default weight 0 stays unset"
        );
        let sharing = nested(&state, "sharing").cloned().unwrap_or(Value::Null);
        assert_eq!(
            sharing.get_attr("borrow_limit"),
            Some(&Value::Null),
            "the default borrow limit stays unset"
        );
        assert_eq!(
            sharing.get_attr("absolute_borrow_limit"),
            Some(&Value::Null),
            "none, none shown"
        );
    }

    #[test]
    fn partitions_and_absolute_limits_set_in_the_console_show_in_state() {
        use crate::aws::compute_quota::Partition;
        let mut live = quota();
        live.resources[0].accelerator_partition = Some(Partition {
            profile: "mig-1g.10gb".into(),
            count: 14,
        });
        live.absolute_borrow_limits = vec![QuotaResource {
            instance_type: "ml.p5.48xlarge".into(),
            accelerators: Some(16),
            vcpu: Some(96.5),
            ..QuotaResource::default()
        }];
        let mut state = state();
        flatten_quota(&mut state, &live);
        let entry = &elements(&state, "quota")[0];
        let partition = nested(entry, "accelerator_partition").cloned().unwrap_or(Value::Null);
        assert_eq!(string(&partition, "type").as_deref(), Some("mig-1g.10gb"));
        assert_eq!(partition.get_attr("count"), Some(&int(14)));
        let sharing = nested(&state, "sharing").cloned().unwrap_or(Value::Null);
        let limits = elements(&sharing, "absolute_borrow_limit");
        assert_eq!(limits.len(), 1, "{sharing:?}");
        assert_eq!(
            limits[0].get_attr("accelerators"),
            Some(&int(16)),
            "every unit of a limit not written"
        );
        assert_eq!(
            limits[0].get_attr("vcpu").map(hyperpod_protocol::value::Value::is_null),
            Some(false)
        );
    }
}
