//! Workload rules, access half (WKL-7..11): who may see and act in a tenant, its network isolation, its workload
//! identity and its data grants. Authorization stays separate from scheduling (`workload.rs`).

use super::arns::same_role;
use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Contract, Orchestrator, Setting, Tenant};
use super::paths::tenant as path;
use crate::path::AttributePath;

/// The Kubernetes verbs that only read.
pub const VIEW_VERBS: &[&str] = &["get", "list", "watch"];

/// WKL-7: the viewer grant only reads; acting goes through the separate operator grant.
pub fn wkl_7(tenant: &Tenant) -> Check {
    let rule = RuleId::Wkl7;
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm tenants have no Kubernetes RBAC grants");
    }
    let acting: Vec<&String> = tenant
        .viewer_verbs
        .iter()
        .filter(|verb| !VIEW_VERBS.contains(&verb.to_ascii_lowercase().as_str()))
        .collect();
    let findings = if acting.is_empty() {
        Vec::new()
    } else {
        vec![Finding {
            path: AttributePath::attr(path::VIEWER_VERBS),
            observed: format!("{acting:?}"),
            problem: "the viewer grant includes verbs that act, so seeing and acting are no longer separate grants"
                .into(),
            fix:
                "keep viewer_verbs to get, list and watch; give acting verbs to operator_groups through operator_verbs"
                    .into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, "the viewer grant only reads")
}

/// WKL-8: every EKS tenant namespace has a default-deny NetworkPolicy. Opting out needs a WKL-8 exception in the
/// contract, which `Report::with_exceptions` applies.
pub fn wkl_8(tenant: &Tenant) -> Check {
    let rule = RuleId::Wkl8;
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm tenants have no Kubernetes namespace");
    }
    let findings = if tenant.default_deny_network_policy {
        Vec::new()
    } else {
        vec![Finding {
            path: path::default_deny(),
            observed: format!("namespace {:?} without a default-deny NetworkPolicy", tenant.namespace),
            problem: "the tenant namespace accepts traffic from every other namespace".into(),
            fix: "set network_policy.default_deny = true and allow what the workload needs, or record an owned, \
             dated WKL-8 exception in the contract"
                .into(),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(
        rule,
        findings,
        format!("namespace {:?} denies by default", tenant.namespace),
    )
}

/// WKL-9: a Pod Identity session policy requires `disable_session_tags = true` (EKS refuses it otherwise).
pub fn wkl_9(tenant: &Tenant) -> Check {
    let rule = RuleId::Wkl9;
    if tenant.orchestrator == Orchestrator::Slurm {
        return Check::not_applicable(rule, "Slurm tenants have no Pod Identity");
    }
    let identity = &tenant.pod_identity;
    let findings = match &identity.session_policy {
        Some(_) if !identity.disable_session_tags => vec![Finding {
            path: path::workload("disable_session_tags"),
            observed: "a session policy with disable_session_tags = false".into(),
            problem: "EKS Pod Identity accepts a session policy only with session tags disabled".into(),
            fix: "set disable_session_tags = true (and condition data access on the role, not on session tags), or \
             drop the session policy"
                .into(),
            ..Finding::of(rule)
        }],
        _ => Vec::new(),
    };
    Check::from_findings(rule, findings, "the Pod Identity settings are consistent")
}

/// WKL-10: a quota is never the only control. EKS: the tenant names viewer or operator groups (RBAC); Slurm: the
/// team's Slurm account has users associated with it (Slurm accounting decides who may submit).
pub fn wkl_10(tenant: &Tenant) -> Check {
    let rule = RuleId::Wkl10;
    if tenant.orchestrator == Orchestrator::Slurm {
        let findings = if tenant.slurm_users.is_empty() {
            vec![Finding {
                path: path::slurm("users"),
                observed: format!("Slurm account {:?} with no users", tenant.team),
                problem: "nobody is associated with the team's Slurm account, so who may submit is left to defaults"
                    .into(),
                fix: "list the OS users who submit for this team in slurm.users".into(),
                ..Finding::of(rule)
            }]
        } else {
            Vec::new()
        };
        return Check::from_findings(
            rule,
            findings,
            format!(
                "{} user(s) associated with Slurm account {:?}",
                tenant.slurm_users.len(),
                tenant.team
            ),
        );
    }
    let findings = if tenant.viewer_groups.is_empty() && tenant.operator_groups.is_empty() {
        vec![Finding {
            path: AttributePath::attr(path::OPERATOR_GROUPS),
            observed: "no viewer_groups and no operator_groups".into(),
            problem: "the quota would be the only control: nobody is authorized, or everyone is by default".into(),
            fix: "name the groups that may see (viewer_groups) and act in (operator_groups) the tenant".into(),
            ..Finding::of(rule)
        }]
    } else {
        Vec::new()
    };
    Check::from_findings(
        rule,
        findings,
        format!(
            "{} viewer and {} operator group(s)",
            tenant.viewer_groups.len(),
            tenant.operator_groups.len()
        ),
    )
}

/// WKL-11: tenant data grants go to the tenant's workload role (or its target role), never to a project role.
pub fn wkl_11(tenant: &Tenant, contract: &Contract) -> Check {
    let rule = RuleId::Wkl11;
    let grants = &tenant.data_grants;
    if grants.buckets.is_empty() && grants.kms_keys.is_empty() {
        return Check::passed(rule, "the tenant grants no data");
    }
    let at = path::data("grantee_role_arn");
    let Some(grantee) = grants.grantee_role_arn.as_deref() else {
        return without_grantee(tenant, at);
    };
    let project_facing = is_project_facing(contract, grantee);
    if let Some(check) = judged_before_comparing_roles(tenant, grantee, project_facing) {
        return check;
    }
    let findings = misdirected_grant_problem(&own_data_roles(tenant), grantee, project_facing)
        .map(|problem| Finding {
            path: at,
            observed: format!(
                "{grantee} gets {} bucket(s) and {} KMS key(s)",
                grants.buckets.len(),
                grants.kms_keys.len()
            ),
            problem: problem.into(),
            fix: "grant the buckets and keys to the tenant's workload role (or its cross-account target role)".into(),
            ..Finding::of(rule)
        })
        .into_iter()
        .collect();
    Check::from_findings(
        rule,
        findings,
        format!("data is granted to the tenant's workload role {grantee}"),
    )
}

/// WKL-11 for data granted without `grantee_role_arn`: a failure when there is no workload role to default to
/// (the data would be granted to nobody known), else unknown until the workload role is.
fn without_grantee(tenant: &Tenant, at: AttributePath) -> Check {
    let rule = RuleId::Wkl11;
    if tenant.orchestrator == Orchestrator::Slurm || tenant.workload_role_arn == Setting::Unset {
        // No workload role to default to: without a grantee the data would be granted to nobody known.
        return Check::from_findings(
            rule,
            vec![if tenant.orchestrator == Orchestrator::Slurm {
                Finding {
                    path: at,
                    observed: "data on a Slurm tenant without grantee_role_arn".into(),
                    problem: "a Slurm tenant has no workload role, so its data grants need the role its jobs use"
                        .into(),
                    fix: "set data.grantee_role_arn to the tenant's own data-access role (never a project role)".into(),
                    ..Finding::of(rule)
                }
            } else {
                Finding {
                    path: at,
                    observed: "data on a tenant without a workload block or grantee_role_arn".into(),
                    problem: "without a workload identity the tenant has no role its data could be granted to".into(),
                    fix: "add a workload block (the data is granted to its role), or set data.grantee_role_arn to \
                     the tenant's own data-access role (never a project role)"
                        .into(),
                    ..Finding::of(rule)
                }
            }],
            "",
        );
    }
    Check::unknown(rule, at.to_string())
}

/// Whether `grantee` is the contract's project role or its connection's access role.
fn is_project_facing(contract: &Contract, grantee: &str) -> bool {
    [&contract.project_role_arn, &contract.access_role_arn]
        .into_iter()
        .flatten()
        .any(|role| same_role(role, grantee))
}

/// The WKL-11 verdict settled before the grantee is compared with the tenant's roles: unknown while a role it could
/// be is unknown, passed when the tenant has no workload role; `None` to compare. A project-facing grantee is never
/// settled here: it is wrong whatever those roles turn out to be.
fn judged_before_comparing_roles(tenant: &Tenant, grantee: &str, project_facing: bool) -> Option<Check> {
    let rule = RuleId::Wkl11;
    // A grant to a project role is wrong whatever the target role turns out to be: only judge the rest later.
    if tenant.target_role_arn == Setting::Unknown && !project_facing {
        return Some(Check::unknown(rule, path::workload("target_role_arn").to_string()));
    }
    match &tenant.workload_role_arn {
        Setting::Unknown if !project_facing => Some(Check::unknown(rule, path::workload("role_arn").to_string())),
        // No workload role (Slurm, or EKS without a workload block): the grantee named is the tenant's own
        // data-access role unless it is project-facing.
        Setting::Unset if !project_facing => Some(Check::passed(
            rule,
            format!("data granted to {grantee}, the tenant's own data-access role"),
        )),
        _ => None,
    }
}

/// The roles the tenant's data may be granted to: its workload role and its target role, where set.
fn own_data_roles(tenant: &Tenant) -> Vec<&str> {
    [&tenant.workload_role_arn, &tenant.target_role_arn]
        .into_iter()
        .filter_map(|role| match role {
            Setting::Set(arn) => Some(arn.as_str()),
            Setting::Unset | Setting::Unknown => None,
        })
        .collect()
}

/// What is wrong with granting the tenant's data to `grantee`, if anything: a project-facing role, or a role that is
/// none of the tenant's `own` roles.
fn misdirected_grant_problem(own: &[&str], grantee: &str, project_facing: bool) -> Option<&'static str> {
    if project_facing {
        Some(
            "the tenant's data is granted to the project role; data access goes through the workload role, \
             not project membership",
        )
    } else if !own.iter().any(|role| same_role(role, grantee)) {
        Some("the tenant's data is granted to a role that is not the tenant's workload role")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{self, WORKLOAD_ROLE, contract, slurm_tenant, tenant, wkl_9_tenant};

    fn paths(check: &Check) -> Vec<String> {
        check.findings().iter().map(|f| f.path.to_string()).collect()
    }

    #[test]
    fn wkl_7_viewers_only_read() {
        assert!(wkl_7(&tenant()).is_passed());
        let check = examples::failing(RuleId::Wkl7); // viewers may create, and *
        assert_eq!(paths(&check), ["viewer_verbs"]);
        assert_eq!(check.findings()[0].observed, "[\"create\", \"*\"]");
    }

    #[test]
    fn wkl_11_refuses_a_project_role_grantee_even_while_the_target_role_is_unknown() {
        let mut tenant = tenant();
        tenant.target_role_arn = crate::Setting::Unknown;
        tenant.data_grants.grantee_role_arn = Some(examples::PROJECT_ROLE.into());
        assert_eq!(
            paths(&wkl_11(&tenant, &examples::contract())),
            ["data.grantee_role_arn"]
        );
        tenant.data_grants.grantee_role_arn = Some(examples::WORKLOAD_ROLE.into());
        assert!(wkl_11(&tenant, &examples::contract()).is_deferred());
    }

    #[test]
    fn wkl_10_judges_slurm_tenants_by_their_slurm_users() {
        assert!(
            wkl_10(&slurm_tenant()).is_passed(),
            "users associated, no Kubernetes groups needed"
        );
        let nobody = Tenant {
            slurm_users: Vec::new(),
            ..slurm_tenant()
        };
        let check = wkl_10(&nobody);
        assert_eq!(paths(&check), ["slurm.users"]);
        assert!(!check.findings()[0].problem.contains("quota"));
        for rule in [wkl_7, wkl_8, wkl_9] {
            assert!(matches!(
                rule(&slurm_tenant()).outcome,
                crate::Outcome::NotApplicable { .. }
            ));
        }
    }

    #[test]
    fn wkl_8_needs_default_deny_on_eks() {
        assert!(wkl_8(&tenant()).is_passed());
        assert_eq!(paths(&examples::failing(RuleId::Wkl8)), ["network_policy.default_deny"]);
        assert!(matches!(
            wkl_8(&Tenant {
                default_deny_network_policy: false,
                ..slurm_tenant()
            })
            .outcome,
            crate::Outcome::NotApplicable { .. }
        ));
    }

    #[test]
    fn wkl_9_session_policy_needs_session_tags_disabled() {
        assert!(wkl_9(&tenant()).is_passed());
        assert_eq!(
            paths(&examples::failing(RuleId::Wkl9)),
            ["workload.disable_session_tags"]
        );
        let mut with_policy = wkl_9_tenant();
        with_policy.pod_identity.disable_session_tags = true;
        assert!(wkl_9(&with_policy).is_passed());
    }

    #[test]
    fn wkl_10_needs_groups() {
        assert!(wkl_10(&tenant()).is_passed());
        assert!(
            wkl_10(&Tenant {
                viewer_groups: Vec::new(),
                ..tenant()
            })
            .is_passed()
        );
        assert_eq!(paths(&examples::failing(RuleId::Wkl10)), ["operator_groups"]);
    }

    #[test]
    fn wkl_11_data_goes_to_the_workload_role() {
        assert!(wkl_11(&tenant(), &contract()).is_passed());
        let mut to_workload = tenant();
        to_workload.data_grants.grantee_role_arn = Some(WORKLOAD_ROLE.into());
        assert!(wkl_11(&to_workload, &contract()).is_passed());
        let check = examples::failing(RuleId::Wkl11); // granted to the project role
        assert_eq!(paths(&check), ["data.grantee_role_arn"]);
        assert!(check.findings()[0].problem.contains("project role"));
        let mut to_stranger = tenant();
        to_stranger.data_grants.grantee_role_arn = Some("arn:aws:iam::111122223333:role/other".into());
        assert!(wkl_11(&to_stranger, &contract()).is_failed());
        let mut unknown = tenant();
        unknown.data_grants.grantee_role_arn = None;
        assert!(wkl_11(&unknown, &contract()).is_skipped());
        let mut nothing = unknown.clone();
        nothing.data_grants.buckets.clear();
        nothing.data_grants.kms_keys.clear();
        assert!(wkl_11(&nothing, &contract()).is_passed());
        // Without a workload identity: the data needs a grantee of the tenant's own, never a project role.
        let mut quota_only = tenant();
        quota_only.workload_role_arn = crate::Setting::Unset;
        quota_only.target_role_arn = crate::Setting::Unset;
        quota_only.data_grants.grantee_role_arn = None;
        let check = wkl_11(&quota_only, &contract());
        assert_eq!(paths(&check), ["data.grantee_role_arn"]);
        assert!(check.findings()[0].fix.contains("workload block"), "{check:?}");
        quota_only.data_grants.grantee_role_arn = Some("arn:aws:iam::111122223333:role/research-data".into());
        assert!(wkl_11(&quota_only, &contract()).is_passed());
        quota_only.data_grants.grantee_role_arn = Some(examples::PROJECT_ROLE.into());
        assert!(wkl_11(&quota_only, &contract()).is_failed());
    }
}
