//! The restriction's configuration, typed (`RestrictionConfig`): decoded once from a planned value (with the
//! contract's defaults) or from what state recorded.

use crate::protocol::decode::Fields;
use crate::protocol::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestrictionMode {
    AccessPolicy,
    Rbac,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RestrictionConfig {
    pub project_role_arn: String,
    pub namespaces: Vec<String>,
    pub mode: RestrictionMode,
    pub access_policies: Vec<String>,
    pub space_templates: bool,
    /// Where the shared space templates live: the scope of the space template policy.
    pub space_template_namespace: String,
    /// Whether the cluster-scoped user policy Studio renders cluster-wide views with is granted.
    pub user_cluster_policy: bool,
    pub kubernetes_group: String,
    pub slurm_os_user: Option<String>,
}

/// Where Studio keeps shared space templates, as AWS's add-user page scopes the template policy (the default of
/// `space_template_namespace`).
pub const SPACE_TEMPLATE_NAMESPACE: &str = "jupyter-k8s-shared";

impl RestrictionConfig {
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
                "rbac" => RestrictionMode::Rbac,
                _ => RestrictionMode::AccessPolicy,
            },
            access_policies: restriction.strings("access_policies").or_empty()?,
            space_templates: restriction.bool("space_templates").or_when_null(false)?,
            space_template_namespace: restriction
                .string("space_template_namespace")
                .or_when_null(SPACE_TEMPLATE_NAMESPACE.into())?,
            user_cluster_policy: restriction.bool("user_cluster_policy").or_when_null(true)?,
            slurm_os_user,
            project_role_arn,
            namespaces,
            kubernetes_group,
        })
    }
}

/// The role's name, the last segment of its ARN.
pub fn role_name(role_arn: &str) -> &str {
    role_arn.rsplit('/').next().unwrap_or(role_arn)
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

/// `<cluster>/<project role name>`: the restriction's `id`, and the owner tag on an access entry it creates.
pub fn restriction_id(cluster_name: &str, project_role_arn: &str) -> String {
    format!("{cluster_name}/{}", role_name(project_role_arn))
}

/// Arguments that decide only what is written, never a rule's verdict: while one is unknown the rules are still
/// judged at plan, and only what it decides (associations, manifests, `components`) is planned unknown.
const GRANTS: [&str; 5] = [
    "mode",
    "access_policies",
    "space_templates",
    "space_template_namespace",
    "user_cluster_policy",
];

/// Whether every grant is known.
pub fn grants_known(value: &Value) -> bool {
    GRANTS
        .iter()
        .all(|name| value.get_attr(name).is_none_or(Value::is_wholly_known))
}

/// Whether `mode` is known.
pub fn mode_known(value: &Value) -> bool {
    value.get_attr("mode").is_none_or(Value::is_wholly_known)
}

/// `value` with the grants not known yet as if unset: judged without them, since no rule reads them.
pub fn without_unknown_grants(value: &Value) -> Value {
    let mut judged = value.clone();
    for name in GRANTS {
        if value.get_attr(name).is_some_and(|field| !field.is_wholly_known()) {
            crate::protocol::plan::set_attr(&mut judged, name, Value::Null);
        }
    }
    judged
}

/// The inputs not known until apply, as the deferred warning names them.
pub fn unknown_inputs(value: &Value) -> Vec<String> {
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
