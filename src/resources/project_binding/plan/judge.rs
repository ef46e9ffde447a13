//! The binding's verdict, from `BindingPlanInputs` alone: the engine's rules (`check_binding`: the contract, the
//! project, the cluster as the binding sees it), each member's profile, and the project's tooling environment; then
//! the warnings a reviewer needs (connections the plan could not list, connections of this project without a
//! contract, members the binding takes over).

use super::super::model::{BindingConfig, member_kind, same_member, unresolved};
use super::BindingPlanInputs;
use crate::aws::AwsError;
use crate::aws::datazone_connections::{Connection, Membership};
use crate::governance::{ClusterView, Fact, Member, Neighbours, Report, check_binding, paths};
use crate::protocol::diagnostics::{Diagnostic, Diagnostics};

/// What the plan decides about the binding: the engine's report as the plan records it (other projects' and teams'
/// live objects not counted: Terraform's re-plan at apply must read the same, `Neighbours`), the diagnostics to show
/// beside the plan, and what apply must refuse (`live_refusals`: what only those live objects break).
pub struct BindingVerdict {
    pub report: Report,
    pub warnings: Diagnostics,
    pub refusals: Diagnostics,
    pub live_refusals: Diagnostics,
}

pub fn judge(inputs: &BindingPlanInputs) -> BindingVerdict {
    let config = &inputs.config;
    let (profile_ids, member_findings) = member_profiles(config, &inputs.domain_id, &inputs.profiles);
    let binding = config.to_governance();
    let judged = |neighbours: Neighbours| {
        let view = ClusterView {
            neighbours,
            ..inputs.view.clone()
        };
        check_binding(&binding, &inputs.contract, &inputs.project.project, &view, inputs.today)
    };
    let report = judged(Neighbours::ReferencedOnly);
    let (recorded, live_only) = report.messages_with_live(&judged(Neighbours::LiveAndReferenced), inputs.strict);
    let mut diagnostics = Diagnostics(recorded.iter().map(crate::findings::diagnostic).collect());
    diagnostics.extend(member_findings);
    if matches!(inputs.project.tooling_environment_id, Fact::Known(None)) {
        diagnostics.push(Diagnostic::invalid_value(
            paths::binding::project_id(),
            format!("{:?}", config.project_id),
            "the project has no tooling environment, where Studio keeps a project's connections",
            "finish the project's setup in Unified Studio (its Tooling environment), then plan again",
        ));
    }
    diagnostics.extend(warnings(inputs, &profile_ids));
    let (refusals, mut warnings) = split(diagnostics);
    let (live_refusals, live_warnings) =
        split(Diagnostics(live_only.iter().map(crate::findings::diagnostic).collect()));
    warnings.extend(live_warnings);
    BindingVerdict {
        report,
        warnings,
        refusals,
        live_refusals,
    }
}

/// Errors (refusals) apart from warnings.
fn split(diagnostics: Diagnostics) -> (Diagnostics, Diagnostics) {
    let (errors, warnings): (Vec<_>, Vec<_>) = diagnostics
        .into_iter()
        .partition(|d| d.severity == crate::protocol::diagnostics::Severity::Error);
    (Diagnostics(errors), Diagnostics(warnings))
}

/// The warnings beside a binding the rules accept: listings that failed, this project's connections to the cluster
/// that no binding here manages, and members the project already has.
fn warnings(inputs: &BindingPlanInputs, profile_ids: &[Option<String>]) -> Diagnostics {
    let config = &inputs.config;
    let mut warnings = Diagnostics::new();
    for reason in &inputs.unlisted {
        warnings.push(Diagnostic::warning(
            paths::binding::cluster_name(),
            "HyperPod connections not checked",
            format!(
                "Could not list the domain's HyperPod connections ({reason}): connections without a contract and \
                 other projects on the cluster are not seen in this plan."
            ),
        ));
    }
    let own_id = inputs.prior.as_ref().and_then(|p| p.connection_id.as_ref());
    let duplicates: Vec<&Connection> = inputs
        .connections
        .iter()
        .filter(|c| c.project_id.as_deref() == Some(config.project_id.as_str()) && Some(&c.id) != own_id)
        .collect();
    if !duplicates.is_empty() {
        let name = config.connection_name_or_default();
        warnings.push(duplicates_warning(config, &duplicates, &name, own_id.is_none()));
    }
    if let Some(existing) = &inputs.memberships {
        let managed = inputs.prior.as_ref().map_or(&[][..], |p| p.members.as_slice());
        warnings.extend(adopted_warnings(config, managed, existing, profile_ids));
    }
    warnings
}

/// The warning about connections of this project to this cluster that no binding of this configuration manages.
fn duplicates_warning(config: &BindingConfig, duplicates: &[&Connection], name: &str, creating: bool) -> Diagnostic {
    let listed: Vec<String> = duplicates
        .iter()
        .map(|c| format!("{:?} (id {})", c.name, c.id))
        .collect();
    let mut detail = format!(
        "Project {:?} has HyperPod connections to cluster {:?} that this binding does not manage: {}. They exist \
         without a contract: delete them, or import the one to keep into this binding (terraform import <address> \
         <domain_id>/<connection_id>).",
        config.project_id,
        config.cluster_name,
        listed.join(", ")
    );
    if creating && duplicates.iter().any(|c| c.name == name) {
        detail.push_str(&format!(
            " Apply will fail: the connection name {name:?} is taken; import that connection instead."
        ));
    }
    Diagnostic::warning(
        paths::binding::cluster_name(),
        "HyperPod connections without a contract",
        detail,
    )
}

/// Members configured here that the project already has: the binding takes them over, and removes them on destroy.
/// `profile_ids`: each member's profile ID (`None`: not resolved), which is how the project lists its members.
fn adopted_warnings(
    config: &BindingConfig,
    managed: &[Member],
    existing: &[Membership],
    profile_ids: &[Option<String>],
) -> Diagnostics {
    let mut warnings = Diagnostics::new();
    for (index, (member, profile_id)) in config.members.iter().zip(profile_ids).enumerate() {
        let Some(profile_id) = profile_id else { continue };
        let kind = member_kind(member);
        let Some(found) = existing.iter().find(|m| m.kind == kind && &m.id == profile_id) else {
            continue;
        };
        if managed.iter().any(|m| same_member(m, member)) {
            continue;
        }
        warnings.push(Diagnostic::warning(
            paths::binding::member(index),
            "Existing project member",
            format!(
                "{:?} is already a member of project {:?} as {}; this binding takes the membership over{} and \
                 removes it when the binding is destroyed, unless another binding of the project declares it.",
                member.name,
                config.project_id,
                found.designation,
                if found.designation == member.designation {
                    String::new()
                } else {
                    format!(", changing it to {}", member.designation)
                }
            ),
        ));
    }
    warnings
}

/// Each member's profile ID (`None` where it could not be resolved) and the findings: a name that names no profile is
/// an error at the member (apply would fail on it); one that could not be read a warning (apply resolves it again);
/// two members that name the same profile an error at the second (a project has one membership per profile).
fn member_profiles(
    config: &BindingConfig,
    domain_id: &str,
    resolved: &[Result<String, AwsError>],
) -> (Vec<Option<String>>, Diagnostics) {
    let mut findings = Diagnostics::new();
    let mut ids: Vec<Option<String>> = Vec::new();
    for (index, (member, result)) in config.members.iter().zip(resolved).enumerate() {
        match result {
            Ok(id) => {
                let kind = member_kind(member);
                let earlier = config.members[..index].iter().zip(&ids).position(|(other, other_id)| {
                    member_kind(other) == kind && other_id.as_deref() == Some(id.as_str())
                });
                if let Some(earlier) = earlier {
                    findings.push(Diagnostic::invalid_value(
                        paths::binding::member(index),
                        format!("{:?}", member.name),
                        &format!(
                            "names the same DataZone profile ({id}) as member[{earlier}] ({:?}); a project has one \
                             membership per user or group",
                            config.members[earlier].name
                        ),
                        "list the member once",
                    ));
                }
                ids.push(Some(id.clone()));
            }
            Err(err) if err.is_not_found() => {
                findings.push(unresolved(index, member, domain_id, err));
                ids.push(None);
            }
            Err(err) => {
                findings.push(Diagnostic::warning(
                    paths::binding::member(index),
                    "Project member not resolved",
                    format!(
                        "Could not look up {:?} in domain {domain_id} ({err}); apply resolves it again before \
                         writing anything.",
                        member.name
                    ),
                ));
                ids.push(None);
            }
        }
    }
    (ids, findings)
}

#[cfg(test)]
mod tests {
    use super::super::super::model::{RecordedBinding, members_value};
    use super::*;
    use crate::governance::MemberKind;
    use crate::protocol::object::object;

    fn spec() -> BindingConfig {
        BindingConfig {
            project_id: "prj-research".into(),
            cluster_name: "ml-capacity".into(),
            project_role_arn: "arn:aws:iam::111122223333:role/datazone_usr_role_abc123".into(),
            domain_id: None,
            connection_name: None,
            description: None,
            members: vec![crate::governance::Member {
                kind: MemberKind::Group,
                name: "research-scientists".into(),
                designation: "PROJECT_OWNER".into(),
            }],
        }
    }

    #[test]
    fn members_the_project_already_has_are_announced_unless_already_managed() {
        let existing = vec![Membership {
            kind: crate::aws::datazone_connections::MembershipType::Group,
            id: "research-scientists".into(),
            designation: "PROJECT_CONTRIBUTOR".into(),
        }];
        let ids = [Some("research-scientists".to_string())];
        let warnings = adopted_warnings(&spec(), &[], &existing, &ids);
        assert_eq!(warnings.0.len(), 1);
        assert_eq!(warnings.0[0].path.to_string(), "member[0].name");
        assert!(warnings.0[0].detail.contains("changing it to PROJECT_OWNER"));
        let prior = object([("member", members_value(&spec().members))]);
        let managed = RecordedBinding::decode(&prior).members;
        assert!(adopted_warnings(&spec(), &managed, &existing, &ids).is_empty());
        // Matched on the profile ID the name resolves to, never on the name as written.
        assert!(adopted_warnings(&spec(), &[], &existing, &[Some("another-profile".to_string())]).is_empty());
        assert!(adopted_warnings(&spec(), &[], &existing, &[None]).is_empty());
    }

    #[test]
    fn unknown_and_repeated_profiles_are_findings_at_the_member() {
        let mut spec = spec();
        let member = |name: &str| crate::governance::Member {
            kind: MemberKind::Group,
            name: name.into(),
            designation: "PROJECT_CONTRIBUTOR".into(),
        };
        spec.members = vec![member("a"), member("b"), member("c"), member("d")];
        let not_found = crate::aws::AwsError::NotFound {
            kind: "DataZone group profile",
            id: "b".into(),
        };
        let throttled = crate::aws::AwsError::Api {
            operation: "SearchGroupProfiles",
            code: "ThrottlingException".into(),
            message: "slow down".into(),
        };
        let (ids, findings) = member_profiles(
            &spec,
            "dzd_abc123",
            &[Ok("p1".into()), Err(not_found), Err(throttled), Ok("p1".into())],
        );
        assert_eq!(ids, [Some("p1".to_string()), None, None, Some("p1".to_string())]);
        let found: Vec<(String, bool)> = findings
            .0
            .iter()
            .map(|d| {
                (
                    d.path.to_string(),
                    d.severity == crate::protocol::diagnostics::Severity::Error,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("member[1].name".to_string(), true),
                ("member[2].name".to_string(), false),
                ("member[3].name".to_string(), true)
            ]
        );
        assert!(
            findings.0[0].detail.contains("no DataZone group profile"),
            "{}",
            findings.0[0].detail
        );
        assert!(findings.0[2].detail.contains("member[0]"), "{}", findings.0[2].detail);
    }

    #[test]
    fn duplicates_are_named_and_a_taken_name_is_called_out_on_create() {
        let taken = Connection {
            id: "c1".into(),
            name: "hyperpod-ml-capacity".into(),
            ..Connection::default()
        };
        let warning = duplicates_warning(&spec(), &[&taken], "hyperpod-ml-capacity", true);
        assert!(
            warning.detail.contains("\"hyperpod-ml-capacity\" (id c1)"),
            "{}",
            warning.detail
        );
        assert!(warning.detail.contains("exist without a contract"));
        assert!(warning.detail.contains("Apply will fail"));
        let updating = duplicates_warning(&spec(), &[&taken], "hyperpod-ml-capacity", false);
        assert!(!updating.detail.contains("Apply will fail"));
    }
}
