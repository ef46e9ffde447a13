//! What the tenant wants, as pure values: component keys, the workload role's trust and inline policies, the
//! compute quota request, the access entries. Shared by the plan (predictions) and apply (the reconciler).

use std::collections::BTreeMap;

use super::TenantConfig;
use crate::aws::compute_quota::{self as cq, QuotaSpec};
use crate::aws::scheduler_status::SchedulerStatus;
use crate::governance::Unit;

/// The compute quota's `components` value: its id, and after a refresh that found its last write ended `*Failed`
/// (`CreateFailed`, `UpdateFailed`: not in effect, whatever settings it reports) the status too, `<id> (<status>)`.
/// The plan then shows the failure as a change back to the bare id, and apply writes the quota again.
pub fn quota_component(id: &str, status: &SchedulerStatus) -> String {
    if status.is_failed() {
        format!("{id} ({status})")
    } else {
        id.to_string()
    }
}

/// The quota's id in a `components` value.
pub fn quota_id(value: &str) -> String {
    value.split(' ').next().unwrap_or_default().to_string()
}
pub const TARGET_POLICY: &str = "hyperpod-tenant-target";
pub const DATA_POLICY: &str = "hyperpod-tenant-data";
pub const VIEW_POLICY: &str = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy";
pub const EDIT_POLICY: &str = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy";
pub const GRANT_OPERATIONS: [&str; 4] = ["Decrypt", "Encrypt", "GenerateDataKey", "DescribeKey"];

use crate::resources::with_digest;

/// What the tenant governs of an access entry, canonical: its Kubernetes groups and its EKS view/edit policies with
/// their namespaces (`*` for cluster scope). Other policies on the entry are not the tenant's.
pub fn entry_content(groups: &[String], policies: &[(String, Vec<String>)]) -> String {
    let mut groups = groups.to_vec();
    groups.sort();
    let mut policies: Vec<&(String, Vec<String>)> = policies
        .iter()
        .filter(|(arn, _)| [VIEW_POLICY, EDIT_POLICY].contains(&arn.as_str()))
        .collect();
    policies.sort();
    serde_json::json!({ "kubernetes_groups": groups, "policies": policies }).to_string()
}

/// An access entry's component value: the EKS policy the tenant grants (its name; the key names the principal) and
/// the digest of what the tenant writes into the entry, e.g. `AmazonEKSViewPolicy@1a2b3c4d`.
pub fn entry_value(entry: &DesiredEntry) -> String {
    entry_value_of(
        &entry.kubernetes_groups,
        &[(entry.policy_arn.clone(), entry.namespaces.clone())],
    )
}

/// `entry_value` of an entry's groups and policies, as planned or as read: the governed policies' names (`+` between
/// them, `none` without one) and the digest of `entry_content`.
pub fn entry_value_of(groups: &[String], policies: &[(String, Vec<String>)]) -> String {
    let mut names: Vec<&str> = policies
        .iter()
        .filter(|(arn, _)| [VIEW_POLICY, EDIT_POLICY].contains(&arn.as_str()))
        .map(|(arn, _)| arn.rsplit('/').next().unwrap_or(arn))
        .collect();
    names.sort_unstable();
    names.dedup();
    let id = if names.is_empty() {
        "none".to_string()
    } else {
        names.join("+")
    };
    with_digest(&id, &entry_content(groups, policies))
}

/// The name of the tenant's KMS grants. KMS makes CreateGrant with a name idempotent (the same name, grantee,
/// operations and constraints return the existing grant), so a create retried after an interrupted apply finds the
/// grant it made instead of adding a second one. Built from the cluster and team, which fit KMS's grant-name
/// characters (`[a-zA-Z0-9:/_-]`), unlike a role name (`+=,.@`).
pub fn grant_name(cluster_name: &str, team: &str) -> String {
    format!("hyperpod-tenant/{cluster_name}/{team}")
}

/// An access entry the tenant wants: the principal, its Kubernetes groups, and one namespace-scoped policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesiredEntry {
    pub principal_arn: String,
    pub kubernetes_groups: Vec<String>,
    pub policy_arn: String,
    pub namespaces: Vec<String>,
}

/// Viewers get the view policy, operators the edit policy, both on the tenant namespace only. A principal listed
/// as both is an operator (the edit policy includes viewing).
pub fn desired_entries(spec: &TenantConfig) -> Vec<DesiredEntry> {
    let namespace = spec.namespace();
    let mut out: Vec<DesiredEntry> = Vec::new();
    for principal in &spec.operator_principal_arns {
        out.push(DesiredEntry {
            principal_arn: principal.clone(),
            kubernetes_groups: spec.operator_groups.clone(),
            policy_arn: EDIT_POLICY.to_string(),
            namespaces: vec![namespace.clone()],
        });
    }
    for principal in &spec.viewer_principal_arns {
        if !out.iter().any(|entry| &entry.principal_arn == principal) {
            out.push(DesiredEntry {
                principal_arn: principal.clone(),
                kubernetes_groups: spec.viewer_groups.clone(),
                policy_arn: VIEW_POLICY.to_string(),
                namespaces: vec![namespace.clone()],
            });
        }
    }
    out
}

/// The workload role's trust policy: only EKS Pod Identity may assume it (and tag the session).
pub fn trust_policy() -> String {
    serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{
            "Sid": "EksPodIdentity",
            "Effect": "Allow",
            "Principal": { "Service": "pods.eks.amazonaws.com" },
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }],
    })
    .to_string()
}

/// Inline policies of the workload role, by name: chaining to the target role, and the tenant's data.
pub fn role_policies(spec: &TenantConfig, partition: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(target) = spec.workload.as_ref().and_then(|w| match &w.target_role_arn {
        crate::governance::Setting::Set(arn) => Some(arn.clone()),
        _ => None,
    }) {
        out.insert(
            TARGET_POLICY.to_string(),
            serde_json::json!({
                "Version": "2012-10-17",
                "Statement": [{
                    "Sid": "AssumeTenantTargetRole",
                    "Effect": "Allow",
                    "Action": ["sts:AssumeRole", "sts:TagSession"],
                    "Resource": target,
                }],
            })
            .to_string(),
        );
    }
    let data = &spec.data;
    if !data.buckets.is_empty() || !data.kms_keys.is_empty() {
        let mut statements = Vec::new();
        if !data.buckets.is_empty() {
            let buckets: Vec<String> = data
                .buckets
                .iter()
                .map(|b| format!("arn:{partition}:s3:::{b}"))
                .collect();
            let objects: Vec<String> = buckets.iter().map(|b| format!("{b}/*")).collect();
            statements.push(serde_json::json!({
                "Sid": "TenantBuckets",
                "Effect": "Allow",
                "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
                "Resource": buckets,
            }));
            statements.push(serde_json::json!({
                "Sid": "TenantObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                "Resource": objects,
            }));
        }
        if !data.kms_keys.is_empty() {
            statements.push(serde_json::json!({
                "Sid": "TenantKeys",
                "Effect": "Allow",
                "Action": ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
                "Resource": data.kms_keys,
            }));
        }
        out.insert(
            DATA_POLICY.to_string(),
            serde_json::json!({ "Version": "2012-10-17", "Statement": statements }).to_string(),
        );
    }
    out
}

/// The compute quota request the spec asks for (what it leaves to the live quota: `keep::keeping`).
pub fn quota_spec(spec: &TenantConfig, cluster_arn: &str, tags: &BTreeMap<String, String>) -> QuotaSpec {
    let to_i32 = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    QuotaSpec {
        name: spec.compute_quota_name(),
        cluster_arn: cluster_arn.to_string(),
        team_name: spec.team.clone(),
        description: Some(spec.compute_quota_description()),
        resources: spec.quota.clone(),
        sharing_strategy: spec.sharing.as_ref().map(|s| s.strategy),
        borrow_limit: spec.sharing.as_ref().and_then(|s| s.borrow_limit).map(to_i32),
        absolute_borrow_limits: spec
            .sharing
            .as_ref()
            .map(|s| s.absolute_borrow_limits.clone())
            .unwrap_or_default(),
        preempt_team_tasks: Some(spec.preempt_team_tasks),
        fair_share_weight: spec.fair_share_weight.map(to_i32),
        activation_state: Some(spec.activation_state),
        tags: tags.clone(),
    }
}

/// Whether the live quota already is what `wanted` asks for (fields the user left to SageMaker are not compared;
/// partitions and absolute limits are, after `keep::keeping` filled in those left to the live quota).
pub fn quota_matches(wanted: &QuotaSpec, live: &cq::ComputeQuota) -> bool {
    let resources_match = wanted.resources.len() == live.resources.len()
        && wanted.resources.iter().zip(&live.resources).all(|(w, l)| {
            w.instance_type == l.instance_type
                && Unit::ALL.into_iter().all(|unit| match unit {
                    // The profile too, not only the slices.
                    Unit::AcceleratorPartition => w.accelerator_partition == l.accelerator_partition,
                    amount => w.amount(amount).is_none() || w.amount(amount) == l.amount(amount),
                })
        });
    resources_match
        && optional(wanted.sharing_strategy, live.sharing_strategy)
        && (wanted.borrow_limit.is_none() || wanted.borrow_limit == live.borrow_limit)
        && wanted.absolute_borrow_limits == live.absolute_borrow_limits
        && optional(wanted.preempt_team_tasks, live.preempt_team_tasks)
        && wanted.fair_share_weight.unwrap_or(0) == live.fair_share_weight.unwrap_or(0)
        && optional(wanted.activation_state, live.activation_state)
}

/// A setting the user left to SageMaker (`None`) matches whatever the live quota holds.
fn optional<T: PartialEq + Copy>(wanted: Option<T>, live: Option<T>) -> bool {
    wanted.is_none() || wanted == live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::tenant::model::manifests::tests::spec;
    use serde_json::Value as Json;

    #[test]
    fn operators_get_edit_viewers_get_view_and_both_only_on_the_namespace() {
        let mut spec = spec();
        spec.viewer_principal_arns = vec!["arn:aws:iam::1:role/v".into(), "arn:aws:iam::1:role/o".into()];
        spec.operator_principal_arns = vec!["arn:aws:iam::1:role/o".into()];
        let entries = desired_entries(&spec);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].policy_arn, EDIT_POLICY);
        assert_eq!(entries[0].kubernetes_groups, ["research-operators"]);
        assert_eq!(entries[1].policy_arn, VIEW_POLICY);
        assert!(entries.iter().all(|e| e.namespaces == ["hyperpod-ns-research"]));
    }

    #[test]
    fn role_policies_follow_the_target_role_and_the_data() {
        let mut spec = spec();
        assert!(role_policies(&spec, "aws").is_empty());
        if let Some(workload) = spec.workload.as_mut() {
            workload.target_role_arn = crate::governance::Setting::Set("arn:aws:iam::444455556666:role/t".into());
        }
        spec.data.buckets = vec!["research-datasets".into()];
        let policies = role_policies(&spec, "aws");
        assert_eq!(policies.keys().collect::<Vec<_>>(), [DATA_POLICY, TARGET_POLICY]);
        assert!(policies[DATA_POLICY].contains("arn:aws:s3:::research-datasets/*"));
        assert!(policies[TARGET_POLICY].contains("arn:aws:iam::444455556666:role/t"));
    }

    #[test]
    fn trust_is_only_pod_identity() {
        let trust: Json = serde_json::from_str(&trust_policy()).unwrap_or_default();
        assert_eq!(trust["Statement"][0]["Principal"]["Service"], "pods.eks.amazonaws.com");
        assert_eq!(trust["Statement"].as_array().map(Vec::len), Some(1));
    }
}
