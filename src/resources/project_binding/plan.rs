//! Plan time: judge the binding against its contract, its project and its cluster (the tenants and the task view
//! restriction it references, and what exists on the cluster), and predict where the connection goes, so the
//! reviewer sees the environment, cluster ARN, orchestrator and checklist before anything exists.

use std::collections::BTreeMap;

use super::model::{BindingSpec, default_connection_name, members_of, resolve_all, same_member};
use crate::aws::datazone_connections::{Connection, Membership};
use crate::aws::sagemaker;
use crate::client::HyperpodClient;
use crate::findings::ToDiagnostics;
use crate::governance::{Contract, Fact, ProjectOnCluster, check_binding, paths};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, text};
use crate::protocol::value::Value;
use crate::resources::cluster_facts as live;
use crate::resources::cluster_facts::CONCURRENT_READS;
use crate::resources::project_facts;
use crate::resources::references;
use futures::StreamExt as _;
use futures::future::{BoxFuture, FutureExt as _};

/// The attributes derived at plan time; unknown while the contract or the spec is.
pub const DERIVED: [&str; 10] = [
    "id",
    "connection_id",
    "domain_id",
    "connection_name",
    "environment_id",
    "cluster_arn",
    "orchestrator",
    "passed_checks",
    "not_applicable_checks",
    "findings",
];

pub struct Derived {
    pub attributes: BTreeMap<&'static str, Value>,
    pub warnings: Diagnostics,
}

/// The binding's domain: its own `domain_id`, else the contract's; they must agree.
fn domain_of(spec: &BindingSpec, contract: &Contract) -> Result<String, Diagnostics> {
    match (&spec.domain_id, &contract.unified_studio.domain_id) {
        (Some(own), Some(approved)) if own != approved => Err(Diagnostic::invalid_value(
            AttributePath::attr("domain_id"),
            format!("{own:?}"),
            &format!("contract {:?} approves a project of domain {approved:?}", contract.name),
            "leave domain_id unset (it defaults to the contract's), or reference that domain's contract",
        )
        .into()),
        (Some(domain), _) | (None, Some(domain)) => Ok(domain.clone()),
        // The domain is missing from the contract's facts: the finding sits where the value comes from.
        (None, None) => Err(Diagnostics::error(
            AttributePath::attr("contract"),
            "Unknown Unified Studio domain",
            "Neither the binding nor its contract names a domain (the contract's domain_id is null); set domain_id \
             on the binding or unified_studio.domain_id on the contract.",
        )),
    }
}

fn orchestrator_name(cluster: &sagemaker::HyperPodCluster) -> &'static str {
    match cluster.orchestrator {
        sagemaker::ClusterOrchestrator::Eks { .. } => "EKS",
        sagemaker::ClusterOrchestrator::Slurm => "SLURM",
    }
}

/// Other projects' HyperPod connections to the cluster, with the role each is used with (for CLU-2). A role that
/// cannot be read stays unknown, which CLU-2 reports as such.
async fn other_projects(
    client: &HyperpodClient,
    connections: &[Connection],
    own_project: &str,
) -> Vec<ProjectOnCluster> {
    let mut others: Vec<(&Connection, String)> = Vec::new();
    for connection in connections {
        match &connection.project_id {
            Some(project_id) if project_id != own_project && !others.iter().any(|(_, p)| p == project_id) => {
                others.push((connection, project_id.clone()));
            }
            _ => {}
        }
    }
    // Boxed and collected first: a lazy iterator of async blocks is not provably Send across the await.
    let reads: Vec<BoxFuture<'_, ProjectOnCluster>> = others
        .into_iter()
        .map(|(connection, project_id)| {
            async move {
                let role = client
                    .connection(&connection.domain_id, &connection.id)
                    .await
                    .ok()
                    .and_then(|found| found.environment_user_role);
                ProjectOnCluster {
                    project_id,
                    project_role_arn: role,
                }
            }
            .boxed()
        })
        .collect();
    futures::stream::iter(reads).buffered(CONCURRENT_READS).collect().await
}

/// The warning about connections of this project to this cluster that no binding of this configuration manages.
fn duplicates_warning(spec: &BindingSpec, duplicates: &[&Connection], name: &str, creating: bool) -> Diagnostic {
    let listed: Vec<String> = duplicates
        .iter()
        .map(|c| format!("{:?} (id {})", c.name, c.id))
        .collect();
    let mut detail = format!(
        "Project {:?} has HyperPod connections to cluster {:?} that this binding does not manage: {}. They exist \
         without a contract: delete them, or import the one to keep into this binding (terraform import <address> \
         <domain_id>/<connection_id>).",
        spec.project_id,
        spec.cluster_name,
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
    spec: &BindingSpec,
    prior: Option<&Value>,
    existing: &[Membership],
    profile_ids: &[Option<String>],
) -> Diagnostics {
    let managed = prior.and_then(members_of).unwrap_or_default();
    let mut warnings = Diagnostics::new();
    for (index, (member, profile_id)) in spec.members.iter().zip(profile_ids).enumerate() {
        let Some(profile_id) = profile_id else { continue };
        let kind = super::model::member_kind(member);
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
                 removes it when the binding is destroyed.",
                member.name,
                spec.project_id,
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
    spec: &BindingSpec,
    domain_id: &str,
    resolved: Vec<Result<String, crate::aws::AwsError>>,
) -> (Vec<Option<String>>, Diagnostics) {
    let mut findings = Diagnostics::new();
    let mut ids: Vec<Option<String>> = Vec::new();
    for (index, (member, result)) in spec.members.iter().zip(resolved).enumerate() {
        match result {
            Ok(id) => {
                let kind = super::model::member_kind(member);
                let earlier = spec.members[..index].iter().zip(&ids).position(|(other, other_id)| {
                    super::model::member_kind(other) == kind && other_id.as_deref() == Some(id.as_str())
                });
                if let Some(earlier) = earlier {
                    findings.push(Diagnostic::invalid_value(
                        paths::binding::member(index),
                        format!("{:?}", member.name),
                        &format!(
                            "names the same DataZone profile ({id}) as member[{earlier}] ({:?}); a project has one \
                             membership per user or group",
                            spec.members[earlier].name
                        ),
                        "list the member once",
                    ));
                }
                ids.push(Some(id));
            }
            Err(err) if err.is_not_found() => {
                findings.push(super::model::unresolved(index, member, domain_id, &err));
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

/// Judges and predicts. `prior` is the state (None on create).
pub async fn derive(
    client: &HyperpodClient,
    value: &Value,
    spec: &BindingSpec,
    contract: &Contract,
    prior: Option<&Value>,
    today: time::Date,
    phase: crate::governance::Phase,
) -> Result<Derived, Diagnostics> {
    let domain_id = domain_of(spec, contract)?;
    let cluster = live::find_contract_cluster(client, contract).await?;
    let binding = spec.to_governance();
    let (cluster_arn, cluster_name) = (cluster.arn.clone(), cluster.name.clone());
    let orchestrator = orchestrator_name(&cluster);
    // CLU-2 asks whether this project's role is restricted: only its access entry is read.
    let project_role: Vec<&str> = contract.project_role_arn.as_deref().into_iter().collect();
    let (facts, project, own_connections, memberships, resolved) = tokio::join!(
        live::gather(client, cluster, live::ClusterReads::Binding, &project_role),
        project_facts::read(client, Some(&domain_id), Some(&spec.project_id)),
        client.hyperpod_connections(&domain_id, Some(&spec.project_id)),
        client.project_memberships(&domain_id, &spec.project_id),
        resolve_all(client, &domain_id, &spec.members),
    );
    let mut warnings = Diagnostics::new();
    let (profile_ids, member_findings) = member_profiles(spec, &domain_id, resolved);
    let not_listed = |warnings: &mut Diagnostics, err: &crate::aws::AwsError| {
        warnings.push(Diagnostic::warning(
            paths::binding::cluster_name(),
            "HyperPod connections not checked",
            format!(
                "Could not list the domain's HyperPod connections ({err}): connections without a contract and \
                 other projects on the cluster are not seen in this plan."
            ),
        ));
    };
    let on_cluster = |all: Vec<Connection>| -> Vec<Connection> {
        all.into_iter()
            .filter(|c| c.cluster_name.as_deref() == Some(cluster_name.as_str()))
            .collect()
    };
    let connections: Vec<Connection> = match own_connections {
        Ok(all) => on_cluster(all),
        Err(err) => {
            not_listed(&mut warnings, &err);
            Vec::new()
        }
    };
    // The tenants and the restriction the binding references, and what exists: never what else this provider
    // process happens to have planned (that would make the verdict depend on planning order).
    let view_with = |connected: &[ProjectOnCluster]| {
        let mut view = crate::resources::cluster_view::view(
            &facts,
            references::tenants(value, "tenants"),
            references::restriction(value, "task_view_restriction"),
            None,
            connected,
        );
        view.allocation = references::allocation(value, "allocation");
        view.phase = phase;
        view
    };
    let mut view = view_with(&[]);
    // Other projects' connections matter only to CLU-2 for an unrestricted project role: only then is the
    // domain's whole connection list read.
    let restricted = contract
        .project_role_arn
        .as_deref()
        .is_some_and(|role| crate::governance::cluster::restriction_for(&view, role).0);
    if !restricted {
        match client.hyperpod_connections(&domain_id, None).await {
            Ok(all) => {
                let connected = other_projects(client, &on_cluster(all), &spec.project_id).await;
                view = view_with(&connected);
            }
            Err(err) => not_listed(&mut warnings, &err),
        }
    }
    let report = check_binding(&binding, contract, &project.project, &view, today);
    let mut diagnostics = report.diagnostics(client.strict);
    diagnostics.extend(member_findings);
    let environment_id = match &project.tooling_environment_id {
        Fact::Known(Some(id)) => text(id),
        Fact::Known(None) => {
            diagnostics.push(Diagnostic::invalid_value(
                paths::binding::project_id(),
                format!("{:?}", spec.project_id),
                "the project has no tooling environment, where Studio keeps a project's connections",
                "finish the project's setup in Unified Studio (its Tooling environment), then plan again",
            ));
            Value::Null
        }
        // PRJ-4 warns that the project could not be read; apply resolves the environment again.
        Fact::Unavailable(_) => Value::Unknown,
    };
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }

    let own_id = prior.and_then(|p| string(p, "connection_id"));
    let name = spec
        .connection_name
        .clone()
        .unwrap_or_else(|| default_connection_name(&spec.cluster_name, &spec.project_id));
    let duplicates: Vec<&Connection> = connections
        .iter()
        .filter(|c| c.project_id.as_deref() == Some(spec.project_id.as_str()) && Some(&c.id) != own_id.as_ref())
        .collect();
    if !duplicates.is_empty() {
        warnings.push(duplicates_warning(spec, &duplicates, &name, own_id.is_none()));
    }
    if let Ok(existing) = &memberships {
        warnings.extend(adopted_warnings(spec, prior, existing, &profile_ids));
    }
    diagnostics.extend(warnings);

    let recorded = |name: &str| match prior.and_then(|p| p.get_attr(name)) {
        Some(value @ Value::String(_)) => value.clone(),
        _ => Value::Unknown,
    };
    let mut attributes: BTreeMap<&'static str, Value> = BTreeMap::new();
    attributes.insert("id", recorded("id"));
    attributes.insert("connection_id", recorded("connection_id"));
    attributes.insert("domain_id", text(&domain_id));
    attributes.insert("connection_name", text(name));
    attributes.insert("environment_id", environment_id);
    attributes.insert("cluster_arn", text(&cluster_arn));
    attributes.insert("orchestrator", text(orchestrator));
    attributes.extend(crate::resources::checklist::of(&report));
    Ok(Derived {
        attributes,
        warnings: diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::MemberKind;
    use crate::governance::examples::contract;
    use crate::protocol::object::object;

    fn spec() -> BindingSpec {
        BindingSpec {
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
    fn the_domain_defaults_to_the_contracts_and_must_agree_with_it() {
        assert_eq!(domain_of(&spec(), &contract()).ok().as_deref(), Some("dzd_abc123"));
        let mut elsewhere = spec();
        elsewhere.domain_id = Some("dzd_other".into());
        let errors = domain_of(&elsewhere, &contract()).err().unwrap_or_default();
        assert_eq!(errors.0[0].path.to_string(), "domain_id");
    }

    #[test]
    fn members_the_project_already_has_are_announced_unless_already_managed() {
        let existing = vec![Membership {
            kind: crate::aws::datazone_connections::MembershipType::Group,
            id: "research-scientists".into(),
            designation: "PROJECT_CONTRIBUTOR".into(),
        }];
        let ids = [Some("research-scientists".to_string())];
        let warnings = adopted_warnings(&spec(), None, &existing, &ids);
        assert_eq!(warnings.0.len(), 1);
        assert_eq!(warnings.0[0].path.to_string(), "member[0].name");
        assert!(warnings.0[0].detail.contains("changing it to PROJECT_OWNER"));
        let prior = object([("member", super::super::model::members_value(&spec().members))]);
        assert!(adopted_warnings(&spec(), Some(&prior), &existing, &ids).is_empty());
        // Matched on the profile ID the name resolves to, never on the name as written.
        assert!(adopted_warnings(&spec(), None, &existing, &[Some("another-profile".to_string())]).is_empty());
        assert!(adopted_warnings(&spec(), None, &existing, &[None]).is_empty());
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
            vec![Ok("p1".into()), Err(not_found), Err(throttled), Ok("p1".into())],
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
