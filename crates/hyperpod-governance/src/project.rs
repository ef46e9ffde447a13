//! Project rules (PRJ-*): who collaborates in the project and what its roles may do.

use time::Date;

use super::arns::same_role;
use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::iam_policy::{Grant, forbidden_grants};
use super::model::{Binding, Contract, Fact, LifecycleState, LiveProject, MemberKind, RolePermissions};
use super::paths;

/// PRJ-1: memberships go to groups, not individual users.
pub fn prj_1(binding: &Binding) -> Check {
    let rule = RuleId::Prj1;
    let findings = binding
        .members
        .iter()
        .enumerate()
        .filter(|(_, member)| member.kind == MemberKind::User)
        .map(|(index, member)| Finding {
            path: paths::binding::member(index),
            observed: format!("user {:?} as {}", member.name, member.designation),
            problem: "project membership is granted to an individual user".into(),
            fix: "grant it to a group the user belongs to, so joiners and leavers are handled in the identity provider"
                .into(),
            ..Finding::of(rule)
        })
        .collect();
    Check::from_findings(
        rule,
        findings,
        format!("{} member(s), all groups", binding.members.len()),
    )
}

/// PRJ-2: neither the project role nor the connection's access role holds a lifecycle or governance-write action.
pub fn prj_2(contract: &Contract, project_role: &Fact<RolePermissions>, access_role: &Fact<RolePermissions>) -> Check {
    let mut findings = Vec::new();
    let mut unknown = Vec::new();
    let mut unavailable = Vec::new();
    let mut evaluated = Vec::new();
    for (attribute, what, arn, fact) in [
        (
            paths::contract::PROJECT_ROLE_ARN,
            "project role",
            &contract.project_role_arn,
            project_role,
        ),
        (
            paths::contract::ACCESS_ROLE_ARN,
            "connection access role",
            &contract.access_role_arn,
            access_role,
        ),
    ] {
        let Some(arn) = arn else {
            unknown.push(attribute.to_string());
            continue;
        };
        // One role in both attributes is read and reported once.
        if evaluated.iter().any(|seen: &String| same_role(seen, arn)) {
            continue;
        }
        evaluated.push(arn.clone());
        let role = match fact {
            Fact::Known(role) => role,
            Fact::Unavailable(reason) => {
                unavailable.push(reason.clone());
                continue;
            }
        };
        let evaluation = forbidden_grants(role);
        findings.extend(
            evaluation
                .grants
                .iter()
                .map(|grant| forbidden_grant_finding(attribute, what, arn, grant)),
        );
        unavailable.extend(
            evaluation
                .unreadable
                .into_iter()
                .map(|problem| format!("{problem} (role {arn})")),
        );
    }
    prj_2_verdict(findings, unavailable, &unknown, &evaluated)
}

/// A PRJ-2 finding on the role at `attribute` (the contract's `what`, `arn`): one statement that allows forbidden
/// actions.
fn forbidden_grant_finding(attribute: &str, what: &str, arn: &str, grant: &Grant) -> Finding {
    Finding {
        path: paths::contract::attr(attribute),
        observed: format!(
            "role {arn}: {}, {} allows {}",
            grant.policy,
            grant.statement,
            grant.actions.join(", ")
        ),
        problem: format!("the {what} holds cluster lifecycle or governance-write permissions"),
        fix: prj_2_fix(grant),
        ..Finding::of(RuleId::Prj2)
    }
}

/// PRJ-2's outcome once both roles are read: failed on any finding, else unavailable (a role or policy not read),
/// else unknown (a role not yet known), else passed for the roles `evaluated`.
fn prj_2_verdict(findings: Vec<Finding>, unavailable: Vec<String>, unknown: &[String], evaluated: &[String]) -> Check {
    let rule = RuleId::Prj2;
    if !findings.is_empty() {
        return Check::from_findings(rule, findings, "");
    }
    if !unavailable.is_empty() {
        return Check::unavailable(rule, unavailable.join("; "));
    }
    if !unknown.is_empty() {
        return Check::unknowns(rule, unknown);
    }
    Check::passed(
        rule,
        format!("no lifecycle or governance-write action on {}", evaluated.join(", ")),
    )
}

/// How to take the actions away depends on who owns the policy: an AWS managed policy can only be detached.
fn prj_2_fix(grant: &Grant) -> String {
    const WHY: &str = "cluster lifecycle, compute quota and scheduler policy writes belong to the cluster-admin and \
                       task-governance roles";
    match grant.managed_arn.as_deref() {
        Some(arn) if grant.is_aws_managed() => format!(
            "detach the AWS managed policy {arn} from the role (it cannot be edited) and grant what the project \
             needs through a customer managed policy without these actions; {WHY}"
        ),
        Some(arn) => format!(
            "publish a new default version of {arn} without these actions (or detach it, or deny them \
             unconditionally on \"*\"); {WHY}"
        ),
        None => format!("remove these actions from that statement (or deny them unconditionally on \"*\"); {WHY}"),
    }
}

/// PRJ-3: a binding needs an approved contract, not past its review date, for the same project and cluster.
pub fn prj_3(binding: &Binding, contract: &Contract, today: Date) -> Check {
    let rule = RuleId::Prj3;
    let mut findings = Vec::new();
    if contract.lifecycle == LifecycleState::Revoked {
        findings.push(Finding {
            path: paths::binding::contract(),
            observed: format!("contract {:?} is revoked", contract.name),
            problem: "a binding needs an approved contract".into(),
            fix: "remove the binding, or re-approve the contract (lifecycle = \"approved\" with a new review)".into(),
            ..Finding::of(rule)
        });
    }
    let due = contract.review.next_review_date();
    if today > due {
        findings.push(Finding {
            path: paths::binding::contract(),
            observed: format!("contract {:?} was due for review on {due}", contract.name),
            problem: "the contract has expired: its review is overdue".into(),
            fix: "review the contract and record the new last_reviewed date and approver".into(),
            ..Finding::of(rule)
        });
    }
    let project = match (&binding.project_id, &contract.unified_studio.project_id) {
        (Some(bound), Some(approved)) if bound != approved => Some((bound, approved)),
        (Some(_), Some(_)) => None,
        (None, _) => return Check::unknown(rule, paths::binding::project_id().to_string()),
        (_, None) => return Check::unknown(rule, "the contract's unified_studio.project_id"),
    };
    if let Some((bound, approved)) = project {
        findings.push(Finding {
            path: paths::binding::project_id(),
            observed: format!("project {bound:?}"),
            problem: format!("contract {:?} approves project {approved:?}", contract.name),
            fix: "bind the project the contract approves, or reference that project's contract".into(),
            ..Finding::of(rule)
        });
    }
    if binding.cluster_name != contract.cluster.name {
        findings.push(Finding {
            path: paths::binding::cluster_name(),
            observed: format!("cluster {:?}", binding.cluster_name),
            problem: format!(
                "contract {:?} approves cluster {:?}",
                contract.name, contract.cluster.name
            ),
            fix: "bind the cluster the contract approves, or reference that cluster's contract".into(),
            ..Finding::of(rule)
        });
    }
    Check::from_findings(
        rule,
        findings,
        format!(
            "contract {:?} approves this project and cluster until {due}",
            contract.name
        ),
    )
}

/// PRJ-4: the project role is the contract's and the project's tooling-environment user role. With no binding this
/// is the contract's half (contract role == live tooling role), pointed at the contract's attribute.
pub fn prj_4(contract: &Contract, binding: Option<&Binding>, project: &Fact<LiveProject>) -> Check {
    let rule = RuleId::Prj4;
    let Some(approved) = contract.project_role_arn.as_deref() else {
        return Check::unknown(rule, "the contract's project_role_arn");
    };
    let at = match binding {
        Some(_) => paths::binding::project_role_arn(),
        None => paths::contract::attr(paths::contract::PROJECT_ROLE_ARN),
    };
    let mut findings = Vec::new();
    if let Some(binding) = binding {
        let Some(bound) = binding.project_role_arn.as_deref() else {
            return Check::unknown(rule, at.to_string());
        };
        if !same_role(bound, approved) {
            findings.push(Finding {
                path: at.clone(),
                observed: bound.into(),
                problem: format!("the contract's project role is {approved}"),
                fix: "use the contract's project role, or change the contract and have it re-approved".into(),
                ..Finding::of(rule)
            });
        }
    }
    let tooling = match project {
        Fact::Known(LiveProject {
            tooling_user_role_arn: Some(tooling),
            ..
        }) => tooling,
        Fact::Known(LiveProject { .. }) if findings.is_empty() => {
            return Check::unavailable(
                rule,
                "the project has no tooling environment yet, so its user role is unknown",
            );
        }
        Fact::Unavailable(reason) if findings.is_empty() => return Check::unavailable(rule, reason),
        _ => return Check::from_findings(rule, findings, ""),
    };
    if !same_role(tooling, approved) {
        findings.push(Finding {
            path: at,
            observed: format!("the project's tooling environment uses {tooling}"),
            problem: format!("the contract names {approved} as the project role"),
            fix: "set project_role_arn to the tooling environment's user role (what Studio users act as)".into(),
            ..Finding::of(rule)
        });
    }
    Check::from_findings(
        rule,
        findings,
        format!("{approved} is the project's tooling-environment user role"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{
        self, ACCESS_ROLE, PROJECT_ROLE, binding, contract, date, live_project, prj_3_binding, prj_4_binding,
        read_only_role as read_only, role, today,
    };

    fn project(tooling: Option<&str>) -> Fact<LiveProject> {
        live_project("research_unit", tooling)
    }

    #[test]
    fn prj_1_warns_about_user_members() {
        assert!(prj_1(&binding()).is_passed());
        let check = examples::failing(RuleId::Prj1); // alice joins as a user
        assert_eq!(check.findings()[0].path.to_string(), "member[1].name");
        assert_eq!(check.findings()[0].severity, crate::FindingSeverity::Warning);
    }

    #[test]
    fn prj_2_passes_read_only_roles() {
        assert!(prj_2(&contract(), &read_only(PROJECT_ROLE), &read_only(ACCESS_ROLE)).is_passed());
    }

    #[test]
    fn prj_2_names_role_policy_statement_and_actions() {
        let check = examples::failing(RuleId::Prj2); // the project role may sagemaker:UpdateCluster*
        let finding = &check.findings()[0];
        assert_eq!(finding.path.to_string(), "project_role_arn");
        assert_eq!(
            finding.observed,
            format!(
                "role {PROJECT_ROLE}: inline policy \"studio\", Sid \"Studio\" allows sagemaker:UpdateCluster, \
                 sagemaker:UpdateClusterSoftware, sagemaker:UpdateClusterExtension, \
                 sagemaker:UpdateClusterSchedulerConfig"
            )
        );
        let access = prj_2(
            &contract(),
            &read_only(PROJECT_ROLE),
            &role(ACCESS_ROLE, &["sagemaker:*"]),
        );
        assert_eq!(access.findings()[0].path.to_string(), "access_role_arn");
    }

    #[test]
    fn prj_2_skips_unreadable_or_unknown_roles_but_never_hides_findings() {
        let denied = Fact::Unavailable(format!("AccessDenied reading role {ACCESS_ROLE}"));
        assert!(prj_2(&contract(), &read_only(PROJECT_ROLE), &denied).is_skipped());
        assert!(prj_2(&contract(), &role(PROJECT_ROLE, &["*"]), &denied).is_failed());
        let mut unknown = contract();
        unknown.access_role_arn = None;
        assert!(prj_2(&unknown, &read_only(PROJECT_ROLE), &denied).is_skipped());
        // The same role in both attributes is reported once.
        let mut shared = contract();
        shared.access_role_arn = Some(PROJECT_ROLE.into());
        assert_eq!(
            prj_2(&shared, &role(PROJECT_ROLE, &["sagemaker:DeleteCluster"]), &denied)
                .findings()
                .len(),
            1
        );
    }

    #[test]
    fn prj_3_needs_an_approved_current_contract_for_the_same_project_and_cluster() {
        assert!(prj_3(&binding(), &contract(), today()).is_passed());
        assert_eq!(
            examples::failing(RuleId::Prj3).findings()[0].path.to_string(),
            "project_id"
        );
        let mut elsewhere = prj_3_binding(); // prj-marketing
        elsewhere.cluster_name = "other".into();
        let paths: Vec<String> = prj_3(&elsewhere, &contract(), today())
            .findings()
            .iter()
            .map(|f| f.path.to_string())
            .collect();
        assert_eq!(paths, ["project_id", "cluster_name"]);
        let mut revoked = contract();
        revoked.lifecycle = LifecycleState::Revoked;
        assert_eq!(
            prj_3(&binding(), &revoked, today()).findings()[0].path.to_string(),
            "contract"
        );
        assert!(
            prj_3(&binding(), &contract(), date(2026, 7, 31)).is_passed(),
            "due on 2026-07-31 is still valid"
        );
        assert!(prj_3(&binding(), &contract(), date(2026, 8, 1)).is_failed());
        let mut unknown = binding();
        unknown.project_id = None;
        assert!(prj_3(&unknown, &contract(), today()).is_skipped());
    }

    #[test]
    fn prj_4_contract_half_compares_with_the_tooling_role() {
        assert!(prj_4(&contract(), None, &project(Some(PROJECT_ROLE))).is_passed());
        let other = prj_4(
            &contract(),
            None,
            &project(Some("arn:aws:iam::111122223333:role/datazone_usr_role_other")),
        );
        assert_eq!(other.findings()[0].path.to_string(), "project_role_arn");
        assert!(prj_4(&contract(), None, &project(None)).is_skipped());
        assert!(prj_4(&contract(), None, &Fact::Unavailable("AccessDenied".into())).is_skipped());
    }

    #[test]
    fn prj_4_binding_half_compares_with_the_contract() {
        assert!(prj_4(&contract(), Some(&binding()), &project(Some(PROJECT_ROLE))).is_passed());
        let check = examples::failing(RuleId::Prj4); // the binding names the access role
        assert_eq!(check.findings().len(), 1);
        assert_eq!(check.findings()[0].path.to_string(), "project_role_arn");
        let mut wrong = prj_4_binding();
        let unread = prj_4(&contract(), Some(&wrong), &Fact::Unavailable("AccessDenied".into()));
        assert_eq!(
            unread.findings(),
            check.findings(),
            "an unread project hides no finding"
        );
        wrong.project_role_arn = None;
        assert!(prj_4(&contract(), Some(&wrong), &project(Some(PROJECT_ROLE))).is_skipped());
    }
}
