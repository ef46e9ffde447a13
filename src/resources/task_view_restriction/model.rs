//! What a restriction wants, as pure values: the access policies and their scopes, the RBAC objects, the Slurm tag
//! and `PrivateData` lines, and the `components` keys they are recorded under.

use std::collections::BTreeMap;

use serde_json::json;

use crate::kubernetes::objects::{MANAGED_BY, MANAGED_BY_LABEL, Object};
use crate::protocol::decode::Fields;
use crate::protocol::value::Value;

pub const ENTRY: &str = "access_entry";
/// The tag on an access entry the restriction creates, valued with its `id` (`<cluster>/<role name>`): an entry
/// carrying it is this restriction's even when an interrupted apply never recorded it.
pub const OWNER_TAG: &str = crate::tags::TASK_VIEW_RESTRICTION;
/// The governance mark on an access entry: the name of the contract that governs it. An entry the restriction
/// creates carries it from the start; one it adopts (Studio's "Manage access", an import) gets it as the component
/// [`CONTRACT_TAG_COMPONENT`], removed again on destroy, so the inventory reads adopted entries as governed too.
pub const CONTRACT_TAG: &str = crate::tags::CONTRACT;
/// `entry_tag/<CONTRACT_TAG>` (a literal: consts cannot be joined; a test holds them together).
pub const CONTRACT_TAG_COMPONENT: &str = "entry_tag/hyperpod:contract";
pub const RUN_AS_TAG: &str = "SSMSessionRunAs";
pub const VIEWER_ROLE: &str = "hyperpod-studio-viewer";
/// The probe ClusterRole is named `hyperpod-studio-probes-<group>`, and Kubernetes names are at most 253
/// characters: the group may take what the prefix leaves.
pub const PROBES_PREFIX: &str = "hyperpod-studio-probes-";
pub const GROUP_MAX: usize = 253 - PROBES_PREFIX.len();
pub const SPACE_TEMPLATE_POLICY: &str = "AmazonSagemakerHyperpodSpaceTemplatePolicy";
/// Where Studio keeps shared space templates.
pub const SPACE_TEMPLATE_NAMESPACE: &str = "jupyter-k8s-shared";
/// Cluster-scoped: lets Studio probe CRDs and its own access (`SelfSubjectAccessReview`).
pub const USER_CLUSTER_POLICY: &str = "AmazonSagemakerHyperpodUserClusterPolicy";
const RBAC: &str = "rbac.authorization.k8s.io";
const RBAC_V1: &str = "rbac.authorization.k8s.io/v1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    AccessPolicy,
    Rbac,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionSpec {
    pub project_role_arn: String,
    pub namespaces: Vec<String>,
    pub mode: Mode,
    pub access_policies: Vec<String>,
    pub space_templates: bool,
    pub kubernetes_group: String,
    pub slurm_os_user: Option<String>,
}

/// One access policy association the restriction wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Association {
    pub policy_arn: String,
    /// Empty: cluster scope.
    pub namespaces: Vec<String>,
}

impl Association {
    /// `access_policy/<policy name>`: the name alone (the partition is the cluster's), so the key stays short.
    pub fn component(&self) -> String {
        format!("access_policy/{}", policy_name(&self.policy_arn))
    }
    /// What `components` records: the scope, so a changed scope is drift.
    pub fn scope(&self) -> String {
        if self.namespaces.is_empty() {
            "cluster".to_string()
        } else {
            format!("namespace:{}", self.namespaces.join(","))
        }
    }
}

pub fn policy_arn(partition: &str, name: &str) -> String {
    format!("arn:{partition}:eks::aws:cluster-access-policy/{name}")
}

/// An access policy's name, the last segment of its ARN.
pub fn policy_name(policy_arn: &str) -> &str {
    policy_arn.rsplit('/').next().unwrap_or(policy_arn)
}

/// The policy ARN an `access_policy/<name>` component names (the 0→1 state upgrader rewrote keys that held ARNs).
pub fn component_policy_arn(partition: &str, component: &str) -> Option<String> {
    Some(policy_arn(partition, component.strip_prefix("access_policy/")?))
}

/// The role's name, the last segment of its ARN.
pub fn role_name(role_arn: &str) -> &str {
    role_arn.rsplit('/').next().unwrap_or(role_arn)
}

impl RestrictionSpec {
    /// From the planned value; `None` while a value is unknown. `default_role` and `default_namespaces` come from the
    /// contract.
    pub fn from_value(value: &Value, default_role: Option<String>, default_namespaces: &[String]) -> Option<Self> {
        // Through `protocol::decode`: a setting not known yet defers the whole restriction (its objects depend on
        // it), never reads as unset.
        let restriction = Fields(value);
        let project_role_arn = match restriction.string("project_role_arn").optional()? {
            Some(arn) => arn,
            None => default_role?,
        };
        let namespaces = match restriction.strings("namespaces").optional()? {
            Some(namespaces) => namespaces,
            None => default_namespaces.to_vec(),
        };
        let kubernetes_group = match restriction.string("kubernetes_group").optional()? {
            Some(group) => group,
            None => default_group(&project_role_arn),
        };
        let slurm_os_user = match restriction.block("slurm").optional()? {
            Some(slurm) => slurm.string("os_user").optional()?,
            None => None,
        };
        Some(Self {
            mode: match restriction
                .string("mode")
                .or_when_null("access_policy".into())?
                .as_str()
            {
                "rbac" => Mode::Rbac,
                _ => Mode::AccessPolicy,
            },
            access_policies: restriction.strings("access_policies").or_empty()?,
            space_templates: restriction.bool("space_templates").or_when_null(false)?,
            slurm_os_user,
            project_role_arn,
            namespaces,
            kubernetes_group,
        })
    }

    /// EKS: the associations the restriction wants on the project role's access entry (none in RBAC mode).
    pub fn associations(&self, partition: &str) -> Vec<Association> {
        if self.mode == Mode::Rbac {
            return Vec::new();
        }
        let mut out: Vec<Association> = self
            .access_policies
            .iter()
            .map(|name| Association {
                policy_arn: policy_arn(partition, name),
                namespaces: self.namespaces.clone(),
            })
            .collect();
        if self.space_templates {
            out.push(Association {
                policy_arn: policy_arn(partition, SPACE_TEMPLATE_POLICY),
                namespaces: vec![SPACE_TEMPLATE_NAMESPACE.to_string()],
            });
        }
        out.push(Association {
            policy_arn: policy_arn(partition, USER_CLUSTER_POLICY),
            namespaces: Vec::new(),
        });
        out
    }

    /// EKS RBAC mode: a viewer Role and RoleBinding per namespace, and the cluster-scoped probe grant Studio needs.
    pub fn manifests(&self) -> Vec<Object> {
        if self.mode != Mode::Rbac {
            return Vec::new();
        }
        let group = &self.kubernetes_group;
        let labels = json!({ MANAGED_BY_LABEL: MANAGED_BY });
        let subjects = json!([{ "apiGroup": RBAC, "kind": "Group", "name": group }]);
        let mut out = Vec::new();
        for namespace in &self.namespaces {
            let metadata = json!({ "name": VIEWER_ROLE, "namespace": namespace, "labels": labels });
            out.push(Object::new(
                "Role",
                Some(namespace),
                VIEWER_ROLE,
                json!({
                    "apiVersion": RBAC_V1,
                    "kind": "Role",
                    "metadata": metadata,
                    "rules": [
                        { "apiGroups": [""], "resources": ["pods", "pods/log", "events"], "verbs": ["get", "list", "watch"] },
                        { "apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"] },
                        { "apiGroups": ["kubeflow.org"], "resources": ["pytorchjobs"], "verbs": ["get", "list", "watch"] },
                        { "apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"], "verbs": ["get", "list", "watch"] },
                    ],
                }),
            ));
            out.push(Object::new(
                "RoleBinding",
                Some(namespace),
                VIEWER_ROLE,
                json!({
                    "apiVersion": RBAC_V1,
                    "kind": "RoleBinding",
                    "metadata": metadata,
                    "roleRef": { "apiGroup": RBAC, "kind": "Role", "name": VIEWER_ROLE },
                    "subjects": subjects,
                }),
            ));
        }
        let probes = format!("{PROBES_PREFIX}{group}");
        let metadata = json!({ "name": probes, "labels": labels });
        out.push(Object::new(
            "ClusterRole",
            None,
            &probes,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "ClusterRole",
                "metadata": metadata,
                "rules": [
                    { "apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["get"] },
                    { "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews"], "verbs": ["create"] },
                ],
            }),
        ));
        out.push(Object::new(
            "ClusterRoleBinding",
            None,
            &probes,
            json!({
                "apiVersion": RBAC_V1,
                "kind": "ClusterRoleBinding",
                "metadata": metadata,
                "roleRef": { "apiGroup": RBAC, "kind": "ClusterRole", "name": probes },
                "subjects": subjects,
            }),
        ));
        out
    }
}

/// `hyperpod-studio-<role name>`, lowercased to a valid group name.
pub fn default_group(role_arn: &str) -> String {
    let name: String = role_name(role_arn)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("hyperpod-studio-{}", name.trim_matches('-'))
}

/// The `components` key of a Kubernetes object: kind, namespace (`-` when cluster-scoped) and name.
pub fn object_component(object: &Object) -> String {
    format!(
        "kubernetes/{}/{}/{}",
        object.kind,
        object.namespace.as_deref().unwrap_or("-"),
        object.name
    )
}

/// The `components` value of a Kubernetes object: the short digest of its content (`resources::short_digest`; the
/// key names the object). `body` is the rendered object, or the live one at refresh.
pub fn object_value(body: &serde_json::Value) -> String {
    let normalized = crate::kubernetes::objects::normalize(body, &[MANAGED_BY_LABEL]);
    crate::resources::short_digest(&normalized.to_string())
}

/// The API path of the object a `kubernetes/<Kind>/<namespace or ->/<name>` component names.
pub fn component_path(component: &str) -> Option<String> {
    use crate::kubernetes::paths;
    let (kind, rest) = component.strip_prefix("kubernetes/")?.split_once('/')?;
    let (namespace, name) = rest.split_once('/')?;
    let (api_version, resource) = crate::kubernetes::objects::kind_path(kind)?;
    Some(match namespace {
        "-" => paths::cluster_scoped(api_version, resource, name),
        namespace => paths::namespaced(api_version, resource, namespace, name),
    })
}

/// Slurm: the lines that keep jobs, usage and users private (Studio then lists only the session user's jobs).
pub fn private_data_conf() -> String {
    "# hyperpod_task_view_restriction: users see only their own jobs, usage and user records\n\
     PrivateData=jobs,usage,users\n"
        .to_string()
}

/// What the restriction will have added, keyed as `components` records it. `adopted`: the access entry existed
/// before (Studio's "Manage access"), so it is not ours to delete; it gets the `contract`'s mark instead.
pub fn components(
    spec: &RestrictionSpec,
    partition: &str,
    eks: bool,
    adopted: bool,
    contract: &str,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if !eks {
        if let Some(user) = &spec.slurm_os_user {
            out.insert(format!("role_tag/{RUN_AS_TAG}"), user.clone());
        }
        return out;
    }
    if adopted {
        out.insert(CONTRACT_TAG_COMPONENT.to_string(), contract.to_string());
    } else {
        out.insert(ENTRY.to_string(), spec.project_role_arn.clone());
    }
    if spec.mode == Mode::Rbac {
        out.insert(
            format!("access_entry_group/{}", spec.kubernetes_group),
            spec.kubernetes_group.clone(),
        );
    }
    for association in spec.associations(partition) {
        out.insert(association.component(), association.scope());
    }
    for object in spec.manifests() {
        out.insert(object_component(&object), object_value(&object.body));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_mark_component_names_the_contract_tag() {
        assert_eq!(CONTRACT_TAG_COMPONENT, format!("entry_tag/{CONTRACT_TAG}"));
    }

    #[test]
    fn an_unknown_argument_is_never_read_as_unset() {
        use crate::protocol::object::{object, text, text_list};
        let mut full = super::super::schema_block().null_value();
        for (name, field) in [
            ("project_role_arn", text("arn:aws:iam::123456789012:role/p")),
            ("namespaces", text_list(&["hyperpod-ns-research".to_string()])),
            ("mode", text("rbac")),
            (
                "access_policies",
                text_list(&["AmazonSagemakerHyperpodTrainingPolicy".to_string()]),
            ),
            ("space_templates", Value::Bool(true)),
            ("kubernetes_group", text("studio")),
            ("slurm", object([("os_user", text("alice"))])),
        ] {
            crate::protocol::plan::set_attr(&mut full, name, field);
        }
        let decode = |value: &Value| RestrictionSpec::from_value(value, None, &[]);
        assert!(decode(&full).is_some(), "the baseline decodes");
        let wrong = crate::resources::decode_property::unknown_read_as_unset(
            &super::super::schema_block(),
            &full,
            // the contract's facts: `contract_from_governance`, which defers on unknown; the tenants: read by
            // `order::referenced_namespaces`, which defers the namespace check on unknown
            &["contract", "tenants"],
            decode,
        );
        assert!(wrong.is_empty(), "read as unset while unknown: {wrong:?}");
    }

    fn spec(mode: Mode) -> RestrictionSpec {
        RestrictionSpec {
            project_role_arn: "arn:aws:iam::123456789012:role/datazone_usr_role_research".into(),
            namespaces: vec!["hyperpod-ns-research".into()],
            mode,
            access_policies: vec!["AmazonSagemakerHyperpodTrainingPolicy".into()],
            space_templates: true,
            kubernetes_group: default_group("arn:aws:iam::123456789012:role/datazone_usr_role_research"),
            slurm_os_user: None,
        }
    }

    #[test]
    fn access_policy_mode_scopes_studio_policies_to_the_namespaces_and_probes_to_the_cluster() {
        let associations = spec(Mode::AccessPolicy).associations("aws");
        let scopes: Vec<(String, String)> = associations
            .iter()
            .map(|a| (role_name(&a.policy_arn).to_string(), a.scope()))
            .collect();
        assert_eq!(
            scopes,
            [
                (
                    "AmazonSagemakerHyperpodTrainingPolicy".to_string(),
                    "namespace:hyperpod-ns-research".to_string()
                ),
                (
                    "AmazonSagemakerHyperpodSpaceTemplatePolicy".to_string(),
                    "namespace:jupyter-k8s-shared".to_string()
                ),
                (
                    "AmazonSagemakerHyperpodUserClusterPolicy".to_string(),
                    "cluster".to_string()
                ),
            ]
        );
        assert!(spec(Mode::AccessPolicy).manifests().is_empty());
    }

    #[test]
    fn rbac_mode_renders_per_namespace_viewers_and_one_probe_grant() {
        let manifests = spec(Mode::Rbac).manifests();
        let keys: Vec<String> = manifests.iter().map(object_component).collect();
        assert_eq!(
            keys,
            [
                "kubernetes/Role/hyperpod-ns-research/hyperpod-studio-viewer",
                "kubernetes/RoleBinding/hyperpod-ns-research/hyperpod-studio-viewer",
                "kubernetes/ClusterRole/-/hyperpod-studio-probes-hyperpod-studio-datazone-usr-role-research",
                "kubernetes/ClusterRoleBinding/-/hyperpod-studio-probes-hyperpod-studio-datazone-usr-role-research",
            ]
        );
        assert_eq!(
            manifests[1].body["subjects"][0]["name"],
            "hyperpod-studio-datazone-usr-role-research"
        );
        assert_eq!(
            manifests[2].body["rules"][1]["resources"][0],
            "selfsubjectaccessreviews"
        );
        assert!(spec(Mode::Rbac).associations("aws").is_empty());
        // The key alone finds each object again (apply's stale removal, refresh, destroy); the value is its digest.
        for object in &manifests {
            assert_eq!(component_path(&object_component(object)), Some(object.path()));
            let value = object_value(&object.body);
            assert!(
                value.len() == 8 && value.chars().all(|c| c.is_ascii_hexdigit()),
                "{value}"
            );
        }
        assert_eq!(component_path("access_policy/AmazonEKSViewPolicy"), None);
    }

    #[test]
    fn an_adopted_entry_is_not_a_component_but_carries_the_contract_s_mark() {
        let created = components(&spec(Mode::AccessPolicy), "aws", true, false, "c1");
        assert!(created.contains_key(ENTRY));
        assert!(
            !created.contains_key(CONTRACT_TAG_COMPONENT),
            "a created entry is tagged at create"
        );
        let adopted = components(&spec(Mode::AccessPolicy), "aws", true, true, "c1");
        assert!(!adopted.contains_key(ENTRY));
        assert_eq!(adopted.get(CONTRACT_TAG_COMPONENT).map(String::as_str), Some("c1"));
        assert_eq!(adopted.len(), created.len());
    }
}
