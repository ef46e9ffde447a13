//! What the contract and the project binding read about a Unified Studio project at plan time: the project
//! (`GetProject`) and its tooling environment, whose user role PRJ-4 compares and in which the binding creates its
//! HyperPod connection; and a project role's permissions (PRJ-2 for the contract, CLU-8 for a Slurm restriction).
//! What cannot be read becomes `Fact::Unavailable` with the reason.

use crate::client::HyperpodClient;
use crate::governance::{Fact, LiveProject, PolicyDocument, RolePermissions};

/// The project as the rules see it, and the id of its tooling environment (`Known(None)`: it has none).
pub struct ProjectFacts {
    pub project: Fact<LiveProject>,
    pub tooling_environment_id: Fact<Option<String>>,
}

/// Reads project `project_id` of domain `domain_id`; either `None` means it is not known until apply.
pub async fn read(client: &HyperpodClient, domain_id: Option<&str>, project_id: Option<&str>) -> ProjectFacts {
    let (Some(domain_id), Some(project_id)) = (domain_id, project_id) else {
        let reason = "the domain or project is not known until apply".to_string();
        return ProjectFacts {
            project: Fact::Unavailable(reason.clone()),
            tooling_environment_id: Fact::Unavailable(reason),
        };
    };
    let project = match client.project(domain_id, project_id).await {
        Ok(project) => project,
        Err(err) => {
            let what = "the Unified Studio project";
            return ProjectFacts {
                project: Fact::unreadable(what, &err),
                tooling_environment_id: Fact::unreadable(what, &err),
            };
        }
    };
    match client.tooling_environment(domain_id, project_id).await {
        Ok(environment) => ProjectFacts {
            tooling_environment_id: Fact::Known(environment.as_ref().map(|e| e.id.clone())),
            project: Fact::Known(LiveProject {
                domain_unit_ancestors: ancestors(client, domain_id, project.domain_unit_id.as_deref()).await,
                domain_unit_id: project.domain_unit_id.unwrap_or_default(),
                tooling_user_role_arn: environment.and_then(|e| e.user_role_arn),
                project_profile_id: project.project_profile_id,
            }),
        },
        Err(err) => {
            let what = "the project's tooling environment";
            ProjectFacts {
                project: Fact::unreadable(what, &err),
                tooling_environment_id: Fact::unreadable(what, &err),
            }
        }
    }
}

/// The domain units above `unit`, nearest first; a unit that cannot be read ends the walk (ORG-1 then judges what
/// it has). Domains nest a handful of levels; the bound guards against a cycle.
async fn ancestors(client: &HyperpodClient, domain_id: &str, unit: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut next = unit.map(str::to_string);
    while let Some(current) = next.take() {
        if out.len() >= 16 {
            break;
        }
        match client.domain_unit(domain_id, &current).await {
            Ok(found) => {
                if let Some(parent) = found.parent_domain_unit_id {
                    out.push(parent.clone());
                    next = Some(parent);
                }
            }
            Err(_) => break,
        }
    }
    out
}

/// Every policy on role `role_arn` (inline and attached), as the IAM rules evaluate them.
pub async fn role_permissions(client: &HyperpodClient, role_arn: &str) -> Fact<RolePermissions> {
    match client.role_policies(role_arn).await {
        Ok(policies) => Fact::Known(RolePermissions {
            role_arn: role_arn.to_string(),
            policies: policies
                .into_iter()
                .map(|policy| PolicyDocument {
                    name: policy.name,
                    managed_arn: policy.managed_arn,
                    document: policy.document,
                })
                .collect(),
        }),
        Err(err) => Fact::unreadable(&format!("role {role_arn}"), &err),
    }
}
