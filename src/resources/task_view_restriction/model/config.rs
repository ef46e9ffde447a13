//! The restriction's configuration, typed (`RestrictionConfig`): decoded once from a planned value (with the
//! contract's defaults) or from what state recorded.

use super::super::schema::{MODES, RestrictionModel, SPACE_TEMPLATE_NAMESPACE};
use crate::protocol::model::Field;
use crate::protocol::value::Value;
use crate::resources::governance_objects::ContractArgument;

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

impl RestrictionConfig {
    /// From the planned value; `None` while a value is unknown. `default_role` and `default_namespaces` come from the
    /// contract.
    #[cfg(test)]
    pub fn from_value(value: &Value, default_role: Option<String>, default_namespaces: &[String]) -> Option<Self> {
        use crate::protocol::model::Model;
        Self::of(&RestrictionModel::decode(value).ok()?, default_role, default_namespaces)
    }

    /// [`RestrictionConfig::from_value`] of the decoded restriction. A setting not known yet defers the whole
    /// restriction (its objects depend on it), never reads as unset.
    pub fn of(
        restriction: &RestrictionModel,
        default_role: Option<String>,
        default_namespaces: &[String],
    ) -> Option<Self> {
        let project_role_arn = match restriction.project_role_arn.clone().optional()? {
            Some(arn) => arn,
            None => default_role?,
        };
        let namespaces = match restriction.namespaces.clone().wholly_known().optional()? {
            Some(namespaces) => namespaces,
            None => default_namespaces.to_vec(),
        };
        let kubernetes_group = match restriction.kubernetes_group.clone().optional()? {
            Some(group) => group,
            None => default_group(&project_role_arn),
        };
        let slurm_os_user = match restriction.slurm.clone().optional()? {
            Some(slurm) => slurm.os_user.optional()?,
            None => None,
        };
        let mode = restriction.mode.clone().or_when_null(MODES[0].into())?;
        Some(Self {
            mode: if mode == MODES[1] {
                RestrictionMode::Rbac
            } else {
                RestrictionMode::AccessPolicy
            },
            access_policies: restriction.access_policies.clone().wholly_known().or_empty()?,
            space_templates: restriction.space_templates.clone().or_when_null(false)?,
            space_template_namespace: (restriction.space_template_namespace.clone())
                .or_when_null(SPACE_TEMPLATE_NAMESPACE.into())?,
            user_cluster_policy: restriction.user_cluster_policy.clone().or_when_null(true)?,
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

/// Whether every grant (an argument that decides only what is written, never a rule's verdict) is known: while one
/// is unknown the rules are still judged at plan, and only what it decides (associations, manifests, `components`)
/// is planned unknown.
pub fn grants_known(restriction: &RestrictionModel) -> bool {
    without_unknown_grants(restriction) == *restriction
}

/// The restriction with the grants not known yet (`mode`, `access_policies`, `space_templates`,
/// `space_template_namespace`, `user_cluster_policy`) as if unset: judged without them, since no rule reads them.
pub fn without_unknown_grants(restriction: &RestrictionModel) -> RestrictionModel {
    fn unset_unknown<T>(field: &mut Field<T>) {
        if field.is_unknown() {
            *field = Field::Null;
        }
    }
    let mut judged = restriction.clone();
    unset_unknown(&mut judged.mode);
    if !judged.access_policies.is_wholly_known() {
        judged.access_policies = Field::Null;
    }
    unset_unknown(&mut judged.space_templates);
    unset_unknown(&mut judged.space_template_namespace);
    unset_unknown(&mut judged.user_cluster_policy);
    judged
}

/// The inputs not known until apply, as the deferred warning names them.
pub fn unknown_inputs(restriction: &RestrictionModel) -> Vec<String> {
    let contract = ContractArgument::CONTRACT.name();
    let mut out: Vec<String> = match restriction.contract.facts() {
        Value::Object(fields) => fields
            .iter()
            .filter(|(_, field)| !field.is_wholly_known())
            .map(|(name, _)| format!("{contract}.{name}"))
            .collect(),
        facts if !facts.is_wholly_known() => vec![contract.to_string()],
        _ => Vec::new(),
    };
    let slurm_unknown = match &restriction.slurm {
        Field::Known(slurm) => slurm.os_user.is_unknown(),
        field => field.is_unknown(),
    };
    let unknown = [
        (
            RestrictionModel::PROJECT_ROLE_ARN.name(),
            restriction.project_role_arn.is_unknown(),
        ),
        (
            RestrictionModel::NAMESPACES.name(),
            !restriction.namespaces.is_wholly_known(),
        ),
        (
            RestrictionModel::KUBERNETES_GROUP.name(),
            restriction.kubernetes_group.is_unknown(),
        ),
        (RestrictionModel::SLURM.name(), slurm_unknown),
    ];
    out.extend(
        (unknown.into_iter())
            .filter(|(_, unknown)| *unknown)
            .map(|(name, _)| name.to_string()),
    );
    out
}
