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
    pub kubernetes_group: String,
    pub slurm_os_user: Option<String>,
}

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
