//! EKS `access_policy` mode: the access policy associations a restriction wants on the project role's access entry,
//! and how `components` names them.

use super::config::{RestrictionConfig, RestrictionMode};
use crate::component::Component;
use crate::governance::AccessScope;

pub const SPACE_TEMPLATE_POLICY: &str = "AmazonSagemakerHyperpodSpaceTemplatePolicy";
/// Cluster-scoped: lets Studio probe CRDs and its own access (`SelfSubjectAccessReview`).
pub const USER_CLUSTER_POLICY: &str = "AmazonSagemakerHyperpodUserClusterPolicy";

/// One access policy association the restriction wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestrictionAssociation {
    pub policy_arn: String,
    /// Empty: cluster scope.
    pub namespaces: Vec<String>,
}

impl RestrictionAssociation {
    /// `access_policy/<policy name>`: the name alone (the partition is the cluster's), so the key stays short.
    pub fn component(&self) -> Component {
        Component::AccessPolicy(policy_name(&self.policy_arn).to_string())
    }
    /// What `components` records: the scope, so a changed scope is drift.
    pub fn scope(&self) -> String {
        AccessScope::of_namespaces(&self.namespaces).to_string()
    }
}

pub fn policy_arn(partition: &str, name: &str) -> String {
    crate::aws::ids::Arn::eks_access_policy(partition, name)
}

/// An access policy's name, the last segment of its ARN.
pub fn policy_name(policy_arn: &str) -> &str {
    policy_arn.rsplit('/').next().unwrap_or(policy_arn)
}

/// The policy ARN an `access_policy/<name>` component names (the 0→1 state upgrader rewrote keys that held ARNs).
pub fn component_policy_arn(partition: &str, component: &Component) -> Option<String> {
    match component {
        Component::AccessPolicy(name) => Some(policy_arn(partition, name)),
        _ => None,
    }
}

impl RestrictionConfig {
    /// EKS: the associations the restriction wants on the project role's access entry (none in RBAC mode).
    pub fn associations(&self, partition: &str) -> Vec<RestrictionAssociation> {
        if self.mode == RestrictionMode::Rbac {
            return Vec::new();
        }
        let mut out: Vec<RestrictionAssociation> = self
            .access_policies
            .iter()
            .map(|name| RestrictionAssociation {
                policy_arn: policy_arn(partition, name),
                namespaces: self.namespaces.clone(),
            })
            .collect();
        if self.space_templates {
            out.push(RestrictionAssociation {
                policy_arn: policy_arn(partition, SPACE_TEMPLATE_POLICY),
                namespaces: vec![self.space_template_namespace.clone()],
            });
        }
        if self.user_cluster_policy {
            out.push(RestrictionAssociation {
                policy_arn: policy_arn(partition, USER_CLUSTER_POLICY),
                namespaces: Vec::new(),
            });
        }
        out
    }
}
