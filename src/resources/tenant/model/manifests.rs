//! The Kubernetes objects of an EKS tenant, rendered at plan time so the reviewer reads exactly what apply writes:
//! the service account, viewer and operator RBAC bound to groups, and default-deny NetworkPolicies with explicit
//! allows. `normalize` turns a live object back into the same shape, so out-of-band changes show as a diff.

use serde_json::{Value as Json, json};

use super::{NetworkPolicyConfig, TenantConfig};
pub use crate::kubernetes::objects::{MANAGED_BY, MANAGED_BY_LABEL, Object as Manifest};

pub const TENANT_LABEL: &str = "hyperpod.governance/tenant";
pub const VIEWER: &str = "hyperpod-tenant-viewer";
pub const OPERATOR: &str = "hyperpod-tenant-operator";
pub const DEFAULT_DENY: &str = "hyperpod-tenant-default-deny";
pub const ALLOW_DNS: &str = "hyperpod-tenant-allow-dns";
pub const ALLOW_SAME_NAMESPACE: &str = "hyperpod-tenant-allow-same-namespace";
pub const ALLOW_EGRESS: &str = "hyperpod-tenant-allow-egress";

const RBAC: &str = "rbac.authorization.k8s.io";
const RBAC_V1: &str = "rbac.authorization.k8s.io/v1";
const NETWORKING_V1: &str = "networking.k8s.io/v1";

/// What the tenant's groups work with: tasks and what they need to follow them. Viewer and operator get the same
/// resources with different verbs, so seeing and acting stay separate grants (WKL-7).
const TASK_RESOURCES: &[(&str, &[&str])] = &[
    ("", &["pods", "pods/log", "events", "services", "configmaps"]),
    ("batch", &["jobs", "cronjobs"]),
    ("kubeflow.org", &["pytorchjobs", "mpijobs"]),
    ("kueue.x-k8s.io", &["workloads"]),
];

fn metadata(name: &str, namespace: &str, team: &str) -> Json {
    json!({
        "name": name,
        "namespace": namespace,
        "labels": { MANAGED_BY_LABEL: MANAGED_BY, TENANT_LABEL: team },
    })
}

/// HyperPod spaces: the Workspaces of the team namespace, granted only to a tenant with a `spaces` block.
const SPACE_RESOURCES: (&str, &[&str]) = ("workspace.jupyter.org", &["workspaces"]);

fn role(name: &str, namespace: &str, team: &str, verbs: &[String], spaces: bool) -> Manifest {
    let rules: Vec<Json> = TASK_RESOURCES
        .iter()
        .chain(spaces.then_some(&SPACE_RESOURCES))
        .map(|(group, resources)| json!({ "apiGroups": [group], "resources": resources, "verbs": verbs }))
        .collect();
    Manifest::new(
        "Role",
        Some(namespace),
        name,
        json!({ "apiVersion": RBAC_V1, "kind": "Role", "metadata": metadata(name, namespace, team), "rules": rules }),
    )
}

fn role_binding(name: &str, namespace: &str, team: &str, groups: &[String]) -> Manifest {
    let subjects: Vec<Json> = groups
        .iter()
        .map(|group| json!({ "apiGroup": RBAC, "kind": "Group", "name": group }))
        .collect();
    Manifest::new(
        "RoleBinding",
        Some(namespace),
        name,
        json!({
            "apiVersion": RBAC_V1,
            "kind": "RoleBinding",
            "metadata": metadata(name, namespace, team),
            "roleRef": { "apiGroup": RBAC, "kind": "Role", "name": name },
            "subjects": subjects,
        }),
    )
}

fn network_policy(name: &str, namespace: &str, team: &str, spec: Json) -> Manifest {
    Manifest::new(
        "NetworkPolicy",
        Some(namespace),
        name,
        json!({
            "apiVersion": NETWORKING_V1,
            "kind": "NetworkPolicy",
            "metadata": metadata(name, namespace, team),
            "spec": spec,
        }),
    )
}

/// Every object of the tenant, in apply order (deletion runs in reverse): its service account, the viewer and
/// operator RBAC, the network policies.
pub fn render(spec: &TenantConfig) -> Vec<Manifest> {
    let namespace = spec.namespace();
    let team = spec.team.as_str();
    let mut out = Vec::new();
    if let Some(workload) = &spec.workload {
        out.push(Manifest::new(
            "ServiceAccount",
            Some(&namespace),
            &workload.service_account,
            json!({
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": metadata(&workload.service_account, &namespace, team),
            }),
        ));
    }
    for (name, groups, verbs) in [
        (VIEWER, &spec.viewer_groups, &spec.viewer_verbs),
        (OPERATOR, &spec.operator_groups, &spec.operator_verbs),
    ] {
        if !groups.is_empty() {
            out.push(role(name, &namespace, team, verbs, spec.spaces.is_some()));
            out.push(role_binding(name, &namespace, team, groups));
        }
    }
    out.extend(network_policies(&spec.network, &namespace, team));
    out
}

/// Default deny, then what it allows. Without default deny there is nothing to allow: an allow policy alone would
/// isolate the pods it selects.
fn network_policies(network: &NetworkPolicyConfig, namespace: &str, team: &str) -> Vec<Manifest> {
    if !network.default_deny {
        return Vec::new();
    }
    let mut specs = vec![(
        DEFAULT_DENY,
        json!({ "podSelector": {}, "policyTypes": ["Ingress", "Egress"] }),
    )];
    if network.allow_dns {
        specs.push((
            ALLOW_DNS,
            json!({
                "podSelector": {},
                "policyTypes": ["Egress"],
                "egress": [{
                    "to": [{
                        "namespaceSelector": { "matchLabels": { "kubernetes.io/metadata.name": "kube-system" } },
                        "podSelector": { "matchLabels": { "k8s-app": "kube-dns" } },
                    }],
                    "ports": [{ "port": 53, "protocol": "UDP" }, { "port": 53, "protocol": "TCP" }],
                }],
            }),
        ));
    }
    if network.allow_same_namespace {
        specs.push((
            ALLOW_SAME_NAMESPACE,
            json!({
                "podSelector": {},
                "policyTypes": ["Ingress", "Egress"],
                "ingress": [{ "from": [{ "podSelector": {} }] }],
                "egress": [{ "to": [{ "podSelector": {} }] }],
            }),
        ));
    }
    if !network.egress_cidrs.is_empty() {
        let to: Vec<Json> = network
            .egress_cidrs
            .iter()
            .map(|cidr| json!({ "ipBlock": { "cidr": cidr } }))
            .collect();
        specs.push((
            ALLOW_EGRESS,
            json!({ "podSelector": {}, "policyTypes": ["Egress"], "egress": [{ "to": to }] }),
        ));
    }
    specs
        .into_iter()
        .map(|(name, spec)| network_policy(name, namespace, team, spec))
        .collect()
}

/// The label keys the tenant sets (what `normalize` keeps of a live object's labels).
pub const LABELS: [&str; 2] = [MANAGED_BY_LABEL, TENANT_LABEL];

/// A live object in the rendered shape (see `kubernetes::objects::normalize`).
pub fn normalize(live: &Json) -> Json {
    crate::kubernetes::objects::normalize(live, &LABELS)
}

/// The `components` value of an object the tenant writes: `<namespace>@<digest of its content>` (the key names its
/// kind and name). `body` is the rendered object at plan and apply, the live one at refresh; both in the normalized
/// shape, so they agree exactly when the object is as the provider writes it.
pub fn component_value(namespace: &str, body: &Json) -> String {
    crate::resources::with_digest(namespace, &normalize(body).to_string())
}

/// `component_value` of a rendered object.
pub fn rendered_value(namespace: &str, manifest: &Manifest) -> String {
    component_value(namespace, &manifest.body)
}

/// How a live object differs from the rendered one, for the drift warning: the top-level fields that differ (`rules`,
/// `subjects`, `spec`, labels), each with its live and written value, cut short.
pub fn differences(live: &Json, rendered: &Json) -> String {
    let (live, rendered) = (normalize(live), normalize(rendered));
    let short = |value: Option<&Json>| {
        let text = value.map_or_else(|| "absent".to_string(), Json::to_string);
        if text.chars().count() > 100 {
            format!("{}…", text.chars().take(100).collect::<String>())
        } else {
            text
        }
    };
    let mut fields: Vec<&String> = live
        .as_object()
        .into_iter()
        .chain(rendered.as_object())
        .flat_map(|fields| fields.keys())
        .collect();
    fields.sort();
    fields.dedup();
    let differing: Vec<String> = fields
        .into_iter()
        .filter(|field| live.get(field.as_str()) != rendered.get(field.as_str()))
        .map(|field| {
            format!(
                "{field} is {} live, {} as written",
                short(live.get(field.as_str())),
                short(rendered.get(field.as_str()))
            )
        })
        .collect();
    if differing.is_empty() {
        "its content differs".to_string()
    } else {
        differing.join("; ")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::governance::Setting;
    use crate::resources::tenant::model::{DataAccessConfig, NetworkPolicyConfig, WorkloadIdentityConfig};

    pub fn spec() -> TenantConfig {
        TenantConfig {
            team: "research".into(),
            quota_name: None,
            quota_description: None,
            quota: Vec::new(),
            sharing: None,
            sharing_written: false,
            preempt_team_tasks: crate::quota_settings::Preemption::LowerPriority,
            fair_share_weight: None,
            priority_class: None,
            activation_state: crate::quota_settings::Activation::Enabled,
            viewer_groups: vec!["research-viewers".into()],
            operator_groups: vec!["research-operators".into()],
            viewer_principal_arns: Vec::new(),
            operator_principal_arns: Vec::new(),
            viewer_verbs: vec!["get".into(), "list".into(), "watch".into()],
            operator_verbs: vec!["create".into(), "delete".into()],
            network: NetworkPolicyConfig {
                default_deny: true,
                allow_dns: true,
                allow_same_namespace: true,
                egress_cidrs: vec!["10.0.0.0/16".into()],
            },
            workload: Some(WorkloadIdentityConfig {
                service_account: "research-jobs".into(),
                target_role_arn: Setting::Unset,
                disable_session_tags: false,
                session_policy: None,
            }),
            data: DataAccessConfig::default(),
            slurm: None,
            tags: std::collections::BTreeMap::default(),
            spaces: None,
            left_to_live: crate::resources::tenant::model::kept::LeftToLive::default(),
        }
    }

    fn names(manifests: &[Manifest]) -> Vec<String> {
        manifests.iter().map(|m| m.component().key()).collect()
    }

    #[test]
    fn only_a_tenant_with_spaces_grants_workspaces_to_its_groups() {
        let workspaces = |spec: &TenantConfig| -> Vec<Json> {
            render(spec)
                .iter()
                .filter(|m| m.kind == "Role")
                .map(|m| {
                    json!([
                        m.name.clone(),
                        m.body["rules"]
                            .as_array()
                            .map(|r| r.iter().any(|rule| rule["apiGroups"][0] == "workspace.jupyter.org"))
                    ])
                })
                .collect()
        };
        let mut spec = spec();
        assert_eq!(
            workspaces(&spec),
            [json!([VIEWER, false]), json!([OPERATOR, false])],
            "no spaces: no Workspaces"
        );
        spec.spaces = Some(crate::governance::Spaces {
            priority_class: "interactive".into(),
            guaranteed: Vec::new(),
        });
        assert_eq!(workspaces(&spec), [json!([VIEWER, true]), json!([OPERATOR, true])]);
        let operator = render(&spec)
            .into_iter()
            .find(|m| m.kind == "Role" && m.name == OPERATOR);
        let rules = operator.map(|m| m.body["rules"].clone()).unwrap_or_default();
        let spaces_rule = rules.as_array().and_then(|r| r.last()).cloned().unwrap_or_default();
        assert_eq!(spaces_rule["resources"], json!(["workspaces"]));
        assert_eq!(
            spaces_rule["verbs"],
            json!(spec.operator_verbs),
            "operators act on spaces with their verbs"
        );
    }

    #[test]
    fn renders_identity_rbac_and_network_isolation_in_apply_order() {
        let manifests = render(&spec());
        assert_eq!(
            names(&manifests),
            [
                "kubernetes/ServiceAccount/research-jobs",
                "kubernetes/Role/hyperpod-tenant-viewer",
                "kubernetes/RoleBinding/hyperpod-tenant-viewer",
                "kubernetes/Role/hyperpod-tenant-operator",
                "kubernetes/RoleBinding/hyperpod-tenant-operator",
                "kubernetes/NetworkPolicy/hyperpod-tenant-default-deny",
                "kubernetes/NetworkPolicy/hyperpod-tenant-allow-dns",
                "kubernetes/NetworkPolicy/hyperpod-tenant-allow-same-namespace",
                "kubernetes/NetworkPolicy/hyperpod-tenant-allow-egress",
            ]
        );
        for manifest in &manifests {
            assert_eq!(manifest.body["metadata"]["namespace"], "hyperpod-ns-research");
            assert_eq!(manifest.body["metadata"]["labels"][TENANT_LABEL], "research");
        }
        let viewer = &manifests[1].body;
        assert_eq!(viewer["rules"][0]["verbs"], json!(["get", "list", "watch"]));
        let binding = &manifests[2].body;
        assert_eq!(binding["subjects"][0]["kind"], "Group");
        assert_eq!(binding["subjects"][0]["name"], "research-viewers");
        assert_eq!(manifests[5].body["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(
            manifests[8].body["spec"]["egress"][0]["to"][0]["ipBlock"]["cidr"],
            "10.0.0.0/16"
        );
    }

    #[test]
    fn no_groups_no_rbac_and_no_default_deny_no_policies() {
        let mut open = spec();
        open.viewer_groups.clear();
        open.network.default_deny = false;
        assert_eq!(
            names(&render(&open)),
            [
                "kubernetes/ServiceAccount/research-jobs",
                "kubernetes/Role/hyperpod-tenant-operator",
                "kubernetes/RoleBinding/hyperpod-tenant-operator"
            ]
        );
    }

    #[test]
    fn a_live_object_as_written_has_the_rendered_digest_and_an_edit_names_what_differs() {
        let rendered = render(&spec());
        let deny = rendered.iter().find(|m| m.name == DEFAULT_DENY).expect("default deny");
        let mut live = deny.body.clone();
        live["metadata"]["uid"] = json!("0b5c");
        live["metadata"]["resourceVersion"] = json!("42");
        live["status"] = json!({});
        let value = rendered_value("hyperpod-ns-research", deny);
        assert_eq!(component_value("hyperpod-ns-research", &live), value);
        live["spec"]["policyTypes"] = json!(["Ingress"]);
        assert_ne!(component_value("hyperpod-ns-research", &live), value);
        assert_eq!(
            differences(&live, &deny.body),
            r#"spec is {"podSelector":{},"policyTypes":["Ingress"]} live, {"podSelector":{},"policyTypes":["Ingress","Egress"]} as written"#
        );
    }
}
