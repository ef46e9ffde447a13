//! Organization rules (ORG-*): the project's place in the Unified Studio domain, and the accounts a connection
//! spans (capacity account, approved consumer/data accounts).

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Contract, Fact, LiveCluster, LiveProject, OrganizationGrant, Setting, Tenant};
use super::paths;
use hyperpod_model::ids::Arn;

/// ORG-1: the live project belongs to the contract's domain unit.
pub fn org_1(contract: &Contract, project: &Fact<LiveProject>) -> Check {
    let rule = RuleId::Org1;
    let Some(wanted) = contract.unified_studio.domain_unit_id.as_deref() else {
        return Check::unknown(rule, "unified_studio.domain_unit_id");
    };
    if contract.unified_studio.project_id.is_none() {
        return Check::unknown(rule, "unified_studio.project_id");
    }
    let live = match project {
        Fact::Known(live) => live,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let mut findings = if live.domain_unit_id == wanted {
        Vec::new()
    } else {
        vec![Finding {
            path: paths::contract::unified_studio("domain_unit_id"),
            observed: format!("the project is in domain unit {:?}", live.domain_unit_id),
            problem: format!("the project does not belong to the contract's domain unit {wanted:?}"),
            fix: "name the project's real domain unit, or move the project under the approved domain unit in Unified Studio".into(),
            ..Finding::of(rule)
        }]
    };
    let mut detail = format!("the project is in domain unit {wanted:?}");
    if let Some(grant) = &contract.organization {
        findings.extend(outside_grant(grant, live));
        findings.extend(unapproved_profile(grant, live));
        detail.push_str(&format!(", which grant on {:?} covers", grant.domain_unit_id));
    }
    Check::from_findings(rule, findings, detail)
}

/// ORG-1 against the contract's organization grant: the grant does not cover the project's domain unit (its own,
/// or with `include_child_domain_units` one below it).
fn outside_grant(grant: &OrganizationGrant, live: &LiveProject) -> Option<Finding> {
    let covered = live.domain_unit_id == grant.domain_unit_id
        || (grant.include_child_domain_units && live.domain_unit_ancestors.contains(&grant.domain_unit_id));
    (!covered).then(|| Finding {
        path: paths::contract::organization("domain_unit_id"),
        observed: format!(
            "the project is in domain unit {:?}; the grant covers {:?}{}",
            live.domain_unit_id,
            grant.domain_unit_id,
            if grant.include_child_domain_units {
                " and its children"
            } else {
                " only"
            }
        ),
        problem: "the organization grant the contract names does not cover the project's domain unit".into(),
        fix: "reference the grant of the project's domain unit, or set include_child_domain_units on the parent's"
            .into(),
        ..Finding::of(RuleId::Org1)
    })
}

/// ORG-1 against the contract's organization grant: the project was created from a profile the grant does not
/// approve.
fn unapproved_profile(grant: &OrganizationGrant, live: &LiveProject) -> Option<Finding> {
    match &live.project_profile_id {
        Some(profile) if !grant.project_profile_ids.contains(profile) => Some(Finding {
            path: paths::contract::organization("project_profile_ids"),
            observed: format!(
                "the project was created from profile {profile:?}; the grant approves {:?}",
                grant.project_profile_ids
            ),
            problem: "the project was not created from a project profile the organization approved".into(),
            fix: "recreate the project from an approved profile, or have the profile approved in the grant".into(),
            ..Finding::of(RuleId::Org1)
        }),
        _ => None,
    }
}

/// ORG-2: a tenant's cross-account Pod Identity target role lives in the capacity account or an approved one.
pub fn org_2(tenant: &Tenant, contract: &Contract) -> Check {
    let rule = RuleId::Org2;
    let at = paths::tenant::workload("target_role_arn");
    let target = match &tenant.target_role_arn {
        Setting::Unset => return Check::passed(rule, "no cross-account target role"),
        Setting::Unknown => return Check::unknown(rule, at.to_string()),
        Setting::Set(target) => target,
    };
    let account = match Arn::parse(target) {
        Ok(arn) => arn.account,
        Err(err) => {
            let finding = Finding {
                path: at,
                observed: format!("{target:?}"),
                problem: err,
                fix: "use the target role's ARN".into(),
                ..Finding::of(rule)
            };
            return Check::from_findings(rule, vec![finding], "");
        }
    };
    let approved = account == contract.cluster.account_id || contract.approved_account_ids.contains(&account);
    let findings = if approved {
        Vec::new()
    } else {
        vec![Finding {
            path: at,
            observed: format!(
                "{target} (account {account}; approved: {:?})",
                contract.approved_account_ids
            ),
            problem: "the target role lives in an account the contract does not approve as a consumer or data account"
                .into(),
            fix: format!(
                "add {account} to the contract's approved_account_ids after review, or use a role in an approved \
                 account"
            ),
            ..Finding::of(rule)
        }]
    };
    Check::from_findings(rule, findings, format!("target role account {account} is approved"))
}

/// ORG-3: the cluster exists, in the contract's capacity account and region. `Known(None)`: not found.
pub fn org_3(contract: &Contract, cluster: &Fact<Option<LiveCluster>>) -> Check {
    let rule = RuleId::Org3;
    let wanted = &contract.cluster;
    let live = match cluster {
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
        Fact::Known(None) => {
            let finding = Finding {
                path: paths::contract::cluster("name"),
                observed: format!("no cluster named {:?} is visible to the provider", wanted.name),
                problem: "the cluster does not exist where the contract says it lives".into(),
                fix: "create the cluster first, fix the name, or configure the provider for the capacity account and region".into(),
                ..Finding::of(rule)
            };
            return Check::from_findings(rule, vec![finding], "");
        }
        Fact::Known(Some(live)) => live,
    };
    let mut findings = Vec::new();
    for (field, declared, actual) in [
        ("account_id", &wanted.account_id, &live.account_id),
        ("region", &wanted.region, &live.region),
    ] {
        if declared != actual {
            findings.push(Finding {
                path: paths::contract::cluster(field),
                observed: format!("cluster {:?} is in {field} {actual}", wanted.name),
                problem: format!("the contract's {field} is {declared}"),
                fix: format!("set cluster.{field} to {actual}, or point the provider at the cluster in {declared}"),
                ..Finding::of(rule)
            });
        }
    }
    Check::from_findings(
        rule,
        findings,
        format!(
            "cluster {:?} is in {} {}",
            wanted.name, wanted.account_id, wanted.region
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{self, CAPACITY_ACCOUNT, contract, live_cluster as live, live_project, org_2_tenant, tenant};
    use crate::model::{Orchestrator, OrganizationGrant};

    fn project(domain_unit: &str) -> Fact<LiveProject> {
        live_project(domain_unit, None)
    }

    #[test]
    fn org_1_compares_domain_units() {
        assert!(org_1(&contract(), &project("research_unit")).is_passed());
        let failed = examples::failing(RuleId::Org1);
        assert_eq!(failed.findings()[0].path.to_string(), "unified_studio.domain_unit_id");
        assert!(failed.findings()[0].observed.contains("marketing_unit"));
        assert!(org_1(&contract(), &Fact::Unavailable("AccessDenied on GetProject".into())).is_skipped());
        let mut unknown = contract();
        unknown.unified_studio.project_id = None;
        assert!(org_1(&unknown, &project("research_unit")).is_skipped());
    }

    #[test]
    fn org_1_checks_the_organization_grant_the_contract_names() {
        let with_grant = |unit: &str, children: bool, profiles: &[&str]| {
            let mut contract = contract();
            contract.organization = Some(OrganizationGrant {
                domain_unit_id: unit.into(),
                project_profile_ids: profiles.iter().map(std::string::ToString::to_string).collect(),
                include_child_domain_units: children,
            });
            contract
        };
        // The examples' project: unit research_unit under root_unit, created from hyperpodprof01.
        let live = project("research_unit");
        assert!(org_1(&with_grant("research_unit", false, &["hyperpodprof01"]), &live).is_passed());
        assert!(org_1(&with_grant("root_unit", true, &["hyperpodprof01"]), &live).is_passed());
        let parent_only = org_1(&with_grant("root_unit", false, &["hyperpodprof01"]), &live);
        let paths: Vec<String> = parent_only.findings().iter().map(|f| f.path.to_string()).collect();
        assert_eq!(paths, ["organization.domain_unit_id"]);
        let other_profile = org_1(&with_grant("research_unit", false, &["otherprofile"]), &live);
        let paths: Vec<String> = other_profile.findings().iter().map(|f| f.path.to_string()).collect();
        assert_eq!(paths, ["organization.project_profile_ids"]);
    }

    #[test]
    fn org_2_allows_capacity_and_approved_accounts_only() {
        let contract = contract();
        assert!(org_2(&tenant(), &contract).is_passed());
        let mut same_account = tenant();
        same_account.target_role_arn = Setting::Set(format!("arn:aws:iam::{CAPACITY_ACCOUNT}:role/local"));
        assert!(org_2(&same_account, &contract).is_passed());
        let mut none = tenant();
        none.target_role_arn = Setting::Unset;
        assert!(org_2(&none, &contract).is_passed());
        let mut foreign = org_2_tenant(); // a target role in 999988887777
        let failed = org_2(&foreign, &contract);
        assert_eq!(failed.findings()[0].path.to_string(), "workload.target_role_arn");
        assert!(failed.findings()[0].fix.contains("999988887777"));
        foreign.target_role_arn = Setting::Set("garbage".into());
        assert!(org_2(&foreign, &contract).is_failed());
        foreign.target_role_arn = Setting::Unknown;
        assert!(org_2(&foreign, &contract).is_skipped());
    }

    #[test]
    fn org_3_checks_existence_account_and_region() {
        assert!(org_3(&contract(), &live(CAPACITY_ACCOUNT, "us-west-2", Orchestrator::Eks)).is_passed());
        let moved = examples::failing(RuleId::Org3); // in 999988887777, eu-west-1
        let paths: Vec<String> = moved.findings().iter().map(|f| f.path.to_string()).collect();
        assert_eq!(paths, ["cluster.account_id", "cluster.region"]);
        assert_eq!(
            org_3(&contract(), &Fact::Known(None)).findings()[0].path.to_string(),
            "cluster.name"
        );
        assert!(org_3(&contract(), &Fact::Unavailable("throttled".into())).is_skipped());
    }
}
