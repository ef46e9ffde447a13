//! `hyperpod_task_view_restriction` declaration: the attributes with their validators and docs text, the identity,
//! and what AWS and Kubernetes accept of what the restriction sends, checked at validate so apply
//! never fails on input the plan accepted: the project role's ARN (EKS `principalArn`, an IAM role: a session ARN is
//! refused), namespace names (Kubernetes DNS-1123 labels, the scope of every access policy and where the Roles go),
//! the Kubernetes group (a DNS subdomain short enough for the `hyperpod-studio-probes-<group>` ClusterRole name) and
//! lists without duplicates (a duplicate would be a diff on every plan).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::checklist::ChecklistAttributes;
use crate::governance_objects::ContractArgument;
use crate::governance_objects::RestrictionGovernance;
use crate::protocol::deadline::Operation;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::{IdentitySchema, Schema, Validator};
use crate::protocol::validators::{EachOneOf, LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};
use crate::validators::IsArn;

// The resource's one declaration (`#[derive(Model)]`, docs/design/typed-values.md): its schema, docs and typed value
// come from it. Doc comments are the user-facing descriptions. The handoffs (`contract`, `tenants`) are kept as the
// values Terraform sends, read by the readers of the resources that write them.

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
/// Where Studio keeps shared space templates, as AWS's add-user page scopes the template policy (the default of
/// `space_template_namespace`).
pub const SPACE_TEMPLATE_NAMESPACE: &str = "jupyter-k8s-shared";
/// The probe ClusterRole is named `hyperpod-studio-probes-<group>`, and Kubernetes names are at most 253
/// characters: the group may take what the prefix leaves.
pub const PROBES_PREFIX: &str = "hyperpod-studio-probes-";
pub const GROUP_MAX: usize = 253 - PROBES_PREFIX.len();

/// Restricts what a Unified Studio project's users see of a shared HyperPod cluster (Studio shows every team's tasks
/// by default). EKS, `access_policy` mode: the project role's access entry (adopted when Studio's "Manage access"
/// made it) with the HyperPod Studio access policies scoped to the project's namespaces plus
/// `AmazonSagemakerHyperpodUserClusterPolicy` at cluster scope. EKS, `rbac` mode: a Role and RoleBinding per
/// namespace and a minimal ClusterRole for Studio's probes, bound through the access entry's Kubernetes group. Slurm:
/// the `SSMSessionRunAs` tag on the project role, checked against Session Manager's Run As setting, and a
/// `PrivateData` fragment. Destroy removes only what this resource added.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct RestrictionModel {
    /// `<cluster>/<project role name>`, also the import ID.
    #[tf(computed)]
    pub id: Field<String>,
    #[tf(flatten)]
    pub contract: ContractArgument,
    /// The restriction's facts, known at plan time: the cluster, the project role it restricts and its namespaces. A
    /// `hyperpod_unified_studio_project_binding` takes it as `task_view_restriction` (CLU-2), which also orders the
    /// binding after the restriction.
    #[tf(computed)]
    pub governance: Field<RestrictionGovernance>,
    /// The project role whose view is restricted. Defaults to the contract's project role.
    #[tf(optional_computed, requires_replace, validate = IsArn, validate = role_arn())]
    pub project_role_arn: Field<String>,
    /// EKS: the namespaces the project sees. Defaults to the contract's `eks_namespaces`.
    #[tf(optional_computed, validate = EachNamespace, validate = Distinct)]
    pub namespaces: Field<Vec<Field<String>>>,
    /// EKS: `access_policy` (default; EKS access policies) or `rbac` (Kubernetes RBAC).
    #[tf(default = Value::String(MODES[0].into()), validate = OneOf(&MODES))]
    pub mode: Field<String>,
    /// EKS `access_policy` mode: the HyperPod Studio policies scoped to `namespaces`. The default drops
    /// `AmazonSagemakerHyperpodSpacePolicy` when the contract does not approve `interactive` workloads; naming it
    /// then is refused (WKL-12).
    #[tf(
        default = Value::List(NAMESPACE_POLICIES.iter().map(|p| Value::String(p.to_string())).collect()),
        validate = EachOneOf(&NAMESPACE_POLICIES),
        validate = Distinct
    )]
    pub access_policies: Field<Vec<Field<String>>>,
    /// EKS `access_policy` mode: also `AmazonSagemakerHyperpodSpaceTemplatePolicy` on `jupyter-k8s-shared`; only
    /// under a contract that approves `interactive` workloads (WKL-12).
    #[tf(default = Value::Bool(false))]
    pub space_templates: Field<bool>,
    /// EKS `access_policy` mode, with `space_templates`: the namespace the space template policy is scoped to, where
    /// the cluster's shared space templates live (AWS's add-user page: `jupyter-k8s-shared`, the default).
    #[tf(
        default = Value::String(SPACE_TEMPLATE_NAMESPACE.into()),
        validate = LengthBetween { min: 1, max: 63 },
        validate = Matches::new(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
            "a Kubernetes namespace: lowercase letters, digits and hyphens",
        )
    )]
    pub space_template_namespace: Field<String>,
    /// EKS `access_policy` mode: also `AmazonSagemakerHyperpodUserClusterPolicy` at cluster scope, which Studio needs
    /// to render cluster-wide views (namespaces, nodes, Kueue cluster queues; default `true`). `false` grants the
    /// namespace-scoped policies alone, as AWS's add-user page does for spaces.
    #[tf(default = Value::Bool(true))]
    pub user_cluster_policy: Field<bool>,
    /// EKS `rbac` mode: the group the access entry maps the role to. Defaults to `hyperpod-studio-<role name>`.
    // The probe ClusterRole's name carries the group: a DNS subdomain of at most 253 characters in all.
    #[tf(optional_computed, validate = LengthBetween { min: 1, max: GROUP_MAX }, validate = kubernetes_group())]
    pub kubernetes_group: Field<String>,
    /// EKS `rbac` mode: the tenants whose namespaces the restriction writes its Roles into,
    /// `[hyperpod_tenant.<name>.governance]`. HyperPod creates `hyperpod-ns-<team>` with the team's compute quota, so
    /// the reference makes Terraform apply the tenant first; a namespace that neither exists nor belongs to a
    /// referenced tenant is refused.
    #[tf(optional, write_only, ty = Type::list(crate::governance_objects::tenant_type()))]
    pub tenants: Value,
    /// The contract's cluster. A contract that names another cluster replaces the restriction: what it added on the
    /// old cluster is removed first, then the new cluster's access made.
    #[tf(computed, requires_replace)]
    pub cluster_name: Field<String>,
    /// The HyperPod cluster's ARN, resolved at plan time.
    #[tf(computed)]
    pub cluster_arn: Field<String>,
    /// `eks` or `slurm`.
    #[tf(computed)]
    pub orchestrator: Field<String>,
    /// Slurm: the `slurm.conf` lines that keep jobs, usage and users private to their owners.
    #[tf(computed)]
    pub private_data_conf: Field<String>,
    /// What this resource added (the access entry if it created it, each policy association with its scope as
    /// `access_policy/<policy name>`, Kubernetes objects, the role tag), so destroy removes exactly that and refresh
    /// shows what went missing. A Kubernetes object's value is a short digest of the content the provider writes
    /// (the key names its kind, namespace or `-`, and name): an object edited outside Terraform, or a provider
    /// version that writes it differently, shows as a changed value.
    #[tf(computed)]
    pub components: Field<BTreeMap<String, String>>,
    #[tf(flatten)]
    pub checklist: ChecklistAttributes,
    #[tf(block = single)]
    pub slurm: Field<RestrictionSlurmBlock>,
    #[tf(timeouts = (&[Operation::Create, Operation::Update, Operation::Delete], Duration::from_mins(10)))]
    pub timeouts: Value,
}

/// Slurm clusters: the OS user the project role's Session Manager sessions run as, so Studio lists only that user's
/// jobs.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct RestrictionSlurmBlock {
    /// Linux/Slurm user (`SSMSessionRunAs` tag on the project role).
    #[tf(required, validate = Matches::new("[a-z_][a-z0-9_-]{0,31}", "a POSIX user name"))]
    pub os_user: Field<String>,
}

/// What identifies a restriction (`import { identity = { … } }`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct RestrictionIdentity {
    /// Name of the HyperPod cluster.
    #[tf(required)]
    pub cluster_name: Field<String>,
    /// The restricted project role.
    #[tf(required)]
    pub project_role_arn: Field<String>,
}

pub fn schema() -> Schema {
    // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
    Schema {
        version: 1,
        block: RestrictionModel::block(),
    }
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &RestrictionIdentity::block())
}

pub fn identity(cluster_name: &str, project_role_arn: &str) -> Value {
    RestrictionIdentity {
        cluster_name: Field::Known(cluster_name.to_string()),
        project_role_arn: Field::Known(project_role_arn.to_string()),
    }
    .encode()
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
    use crate::protocol::diagnostics::{AttributePath, Diagnostics};
    use crate::protocol::object::text_list;
    use crate::protocol::schema::Validator;

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
