//! `hyperpod_task_view_restriction` schema: the attributes with their validators and docs text, the identity, the
//! state upgrader, and what AWS and Kubernetes accept of what the restriction sends, checked at validate so apply
//! never fails on input the plan accepted: the project role's ARN (EKS `principalArn`, an IAM role: a session ARN is
//! refused), namespace names (Kubernetes DNS-1123 labels, the scope of every access policy and where the Roles go),
//! the Kubernetes group (a DNS subdomain short enough for the `hyperpod-studio-probes-<group>` ClusterRole name) and
//! lists without duplicates (a duplicate would be a diff on every plan).

use std::collections::BTreeMap;
use std::time::Duration;

use super::model::{GROUP_MAX, object_value, policy_name};
use crate::protocol::deadline::Operation;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::schema::{Attribute, Block, IdentitySchema, NestedBlock, Schema, Validator};
use crate::protocol::validators::{EachOneOf, Matches, OneOf};
use crate::protocol::value::{Type, Value};
use crate::resources::validators::IsArn;

pub const TYPE_NAME: &str = "hyperpod_task_view_restriction";

pub const MODES: [&str; 2] = ["access_policy", "rbac"];
/// The HyperPod Studio access policies a project role may hold per namespace.
pub const NAMESPACE_POLICIES: [&str; 3] = [
    "AmazonSagemakerHyperpodTrainingPolicy",
    "AmazonSagemakerHyperpodInferencePolicy",
    "AmazonSagemakerHyperpodSpacePolicy",
];
/// What lets Studio users run spaces in a namespace: only under a contract that approves `interactive` (WKL-12).
pub const SPACE_POLICY: &str = "AmazonSagemakerHyperpodSpacePolicy";

fn strings() -> Type {
    Type::list(Type::String)
}

fn computed(name: &'static str, ty: Type, description: &str) -> Attribute {
    Attribute::new(name, ty).computed().describe(description)
}

pub fn schema() -> Schema {
    let slurm = Block::new(
        "Slurm clusters: the OS user the project role's Session Manager sessions run as, so Studio lists only that \
         user's jobs.",
    )
    .attribute(
        Attribute::string("os_user")
            .required()
            .describe("Linux/Slurm user (`SSMSessionRunAs` tag on the project role).")
            .validate(Matches::new("[a-z_][a-z0-9_-]{0,31}", "a POSIX user name")),
    );
    let block = Block::new(
        "Restricts what a Unified Studio project's users see of a shared HyperPod cluster (Studio shows every team's \
         tasks by default). EKS, `access_policy` mode: the project role's access entry (adopted when Studio's \"Manage \
         access\" made it) with the HyperPod Studio access policies scoped to the project's namespaces plus \
         `AmazonSagemakerHyperpodUserClusterPolicy` at cluster scope. EKS, `rbac` mode: a Role and RoleBinding per \
         namespace and a minimal ClusterRole for Studio's probes, bound through the access entry's Kubernetes group. \
         Slurm: the `SSMSessionRunAs` tag on the project role, checked against Session Manager's Run As setting, and \
         a `PrivateData` fragment. Destroy removes only what this resource added.",
    )
    .attribute(
        Attribute::string("id")
            .computed()
            .describe("`<cluster>/<project role name>`, also the import ID."),
    )
    .attribute(
        Attribute::new("contract", crate::resources::connection_contract::governance_type())
            .write_only()
            .required()
            .describe("The contract's facts: `hyperpod_connection_contract.<name>.governance`."),
    )
    .attribute(
        Attribute::new("governance", crate::resources::references::restriction_type())
            .computed()
            .describe(
                "The restriction's facts, known at plan time: the cluster, the project role it restricts and its \
                 namespaces. A `hyperpod_unified_studio_project_binding` takes it as `task_view_restriction` \
                 (CLU-2), which also orders the binding after the restriction.",
            ),
    )
    .attribute(
        Attribute::string("project_role_arn")
            .optional_computed()
            .requires_replace()
            .describe("The project role whose view is restricted. Defaults to the contract's project role.")
            .validate(IsArn)
            .validate(role_arn()),
    )
    .attribute(
        Attribute::new("namespaces", strings())
            .optional_computed()
            .describe("EKS: the namespaces the project sees. Defaults to the contract's `eks_namespaces`.")
            .validate(EachNamespace)
            .validate(Distinct),
    )
    .attribute(
        Attribute::string("mode")
            .default_value(Value::String("access_policy".into()))
            .describe("EKS: `access_policy` (default; EKS access policies) or `rbac` (Kubernetes RBAC).")
            .validate(OneOf(&MODES)),
    )
    .attribute(
        Attribute::new("access_policies", strings())
            .default_value(Value::List(
                NAMESPACE_POLICIES.iter().map(|p| Value::String(p.to_string())).collect(),
            ))
            .describe(
                "EKS `access_policy` mode: the HyperPod Studio policies scoped to `namespaces`. The default drops \
                 `AmazonSagemakerHyperpodSpacePolicy` when the contract does not approve `interactive` workloads; \
                 naming it then is refused (WKL-12).",
            )
            .validate(EachOneOf(&NAMESPACE_POLICIES))
            .validate(Distinct),
    )
    .attribute(
        Attribute::bool("space_templates")
            .default_value(Value::Bool(false))
            .describe(
                "EKS `access_policy` mode: also `AmazonSagemakerHyperpodSpaceTemplatePolicy` on \
                 `jupyter-k8s-shared`; only under a contract that approves `interactive` workloads (WKL-12).",
            ),
    )
    .attribute(
        Attribute::string("space_template_namespace")
            .default_value(Value::String(
                super::model::SPACE_TEMPLATE_NAMESPACE.into(),
            ))
            .describe(
                "EKS `access_policy` mode, with `space_templates`: the namespace the space template policy is \
                 scoped to, where the cluster's shared space templates live (AWS's add-user page: \
                 `jupyter-k8s-shared`, the default).",
            )
            .validate(crate::protocol::validators::LengthBetween { min: 1, max: 63 })
            .validate(Matches::new(
                "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
                "a Kubernetes namespace: lowercase letters, digits and hyphens",
            )),
    )
    .attribute(
        Attribute::bool("user_cluster_policy")
            .default_value(Value::Bool(true))
            .describe(
                "EKS `access_policy` mode: also `AmazonSagemakerHyperpodUserClusterPolicy` at cluster scope, which \
                 Studio needs to render cluster-wide views (namespaces, nodes, Kueue cluster queues; default \
                 `true`). `false` grants the namespace-scoped policies alone, as AWS's add-user page does for \
                 spaces.",
            ),
    )
    .attribute(
        Attribute::string("kubernetes_group")
            .optional_computed()
            .describe("EKS `rbac` mode: the group the access entry maps the role to. Defaults to `hyperpod-studio-<role name>`.")
            // The probe ClusterRole's name carries the group: a DNS subdomain of at most 253 characters in all.
            .validate(crate::protocol::validators::LengthBetween { min: 1, max: GROUP_MAX })
            .validate(kubernetes_group()),
    )
    .attribute(
        Attribute::new("tenants", Type::list(crate::resources::references::tenant_type()))
            .optional()
            .write_only()
            .describe(
                "EKS `rbac` mode: the tenants whose namespaces the restriction writes its Roles into, \
                 `[hyperpod_tenant.<name>.governance]`. HyperPod creates `hyperpod-ns-<team>` with the team's compute \
                 quota, so the reference makes Terraform apply the tenant first; a namespace that neither exists nor \
                 belongs to a referenced tenant is refused.",
            ),
    )
    .attribute(
        computed(
            "cluster_name",
            Type::String,
            "The contract's cluster. A contract that names another cluster replaces the restriction: what it added on \
             the old cluster is removed first, then the new cluster's access made.",
        )
        .requires_replace(),
    )
    .attribute(computed("cluster_arn", Type::String, "The HyperPod cluster's ARN, resolved at plan time."))
    .attribute(computed("orchestrator", Type::String, "`eks` or `slurm`."))
    .attribute(computed(
        "private_data_conf",
        Type::String,
        "Slurm: the `slurm.conf` lines that keep jobs, usage and users private to their owners.",
    ))
    .attribute(computed(
        "components",
        Type::Map(Box::new(Type::String)),
        "What this resource added (the access entry if it created it, each policy association with its scope as \
         `access_policy/<policy name>`, Kubernetes objects, the role tag), so destroy removes exactly that and refresh shows what went missing. A \
         Kubernetes object's value is a short digest of the content the provider writes (the key names its kind, \
         namespace or `-`, and name): an \
         object edited outside Terraform, or a provider version that writes it differently, shows as a changed value.",
    ))
    .attributes(crate::resources::checklist::attributes())
    .block(NestedBlock::single("slurm", slurm))
    .timeouts(&[Operation::Create, Operation::Update, Operation::Delete], Duration::from_mins(10));
    // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
    Schema { version: 1, block }
}

pub fn identity_schema() -> IdentitySchema {
    crate::resources::import_id::identity_schema([
        ("cluster_name", "Name of the HyperPod cluster."),
        ("project_role_arn", "The restricted project role."),
    ])
}

pub fn identity(cluster_name: &str, project_role_arn: &str) -> Value {
    crate::resources::import_id::identity(["cluster_name", "project_role_arn"], [cluster_name, project_role_arn])
}

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `associated_policies` and `kubernetes_manifests` are removed; `components` names access policies by name.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `associated_policies` and \
                 `kubernetes_manifests` are removed; `contract` and `tenants` become write-only; `components` keys \
                 access policies by name",
        upgrade: upgrade_state,
    }];

/// The step from version 0: the checklist (`checklist::upgrade_state`), and `associated_policies` and
/// `kubernetes_manifests` dropped (`components` names the same; the next refresh records each object's digest).
pub fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    use crate::component::{Component, ObjectKey};
    use serde_json::Value as Json;
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    state.remove("associated_policies");
    let manifests = crate::resources::take_recorded_manifests(state);
    let Some(Json::Object(components)) = state.get_mut("components") else {
        return Ok(());
    };
    // `access_policy/<ARN>` becomes `access_policy/<name>` (see `Association::component`).
    let by_arn: Vec<String> = (components.keys())
        .filter(|key| matches!(Component::parse(key), Some(Component::AccessPolicy(name)) if name.starts_with("arn:")))
        .cloned()
        .collect();
    for key in by_arn {
        if let Some(scope) = components.remove(&key) {
            components.insert(Component::AccessPolicy(policy_name(&key).to_string()).key(), scope);
        }
    }
    // Each object's value gains the digest of the content state recorded (what the last refresh read), so the
    // first refresh after the upgrade reports no change.
    for object in &manifests {
        let field = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Json::as_str)
                .unwrap_or("-")
                .to_string()
        };
        let namespace = object.pointer("/metadata/namespace").and_then(Json::as_str);
        let key = Component::Kubernetes(ObjectKey::placed(&field("/kind"), namespace, &field("/metadata/name"))).key();
        if components.contains_key(&key) {
            components.insert(key, Json::String(object_value(object)));
        }
    }
    Ok(())
}

/// IAM: role names are 1 to 64 of `[\w+=,.@-]`, paths `/`-delimited printable ASCII up to 512 characters
/// (iam service model, `roleNameType` and `pathType`); `arn:<partition>:iam::<account>:role/<path><name>`.
pub const ROLE_ARN: &str = r"arn:aws[a-z-]*:iam::[0-9]{12}:role/(?:[\x21-\x7E]{0,510}/)?[\w+=,.@-]{1,64}";
/// A DNS-1123 label: a namespace name.
pub const DNS_LABEL: &str = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
/// A DNS-1123 subdomain (dot-separated labels), for names Kubernetes validates as object names.
pub const DNS_SUBDOMAIN: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

pub fn role_arn() -> Matches {
    Matches::new(
        ROLE_ARN,
        "an IAM role ARN such as \"arn:aws:iam::123456789012:role/datazone_usr_role_research\" (EKS access entries \
         take roles and users, not assumed-role sessions; a role name is 1 to 64 letters, digits and `+=,.@_-`)",
    )
}

pub fn kubernetes_group() -> Matches {
    Matches::new(
        DNS_SUBDOMAIN,
        "a lowercase Kubernetes name: letters, digits, `-` and `.`, starting and ending with a letter or digit",
    )
}

/// Every element of a list is a Kubernetes namespace name, reported at the element.
pub struct EachNamespace;

impl Validator for EachNamespace {
    fn description(&self) -> String {
        "Each a Kubernetes namespace name (DNS-1123 label: 1 to 63 lowercase letters, digits and `-`).".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let label = Matches::new(DNS_LABEL, "");
        for (index, item) in elements(value) {
            if let Value::String(text) = item
                && !label.is_match(text)
            {
                diagnostics.push(Diagnostic::invalid_value(
                    path.index(index),
                    format!("{text:?}"),
                    "Kubernetes refuses this namespace name",
                    "use 1 to 63 lowercase letters, digits and `-`, starting and ending with a letter or digit, \
                     e.g. \"hyperpod-ns-research\"",
                ));
            }
        }
    }
}

/// No element of a list twice: each duplicate is reported at its own index, naming the first.
pub struct Distinct;

impl Validator for Distinct {
    fn description(&self) -> String {
        "No duplicates.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let mut first: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, item) in elements(value) {
            let Value::String(text) = item else { continue };
            if let Some(earlier) = first.get(text.as_str()) {
                diagnostics.push(Diagnostic::invalid_value(
                    path.index(index),
                    format!("{text:?}"),
                    &format!("the value is listed twice (also at index {earlier})"),
                    "list each value once",
                ));
            } else {
                first.insert(text, index);
            }
        }
    }
}

fn elements(value: &Value) -> impl Iterator<Item = (usize, &Value)> {
    match value {
        Value::List(items) => items.iter().enumerate().collect::<Vec<_>>().into_iter(),
        _ => Vec::new().into_iter(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::text_list;

    /// The first restriction of the recorded 0.3.0-dev quickstart state (`team["production"]`).
    #[test]
    fn upgraded_restriction_state_keys_its_access_policies_by_name_with_their_scopes() {
        let mut raw = crate::resources::recorded_state::instance("hyperpod_task_view_restriction", "team");
        let training = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy";
        let scope = raw["components"][format!("access_policy/{training}")].clone();
        assert!(scope.as_str().is_some_and(|s| s.starts_with("namespace:")), "{scope}");
        super::upgrade_state(&mut raw).expect("upgrades");
        let components = raw["components"].as_object().cloned().unwrap_or_default();
        assert_eq!(components["access_policy/AmazonSagemakerHyperpodTrainingPolicy"], scope);
        assert!(
            !components.keys().any(|key| key.starts_with("access_policy/arn:")),
            "{components:?}"
        );
        assert_eq!(components["access_entry"], raw["project_role_arn"]);
    }

    fn run(validator: &dyn Validator, value: &Value) -> Vec<String> {
        let mut diagnostics = Diagnostics::new();
        validator.validate(&AttributePath::attr("x"), value, &mut diagnostics);
        diagnostics.0.iter().map(|d| format!("{:?}", d.path)).collect()
    }

    fn list(items: &[&str]) -> Value {
        text_list(&items.iter().map(std::string::ToString::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn a_duplicate_is_reported_at_its_own_index() {
        let paths = run(&Distinct, &list(&["a", "b", "a", "a"]));
        assert_eq!(paths.len(), 2);
        assert!(
            paths[0].contains("Index(2)") && paths[1].contains("Index(3)"),
            "{paths:?}"
        );
        assert!(run(&Distinct, &list(&["a", "b"])).is_empty());
    }

    #[test]
    fn namespaces_are_dns_labels() {
        assert!(run(&EachNamespace, &list(&["hyperpod-ns-research", "default"])).is_empty());
        let long = "a".repeat(64);
        let paths = run(&EachNamespace, &list(&["ok", "Bad", "-x", &long, "a.b", ""]));
        assert_eq!(paths.len(), 5, "{paths:?}");
    }

    #[test]
    fn role_arns_are_iam_roles() {
        let arn = role_arn();
        for good in [
            "arn:aws:iam::123456789012:role/datazone_usr_role_research",
            "arn:aws:iam::123456789012:role/service-role/a+b=c,d.e@f-g",
            "arn:aws-cn:iam::123456789012:role/x",
        ] {
            assert!(arn.is_match(good), "{good}");
        }
        for bad in [
            "arn:aws:sts::123456789012:assumed-role/r/session",
            "arn:aws:iam::123456789012:user/alice",
            "arn:aws:iam::12345678901:role/x",
            "arn:aws:iam::123456789012:role/",
            "arn:aws:iam::123456789012:role/has space",
        ] {
            assert!(!arn.is_match(bad), "{bad}");
        }
        assert!(!arn.is_match(&format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65))));
    }
}
