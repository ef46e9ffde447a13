//! Cluster rules for Slurm task view restrictions (CLU-7, CLU-8): Studio shows a Slurm user's jobs by running the
//! project role's Session Manager sessions as an OS user (`SSMSessionRunAs`), which only works when Run As is
//! enabled and when the role cannot open sessions on other clusters' nodes.

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::iam_policy::{Effect, parse_policy, wildcard_match};
use super::model::{Fact, RolePermissions};
use super::paths;

/// Session Manager preferences (`SSM-SessionManagerRunShell`): account- and region-wide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionPreferences {
    pub run_as_enabled: bool,
}

/// CLU-7: Run As is enabled. It is account-wide, so the provider checks it and never flips it.
pub fn clu_7(preferences: &Fact<SessionPreferences>) -> Check {
    let rule = RuleId::Clu7;
    let preferences = match preferences {
        Fact::Known(preferences) => preferences,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let findings = if preferences.run_as_enabled {
        Vec::new()
    } else {
        vec![Finding {
            path: paths::restriction::slurm("os_user"),
            observed: "Session Manager preferences have runAsEnabled = false".into(),
            problem: "without Run As, Studio sessions run as ssm-user and the SSMSessionRunAs tag restricts nothing"
                .into(),
            fix:
                "enable Run As in Session Manager preferences (SSM-SessionManagerRunShell, inputs.runAsEnabled = true) \
             for the account and region; it affects every session there, so it is left to the account owner"
                    .into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, "Session Manager Run As is enabled")
}

/// Whether `resource` (an IAM resource pattern of an `ssm:StartSession` grant) reaches only `cluster_arn`'s nodes or
/// session documents.
fn within_cluster(resource: &str, cluster_arn: &str) -> bool {
    resource == cluster_arn
        || resource
            .strip_prefix(cluster_arn)
            .is_some_and(|rest| rest.starts_with('/'))
        || (resource.starts_with("arn:aws") && resource.contains(":document/"))
}

/// CLU-8: the role's `ssm:StartSession` grants reach only this cluster's nodes (and session documents).
pub fn clu_8(role: &Fact<RolePermissions>, cluster_arn: &str) -> Check {
    let rule = RuleId::Clu8;
    let role = match role {
        Fact::Known(role) => role,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let mut findings = Vec::new();
    for policy in &role.policies {
        let Ok(statements) = parse_policy(&policy.document) else {
            continue; // unreadable documents are PRJ-2's to report
        };
        for statement in statements.iter().filter(|s| s.effect == Effect::Allow) {
            let starts_sessions = match &statement.actions {
                super::iam_policy::Patterns::Listed(actions) => {
                    actions.iter().any(|a| wildcard_match(a, "ssm:StartSession"))
                }
                super::iam_policy::Patterns::AllExcept(actions) => {
                    !actions.iter().any(|a| wildcard_match(a, "ssm:StartSession"))
                }
            };
            if !starts_sessions {
                continue;
            }
            let wide: Vec<String> = match &statement.resources {
                super::iam_policy::Patterns::Listed(resources) => resources
                    .iter()
                    .filter(|r| !within_cluster(r, cluster_arn))
                    .cloned()
                    .collect(),
                super::iam_policy::Patterns::AllExcept(_) => vec!["NotResource".to_string()],
            };
            if !wide.is_empty() {
                findings.push(Finding {
                    path: paths::restriction::project_role_arn(),
                    observed: format!(
                        "{} ({}) allows ssm:StartSession on {wide:?}",
                        policy.name, statement.label
                    ),
                    problem: "the restricted role can open sessions on other clusters' nodes, outside the restriction"
                        .into(),
                    fix: format!("limit ssm:StartSession to the cluster ({cluster_arn}) and the session documents"),
                    ..Finding::of(rule)
                });
            }
        }
    }
    Check::from_findings(rule, findings, "ssm:StartSession reaches only this cluster's nodes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{self, CLUSTER_ARN};
    use crate::model::PolicyDocument;

    fn role(resources: serde_json::Value) -> Fact<RolePermissions> {
        Fact::Known(RolePermissions {
            role_arn: "arn:aws:iam::111122223333:role/project".into(),
            policies: vec![PolicyDocument {
                name: "studio".into(),
                managed_arn: None,
                document: serde_json::json!({
                    "Version": "2012-10-17",
                    "Statement": [{ "Effect": "Allow", "Action": ["ssm:StartSession"], "Resource": resources }],
                }),
            }],
        })
    }

    #[test]
    fn clu_7_needs_run_as() {
        assert!(clu_7(&Fact::Known(SessionPreferences { run_as_enabled: true })).is_passed());
        let check = examples::failing(RuleId::Clu7);
        assert_eq!(check.findings()[0].path.to_string(), "slurm.os_user");
        assert!(clu_7(&Fact::Unavailable("AccessDenied".into())).is_skipped());
    }

    #[test]
    fn clu_8_start_session_stays_on_the_cluster() {
        let scoped = serde_json::json!([
            CLUSTER_ARN,
            "arn:aws:ssm:us-west-2:111122223333:document/SSM-SessionManagerRunShell"
        ]);
        assert!(clu_8(&role(scoped), CLUSTER_ARN).is_passed());
        let check = examples::failing(RuleId::Clu8);
        assert_eq!(check.findings()[0].path.to_string(), "project_role_arn");
        assert!(check.findings()[0].observed.contains("\"*\""));
    }
}
