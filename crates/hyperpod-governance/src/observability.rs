//! OBS-1: the observability feedback loop needs its data. HyperPod task-governance metrics in CloudWatch come from
//! the amazon-cloudwatch-observability EKS add-on, from version 2.4.0 (`v2.4.0-eksbuild.1`, Kueue metrics).

use super::arns::role_name;
use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Addon, Fact, NodeRole};
use crate::path::AttributePath;
use hyperpod_model::ids::Arn;

pub const OBSERVABILITY_ADDON: &str = "amazon-cloudwatch-observability";
pub const MINIMUM_VERSION: (u64, u64, u64) = (2, 4, 0);

/// `v2.4.0-eksbuild.1` → (2, 4, 0): the leading `v` and the `-eksbuild.N` suffix are dropped; missing minor or
/// patch parts count as 0.
pub fn parse_addon_version(text: &str) -> Option<(u64, u64, u64)> {
    let core = text.trim().trim_start_matches(['v', 'V']);
    let core = core.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    parts.next().is_none().then_some((major, minor, patch))
}

/// The AWS managed policy the CloudWatch agent on the worker nodes needs to publish the metrics.
pub const CLOUDWATCH_AGENT_POLICY: &str = "CloudWatchAgentServerPolicy";

/// Whether the AWS managed `CloudWatchAgentServerPolicy` is attached to the role. A customer managed or inline copy
/// does not count: which of its statements the agent needs is not ours to judge (the stricter reading).
pub fn has_cloudwatch_agent_policy(role: &NodeRole) -> bool {
    role.attached_policy_arns.iter().any(|arn| {
        Arn::parse(arn).is_ok_and(|arn| {
            arn.service == "iam" && arn.account == "aws" && arn.resource == format!("policy/{CLOUDWATCH_AGENT_POLICY}")
        })
    })
}

/// OBS-1 (warning): the add-on is installed, ACTIVE, at 2.4.0 or later, and every worker node role of the cluster's
/// instance groups has `CloudWatchAgentServerPolicy`. `Known(None)`: the add-on is not installed. `at` is the
/// attribute of the resource being planned that carries the warning. Each missing prerequisite is its own finding.
pub fn obs_1(addon: &Fact<Option<Addon>>, node_roles: &Fact<Vec<NodeRole>>, at: AttributePath) -> Check {
    let rule = RuleId::Obs1;
    let mut findings = Vec::new();
    let mut unread = Vec::new();
    let mut passed = Vec::new();
    match addon {
        Fact::Unavailable(reason) => unread.push(reason.clone()),
        Fact::Known(addon) => match addon_findings(addon.as_ref(), &at) {
            Ok(detail) => passed.push(detail),
            Err(found) => findings.extend(found),
        },
    }
    match node_roles {
        Fact::Unavailable(reason) => unread.push(reason.clone()),
        Fact::Known(roles) => {
            for role in roles.iter().filter(|role| !has_cloudwatch_agent_policy(role)) {
                let name = role_name(&role.role_arn).unwrap_or(&role.role_arn);
                let partition = Arn::parse(&role.role_arn).map_or_else(|_| "aws".to_string(), |arn| arn.partition);
                findings.push(Finding {
                    path: at.clone(),
                    observed: format!(
                        "node role {name} (instance groups {}) has no {CLOUDWATCH_AGENT_POLICY}",
                        role.instance_groups.join(", ")
                    ),
                    problem: "the CloudWatch agent on those nodes cannot publish the task-governance metrics".into(),
                    fix: format!(
                        "attach arn:{partition}:iam::aws:policy/{CLOUDWATCH_AGENT_POLICY} to role {name} \
                         (aws iam attach-role-policy)"
                    ),
                    ..Finding::of(rule)
                });
            }
            passed.push(format!("{CLOUDWATCH_AGENT_POLICY} on {} node role(s)", roles.len()));
        }
    }
    if findings.is_empty() && !unread.is_empty() {
        return Check::unavailable(rule, unread.join("; "));
    }
    Check::from_findings(rule, findings, passed.join("; "))
}

/// The add-on's findings, or the passing detail.
fn addon_findings(addon: Option<&Addon>, at: &AttributePath) -> Result<String, Vec<Finding>> {
    let rule = RuleId::Obs1;
    let fix = format!(
        "install or update the {OBSERVABILITY_ADDON} EKS add-on to v2.4.0-eksbuild.1 or later with \
         kueue_container_insights enabled"
    );
    let Some(addon) = addon else {
        return Err(vec![Finding {
            path: at.clone(),
            observed: "the add-on is not installed".into(),
            problem: "task-governance metrics are not collected".into(),
            fix,
            ..Finding::of(rule)
        }]);
    };
    let mut findings = Vec::new();
    match parse_addon_version(&addon.version) {
        Some(version) if version >= MINIMUM_VERSION => {}
        parsed => findings.push(Finding {
            path: at.clone(),
            observed: format!("{} version {:?}", addon.name, addon.version),
            problem: (if parsed.is_some() {
                "the add-on is older than 2.4.0, which first collects Kueue metrics"
            } else {
                "the add-on version could not be read"
            })
            .into(),
            fix: fix.clone(),
            ..Finding::of(rule)
        }),
    }
    if addon.status != "ACTIVE" {
        findings.push(Finding {
            path: at.clone(),
            observed: format!("{} status {}", addon.name, addon.status),
            problem: "the add-on is not ACTIVE".into(),
            fix: "check the add-on's health issues (aws eks describe-addon) and repair or reinstall it".into(),
            ..Finding::of(rule)
        });
    }
    if findings.is_empty() {
        Ok(format!("{} {} is ACTIVE", addon.name, addon.version))
    } else {
        Err(findings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::RuleId;
    use crate::examples::{self, addon, node_roles};

    #[test]
    fn versions_parse_like_eks_writes_them() {
        assert_eq!(parse_addon_version("v2.4.0-eksbuild.1"), Some((2, 4, 0)));
        assert_eq!(parse_addon_version("v10.1.12-eksbuild.3"), Some((10, 1, 12)));
        assert_eq!(parse_addon_version("2.5"), Some((2, 5, 0)));
        assert_eq!(parse_addon_version("vx.1"), None);
        assert_eq!(parse_addon_version("1.2.3.4"), None);
        assert!(parse_addon_version("v2.10.0-eksbuild.1") > parse_addon_version("v2.4.0-eksbuild.1"));
    }

    #[test]
    fn obs_1_needs_a_recent_active_addon() {
        let at = AttributePath::root();
        let roles = node_roles(true);
        assert!(obs_1(&addon("v2.4.0-eksbuild.1", "ACTIVE"), &roles, at.clone()).is_passed());
        assert!(obs_1(&addon("v3.0.0-eksbuild.2", "ACTIVE"), &roles, at.clone()).is_passed());
        assert_eq!(examples::failing(RuleId::Obs1).findings().len(), 1, "v2.3.9, ACTIVE");
        assert_eq!(
            obs_1(&addon("v2.3.9-eksbuild.1", "DEGRADED"), &roles, at.clone())
                .findings()
                .len(),
            2
        );
        assert!(obs_1(&addon("latest", "ACTIVE"), &roles, at.clone()).is_failed());
        let missing = obs_1(&Fact::Known(None), &roles, at.clone());
        assert_eq!(missing.findings()[0].severity, crate::FindingSeverity::Warning);
        assert!(obs_1(&Fact::Unavailable("AccessDenied on DescribeAddon".into()), &roles, at).is_skipped());
    }

    #[test]
    fn obs_1_names_each_node_role_without_the_cloudwatch_agent_policy() {
        let at = AttributePath::root();
        let check = obs_1(&addon("v2.4.0-eksbuild.1", "ACTIVE"), &node_roles(false), at.clone());
        assert_eq!(check.findings().len(), 1);
        let finding = &check.findings()[0];
        assert_eq!(
            finding.observed,
            "node role ml-capacity-node-role (instance groups p5-training) has no CloudWatchAgentServerPolicy"
        );
        assert!(
            finding
                .fix
                .contains("arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy")
        );
        // A customer managed policy of the same name is not the AWS managed one.
        let copy = Fact::Known(vec![NodeRole {
            role_arn: examples::NODE_ROLE.into(),
            instance_groups: vec!["p5-training".into()],
            attached_policy_arns: vec!["arn:aws:iam::111122223333:policy/CloudWatchAgentServerPolicy".into()],
        }]);
        assert!(obs_1(&addon("v2.4.0-eksbuild.1", "ACTIVE"), &copy, at.clone()).is_failed());
        // Both prerequisites missing: both named.
        assert_eq!(
            obs_1(&Fact::Known(None), &node_roles(false), at.clone())
                .findings()
                .len(),
            2
        );
        // A finding stands even when the other half could not be read.
        let unread = Fact::Unavailable("AccessDenied on DescribeAddon".into());
        assert!(obs_1(&unread, &node_roles(false), at.clone()).is_failed());
        assert!(obs_1(&unread, &node_roles(true), at).is_skipped());
    }
}
